"""gunicorn settings, all from the environment.

gthread workers: one open SSE stream holds one thread, not a whole worker. With the in-memory
rate-limit storage the default is a single worker, because limits and lockouts must be shared
by every request; with Redis (RATELIMIT_STORAGE_URI=redis://...) several workers share them.

A thread reading a request body waits for it, however slowly it trickles in: the service needs a
proxy that buffers whole requests in front (the nginx example in README.md does).
"""
import ipaddress
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
# The path without its query string, and no referrer: share access tokens travel in query strings.
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms "%(a)s"'
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "info")
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
limit_request_line = 4094
limit_request_fields = 50
limit_request_field_size = 8190


def _reachable_from_outside(address):
    if not isinstance(address, tuple):  # a unix socket or an inherited file descriptor
        return False
    host = address[0]
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name other than localhost
        return True


def when_ready(server):
    """Warn when X-Forwarded-For is trusted on an address clients can reach without the proxy."""
    hops = (os.environ.get("TRUSTED_PROXY_COUNT") or "0").strip()
    if hops == "0":
        return
    for address in server.cfg.address:
        if _reachable_from_outside(address):
            server.log.warning(
                "listening on %s with TRUSTED_PROXY_COUNT=%s: a client that reaches gunicorn directly can "
                "forge X-Forwarded-For and choose the address per-address limits count; bind to 127.0.0.1 "
                "(HOST) behind the proxy", address[0], hops)
