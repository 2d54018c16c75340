"""Fetching a Client ID Metadata Document (docs/oauth-server.md, "Clients"): the JSON document at the URL an OAuth
client uses as its client_id, through the outbound guard: a total deadline, a size cap, public addresses only
(but the hosts the operator allows), redirects never followed."""
import requests

from .. import outbound

TIMEOUT = (5, 5)
_http = outbound.session()


class DocumentUnavailable(Exception):
    """The document could not be fetched, or is not a JSON object."""


def fetch(url, *, seconds, max_bytes, allowed_private=()):
    """The JSON object at `url`; DocumentUnavailable for anything else (a refused address, a passed deadline,
    an answer too large, a status other than 200, no JSON object)."""
    try:
        answer = outbound.request(_http, "GET", url, integration="oauth", seconds=seconds, max_bytes=max_bytes,
                                  public_only=True, allowed_private=tuple(allowed_private), timeout=TIMEOUT,
                                  headers={"Accept": "application/json"})
    except (requests.RequestException, TimeoutError) as exc:
        raise DocumentUnavailable(f"GET {url} failed: {exc.__class__.__name__}") from exc
    if answer.status_code != 200:
        raise DocumentUnavailable(f"GET {url} answered HTTP {answer.status_code}")
    try:
        document = answer.json()
    except ValueError as exc:
        raise DocumentUnavailable(f"{url} is not JSON") from exc
    if not isinstance(document, dict):
        raise DocumentUnavailable(f"{url} is not a JSON object")
    return document
