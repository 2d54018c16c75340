"""HTTP conversations with the OAuth providers: discovery, JWKS, code exchange, identities.

One requests.Session for the OAuth integration, (connect, read) timeouts and a total deadline
(`seconds`: the provider's timeout, OAUTH_TIMEOUT) on every call, a cap on what is read, no retries.
Discovery documents and JWKS are cached for an hour (JWKS refetched once when a token names an unknown key, which is how
providers rotate keys).
"""
import threading
import time
from dataclasses import dataclass

import requests
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet

from .. import outbound

TIMEOUT = (5, 10)
MAX_ANSWER_BYTES = 1 << 20
CACHE_SECONDS = 3600
CLOCK_LEEWAY_SECONDS = 60
_http = outbound.session()
_cache = {}
_cache_lock = threading.Lock()


class ProviderUnavailable(Exception):
    """The provider could not be reached or answered nonsense (a 502 for our caller)."""


class ProviderRefused(Exception):
    """The provider refused what we sent (bad code, bad credentials, invalid token)."""


@dataclass(frozen=True)
class Identity:
    provider: str
    subject: str
    email: str | None
    email_verified: bool
    name: str | None


def call(method, url, seconds, **kwargs):
    """The answer of one request (read whole, capped, within `seconds`); network failures and a passed
    deadline become ProviderUnavailable."""
    try:
        return outbound.request(_http, method, url, integration="oauth", seconds=seconds,
                                max_bytes=MAX_ANSWER_BYTES, timeout=TIMEOUT, **kwargs)
    except requests.RequestException as exc:
        raise ProviderUnavailable(f"{method} {url} failed: {exc.__class__.__name__}") from exc


def json_of(response):
    try:
        return response.json()
    except ValueError as exc:
        raise ProviderUnavailable(f"{response.url} answered HTTP {response.status_code} without JSON") from exc


def _cached(key, load, refresh=False):
    now = time.monotonic()
    with _cache_lock:
        hit = _cache.get(key)
    if hit and hit[0] > now and not refresh:
        return hit[1]
    value = load()
    with _cache_lock:
        _cache[key] = (now + CACHE_SECONDS, value)
    return value


def discovery(metadata_url, seconds):
    """The provider's OpenID configuration document (cached)."""

    def load():
        response = call("GET", metadata_url, seconds, headers={"Accept": "application/json"})
        document = json_of(response)
        if response.status_code != 200 or not isinstance(document, dict) or "token_endpoint" not in document:
            raise ProviderUnavailable(f"{metadata_url} is not an OpenID configuration "
                                      f"(HTTP {response.status_code})")
        return document

    return _cached(("discovery", metadata_url), load)


def _key_set(jwks_uri, seconds, refresh=False):
    def load():
        response = call("GET", jwks_uri, seconds, headers={"Accept": "application/json"})
        try:
            return KeySet.import_key_set(json_of(response))
        except (JoseError, ValueError, TypeError, KeyError) as exc:
            raise ProviderUnavailable(f"{jwks_uri} did not answer a key set") from exc

    return _cached(("jwks", jwks_uri), load, refresh)


def exchange_code(token_url, client_id, client_secret, code, redirect_uri, code_verifier, seconds):
    """Trade an authorization code (with its PKCE verifier) for the provider's tokens."""
    response = call("POST", token_url, seconds, headers={"Accept": "application/json"}, data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
        "client_id": client_id, "client_secret": client_secret, "code_verifier": code_verifier})
    if response.status_code >= 500:
        raise ProviderUnavailable(f"token endpoint answered HTTP {response.status_code}")
    tokens = json_of(response)
    if response.status_code != 200 or not isinstance(tokens, dict) or "error" in tokens \
            or not tokens.get("access_token"):
        raise ProviderRefused(str(tokens.get("error") if isinstance(tokens, dict) else response.status_code))
    return tokens


def verify_id_token(id_token, metadata, client_id, nonce, seconds):
    """The claims of an ID token signed by the provider's keys, for us, fresh, with our nonce."""
    try:
        try:
            token = jwt.decode(id_token, _key_set(metadata["jwks_uri"], seconds), algorithms=["RS256"])
        except InvalidKeyIdError:
            token = jwt.decode(id_token, _key_set(metadata["jwks_uri"], seconds, refresh=True),
                               algorithms=["RS256"])
        issuer = metadata.get("issuer", "")
        jwt.JWTClaimsRegistry(
            leeway=CLOCK_LEEWAY_SECONDS,
            iss={"essential": True, "values": [issuer, issuer.removeprefix("https://")]},
            aud={"essential": True, "value": client_id}, sub={"essential": True}, exp={"essential": True},
            nonce={"essential": True, "value": nonce},
        ).validate(token.claims)
    except (JoseError, ValueError) as exc:
        raise ProviderRefused(f"invalid ID token: {exc}") from exc
    return token.claims


def _verified(value):
    return value is True or str(value).lower() == "true"


def google_identity(provider, tokens, nonce):
    metadata = discovery(provider.metadata_url, provider.timeout)
    if tokens.get("id_token"):
        claims = verify_id_token(tokens["id_token"], metadata, provider.client_id, nonce, provider.timeout)
    else:
        response = call("GET", metadata["userinfo_endpoint"], provider.timeout,
                        headers={"Authorization": f"Bearer {tokens['access_token']}"})
        claims = json_of(response)
        if response.status_code != 200 or not isinstance(claims, dict) or not claims.get("sub"):
            raise ProviderUnavailable(f"userinfo answered HTTP {response.status_code}")
    return Identity(provider.name, str(claims["sub"]), claims.get("email"), _verified(claims.get("email_verified")),
                    claims.get("name"))


def _github_get(provider, path, access_token):
    response = call("GET", f"{provider.api_base}{path}", provider.timeout, headers={
        "Authorization": f"Bearer {access_token}", "Accept": "application/vnd.github+json"})
    body = json_of(response)
    if response.status_code != 200:
        raise ProviderUnavailable(f"GitHub {path} answered HTTP {response.status_code}")
    return body


def github_identity(provider, tokens):
    profile = _github_get(provider, "/user", tokens["access_token"])
    emails = _github_get(provider, "/user/emails", tokens["access_token"])
    if not isinstance(profile, dict) or "id" not in profile or not isinstance(emails, list):
        raise ProviderUnavailable("GitHub answered an unexpected user document")
    primary = next((item for item in emails if isinstance(item, dict) and item.get("primary")), None)
    return Identity(provider.name, str(profile["id"]), primary.get("email") if primary else profile.get("email"),
                    bool(primary and primary.get("verified") is True), profile.get("name") or profile.get("login"))
