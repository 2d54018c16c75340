"""Where the MCP endpoint lives and who may call it from a browser (docs/mcp.md, "Security"): its absolute URL,
the OAuth protected-resource metadata that names it (RFC 9728), and the Origin check against DNS rebinding.

The absolute URLs come from PUBLIC_URL, else from the request (its Host, and behind TRUSTED_PROXY_COUNT the
proxy's X-Forwarded-Host and -Proto, which ProxyFix applied). An Origin is allowed when it is one of
CORS_ORIGINS or FRONTEND_URL, or the service's own: PUBLIC_URL, or without it the request's own origin only on a
loopback host (DNS rebinding names the attacker's host, never `localhost`)."""
import ipaddress
from urllib.parse import urlsplit

from flask import current_app, request

from ...core.accounts.personal_tokens import SCOPES

ENDPOINT = "/mcp"
RESOURCE_METADATA = "/.well-known/oauth-protected-resource"
DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK_NAMES = ("localhost",)


def public_origin():
    """This service's origin as its clients reach it (no trailing slash)."""
    return current_app.config["PUBLIC_URL"] or request.host_url.rstrip("/")


def endpoint_url():
    return public_origin() + ENDPOINT


def metadata_url():
    return public_origin() + RESOURCE_METADATA


def resource_metadata():
    """The OAuth protected-resource metadata of the MCP endpoint (RFC 9728): this service is its authorization
    server (docs/oauth-server.md); personal access tokens a user creates work too (docs/automation.md)."""
    return {"resource": endpoint_url(), "resource_name": current_app.config["SERVICE_NAME"],
            "authorization_servers": [public_origin()], "scopes_supported": list(SCOPES),
            "bearer_methods_supported": ["header"]}


def normalized(origin):
    """scheme://host[:port] in lower case without the scheme's default port, or None for anything else."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or parts.path or parts.query or parts.username:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    shown_port = "" if port in (None, DEFAULT_PORTS[parts.scheme]) else f":{port}"
    return f"{parts.scheme}://{host.lower()}{shown_port}"


def _loopback(origin):
    host = urlsplit(origin).hostname or ""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def origin_allowed(origin):
    """Whether a browser page of `origin` may call the MCP endpoint."""
    seen = normalized(origin)
    if seen is None:
        return False
    config = current_app.config
    allowed = {normalized(value) for value in [*config["CORS_ORIGINS"], config["FRONTEND_URL"]]}
    if config["PUBLIC_URL"]:
        allowed.add(normalized(config["PUBLIC_URL"]))
    else:
        own = normalized(request.host_url.rstrip("/"))
        if own is not None and _loopback(own):
            allowed.add(own)
    return seen in allowed - {None}
