"""The authorization server (docs/oauth-server.md), built on authlib's: the authorization code grant with PKCE
(S256 only, a request without a challenge refused), refresh tokens that rotate (a reused one revokes its family),
access tokens bound to the resource they were asked for (RFC 8707), revocation (RFC 7009), dynamic registration
(RFC 7591) and the server's metadata (RFC 8414). Tokens are opaque: `tzo_...` access tokens, `tzr_...` refresh
tokens, kept as digests (core/accounts/oauth_grants.py)."""
import time

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import InvalidGrantError, InvalidRequestError, OAuth2Error, grants
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7591 import ClientRegistrationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
from flask import current_app

from ...core.accounts import oauth_grants
from ...extensions import db
from ...models import User
from ...ratelimit import client_address
from . import clients, places
from .redirects import acceptable_redirect

S256 = "S256"
SCOPES = list(oauth_grants.SCOPES)


class InvalidTargetError(OAuth2Error):
    """RFC 8707 §2: the resource is not one this server issues tokens for."""

    error = "invalid_target"


def requested_resource(payload):
    """The resource a request names (RFC 8707), else the MCP endpoint; InvalidTargetError for any other."""
    values = payload.datalist.get("resource", [])
    if len(values) > 1:
        raise InvalidTargetError("Only one 'resource' may be requested.")
    resource = values[0] if values else places.mcp_endpoint()
    if resource.rstrip("/") != places.mcp_endpoint():
        raise InvalidTargetError("The resource is not served here: ask for the MCP endpoint.")
    return places.mcp_endpoint()


class S256Challenge(CodeChallenge):
    """PKCE with S256 only, and required at the authorization endpoint (RFC 7636 §4.4.1, OAuth 2.1)."""

    DEFAULT_CODE_CHALLENGE_METHOD = S256
    SUPPORTED_CODE_CHALLENGE_METHOD = [S256]

    def validate_code_challenge(self, grant, redirect_uri):
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("Missing 'code_challenge': PKCE with S256 is required.")
        if data.get("code_challenge_method") != S256:
            raise InvalidRequestError("The 'code_challenge_method' must be S256.")
        super().validate_code_challenge(grant, redirect_uri)


class AuthorizationCodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = [clients.AUTH_METHOD]

    def validate_authorization_request(self):
        redirect_uri = super().validate_authorization_request()
        try:
            self.request.resource = requested_resource(self.request.payload)
        except OAuth2Error as error:
            error.redirect_uri = redirect_uri
            raise
        return redirect_uri

    def generate_authorization_code(self):
        return oauth_grants.new_secret(oauth_grants.CODE_PREFIX)

    def save_authorization_code(self, code, request):
        data = request.payload.data
        redirect_uri = request.payload.redirect_uri or request.client.get_default_redirect_uri()
        oauth_grants.issue_code(code, request.client.row, request.user, redirect_uri, request.scope, request.resource,
                                data["code_challenge"], data["code_challenge_method"])

    def query_authorization_code(self, code, client):
        found = oauth_grants.find_code(code, client.row)
        return Code(*found) if found else None

    def validate_token_request(self):
        super().validate_token_request()
        resource = self.request.payload.data.get("resource")
        if resource is not None and resource.rstrip("/") != self.request.authorization_code.grant.resource:
            raise InvalidTargetError("The resource differs from the one authorized.")

    def delete_authorization_code(self, authorization_code):
        pass  # used in save_token, with the tokens it gives

    def authenticate_user(self, authorization_code):
        return db.session.get(User, authorization_code.grant.user_id)


class Code:
    """An authorization code for authlib."""

    def __init__(self, row, grant):
        self.row, self.grant = row, grant
        self.code_challenge, self.code_challenge_method = row.code_challenge, row.code_challenge_method

    def get_redirect_uri(self):
        return self.row.redirect_uri

    def get_scope(self):
        return self.row.scope


class RefreshTokenGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = [clients.AUTH_METHOD]
    INCLUDE_NEW_REFRESH_TOKEN = True

    def authenticate_refresh_token(self, refresh_token):
        found = oauth_grants.find_refresh(refresh_token, self.request.client.row)
        return RefreshCredential(*found) if found else None

    def authenticate_user(self, refresh_token):
        return db.session.get(User, refresh_token.grant.user_id)

    def revoke_old_credential(self, refresh_token):
        pass  # rotated in save_token, committed with the next pair


class RefreshCredential:
    """A refresh token for authlib."""

    def __init__(self, row, grant):
        self.row, self.grant = row, grant

    def check_client(self, client):
        return client.row.id == self.grant.client_id

    def get_scope(self):
        return self.row.scope


def save_token(token, request):
    """Store a new pair: the code it came from marked used, or the refresh token it replaces rotated, in the same
    commit; each only once, even between two requests at the same moment (a conditional update)."""
    code = getattr(request, "authorization_code", None)
    if code is not None:
        grant, first_use = code.grant, oauth_grants.use_code(code.row, code.grant)
    else:
        credential = request.refresh_token
        grant, first_use = credential.grant, oauth_grants.rotate(credential.row, credential.grant)
    if not first_use:  # another request used it a moment before: a replay, the family is revoked
        raise InvalidGrantError()
    stored = oauth_grants.save_tokens(grant, token["access_token"], token.get("refresh_token"), token.get("scope"),
                                      token["expires_in"])
    token["scope"] = stored.scope


class Revocation(RevocationEndpoint):
    CLIENT_AUTH_METHODS = [clients.AUTH_METHOD]

    def authenticate_token(self, request, client):
        self.check_params(request, client)
        found = oauth_grants.find_any(request.form["token"], client.row)
        return found  # a token unknown or of another client: answered 200 all the same (RFC 7009 §2.2)

    def revoke_token(self, token, request):
        oauth_grants.revoke_token(*token)


class Registration(ClientRegistrationEndpoint):
    """Open dynamic registration of public clients (RFC 7591), limited per address (RATE_LIMIT_OAUTH2_REGISTER)."""

    def authenticate_token(self, request):
        return True  # open registration: no initial access token

    def get_server_metadata(self):
        return metadata()

    def generate_client_info(self, request):
        return {"client_id": places.registered_client_id(), "client_id_issued_at": int(time.time())}

    def save_client(self, client_info, client_metadata, request):
        uris = client_metadata.get("redirect_uris") or []
        if not uris or not all(isinstance(uri, str) and acceptable_redirect(uri) for uri in uris):
            raise InvalidRedirectUriError()
        client_metadata.setdefault("token_endpoint_auth_method", clients.AUTH_METHOD)
        client_metadata.setdefault("grant_types", list(clients.GRANT_TYPES))
        client_metadata.setdefault("response_types", ["code"])
        name = str(client_metadata.get("client_name") or "")[:200] or client_info["client_id"]
        return oauth_grants.register_client(client_info["client_id"], name, uris,
                                            client_metadata.get("client_uri"), client_address())


class InvalidRedirectUriError(OAuth2Error):
    error = "invalid_redirect_uri"
    description = "Redirect URIs must be https, or http on a loopback address, without a fragment."


def metadata():
    """The server's metadata (RFC 8414)."""
    return AuthorizationServerMetadata({
        "issuer": places.issuer(),
        "authorization_endpoint": places.url(places.AUTHORIZE),
        "token_endpoint": places.url(places.TOKEN),
        "revocation_endpoint": places.url(places.REVOKE),
        "registration_endpoint": places.url(places.REGISTER),
        "scopes_supported": SCOPES,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": list(clients.GRANT_TYPES),
        "token_endpoint_auth_methods_supported": [clients.AUTH_METHOD],
        "revocation_endpoint_auth_methods_supported": [clients.AUTH_METHOD],
        "code_challenge_methods_supported": [S256],
        "client_id_metadata_document_supported": True,
        "service_documentation": places.url("/docs"),
    })


class Server(AuthorizationServer):
    """authlib's Flask authorization server with this service's token generator: opaque prefixed secrets, an
    access token lifetime under an hour (OAUTH2_ACCESS_TOKEN_SECONDS)."""

    def load_config(self, config):
        self.register_token_generator("default", BearerTokenGenerator(
            lambda *args, **kwargs: oauth_grants.new_secret(oauth_grants.ACCESS_PREFIX),
            lambda *args, **kwargs: oauth_grants.new_secret(oauth_grants.REFRESH_PREFIX),
            lambda client, grant_type: oauth_grants.access_seconds()))
        self.scopes_supported = SCOPES


EXTENSION = "trazo.oauth2"


def init_app(app):
    """The application's authorization server (one per application: authlib's registers grants on the instance)."""
    built = Server()
    built.init_app(app, clients.query_client, save_token)
    built.register_grant(AuthorizationCodeGrant, [S256Challenge(required=True)])
    built.register_grant(RefreshTokenGrant)
    built.register_endpoint(Revocation)
    built.register_endpoint(Registration)
    app.extensions[EXTENSION] = built


def server():
    return current_app.extensions[EXTENSION]

