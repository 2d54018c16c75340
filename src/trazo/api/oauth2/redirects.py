"""Redirect URIs (docs/oauth-server.md, "Clients"): which ones a client may register (https, or http on a loopback
address or `localhost`), and how a requested one matches a registered one: exactly, except a loopback one
(http://127.0.0.1 or http://[::1]) where any port is allowed (RFC 8252 §7.3)."""
from urllib.parse import urlsplit, urlunsplit

LOOPBACK_HOSTS = ("127.0.0.1", "::1")
GRANT_TYPES = ("authorization_code", "refresh_token")
AUTH_METHOD = "none"


def _split(uri):
    """urlsplit's parts of `uri`, None when it does not parse (a port that is not a number)."""
    try:
        parts = urlsplit(uri)
        return parts if parts.port is None or parts.port >= 0 else None
    except ValueError:
        return None


def loopback(uri):
    parts = _split(uri)
    return parts is not None and parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS


def _without_port(uri):
    parts = urlsplit(uri)
    host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname
    return urlunsplit((parts.scheme, host or "", parts.path, parts.query, parts.fragment))


def redirect_matches(registered, requested):
    """Exact match, but for a loopback redirect URI whose port may differ."""
    if requested == registered:
        return True
    if loopback(registered) and loopback(requested):
        return _without_port(requested) == _without_port(registered)
    return False


def acceptable_redirect(uri):
    """A redirect URI a client may register: https, or http on a loopback address or `localhost`; no fragment."""
    parts = _split(uri)
    if parts is None:
        return False
    if parts.fragment or not parts.hostname or parts.username or parts.password:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and (loopback(uri) or parts.hostname == "localhost"))
