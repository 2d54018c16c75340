"""The Streamable HTTP side of `POST /mcp` (docs/mcp.md): the Origin check, the personal access token, the
per-token limits, the body read as one JSON-RPC message, and the answer as one JSON object (never an SSE stream)
with the HTTP status the transport gives it. Nothing is kept between requests: any worker answers any request.

Refusals before the JSON-RPC layer are the app's error bodies (one builder, errors.py): 403 for a foreign Origin,
401 with `WWW-Authenticate: Bearer ... resource_metadata="..."` (the MCP authorization spec's discovery) for a
missing or invalid credential, 429 past a limit, 413 past MAX_REQUEST_BODY_BYTES (web/hooks.py)."""
from flask import current_app, g
from flask_babel import gettext as _

from ...auth import authenticated_user
from ...core.accounts import oauth_grants
from ...core.accounts.personal_tokens import READ, WRITE, can_write
from ...core.credentials import oauth_token_text, personal_token, personal_token_text
from ...errors import AppError, Forbidden, Unauthorized
from ...ratelimit import spend
from ...strict_json import loads
from . import metadata, protocol
from .outcomes import Caller
from .protocol import PARSE_ERROR, RpcError


def answer(headers, body):
    """The HTTP answer to one POST of the MCP endpoint."""
    origin = headers.get("Origin")
    if origin is not None and not metadata.origin_allowed(origin):
        raise Forbidden(_("This origin may not call the MCP endpoint."))
    caller = authenticate(headers.get("Authorization"))
    message, era = None, None
    try:
        message = protocol.read_message(_decoded(body))
        era = protocol.era_of(message, headers)
        if message.kind == "response" and era.modern:
            raise RpcError(protocol.INVALID_REQUEST, _("A client sends requests and notifications only."),
                           request_id=message.id)
        if message.kind != "request":
            return current_app.response_class(status=202)
        result = protocol.handle(message, era, caller)
    except RpcError as error:
        return _json(protocol.error_reply(error, message.id if message is not None else None),
                     protocol.status_of(error, era))
    return _json(protocol.reply(message.id, result), 200)


def _decoded(body):
    try:
        return loads(body)
    except ValueError:
        raise RpcError(PARSE_ERROR, _("Parse error: the body is not JSON.")) from None


def _json(payload, status):
    return current_app.response_class(protocol.to_json(payload).encode("utf-8"), status=status,
                                      mimetype="application/json", headers={"Cache-Control": "no-store"})


def challenge(invalid):
    """The WWW-Authenticate value of a 401: where the protected-resource metadata is (RFC 9728), and whether the
    credential sent was refused (RFC 6750)."""
    error = 'error="invalid_token", ' if invalid else ""
    return f'Bearer {error}resource_metadata="{metadata.metadata_url()}"'


def _unauthorized(detail, invalid):
    return AppError(detail, status=401, headers={"WWW-Authenticate": challenge(invalid)})


def authenticate(authorization):
    """The Caller of a request bearing a valid personal access token (auth.py checks it, spends the token's
    RATE_LIMIT_PERSONAL_TOKEN and records its use) or OAuth access token issued for this endpoint, after the
    token's RATE_LIMIT_MCP; else a 401."""
    if oauth_token_text() is not None:
        return _oauth_caller(oauth_token_text())
    if personal_token_text() is None:
        raise _unauthorized(_("The MCP endpoint needs a personal access token (Authorization: Bearer trz_...) or "
                                 "an access token from signing in with this server's OAuth authorization server"),
                            invalid=authorization is not None)
    try:
        user = authenticated_user(READ)
    except Unauthorized as refusal:
        raise _unauthorized(refusal.detail, invalid=True) from None
    token = personal_token()[0]
    caller = Caller(user, user.id, token.id, token.prefix, can_write(token))
    spend("MCP", caller.token_id)
    return caller


def _oauth_caller(text):
    """The Caller of an OAuth access token (docs/oauth-server.md): live, of an active user, and bound to this
    endpoint (RFC 8707: a token issued for another resource is refused)."""
    found = oauth_grants.find_access(text)
    if found is None:
        raise _unauthorized(_("Invalid, expired or revoked access token"), invalid=True)
    token, grant, user = found
    if grant.resource != metadata.endpoint_url():
        raise _unauthorized(_("This access token was issued for another resource."), invalid=True)
    g.current_user = user
    caller = Caller(user, user.id, grant.id, oauth_grants.ACCESS_PREFIX, WRITE in token.scope.split(), oauth=True)
    spend("MCP", caller.token_id)
    return caller
