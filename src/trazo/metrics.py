"""Prometheus metrics: their definitions, the small functions the other layers record with, and the
exposition `GET /metrics` serves (docs/operations.md, "Metrics", lists every metric and its labels).

Nothing outside this module touches a prometheus object: the layers above call `audit_event`,
`outbound_timer`, `stream_opened` / `stream_closed`, `render_cache_hit` / `render_cache_miss`,
`png_rasterized`, and
create_app() calls `instrument(app)` for the request metrics and the database pool gauge.

Every label has a bounded set of values: the route TEMPLATE (never the raw path), a method from a
fixed list, the status code, and names fixed here (integrations, outcomes, lockout kinds). No user
id, e-mail, token or path ever becomes a label.

Under gunicorn, gunicorn.conf.py sets PROMETHEUS_MULTIPROC_DIR before any worker imports this module:
each worker then writes its values to files there and the exposition merges every worker's files
(counters and histograms summed, the gauges summed over live workers only). Without the variable
(tests, the flask CLI) the process's own registry is served.
"""
import os
import threading
import time

from flask import g, request, request_finished, request_started
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.multiprocess import MultiProcessCollector
from sqlalchemy import event
from sqlalchemy.pool import Pool

from .settings import value as setting_value

# prometheus-client chose its storage (files or memory) from this variable when it was imported.
MULTIPROCESS_DIR = setting_value(os.environ, "PROMETHEUS_MULTIPROC_DIR") or None
CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4  # the text format every Prometheus version reads

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED = "unmatched"  # the route of a request no URL rule matched (404, or 405 on a known path)
INTEGRATIONS = ("ai", "render", "email", "payments", "oauth")
OUTCOMES = ("ok", "error", "timeout")
LOGIN_EVENTS = {"login_success": "success", "oauth_login_success": "success",
                "login_failed": "failed", "oauth_login_failed": "failed"}
LOCKOUT_EVENTS = {"login_locked": "login", "password_check_locked": "password_check", "mfa_locked": "mfa"}
MFA_FAILURE_EVENTS = frozenset({"mfa_verify_failed"})
OUTBOUND_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, float("inf"))

http_requests = Counter("trazo_http_requests_total", "HTTP requests answered by Flask",
                        ("route", "method", "status"))
http_seconds = Histogram("trazo_http_request_duration_seconds",
                         "Time from the start of a request to its response headers",
                         ("route", "method"))
db_connections = Gauge("trazo_db_connections_in_use", "Database connections checked out of the pool",
                       multiprocess_mode="livesum")
sse_streams = Gauge("trazo_sse_streams_open", "Open chat reply streams (Server-Sent Events)",
                    multiprocess_mode="livesum")
event_streams = Gauge("trazo_event_streams_open", "Open change feed streams (Server-Sent Events)",
                      multiprocess_mode="livesum")
outbound_calls = Counter("trazo_outbound_calls_total", "Calls to outside services, by outcome",
                         ("integration", "outcome"))
outbound_seconds = Histogram("trazo_outbound_call_duration_seconds",
                             "Duration of calls to outside services (streamed answers: until closed)",
                             ("integration",), buckets=OUTBOUND_BUCKETS)
render_cache_hits = Counter("trazo_render_cache_hits_total", "Renders served from the cache", ("tier",))
render_cache_misses = Counter("trazo_render_cache_misses_total", "Renders the cache did not hold")
png_rasterizations = Counter("trazo_png_rasterizations_total", "Runs of the PNG rasterizer (resvg), by outcome",
                             ("outcome",))
logins = Counter("trazo_logins_total", "Sign-ins (password or OAuth), by outcome", ("outcome",))
lockouts = Counter("trazo_lockouts_total", "Accounts or e-mails locked after repeated failures", ("kind",))
mfa_failures = Counter("trazo_mfa_failures_total", "Wrong second-factor codes at sign-in")

# Every series exists from the start (at 0), so rates and alerts see them before their first event.
for _integration in INTEGRATIONS:
    outbound_seconds.labels(_integration)
    for _outcome in OUTCOMES:
        outbound_calls.labels(_integration, _outcome)
for _tier in ("memory", "redis"):
    render_cache_hits.labels(_tier)
for _outcome in ("ok", "failed"):
    png_rasterizations.labels(_outcome)
for _value in set(LOGIN_EVENTS.values()):
    logins.labels(_value)
for _value in LOCKOUT_EVENTS.values():
    lockouts.labels(_value)


def exposition():
    """(body, content type) of the text format: every worker's values under gunicorn, this process's
    otherwise."""
    if MULTIPROCESS_DIR:
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    return generate_latest(registry), CONTENT_TYPE


# -- requests and the database pool --------------------------------------------------------------

def instrument(app):
    """Count and time every request `app` answers, and count the pool's connections in use.

    Flask's request_started / request_finished signals bracket every hook and error handler of a
    request, so a refusal by a before_request hook (the limiter, body limits) is timed too. A streamed
    response is timed to its headers. `GET /health` probes are answered below Flask and not counted.
    """
    request_started.connect(_request_started, app)
    request_finished.connect(_request_finished, app)
    if not event.contains(Pool, "checkout", _checked_out):
        event.listen(Pool, "checkout", _checked_out)
        event.listen(Pool, "checkin", _checked_in)


def _request_started(_sender, **_extra):
    g.metrics_started = time.perf_counter()


# (route, method, status) -> its counter and histogram children: a dict read instead of two `labels()`
# calls (each a lock and a label check) per request; bounded like the labels themselves.
_request_series = {}


def _request_finished(_sender, response, **_extra):
    rule = request.url_rule
    route = rule.rule if rule is not None else UNMATCHED
    method = request.method if request.method in METHODS else "other"
    key = (route, method, response.status_code)
    series = _request_series.get(key)
    if series is None:
        series = _request_series[key] = (http_requests.labels(*key), http_seconds.labels(route, method))
    series[0].inc()
    started = g.pop("metrics_started", None)
    if started is not None:
        series[1].observe(time.perf_counter() - started)


def _checked_out(_dbapi_connection, _record, _proxy):
    db_connections.inc()


def _checked_in(_dbapi_connection, _record):
    db_connections.dec()


# -- what the other layers record ----------------------------------------------------------------

def audit_event(name):
    """Count the security events among the audit log's (core/accounts/audit.py calls this for every entry)."""
    if name in LOGIN_EVENTS:
        logins.labels(LOGIN_EVENTS[name]).inc()
    elif name in LOCKOUT_EVENTS:
        lockouts.labels(LOCKOUT_EVENTS[name]).inc()
    elif name in MFA_FAILURE_EVENTS:
        mfa_failures.inc()


def render_cache_hit(tier):
    """A render served by the cache's `tier` ("memory" or "redis")."""
    render_cache_hits.labels(tier).inc()


def render_cache_miss():
    render_cache_misses.inc()


def png_rasterized(outcome):
    """A run of resvg: "ok", or "failed" (an error, a limit, the timeout)."""
    png_rasterizations.labels(outcome).inc()


def stream_opened():
    sse_streams.inc()


def stream_closed():
    sse_streams.dec()


def event_stream_opened():
    event_streams.inc()


def event_stream_closed():
    event_streams.dec()


class OutboundTimer:
    """One call to an outside service, timed from its creation; `finish(outcome)` records it once
    (a later finish, from the same thread or another, is ignored)."""

    def __init__(self, integration):
        if integration not in INTEGRATIONS:
            raise ValueError(f"unknown integration {integration!r}; expected one of {', '.join(INTEGRATIONS)}")
        self.integration = integration
        self.started = time.perf_counter()
        self.finished = False
        self.lock = threading.Lock()

    def finish(self, outcome):
        """Record the call: "ok", "error" or "timeout"."""
        with self.lock:
            if self.finished:
                return
            self.finished = True
        outbound_calls.labels(self.integration, outcome).inc()
        outbound_seconds.labels(self.integration).observe(time.perf_counter() - self.started)


def outbound_timer(integration):
    """Start timing a call of `integration` (one of INTEGRATIONS; another name is a ValueError)."""
    return OutboundTimer(integration)
