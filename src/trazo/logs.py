"""Request ids, log formats and error reporting (docs/operations.md, "Request ids and logs").

Every request gets an id: the proxy's `X-Request-ID` when it is a plain token, else a fresh one.
`RequestIds` (the outermost WSGI middleware) puts it in a context variable while the request and its
response body run, and returns it as `X-Request-ID` on every response. Log records carry it as
`request_id` ("-" outside a request); the admin audit log and Sentry events keep it too.

This module sits in the lowest layer (standard library and third-party packages only): gunicorn.conf.py
loads it on its own, without the application, for the JSON access and error logs of gunicorn.
"""
import contextvars
import json
import logging
import re
import uuid
from datetime import UTC, datetime

import sentry_sdk
from gunicorn import glogging
from sentry_sdk.integrations.flask import FlaskIntegration

log = logging.getLogger(__name__)

REQUEST_ID_HEADER = "X-Request-ID"
LOG_FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"
# What an incoming id may be: 1 to 64 of these characters, checked in one linear pass.
ACCEPTED_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
MAX_REQUEST_ID = 64
# Request headers that never reach Sentry (credentials and share access tokens).
SECRET_HEADERS = frozenset({"authorization", "cookie", "x-share-access"})

_request_id = contextvars.ContextVar("trazo_request_id", default=None)


def current_request_id():
    """The id of the request being served, or None (start-up, CLI, threads the app starts)."""
    return _request_id.get()


def run_with_request_id(request_id, target, *args):
    """Call `target(*args)` with `request_id` as the current id: the body of a thread a request starts,
    so the thread's log lines carry the request's id."""
    token = _request_id.set(request_id)
    try:
        return target(*args)
    finally:
        _request_id.reset(token)


def accepted_request_id(value):
    """`value` when it is an id we may echo (and write in logs), else None."""
    if value and len(value) <= MAX_REQUEST_ID and ACCEPTED_REQUEST_ID.fullmatch(value):
        return value
    return None


class RequestIds:
    """WSGI middleware: choose the request's id, expose it while the request runs, send it back.

    The id is set while the application runs and again while each chunk of the body is produced
    (a streamed body, such as a chat reply, runs after the application has returned).
    """

    def __init__(self, wsgi_app):
        self.wsgi_app = wsgi_app

    def __call__(self, environ, start_response):
        request_id = accepted_request_id(environ.get("HTTP_X_REQUEST_ID")) or uuid.uuid4().hex
        header = (REQUEST_ID_HEADER, request_id)

        def start_with_id(status, headers, exc_info=None):
            headers = [item for item in headers if item[0].lower() != "x-request-id"]
            headers.append(header)
            return start_response(status, headers, exc_info)

        token = _request_id.set(request_id)
        try:
            body = self.wsgi_app(environ, start_with_id)
        finally:
            _request_id.reset(token)
        if isinstance(body, (list, tuple)) or _is_file_wrapper(body, environ):
            return body  # nothing of ours runs while it is sent (and sendfile stays possible)
        return BodyWithId(body, request_id)


def _is_file_wrapper(body, environ):
    wrapper = environ.get("wsgi.file_wrapper")
    return isinstance(wrapper, type) and isinstance(body, wrapper)


class BodyWithId:
    """A response body produced with its request's id set; a failure after the headers were sent is
    logged with the id, then re-raised so the server drops the connection (the client sees it fail)."""

    def __init__(self, body, request_id):
        self.body = body
        self.chunks = iter(body)
        self.request_id = request_id

    def __iter__(self):
        return self

    def __next__(self):
        token = _request_id.set(self.request_id)
        try:
            return next(self.chunks)
        except StopIteration:
            raise
        except Exception:
            log.exception("the response failed after its headers were sent")
            raise
        finally:
            _request_id.reset(token)

    def close(self):
        close = getattr(self.body, "close", None)
        if close is None:
            return
        token = _request_id.set(self.request_id)
        try:
            close()
        finally:
            _request_id.reset(token)


def install_request_id_records():
    """Give every log record a `request_id` attribute (the current id, or "-"), whatever its handler."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "adds_request_id", False):
        return

    def record_with_request_id(*args, **kwargs):
        record = previous(*args, **kwargs)
        record.request_id = _request_id.get() or "-"
        return record

    record_with_request_id.adds_request_id = True
    logging.setLogRecordFactory(record_with_request_id)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: timestamp (ISO-8601, UTC), level, logger, message, request_id, the
    exception text when there is one, and the fields a record carries in its `fields` attribute
    (gunicorn's access lines)."""

    def format(self, record):
        entry = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
        }
        entry.update(getattr(record, "fields", None) or {})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def formatter(log_format):
    if log_format not in LOG_FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, got {log_format!r}")
    return JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)


def configure_logging(log_format):
    """Request ids on every record; a stderr handler in `log_format` unless logging is configured already
    (gunicorn's own loggers are set up by gunicorn.conf.py)."""
    install_request_id_records()
    handler = logging.StreamHandler()
    handler.setFormatter(formatter(log_format))
    logging.basicConfig(level=logging.INFO, handlers=[handler])


class GunicornJsonLogger(glogging.Logger):
    """gunicorn's logger with JSON lines (LOG_FORMAT=json): its error log, and an access log of named
    fields. The path has no query string: share access tokens travel in query strings."""

    def setup(self, cfg):
        super().setup(cfg)
        json_lines = JsonFormatter()
        for logger in (self.error_log, self.access_log):
            for handler in logger.handlers:
                handler.setFormatter(json_lines)

    def access(self, resp, req, environ, request_time):
        if not self.access_log_enabled:
            return
        atoms = self.atoms(resp, req, environ, request_time)
        fields = {
            "remote_addr": atoms["h"],
            "method": atoms["m"],
            "path": atoms["U"],
            "status": int(atoms["s"]) if str(atoms["s"]).isdigit() else atoms["s"],
            "bytes": atoms["B"],
            "duration_ms": round(request_time.total_seconds() * 1000, 3),
            "user_agent": atoms["a"],
            "request_id": atoms.get("{x-request-id}o", "-"),
        }
        self.access_log.info("%s %s %s", fields["method"], fields["path"], fields["status"],
                             extra={"fields": fields})


def init_sentry(dsn, environment, traces_sample_rate, release=None):
    """Report errors to Sentry when a DSN is set: no personal data, no request bodies or frame locals,
    no credentials or query strings (scrub_event), the request id as a tag."""
    if not dsn:
        return False
    sentry_sdk.init(dsn=dsn, environment=environment, release=release, traces_sample_rate=traces_sample_rate,
                    integrations=[FlaskIntegration()], send_default_pii=False, include_local_variables=False,
                    max_request_body_size="never", before_send=scrub_event, before_send_transaction=scrub_event)
    return True


def scrub_event(event, _hint=None):
    """Drop what must not leave the service; tag the event with the request id."""
    request = event.get("request")
    if isinstance(request, dict):
        for key in ("query_string", "cookies", "data"):
            request.pop(key, None)
        if isinstance(request.get("url"), str):
            request["url"] = request["url"].split("?", 1)[0]
        headers = request.get("headers")
        if isinstance(headers, dict):
            request["headers"] = {name: value for name, value in headers.items()
                                  if name.lower() not in SECRET_HEADERS}
    breadcrumbs = event.get("breadcrumbs")
    for crumb in breadcrumbs.get("values", []) if isinstance(breadcrumbs, dict) else []:
        data = crumb.get("data")
        if isinstance(data, dict):
            data.pop("http.query", None)
            data.pop("http.fragment", None)
            if isinstance(data.get("url"), str):
                data["url"] = data["url"].split("?", 1)[0]
    extra = event.get("extra")
    if isinstance(extra, dict):
        extra.pop("sys.argv", None)  # the command line may hold anything
    request_id = current_request_id()
    if request_id:
        event.setdefault("tags", {})["request_id"] = request_id
    return event
