"""Client ID Metadata Documents (docs/oauth-server.md, "Clients"): a client_id that is an https URL names the JSON
document describing the client. Stage 1 knows registered clients only; the documents come next."""
from ...core.accounts import oauth_grants


def client(client_id):
    """The stored client of `client_id`, else None."""
    return oauth_grants.find_client(client_id)
