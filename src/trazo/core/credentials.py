"""The request's credentials, read once per request and shared by whoever needs them: the access token's
claims (verified by flask-jwt-extended), a personal access token (`Bearer trz_...`, core/accounts/personal_tokens.py)
and the user id either names. auth.py turns them into the current user and its refusals; the rate-limit
keys read `token_subject`, the render fairness keys (core/content/rendering.py) `client_keys` (docs/api.md,
"Authentication and tokens")."""
import time
from datetime import timedelta
from functools import lru_cache
from types import MappingProxyType

import jwt as pyjwt
from flask import g, request
from flask_jwt_extended import verify_jwt_in_request
from flask_jwt_extended.config import config as jwt_config
from flask_jwt_extended.exceptions import NoAuthorizationError

from ..ratelimit import client_address
from .accounts import oauth_grants, personal_tokens
from .accounts.session_tokens import access_key, is_bound_access_token

# Session tokens whose signature and fixed claims were verified, per process (least recently used dropped).
VERIFIED_TOKENS = 2048


def session_token_claims():
    """(claims, None) for a valid session token in the request, else (None, the exception refusing it).

    Checked once per request. A well-formed valid token is decoded once (`_valid_session_claims`); every
    other request goes through the extension (`verify_jwt_in_request`), which words the refusal. Any
    exception counts as a refusal: the extension raises its own and lets PyJWT's through, and the view
    raises it again for the extension's handlers to answer.
    """
    if "access_token" not in g:
        claims = _valid_session_claims()
        if claims is not None:
            g.access_token = claims, None
            return g.access_token
        try:
            checked = verify_jwt_in_request()
        except Exception as refusal:
            g.access_token = None, refusal
        else:  # None for OPTIONS, whose credentials the extension never reads
            g.access_token = (checked[1], None) if checked else (None, NoAuthorizationError("OPTIONS"))
    return g.access_token


def _valid_session_claims():
    """The claims of the request's session token when it is sent as `Authorization: Bearer <token>` alone
    and the extension would accept it; else None, for the extension to decide (and word the refusal).

    The same PyJWT decode with the extension's settings and our key, then the checks the extension and
    auth.py's verification loader make: the identity claim, type "access", an expiry and the password
    binding (docs/api.md, "Authentication and tokens"). What never changes for a given token and key (its
    signature, algorithm, audience, issuer, not-before and those claims) is verified once per process
    (`_verified_claims`); its expiry is checked on every request."""
    header = request.headers.get(jwt_config.header_name, "")
    parts = header.split()
    if (request.method in jwt_config.exempt_methods or len(parts) != 2 or parts[0] != jwt_config.header_type
            or "," in header or header != f"{parts[0]} {parts[1]}"):
        return None
    leeway = jwt_config.leeway
    leeway = leeway.total_seconds() if isinstance(leeway, timedelta) else leeway
    audience = jwt_config.decode_audience
    try:
        claims = _verified_claims(parts[1], access_key(), tuple(jwt_config.decode_algorithms),
                                  tuple(audience) if isinstance(audience, list) else audience,
                                  jwt_config.decode_issuer, leeway, jwt_config.verify_sub,
                                  jwt_config.identity_claim_key)
    except pyjwt.PyJWTError:
        return None
    if claims is None or claims["exp"] <= time.time() - leeway:  # expired: PyJWT's own comparison
        return None
    return dict(claims)


@lru_cache(maxsize=VERIFIED_TOKENS)
def _verified_claims(token, key, algorithms, audience, issuer, leeway, verify_sub, identity_claim):
    """The claims of `token` (read-only) when everything but its expiry verifies and it is a bound access
    token with an integer expiry, else None; PyJWT's refusals raise, and are not kept."""
    claims = pyjwt.decode(token, key, algorithms=list(algorithms), audience=audience, issuer=issuer, leeway=leeway,
                          options={"verify_exp": False, "verify_aud": audience is not None, "verify_sub": verify_sub})
    exp = claims.get("exp")
    if identity_claim not in claims or not is_bound_access_token(claims) or type(exp) is not int:
        return None
    return MappingProxyType(claims)


def bearer_text():
    """The request's bearer credential, else None."""
    scheme, _space, value = request.headers.get("Authorization", "").partition(" ")
    value = value.strip()
    return value if scheme.lower() == "bearer" and value else None


def personal_token_text():
    """The request's bearer credential when it is a personal access token, else None."""
    value = bearer_text()
    return value if value is not None and personal_tokens.looks_like_token(value) else None


def oauth_token_text():
    """The request's bearer credential when it is an OAuth access token (for the MCP endpoint only), else None."""
    value = bearer_text()
    return value if value is not None and oauth_grants.looks_like_access_token(value) else None


def personal_token():
    """(token, user) of the request's personal access token when it is valid, else None; looked up once."""
    if "personal_token" not in g:
        text = personal_token_text()
        g.personal_token = personal_tokens.find(text) if text else None
    return g.personal_token


def token_subject():
    """The user id of a valid access token in the request (rate-limit keys): without reading the database
    for a signed-in session's token; a personal access token is looked up (once per request)."""
    if personal_token_text() is not None:
        found = personal_token()
        return found[1].id if found else None
    claims, _refusal = session_token_claims()
    return claims["sub"] if claims else None


def client_keys() -> tuple[str, ...]:
    """Who a render runs for: ("ip:<address>",), plus "user:<id>" when the request is signed in (by the
    route's own authentication, a personal access token or a session's access token), so a user on many
    addresses and many users on one address are each held to their share."""
    keys = [f"ip:{client_address()}"]
    user = _signed_in_user_id()
    if user is not None:
        keys.append(f"user:{user}")
    return tuple(keys)


def _signed_in_user_id() -> str | None:
    """The user the route authenticated, else the user a valid credential of the request names (read once
    per request, as for the rate-limit keys), else None: an invalid credential counts as none (a public
    route answers it as anonymous)."""
    user = g.get("signed_in", g.get("current_user"))
    return user.id if user is not None else token_subject()
