"""WSGI entry point: gunicorn "wsgi:app", flask --app wsgi ..."""
from trazo import create_app

app = create_app()
