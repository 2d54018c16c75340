"""The clients as authlib sees them (docs/oauth-server.md, "Clients"): public clients (no secret, PKCE instead),
the authorization code and refresh token grants, and redirect URIs that match exactly, except a loopback one
(http://127.0.0.1 or http://[::1]) where any port is allowed (RFC 8252 §7.3)."""
from urllib.parse import urlsplit, urlunsplit

from authlib.oauth2.rfc6749 import ClientMixin

from ...core.accounts import oauth_grants
from . import client_documents

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


class Client(ClientMixin):
    """An OAuth2Client row, for authlib."""

    def __init__(self, row):
        self.row = row

    @property
    def client_id(self):
        return self.row.client_id

    @property
    def name(self):
        return self.row.client_name

    def get_client_id(self):
        return self.row.client_id

    def get_default_redirect_uri(self):
        uris = self.row.redirect_uris
        return uris[0] if len(uris) == 1 else None

    def get_allowed_scope(self, scope):
        return oauth_grants.normalized_scope(scope)

    def check_redirect_uri(self, redirect_uri):
        return any(redirect_matches(registered, redirect_uri) for registered in self.row.redirect_uris)

    def check_client_secret(self, client_secret):
        return False

    def check_endpoint_auth_method(self, method, endpoint):
        return method == AUTH_METHOD

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type in GRANT_TYPES


def query_client(client_id):
    """The client of `client_id`: a registered one, or the one its metadata document describes (fetched through
    the outbound guard and cached); None for an unknown one."""
    if not isinstance(client_id, str) or not client_id:
        return None
    row = client_documents.client(client_id)
    return Client(row) if row is not None else None
