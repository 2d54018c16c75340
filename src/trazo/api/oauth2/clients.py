"""The clients as authlib sees them (docs/oauth-server.md, "Clients"): public clients (no secret, PKCE instead),
the authorization code and refresh token grants, and redirect URIs that match exactly (redirects.py)."""
from authlib.oauth2.rfc6749 import ClientMixin

from ...core.accounts import oauth_grants
from . import client_documents
from .redirects import redirect_matches

GRANT_TYPES = ("authorization_code", "refresh_token")
AUTH_METHOD = "none"


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
