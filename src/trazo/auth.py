"""Tokens, the current user and access decorators (API.md §4).

Access tokens are flask-jwt-extended JWTs with `type: "access"` and `pca` (password changed at,
Unix seconds). The MFA login token is signed with a key derived from JWT_SECRET_KEY for that
purpose alone, so it can never pass as an access token.
"""
import hashlib
import hmac
from datetime import timedelta
from functools import wraps

import jwt as pyjwt
from flask import current_app, g
from flask_babel import gettext as _
from flask_jwt_extended import create_access_token, current_user, jwt_required

from .errors import Forbidden, error_response
from .models.base import utcnow

MFA_TOKEN_TYPE = "mfa"


def unix_seconds(moment):
    return int(moment.timestamp())


def issue_access_token(user, lifetime_seconds=None):
    """A bearer token for `user`, bound to its current password (pca)."""
    seconds = lifetime_seconds or current_app.config["ACCESS_TOKEN_EXPIRES"]
    return create_access_token(
        identity=user.id,
        expires_delta=timedelta(seconds=seconds),
        additional_claims={"pca": unix_seconds(user.password_changed_at)},
    )


def _mfa_key():
    secret = current_app.config["JWT_SECRET_KEY"].encode()
    return hmac.new(secret, b"trazo-mfa-login-token", hashlib.sha256).hexdigest()


def issue_mfa_token(user, login_id, methods, default_method):
    """The 5-minute token of a login waiting for its second factor."""
    now = utcnow()
    claims = {
        "sub": user.id,
        "type": MFA_TOKEN_TYPE,
        "lid": login_id,
        "pca": unix_seconds(user.password_changed_at),
        "methods": list(methods),
        "default_method": default_method,
        "iat": unix_seconds(now),
        "exp": unix_seconds(now) + current_app.config["MFA_TOKEN_EXPIRES"],
    }
    return pyjwt.encode(claims, _mfa_key(), algorithm="HS256")


def read_mfa_token(token):
    """Claims of a valid MFA login token, or None when it is invalid, expired or of another type."""
    try:
        claims = pyjwt.decode(token or "", _mfa_key(), algorithms=["HS256"],
                              options={"require": ["exp", "sub", "type", "lid"]})
    except pyjwt.PyJWTError:
        return None
    return claims if claims.get("type") == MFA_TOKEN_TYPE else None


def register_jwt_callbacks(jwt):
    """Every token problem is a localized 401 with WWW-Authenticate: Bearer."""
    from .extensions import db
    from .models import User

    def unauthorized(message):
        return error_response(401, message, {"WWW-Authenticate": "Bearer"})

    @jwt.token_verification_loader
    def is_access_token(_header, claims):
        return claims.get("type") == "access" and "pca" in claims

    @jwt.user_lookup_loader
    def load_user(_header, claims):
        user = db.session.get(User, str(claims.get("sub")))
        if user is None or not user.is_active:
            g.auth_failure = "user"
            return None
        if int(claims.get("pca", -1)) < unix_seconds(user.password_changed_at):
            g.auth_failure = "session"
            return None
        return user

    @jwt.user_lookup_error_loader
    def user_lookup_error(_header, _claims):
        if g.get("auth_failure") == "session":
            return unauthorized(_("Session invalidated. Please log in again."))
        return unauthorized(_("User not found or inactive"))

    @jwt.unauthorized_loader
    def missing_token(_reason):
        return unauthorized(_("Not authenticated"))

    @jwt.invalid_token_loader
    def invalid_token(_reason):
        return unauthorized(_("Could not validate credentials"))

    @jwt.expired_token_loader
    def expired_token(_header, _claims):
        return unauthorized(_("Token has expired"))

    @jwt.token_verification_failed_loader
    def wrong_token(_header, _claims):
        return unauthorized(_("Could not validate credentials"))

    @jwt.revoked_token_loader
    def revoked_token(_header, _claims):
        return unauthorized(_("Could not validate credentials"))


def login_required(view):
    """Require a valid access token of an active user."""
    return jwt_required()(view)


def admin_required(view):
    """Require an administrator's access token (403 for other users)."""

    @wraps(view)
    @jwt_required()
    def wrapper(*args, **kwargs):
        if not current_user.is_admin:
            raise Forbidden(_("Admin access required"))
        return view(*args, **kwargs)

    return wrapper
