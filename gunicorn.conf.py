"""gunicorn settings, all from the environment.

gthread workers: one open SSE stream holds one thread, not a whole worker. With the in-memory
rate-limit storage the default is a single worker, because limits and lockouts must be shared
by every request; with Redis (RATELIMIT_STORAGE_URI=redis://...) several workers share them.

A thread reading a request body waits for it, however slowly it trickles in: the service needs a
proxy that buffers whole requests in front (the nginx example in README.md does).
"""
import ctypes
import importlib.util
import ipaddress
import os
import platform
import shutil
import tempfile
from pathlib import Path


def _standalone_module(name):
    """src/trazo/<name>.py loaded on its own: importing `trazo.<name>` would import the whole application into
    the master, and workers forked after a HUP would keep that old code (logs.py and settings.py need no other
    module of ours)."""
    package = importlib.util.find_spec("trazo")  # finds the package without importing it
    path = Path(package.submodule_search_locations[0]) / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"trazo_gunicorn_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Every setting read here is declared in src/trazo/settings.py ("Server" and the ones shared with the service).
_settings = _standalone_module("settings")
SERVER_SETTINGS = [setting.name for setting in _settings.SETTINGS if setting.section == "Server"]
_env = _settings.read(os.environ, names=(*SERVER_SETTINGS, "RATELIMIT_STORAGE_URI", "LOG_FORMAT"))

wsgi_app = "wsgi:app"
bind = f"{_env['HOST']}:{_env['PORT']}"
worker_class = "gthread"
workers = _env["WEB_CONCURRENCY"]  # 1 with in-memory limits, which every request must share
threads = _env["GUNICORN_THREADS"]  # each open chat stream holds one thread for its whole life
timeout = _env["GUNICORN_TIMEOUT"]
graceful_timeout = _env["GUNICORN_GRACEFUL_TIMEOUT"]
keepalive = _env["GUNICORN_KEEPALIVE"]
max_requests = _env["GUNICORN_MAX_REQUESTS"]
max_requests_jitter = _env["GUNICORN_MAX_REQUESTS_JITTER"]
accesslog = _env["GUNICORN_ACCESSLOG"] or None  # empty: no access log
# The path without its query string, and no referrer: share access tokens travel in query strings. The
# logger class writes the path with a share token cut short and a files API path as `{path}`.
# Last, the request id the application answered with (X-Request-ID).
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms "%(a)s" %({x-request-id}o)s'
errorlog = "-"
loglevel = _env["GUNICORN_LOGLEVEL"]

# One line per record for the access and error logs (control characters escaped), or one JSON object per
# line with LOG_FORMAT=json; paths without secrets or user content in both (docs/operations.md).
if _env["LOG_FORMAT"] == "json":
    logger_class = _standalone_module("logs").GunicornJsonLogger
else:
    logger_class = _standalone_module("logs").GunicornTextLogger

forwarded_allow_ips = _env["FORWARDED_ALLOW_IPS"]
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
    hops = _settings.value(os.environ, "TRUSTED_PROXY_COUNT")
    if hops == 0:
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
    directory = _settings.value(os.environ, "PROMETHEUS_MULTIPROC_DIR")
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


# glibc's mallopt parameter (malloc.h) and the size from which a worker's allocations get pages of their own.
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 1024 * 1024


def post_fork(server, worker):
    """Every allocation of 1 MiB or more gets its own pages, given back to the system when it is freed
    (glibc only). Left alone, glibc raises that threshold to the size of the first large block it frees, up to
    32 MiB: the next argon2 hashes (ARGON2_MEMORY_COST, 19 MiB each, ARGON2_MAX_CONCURRENCY at once) are then
    carved from the malloc arenas, which keep them, fragmented, for the worker's life. A burst of logins raised
    a worker's peak by some 150 MiB that way, and kept most of it."""
    if platform.libc_ver()[0] != "glibc":
        return
    if not ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD):
        server.log.warning("mallopt(M_MMAP_THRESHOLD, %s) failed: large blocks stay in the malloc arenas",
                           MMAP_THRESHOLD)


def post_worker_init(worker):
    """Start the worker's e-mail sender thread now rather than at its first message, so the messages a dead
    worker had claimed are sent without waiting for a new one (docs/operations.md, "E-mail outbox")."""
    start_sender = getattr(worker.wsgi, "extensions", {}).get("trazo.outbox_sender")
    if start_sender is not None:
        start_sender()
