"""HTTP plumbing around the views: the flask-smorest Api, body limits and JSON checks, the answer when the
database is away (and the one retry on a dead pooled connection), security headers, CORS, docs, SQLite
pragmas."""
import importlib.util
import logging
import os
import re

from flask import Blueprint, Flask, current_app, request, send_from_directory
from flask.sessions import SessionInterface
from flask_babel import gettext as _
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from werkzeug.exceptions import NotFound, RequestEntityTooLarge
from werkzeug.http import parse_etags

from .api.health.routes import HEALTH_BODY
from .core import images, revalidations
from .errors import Api, ValidationFailed, error_response
from .extensions import db
from .strict_json import is_acceptable
from .transactions import retry_is_safe

log = logging.getLogger(__name__)
# The flask-smorest extension: create_app() binds it and registers every area's blueprint on it.
api = Api()

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "X-XSS-Protection": "1; mode=block",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}
PRODUCTION_HEADERS = {
    "Strict-Transport-Security": "max-age=63072000; includeSubDomains; preload",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
}
# Routes that take a whole tree: the import and the files sync (docs/files-api.md).
IMPORT_PATH = re.compile(r"^/projects/[^/]+/(?:import|sync)$")
DOCS_ASSETS = "/docs-assets"


def docs_config(config):
    """flask-smorest settings: the three documentation routes exist only outside production."""
    if not config["DOCS_ENABLED"]:
        return {"OPENAPI_URL_PREFIX": None}
    return {
        "OPENAPI_URL_PREFIX": "/",
        "OPENAPI_JSON_PATH": "openapi.json",
        "OPENAPI_SWAGGER_UI_PATH": "docs",
        "OPENAPI_SWAGGER_UI_URL": f"{DOCS_ASSETS}/swagger/",
        "OPENAPI_REDOC_PATH": "redoc",
        "OPENAPI_REDOC_URL": f"{DOCS_ASSETS}/redoc/redoc.standalone.js",
    }


def spec_kwargs():
    return {
        "components": {"securitySchemes": {
            "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
            "personalAccessToken": {
                "type": "http", "scheme": "bearer", "bearerFormat": "trz_ personal access token",
                "description": "A personal access token (POST /users/me/tokens), sent as `Authorization: Bearer "
                               "trz_...`. Only operations listing this scheme take it; `x-token-scope` says "
                               "which scope they need (`read`, or `write`, which includes read). Every "
                               "other operation answers 403 to it (docs/automation.md)."}}},
        "security": [{"bearerAuth": []}],
    }


def cors_options(config):
    return {
        "origins": config["CORS_ORIGINS"],
        "supports_credentials": True,
        "methods": ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
        "allow_headers": ["Authorization", "Content-Type", "Accept", "Accept-Language", "X-Share-Access",
                          "sentry-trace", "baggage", "X-Request-ID"],
        "expose_headers": ["Content-Disposition", "Retry-After", "X-Request-ID", "X-Render-Warnings"],
        "max_age": 600,
    }


def body_limit(path):
    config = current_app.config
    prefix = config["API_V1_PREFIX"]
    if path.startswith(prefix) and IMPORT_PATH.match(path[len(prefix):]):
        return config["MAX_IMPORT_UPLOAD_BYTES"]
    return config["MAX_REQUEST_BODY_BYTES"]


def register_request_hooks(app):
    """Checks before every view, headers after it, and the answer when the database is away."""
    app.register_error_handler(OperationalError, answer_database_unavailable)

    @app.before_request
    def refuse_nul_in_path():
        # No resource has a NUL in its path; PostgreSQL would refuse the value in a query.
        if "\x00" in request.path:
            raise NotFound()

    @app.before_request
    def enforce_body_limit():
        limit = body_limit(request.path)
        request.max_content_length = limit
        if request.content_length is not None and request.content_length > limit:
            raise RequestEntityTooLarge()
        if request.content_length is None and "chunked" in request.headers.get("Transfer-Encoding", "").lower():
            _read_chunked_body(limit)

    @app.before_request
    def refuse_unacceptable_json():
        if request.is_json and request.routing_exception is None:
            data = request.get_data(cache=True)
            if data and not is_acceptable(data):
                raise ValidationFailed(None, _("Invalid JSON body."), "json_invalid")

    fixed_headers = security_headers(app.config)
    api_prefix = app.config["API_V1_PREFIX"]

    @app.after_request
    def add_security_headers(response):
        headers = response.headers
        present = {name.lower() for name in headers.keys()}
        headers.extend([(name, value) for name, value in fixed_headers if name.lower() not in present])
        if "cache-control" not in present and request.path.startswith(api_prefix):
            headers.add("Cache-Control", "no-store")
        return response


class Application(Flask):
    """Flask, with one retry of a view whose statement met a dead pooled database connection.

    There is no pre-ping (DATABASE_POOL_PRE_PING): after a database restart the first statement on
    each old connection fails, SQLAlchemy invalidates the pool, and the view runs again on a fresh
    connection when transactions.retry_is_safe says so; else, or when the retry fails too, the
    client gets 503 and Retry-After (answer_database_unavailable). Only the view runs again: the
    before_request hooks (rate limits, body checks) ran once. docs/operations.md."""

    def dispatch_request(self):
        try:
            return super().dispatch_request()
        except DBAPIError as error:
            if not retry_is_safe(error):
                raise
            rule = request.url_rule.rule if request.url_rule else "?"  # the pattern: paths may hold tokens
            log.warning("database connection lost; retrying %s %s once on a fresh connection", request.method, rule)
            db.session.rollback()
            return super().dispatch_request()


def answer_database_unavailable(error):
    """The database went away (restart, failover): nothing was committed; the client may retry."""
    log.warning("database unavailable: %s", error.__class__.__name__)
    db.session.rollback()
    return error_response(503, _("Service temporarily unavailable, try again shortly"), {"Retry-After": "5"})


def security_headers(config):
    """The headers every response carries (HSTS and CSP only in production)."""
    headers = list(SECURITY_HEADERS.items())
    if config["ENV_PRODUCTION"]:
        headers += list(PRODUCTION_HEADERS.items())
    return headers


def answer_health_probes(wsgi_app, config):
    """Answer `GET /health` below Flask: load balancers poll it often and it has nothing to compute.

    The answer is the one the route gives (body and security headers). A request carrying an
    Origin header comes from a browser and goes through Flask, which adds its CORS headers.
    """
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(HEALTH_BODY))),
               *security_headers(config)]

    def probe_or_app(environ, start_response):
        if (environ.get("PATH_INFO") == "/health" and environ.get("REQUEST_METHOD") in ("GET", "HEAD")
                and "HTTP_ORIGIN" not in environ):
            start_response("200 OK", list(headers))
            return [b""] if environ["REQUEST_METHOD"] == "HEAD" else [HEALTH_BODY]
        return wsgi_app(environ, start_response)

    return probe_or_app


def answer_image_revalidations(wsgi_app, app):
    """Answer 304 below Flask to a revalidation of a public image link whose ETag this process checked
    against the database less than REVALIDATION_SECONDS ago and that no worker has ended since
    (core/revalidations.py: one read of the limiter storage): READMEs and wikis revalidate an embedded image
    on every page view, and such an answer has nothing to compute. Anything else (no If-None-Match, another
    ETag, an unknown or stale entry, an ended link, an Origin header, another query) goes through Flask,
    which checks the link and the diagram again."""
    config = app.config
    path = re.compile(rf"^{re.escape(config['API_V1_PREFIX'])}/shared/([^/]{{1,64}})/image\.(svg|png)$")
    extra = security_headers(config)
    remembered = revalidations.recent_etags(app)

    def revalidation_or_app(environ, start_response):
        held = environ.get("HTTP_IF_NONE_MATCH")
        if held and environ.get("REQUEST_METHOD") in ("GET", "HEAD") and "HTTP_ORIGIN" not in environ:
            found = path.match(environ.get("PATH_INFO", ""))
            theme = {"": "light", "theme=light": "light", "theme=dark": "dark"}.get(environ.get("QUERY_STRING", ""))
            if found and theme:
                etag = remembered.current((found.group(1), found.group(2), theme))
                if (etag and parse_etags(held).contains_weak(etag.strip('"'))
                        and revalidations.still_answerable(app, found.group(1))):
                    own = images.image_headers(etag, public=True)
                    start_response("304 Not Modified",
                                   [*own.items(), *[(name, value) for name, value in extra if name not in own]])
                    return [b""]
        return wsgi_app(environ, start_response)

    return revalidation_or_app


class NoCookieSessions(SessionInterface):
    """The API is stateless (bearer tokens): no cookie session is read or written."""

    def open_session(self, app, request):
        return None

    def save_session(self, app, session, response):
        return None


def _read_chunked_body(limit):
    """Read a body without Content-Length now, refusing it as soon as it passes the limit.

    werkzeug would silently truncate such a stream at the limit; we want a 413 instead.
    """
    stream = request.environ["wsgi.input"]
    body = bytearray()
    while chunk := stream.read(64 * 1024):
        body += chunk
        if len(body) > limit:
            raise RequestEntityTooLarge()
    request._cached_data = bytes(body)  # what request.get_data() and form parsing read from


@event.listens_for(Engine, "connect")
def set_sqlite_pragmas(dbapi_connection, _record):
    """SQLite enforces ON DELETE CASCADE only with this pragma; WAL lets readers and a writer overlap."""
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()


def _asset_folders():
    import swagger_ui_bundle

    folders = {"swagger": swagger_ui_bundle.swagger_ui_path}
    # The sidecar package only ships files (importing it would need Django): locate, don't import.
    sidecar = importlib.util.find_spec("drf_spectacular_sidecar")
    if sidecar and sidecar.submodule_search_locations:
        folders["redoc"] = os.path.join(sidecar.submodule_search_locations[0], "static",
                                        "drf_spectacular_sidecar", "redoc", "bundles")
    return folders


def register_docs_assets(app):
    """Swagger UI and ReDoc files from installed packages: no CDN, works offline."""
    if not app.config["DOCS_ENABLED"]:
        return
    folders = _asset_folders()
    assets = Blueprint("docs_assets", __name__, url_prefix=DOCS_ASSETS)

    @assets.route("/<kind>/<path:filename>")
    def asset(kind, filename):
        if kind not in folders:
            raise NotFound()
        return send_from_directory(folders[kind], filename)

    app.register_blueprint(assets)
