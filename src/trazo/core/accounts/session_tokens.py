"""Issuing and reading tokens with flask-jwt-extended (the rules are in docs/api.md, "Authentication and
tokens"); checking a request's session token is auth.py's part. Names: docs/glossary.md.

- Session tokens (the JWT a sign-in returns as `access_token`; the extension calls them access tokens)
  carry `type: "access"`, `pca` (password changed at, Unix seconds) and `auth_time` (when the sign-in
  that issued them proved who the user is), signed with JWT_SECRET_KEY.
- MFA login tokens (a sign-in waiting for its second factor) carry `type: "mfa"` and are signed with a
  key derived from JWT_SECRET_KEY for that purpose alone.

The key is the one of the kind of token the code is issuing or reading (a context variable the
extension's key loaders read), never one the token names: a token of the other kind fails each reader's
signature check, and each reader checks the verified `type` besides. Neither token ever passes for the
other.
"""
import hashlib
import hmac
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import timedelta

from flask import current_app
from flask_jwt_extended import create_access_token, decode_token
from flask_jwt_extended.exceptions import JWTDecodeError

from ...extensions import jwt
from ...models.base import utcnow

ACCESS_TOKEN, MFA_TOKEN = "access", "mfa"
SIGN_IN_CLAIM = "auth_time"

_token_type = ContextVar("token_type", default=ACCESS_TOKEN)


def unix_seconds(moment):
    return int(moment.timestamp())


@contextmanager
def _handling(token_type):
    reset = _token_type.set(token_type)
    try:
        yield
    finally:
        _token_type.reset(reset)


def _signing_key():
    secret = access_key()
    if _token_type.get() == MFA_TOKEN:
        return hmac.new(secret.encode(), b"trazo-mfa-login-token", hashlib.sha256).hexdigest()
    return secret


def is_bound_access_token(claims):
    """Verified claims of an access token that names its expiry and the password it is bound to."""
    return claims.get("type") == ACCESS_TOKEN and "exp" in claims and isinstance(claims.get("pca"), int)


def access_key():
    """The key session tokens are signed and checked with."""
    return current_app.config["JWT_SECRET_KEY"]


@jwt.encode_key_loader
def _encode_key(_identity):
    return _signing_key()


@jwt.decode_key_loader
def _decode_key(_header, unverified_claims):
    """The key of the kind being read. The extension takes a token without `type` for an access token;
    ours always name theirs, so such a token is refused here."""
    if "type" not in unverified_claims:
        raise JWTDecodeError("Missing claim: type")
    return _signing_key()


def issue_session_token(user, lifetime_seconds=None):
    """A bearer token for `user`, bound to its current password (pca). Only sign-ins call this (password,
    OAuth, MFA step, a password change), so the token records that moment as its sign-in time."""
    seconds = lifetime_seconds or current_app.config["ACCESS_TOKEN_EXPIRES"]
    return create_access_token(
        identity=user.id,
        expires_delta=timedelta(seconds=seconds),
        additional_claims={"pca": unix_seconds(user.password_changed_at), SIGN_IN_CLAIM: unix_seconds(utcnow())},
    )


def issue_mfa_token(user, login_id, methods, default_method):
    """The 5-minute token of a login waiting for its second factor (its claims replace the extension's
    `type: "access"`)."""
    claims = {"type": MFA_TOKEN, "lid": login_id, "pca": unix_seconds(user.password_changed_at),
              "methods": list(methods), "default_method": default_method}
    with _handling(MFA_TOKEN):
        return create_access_token(identity=user.id, additional_claims=claims,
                                   expires_delta=timedelta(seconds=current_app.config["MFA_TOKEN_EXPIRES"]))


def read_mfa_token(token):
    """Claims of a valid MFA login token, or None when it is invalid, expired or of another type."""
    with _handling(MFA_TOKEN):
        try:
            claims = decode_token(token or "")
        except Exception:  # PyJWT's refusals and the extension's alike: no usable MFA token
            return None
    if claims.get("type") != MFA_TOKEN or "exp" not in claims or "lid" not in claims:
        return None
    return claims
