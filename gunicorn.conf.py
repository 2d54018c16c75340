"""gunicorn settings, all from the environment.

gthread workers: one open SSE stream holds one thread, not a whole worker. With the in-memory
rate-limit storage the default is a single worker, because limits and lockouts must be shared
by every request; with Redis (RATELIMIT_STORAGE_URI=redis://...) several workers share them.

A thread reading a request body waits for it, however slowly it trickles in: the service needs a
proxy that buffers whole requests in front (the nginx example in README.md does).
"""
import importlib.util
import ipaddress
import multiprocessing
import os
import shutil
import tempfile
from pathlib import Path


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
# The path without its query string, and no referrer: share access tokens travel in query strings. The
# logger class writes the path with a share token cut short and a files API path as `{path}`.
# Last, the request id the application answered with (X-Request-ID).
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms "%(a)s" %({x-request-id}o)s'
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "info")


def _standalone_logs_module():
    """src/trazo/logs.py loaded on its own: importing `trazo.logs` would import the whole application into
    the master, and workers forked after a HUP would keep that old code (logs.py needs no other module
    of ours)."""
    package = importlib.util.find_spec("trazo")  # finds the package without importing it
    path = Path(package.submodule_search_locations[0]) / "logs.py"
    spec = importlib.util.spec_from_file_location("trazo_gunicorn_logs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# One line per record for the access and error logs (control characters escaped), or one JSON object per
# line with LOG_FORMAT=json; paths without secrets or user content in both (docs/operations.md).
if (os.environ.get("LOG_FORMAT") or "text").strip().lower() == "json":
    logger_class = _standalone_logs_module().GunicornJsonLogger
else:
    logger_class = _standalone_logs_module().GunicornTextLogger

forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# No runtime control socket: its default path (~/.gunicorn/gunicorn.ctl) is shared by every gunicorn this
# user runs, so two instances on one host would steer each other; signals do the same job.
control_socket_disable = True
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


def on_starting(server):
    """Prometheus multiprocess mode (docs/operations.md, "Metrics"): each worker writes its metrics to files
    in PROMETHEUS_MULTIPROC_DIR and GET /metrics merges them. The directory (the variable's, else a new
    temporary one) is emptied of a previous run's files and exported before any worker is forked, so every
    worker inherits it; prometheus-client reads the variable when a worker first imports it."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        directory = tempfile.mkdtemp(prefix="trazo-metrics-")
        os.environ["TRAZO_METRICS_TEMP_DIR"] = directory  # ours: on_exit removes it
    os.makedirs(directory, exist_ok=True)
    for stale in Path(directory).glob("*.db"):
        stale.unlink()
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory


def child_exit(server, worker):
    """A dead worker's live gauges (connections in use, open streams) stop counting; its counters stay."""
    # Imported here, after on_starting: the module picks file or memory storage when first imported,
    # and the workers forked from this process must inherit the file storage.
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    if temporary := os.environ.get("TRAZO_METRICS_TEMP_DIR"):
        shutil.rmtree(temporary, ignore_errors=True)


def post_worker_init(worker):
    """Start the worker's e-mail sender thread now rather than at its first message, so the messages a dead
    worker had claimed are sent without waiting for a new one (docs/operations.md, "E-mail outbox")."""
    start_sender = getattr(worker.wsgi, "extensions", {}).get("trazo.outbox_sender")
    if start_sender is not None:
        start_sender()
