"""The one place error bodies are built: {"detail": ...} for every status, `error_code` beside it when a
machine-readable code helps (the detail stays a text the browser client can show)."""
import logging
import math

import flask_smorest
import marshmallow as ma
from flask import jsonify
from flask_babel import gettext as _
from werkzeug.exceptions import InternalServerError

from .logs import current_request_id

log = logging.getLogger(__name__)

LOCATIONS = {"json": "body", "form": "body", "files": "body", "json_or_form": "body",
             "query": "query", "querystring": "query", "view_args": "path", "path": "path",
             "headers": "header", "cookies": "cookie"}


def N_(message):
    """Mark a message for the catalog without translating it here (it is translated when shown)."""
    return message


# marshmallow's stock messages, mapped to FastAPI-style error types (and translated via the catalog).
MESSAGE_TYPES = {
    N_("Missing data for required field."): "missing",
    N_("Field may not be null."): "none_forbidden",
    N_("Not a valid email address."): "value_error.email",
    N_("Not a valid string."): "string_type",
    N_("Not a valid integer."): "int_type",
    N_("Not a valid number."): "float_type",
    N_("Not a valid boolean."): "bool_type",
    N_("Not a valid list."): "list_type",
    N_("Not a valid mapping type."): "dict_type",
    N_("Invalid input type."): "model_type",
    N_("Not a valid UUID."): "uuid_type",
    N_("Not a valid datetime."): "datetime_type",
    N_("Invalid JSON body."): "json_invalid",
    N_("Unknown field."): "extra_forbidden",
}


class ErrorSchema(ma.Schema):
    """The usual error body: {"detail": "<localized text>"}."""

    detail = ma.fields.String(required=True, metadata={"description": "Localized message"})


class VersionConflictSchema(ErrorSchema):
    """412: the write was based on a version that is no longer current."""

    error_code = ma.fields.String(metadata={"description": "version_conflict"})
    current_version = ma.fields.Integer(metadata={"description": "the version stored now (also in the ETag)"})


class CodedErrorSchema(ErrorSchema):
    """A text detail with a machine-readable code beside it."""

    error_code = ma.fields.String(metadata={"description": "e.g. invalid_key, no_credits, rate_limited, "
                                                           "model_unavailable, provider_error, timeout"})


class ValidationItemSchema(ma.Schema):
    loc = ma.fields.List(ma.fields.Raw(), required=True)
    msg = ma.fields.String(required=True)
    type = ma.fields.String(required=True)


class ValidationErrorSchema(ma.Schema):
    """422: FastAPI's list of problems."""

    detail = ma.fields.List(ma.fields.Nested(ValidationItemSchema), required=True)


class CodedObjectSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    error = ma.fields.String(required=True)
    message = ma.fields.String()


class ObjectErrorSchema(ma.Schema):
    """The few answers whose detail is an object with an `error` code: plan limits, imports, and AI
    results that cannot be used (response_truncated, empty_response)."""

    detail = ma.fields.Nested(CodedObjectSchema, required=True)


PLAN_LIMIT_DOC = "Plan limit reached: {error: resource_limit_exceeded, resource_type, current_usage, limit, message}"


def error_doc(*schemas):
    """The documented schema of an error status that may answer with any of `schemas`."""
    return schemas[0] if len(schemas) == 1 else {"oneOf": list(schemas)}


VALIDATION_RESPONSE = {"description": "Validation failed",
                       "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ValidationError"}}}}


def error_response(status, detail, headers=None, error_code=None, request_id=None, extra=None):
    """Build the JSON error response; the only function that shapes an error body. A 500 names its
    request id, which the operator finds in the logs (docs/operations.md); `extra` adds fields beside
    the detail (a 412 names the current version)."""
    body = {**(extra or {}), "detail": detail}
    if error_code:
        body["error_code"] = error_code
    if request_id:
        body["request_id"] = request_id
    response = jsonify(body)
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


class AppError(Exception):
    """A refused request with a status and a (localized) detail."""

    status = 400

    def __init__(self, detail=None, status=None, headers=None, error_code=None, extra=None):
        super().__init__(detail)
        self.detail = detail if detail is not None else self.default_detail()
        self.status = status or self.status
        self.headers = headers or {}
        self.error_code = error_code
        self.extra = extra

    def default_detail(self):
        return _("Bad request")


class BadRequest(AppError):
    status = 400


class Unauthorized(AppError):
    status = 401

    def __init__(self, detail=None):
        super().__init__(detail, headers={"WWW-Authenticate": "Bearer"})

    def default_detail(self):
        return _("Could not validate credentials")


class Forbidden(AppError):
    status = 403

    def default_detail(self):
        return _("Not allowed")


class NotFound(AppError):
    status = 404

    def default_detail(self):
        return _("Not found")


class Conflict(AppError):
    status = 409


class PreconditionFailed(AppError):
    """412: the caller's If-Match (or expected version) names a state that is no longer current."""

    status = 412


class TooManyRequests(AppError):
    status = 429

    def __init__(self, retry_after, detail=None):
        retry_after = max(1, int(math.ceil(retry_after)))
        super().__init__(detail or too_many_requests_text(retry_after),
                         headers={"Retry-After": str(retry_after)})


class AccountLocked(TooManyRequests):
    """Too many wrong passwords or codes for one account: locked for `seconds`."""

    def __init__(self, seconds):
        minutes = max(1, -(-int(seconds) // 60))
        super().__init__(seconds, _("Account temporarily locked after multiple failed attempts. "
                                    "Try again in %(minutes)s minutes.", minutes=minutes))


class UpstreamError(AppError):
    """An outside service (AI provider, renderer, payment or e-mail provider) failed."""

    status = 502


class ServiceUnavailable(AppError):
    status = 503


class GatewayTimeout(AppError):
    status = 504


class ValidationFailed(AppError):
    """A 422 raised by a service, in the same list shape as schema errors."""

    status = 422

    def __init__(self, field, message, error_type="value_error", location="body"):
        loc = [location] + ([field] if field else [])
        super().__init__([{"loc": loc, "msg": message, "type": error_type}])


def too_many_requests_text(seconds):
    return _("Too many requests. Try again in %(seconds)s seconds.", seconds=seconds)


def validation_detail(messages):
    """Flatten webargs' {location: {field: [msg]}} into FastAPI's [{loc, msg, type}] list."""
    items = []

    def walk(loc, value):
        if isinstance(value, dict):
            for key, nested in value.items():
                walk(loc if key == "_schema" else loc + [key if isinstance(key, int) else str(key)], nested)
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
            for message in value:
                items.append({"loc": loc, "msg": _(message), "type": MESSAGE_TYPES.get(message, "value_error")})
        elif isinstance(value, (list, tuple)):
            for nested in value:
                walk(loc, nested)
        else:
            items.append({"loc": loc, "msg": _(str(value)), "type": "value_error"})

    for location, fields in (messages or {}).items():
        walk([LOCATIONS.get(location, "body")], fields)
    return items or [{"loc": ["body"], "msg": _("Invalid request"), "type": "value_error"}]


class Api(flask_smorest.Api):
    """flask-smorest's Api with our error body and our status mapping (the limiter's 429 is answered by
    ratelimit.py, which knows when the limit resets)."""

    ERROR_SCHEMA = ErrorSchema

    def init_app(self, app, *, spec_kwargs=None):
        """422 is documented as the validation list; every other status as a text detail."""
        spec_kwargs = dict(spec_kwargs or {})
        components = dict(spec_kwargs.get("components") or {})
        components["responses"] = {**(components.get("responses") or {}), "UNPROCESSABLE_ENTITY": VALIDATION_RESPONSE}
        spec_kwargs["components"] = components
        super().init_app(app, spec_kwargs=spec_kwargs)
        self.spec.components.schema("ValidationError", schema=ValidationErrorSchema)

    def handle_http_exception(self, error):
        data = getattr(error, "data", None) or {}
        headers = dict(data.get("headers") or {})
        code = error.code or 500
        if "messages" in data and code in (400, 422):
            return error_response(422, validation_detail(data["messages"]), headers)
        if code == 404:
            return error_response(404, data.get("message") or _("Not found"), headers)
        if code == 405:
            allowed = getattr(error, "valid_methods", None)
            if allowed:
                headers["Allow"] = ", ".join(sorted(allowed))
            return error_response(405, _("Method not allowed"), headers)
        if code == 413:
            return error_response(413, _("Request body too large"), headers)
        if code >= 500:
            return internal_error(getattr(error, "original_exception", None))
        return error_response(code, data.get("message") or _(error.description or error.name), headers)


def app_error_response(error):
    """The response of an AppError (its handler, and callbacks that must return a response)."""
    return error_response(error.status, error.detail, error.headers, error.error_code, extra=error.extra)


def register_error_handlers(app):
    """AppError and stray exceptions; HTTPException goes through Api.handle_http_exception (the limiter's
    429 through ratelimit.py, the database going away through web/database.py)."""
    app.register_error_handler(AppError, app_error_response)
    app.register_error_handler(Exception, internal_error)


def internal_error(error):
    """500 for a stray exception: the traceback goes to the log under the request id, which the body names
    (never the exception's text)."""
    if error is not None:
        log.exception("unhandled error", exc_info=error)
    return error_response(InternalServerError.code, _("Internal server error"), request_id=current_request_id())


def found_or_404(row, message):
    """`row`, or a 404 with `message` (marked with N_, translated only then) when the lookup found nothing
    (never 403: no existence leak). A found row costs no translation lookup."""
    if row is None:
        raise NotFound(_(message))
    return row
