"""Request ids and log formats (docs/operations.md, "Request ids and logs"; Sentry: error_reports.py).

Every request gets an id: behind a trusted proxy (TRUSTED_PROXY_COUNT > 0) the proxy's `X-Request-ID` when
it is a plain token, else a fresh one (a client reaching the service directly never chooses it).
`RequestIds` (the outermost WSGI middleware) puts it in a context variable while the request and its
response body run, and returns it as `X-Request-ID` on every response. Log records carry it as
`request_id` ("-" outside a request); the admin audit log and Sentry events keep it too.

A text log line is always one line: control characters are written as escapes (`OneLineFormatter`).
Paths are logged (gunicorn's access and error logs, Sentry events) without what is secret or user content
in them: a share, invitation or invite-link token keeps its first characters, a files API path becomes
`{path}` (`loggable_path`).

This module sits in the lowest layer (standard library and third-party packages only): gunicorn.conf.py
loads it on its own, without the application, for gunicorn's access and error logs (text or JSON).
"""
import contextvars
import json
import logging
import re
import uuid
from datetime import UTC, datetime

from gunicorn import glogging

log = logging.getLogger(__name__)

REQUEST_ID_HEADER = "X-Request-ID"
LOG_FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"
# What an incoming id may be: 1 to 64 of these characters, checked in one linear pass.
ACCEPTED_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
MAX_REQUEST_ID = 64
# What a text line writes as an escape: the backslash (so every escape reads one way), C0 controls, DEL,
# C1 controls and the Unicode line and paragraph separators.
ESCAPED = re.compile(r"[\\\x00-\x1f\x7f-\x9f\u2028\u2029]")
NAMED_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
# A share token is a bearer credential: a logged path keeps this many of its characters, then "…". So are
# the tokens of workspace invitations and invite links (/invitations/<token>, /invite-links/<token>; the
# ids of /workspaces/<id>/invitations/<id> are cut the same way, which costs nothing).
SHARE_TOKEN_SHOWN = 6
SHARE_TOKEN_IN_PATH = re.compile(r"(/(?:shared|invitations|invite-links)/+)([^/]+)")
# What follows /files/ in a files API path is the user's own file path: logged as its template.
FILE_PATH_IN_PATH = re.compile(r"(/projects/+[^/]+/+files/+).+", re.DOTALL)
FILE_PATH_TEMPLATE = "{path}"

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


def escape_controls(text):
    """`text` with every character of ESCAPED written as an escape (\\n, \\x1b, \\u2028, \\\\): one line."""
    return ESCAPED.sub(_escape, text)


def _escape(match):
    char = match.group()
    code = ord(char)
    return NAMED_ESCAPES.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def loggable_path(path):
    """`path` as logs may keep it: a share (or invitation, or invite-link) token cut to its first
    SHARE_TOKEN_SHOWN characters and "…", a
    files API file path replaced by "{path}" (`/api/v1/projects/<id>/files/{path}`)."""
    path = FILE_PATH_IN_PATH.sub(lambda found: found.group(1) + FILE_PATH_TEMPLATE, path)
    return SHARE_TOKEN_IN_PATH.sub(_shortened_token, path)


def _shortened_token(found):
    return found.group(1) + found.group(2)[:SHARE_TOKEN_SHOWN] + "\u2026"


def loggable_url(url):
    """A URL (or a request target) without its query string and fragment, its path as `loggable_path`."""
    return loggable_path(re.split("[?#]", url, maxsplit=1)[0])


def accepted_request_id(value):
    """`value` when it is an id we may echo (and write in logs), else None."""
    if value and len(value) <= MAX_REQUEST_ID and ACCEPTED_REQUEST_ID.fullmatch(value):
        return value
    return None


class RequestIds:
    """WSGI middleware: choose the request's id, expose it while the request runs, send it back.

    An incoming `X-Request-ID` is kept only with `trust_incoming` (the service is behind a trusted proxy,
    which sets it) and when `accepted_request_id` takes it; otherwise the id is a new uuid4.
    The id is set while the application runs and again while each chunk of the body is produced
    (a streamed body, such as a chat reply, runs after the application has returned).
    """

    def __init__(self, wsgi_app, trust_incoming=False):
        self.wsgi_app = wsgi_app
        self.trust_incoming = trust_incoming

    def __call__(self, environ, start_response):
        incoming = accepted_request_id(environ.get("HTTP_X_REQUEST_ID")) if self.trust_incoming else None
        request_id = incoming or uuid.uuid4().hex
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


class OneLineFormatter(logging.Formatter):
    """Another formatter's text with its control characters escaped (escape_controls): one record is one
    line, whatever its message, arguments or traceback hold (a traceback's line breaks read `\\n`)."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def format(self, record):
        return escape_controls(self.inner.format(record))


def formatter(log_format):
    if log_format not in LOG_FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, got {log_format!r}")
    return JsonFormatter() if log_format == "json" else OneLineFormatter(logging.Formatter(TEXT_FORMAT))


def configure_logging(log_format):
    """Request ids on every record; a stderr handler in `log_format` unless logging is configured already
    (gunicorn's own loggers are set up by gunicorn.conf.py)."""
    install_request_id_records()
    handler = logging.StreamHandler()
    handler.setFormatter(formatter(log_format))
    logging.basicConfig(level=logging.INFO, handlers=[handler])


class GunicornTextLogger(glogging.Logger):
    """gunicorn's logger for text lines (LOG_FORMAT=text, the default): its error and access lines are one
    line each (OneLineFormatter), and the access line's path (`%(U)s`, `%(r)s`) is `loggable_path`'s, with no
    query string (share access tokens travel in query strings)."""

    def setup(self, cfg):
        super().setup(cfg)
        for logger in (self.error_log, self.access_log):
            for handler in logger.handlers:
                handler.setFormatter(self.line_formatter(handler.formatter))

    def line_formatter(self, current):
        if isinstance(current, OneLineFormatter):
            return current
        return OneLineFormatter(current or logging.Formatter())

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        path = loggable_path(environ.get("PATH_INFO") or "")
        atoms["U"] = path
        atoms["r"] = f"{environ.get('REQUEST_METHOD')} {path} {environ.get('SERVER_PROTOCOL')}"
        return atoms

    def exception(self, msg, *args, **kwargs):
        # "Error handling request %s %s" names the request target: its query string and path as well
        if isinstance(msg, str) and msg.startswith("Error handling request"):
            args = tuple(loggable_url(arg) if isinstance(arg, str) else arg for arg in args)
        super().exception(msg, *args, **kwargs)


class GunicornJsonLogger(GunicornTextLogger):
    """gunicorn's logger with JSON lines (LOG_FORMAT=json): its error log, and an access log of named
    fields. The path is `loggable_path`'s, with no query string."""

    def line_formatter(self, current):
        return current if isinstance(current, JsonFormatter) else JsonFormatter()

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

