"""gunicorn settings, all from the environment.

gthread workers: one open SSE stream holds one thread, not a whole worker. With the in-memory
rate-limit storage the default is a single worker, because limits and lockouts must be shared
by every request; with Redis (RATELIMIT_STORAGE_URI=redis://...) several workers share them.
"""
import multiprocessing
import os


def _int(name, default):
    return int(os.environ.get(name) or default)


_shared_limits = (os.environ.get("RATELIMIT_STORAGE_URI") or "memory://").startswith(("redis", "rediss"))

wsgi_app = "wsgi:app"
bind = f"{os.environ.get('HOST') or '127.0.0.1'}:{_int('PORT', 8000)}"
worker_class = "gthread"
workers = _int("WEB_CONCURRENCY", min(4, multiprocessing.cpu_count() * 2) if _shared_limits else 1)
threads = _int("GUNICORN_THREADS", 128)  # each open chat stream holds one thread for its whole life
timeout = _int("GUNICORN_TIMEOUT", 60)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)
keepalive = _int("GUNICORN_KEEPALIVE", 5)
max_requests = _int("GUNICORN_MAX_REQUESTS", 0)
max_requests_jitter = _int("GUNICORN_MAX_REQUESTS_JITTER", 0)
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-") or None  # empty: no access log
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "info")
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
