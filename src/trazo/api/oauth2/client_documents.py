"""Client ID Metadata Documents (docs/oauth-server.md, "Clients"): a client_id that is an https URL names the JSON
document describing the client (client_id, client_name, redirect_uris...). The server fetches it through the
outbound guard (services/oauth/client_documents.py: OAUTH2_CLIENT_DOCUMENT_TIMEOUT, a size cap, public addresses
only) and keeps a copy OAUTH2_CLIENT_DOCUMENT_CACHE_SECONDS; a copy whose refresh fails serves until it can be
fetched again. Hosts of OAUTH2_CLIENT_DOCUMENT_PRIVATE_HOSTS may be private, and served over plain http
(development, tests)."""
import logging
from datetime import timedelta
from urllib.parse import urlsplit

from flask import current_app

from ...core.accounts import oauth_grants
from ...models.base import utcnow
from ...services.oauth.client_documents import DocumentUnavailable, fetch
from .redirects import acceptable_redirect

MAX_DOCUMENT_BYTES = 5 * 1024
MAX_REDIRECT_URIS = 10
log = logging.getLogger("trazo.oauth2")


def _listed(host, port, entries):
    return any(entry in (host, f"{host}:{port}") for entry in entries)


def is_document_url(client_id):
    """Whether `client_id` names a metadata document: https with a path (or http on an allowed private host)."""
    try:
        parts = urlsplit(client_id)
        port = parts.port
    except ValueError:
        return False
    if not parts.hostname or parts.username or parts.password or parts.fragment or parts.path in ("", "/"):
        return False
    if parts.scheme == "https":
        return True
    allowed = current_app.config["OAUTH2_CLIENT_DOCUMENT_PRIVATE_HOSTS"]
    return parts.scheme == "http" and _listed(parts.hostname, port, allowed)


def client(client_id):
    """The stored client of `client_id`; for a document URL, its copy, fetched when missing or stale. None for an
    unknown client or a document that cannot be had."""
    stored = oauth_grants.find_client(client_id)
    if not is_document_url(client_id):
        return stored if stored is not None and not stored.metadata_document else None
    config = current_app.config
    fresh_for = timedelta(seconds=config["OAUTH2_CLIENT_DOCUMENT_CACHE_SECONDS"])
    if stored is not None and stored.fetched_at is not None and utcnow() - stored.fetched_at < fresh_for:
        return stored
    try:
        document = fetch(client_id, seconds=config["OAUTH2_CLIENT_DOCUMENT_TIMEOUT"], max_bytes=MAX_DOCUMENT_BYTES,
                         allowed_private=config["OAUTH2_CLIENT_DOCUMENT_PRIVATE_HOSTS"])
        name, redirect_uris, client_uri = described(client_id, document)
    except DocumentUnavailable as failure:
        log.warning("client metadata document refused: %s", failure)
        return stored
    if stored is None:
        return oauth_grants.register_client(client_id, name, redirect_uris, client_uri, metadata_document=True)
    return oauth_grants.refresh_client(stored, name, redirect_uris, client_uri)


def described(client_id, document):
    """(name, redirect URIs, client URI) of a document that describes `client_id`; DocumentUnavailable else."""
    if document.get("client_id") != client_id:
        raise DocumentUnavailable(f"{client_id}: the document names another client_id")
    uris = document.get("redirect_uris")
    if (not isinstance(uris, list) or not uris or len(uris) > MAX_REDIRECT_URIS
            or not all(isinstance(uri, str) and acceptable_redirect(uri) for uri in uris)):
        raise DocumentUnavailable(f"{client_id}: redirect_uris missing or not acceptable")
    method = document.get("token_endpoint_auth_method", "none")
    if method != "none":
        raise DocumentUnavailable(f"{client_id}: only public clients (token_endpoint_auth_method none)")
    name = document.get("client_name")
    name = name.strip()[:200] if isinstance(name, str) and name.strip() else urlsplit(client_id).hostname
    client_uri = document.get("client_uri") if isinstance(document.get("client_uri"), str) else None
    return name, uris, client_uri
