"""Checks before every view (NUL in the path, body limits, JSON), headers after it, and the answer when the
database is away (docs/security.md, docs/operations.md)."""
import re

from flask import current_app, request
from flask_babel import gettext as _
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import NotFound, RequestEntityTooLarge

from ..errors import ValidationFailed
from ..strict_json import is_acceptable, view_answers_invalid_json
from .database import answer_database_unavailable
from .headers import security_headers

# Routes that take a whole tree: the import and the files sync (docs/files-api.md).
IMPORT_PATH = re.compile(r"^/projects/[^/]+/(?:import|sync)$")


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
            # Read now, so a body past the limit is a 413 here: werkzeug stops reading a stream the server
            # ended (gunicorn's chunked bodies) at `max_content_length`, without a word, so one byte more
            # is let through to tell a longer body.
            request.max_content_length = limit + 1
            if len(request.get_data(cache=True)) > limit:
                raise RequestEntityTooLarge()

    @app.before_request
    def refuse_unacceptable_json():
        # A view that answers bad JSON itself (the MCP endpoint: a JSON-RPC parse error) reads the body first.
        if request.is_json and request.routing_exception is None and \
                not view_answers_invalid_json(app.view_functions.get(request.endpoint)):
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

