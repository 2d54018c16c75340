"""The authorization server's endpoints (docs/oauth-server.md): its metadata (RFC 8414), the authorization pages,
the token, revocation (RFC 7009) and registration (RFC 7591) endpoints. Outside the API prefix and the OpenAPI
document (create_app registers the blueprint on its own); the OAuth endpoints answer RFC 6749 error JSON.

The metadata, token, revocation and registration endpoints answer any origin (CORS `*`, no credentials): a
browser-based MCP client calls them from its own page, and none of them reads a cookie. The pages do not."""
from authlib.oauth2.rfc7591 import InvalidClientMetadataError
from flask import Blueprint, jsonify, request
from flask_cors import cross_origin

from ...extensions import limiter
from ...ratelimit import limit
from . import pages, places, server

blp = Blueprint("oauth2", __name__)
any_origin = cross_origin(origins="*", send_wildcard=True, supports_credentials=False, max_age=600,
                          allow_headers=["Content-Type", "Authorization", "MCP-Protocol-Version"])


@blp.route(places.METADATA)
@any_origin
def authorization_server_metadata():
    return jsonify(server.metadata())


@blp.route(places.AUTHORIZE, methods=["GET", "POST"])
def authorize():
    return pages.authorize()


@blp.route(places.TOKEN, methods=["POST"])
@limiter.limit(limit("OAUTH2_TOKEN"))
@any_origin
def token():
    return server.server().create_token_response()


@blp.route(places.REVOKE, methods=["POST"])
@limiter.limit(limit("OAUTH2_TOKEN"))
@any_origin
def revoke():
    return server.server().create_endpoint_response("revocation")


@blp.route(places.REGISTER, methods=["POST"])
@limiter.limit(limit("OAUTH2_REGISTER"))
@any_origin
def register():
    authorization_server = server.server()
    if not isinstance(request.get_json(silent=True), dict):
        return authorization_server.handle_error_response(None, InvalidClientMetadataError(
            "The body must be a JSON object of client metadata."))
    return authorization_server.create_endpoint_response("client_registration")
