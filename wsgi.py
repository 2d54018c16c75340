"""WSGI entry point: gunicorn "wsgi:app", flask --app wsgi ..."""
import gc

from trazo import create_app

app = create_app()
# Everything built at start-up lives as long as the worker: keep it out of the collector's scans.
gc.freeze()
