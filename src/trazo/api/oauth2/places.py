"""Where the authorization server's endpoints are (docs/oauth-server.md): absolute URLs from PUBLIC_URL, else from
the request (as the MCP endpoint's own, api/mcp/metadata.py: the resource a token is bound to is that endpoint)."""
import secrets

from flask import current_app, request

METADATA = "/.well-known/oauth-authorization-server"
AUTHORIZE, TOKEN, REVOKE, REGISTER = "/oauth2/authorize", "/oauth2/token", "/oauth2/revoke", "/oauth2/register"
COOKIE_PATH = "/oauth2"
MCP_ENDPOINT = "/mcp"


def public_origin():
    return current_app.config["PUBLIC_URL"] or request.host_url.rstrip("/")


def issuer():
    return public_origin()


def url(path):
    return public_origin() + path


def mcp_endpoint():
    return public_origin() + MCP_ENDPOINT


def registered_client_id():
    """The client_id of a dynamically registered client: random, never an https URL (those name documents)."""
    return "trzc_" + secrets.token_urlsafe(24)
