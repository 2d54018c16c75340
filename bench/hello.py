"""The ceiling: a bare Flask app answering like /health, served with the same gunicorn settings."""
from flask import Flask

app = Flask(__name__)


@app.get("/health")
def health():
    return {"status": "ok"}
