"""Tokens, the current user and access decorators (the token rules are in docs/api.md).

Access tokens are issued by flask-jwt-extended with `type: "access"`, `pca` (password changed
at, Unix seconds) and `auth_time` (when the sign-in that issued it proved who the user is). They
are verified here with one decode per request, shared by the rate-limit key and the view (the
extension's own check decoded each token four times and, with a per-user limit, looked the user up
twice). The MFA login token is signed with a key derived from
JWT_SECRET_KEY for that purpose alone, so it can never pass as an access token.
"""
import hashlib
import hmac
import re
import time
from datetime import timedelta
from functools import wraps

import jwt as pyjwt
from flask import current_app, g, request
from flask_babel import gettext as _
from flask_jwt_extended import create_access_token
from werkzeug.local import LocalProxy

from .errors import AccountLocked, Forbidden, Unauthorized
from .extensions import db
from .models import User
from .models.base import utcnow
from .ratelimit import Lockout
from .services import audit, passwords

MFA_TOKEN_TYPE = "mfa"
SIGN_IN_CLAIM = "auth_time"
# Wrong current passwords of a signed-in user, counted per account across every route that asks for it.
PASSWORD_CHECK_FAILURES = 5
PASSWORD_CHECK_LOCK_SECONDS = 15 * 60


def unix_seconds(moment):
    return int(moment.timestamp())


def issue_access_token(user, lifetime_seconds=None):
    """A bearer token for `user`, bound to its current password (pca). Only sign-ins call this (password,
    OAuth, MFA step, a password change), so the token records that moment as its sign-in time."""
    seconds = lifetime_seconds or current_app.config["ACCESS_TOKEN_EXPIRES"]
    return create_access_token(
        identity=user.id,
        expires_delta=timedelta(seconds=seconds),
        additional_claims={"pca": unix_seconds(user.password_changed_at), SIGN_IN_CLAIM: unix_seconds(utcnow())},
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


def _bearer_token():
    """The token of `Authorization: Bearer <token>`; None when the header is absent or of another scheme."""
    header = request.headers.get("Authorization", "").strip().strip(",")
    schemes = [part for part in re.split(r",\s*", header) if part and part.split()[0] == "Bearer"]
    if len(schemes) != 1:
        return None
    parts = schemes[0].split()
    return parts[1] if len(parts) == 2 else ""


def _verify_access_token():
    """(claims, None) for a valid access token, else (None, the 401 to answer). One decode per request."""
    if "access_claims" in g:
        return g.access_claims, g.access_refusal
    claims, refusal = None, None
    token = _bearer_token()
    if token is None:
        refusal = _("Not authenticated")
    else:
        config = current_app.config
        try:
            claims = pyjwt.decode(token, config["JWT_SECRET_KEY"], algorithms=[config.get("JWT_ALGORITHM", "HS256")],
                                  options={"require": ["exp", "sub"]})
        except pyjwt.ExpiredSignatureError:
            refusal = _("Token has expired")
        except pyjwt.PyJWTError:
            refusal = _("Could not validate credentials")
        if claims is not None and (claims.get("type") != "access" or not isinstance(claims.get("pca"), int)):
            claims, refusal = None, _("Could not validate credentials")
    g.access_claims, g.access_refusal = claims, refusal
    return claims, refusal


def token_subject():
    """The user id of a valid access token in the request, without reading the database (rate-limit keys)."""
    claims, _refusal = _verify_access_token()
    return claims["sub"] if claims else None


def authenticated_user():
    """The active user the request's access token belongs to, or a 401 (docs/api.md)."""
    if "current_user" in g:
        return g.current_user
    claims, refusal = _verify_access_token()
    if refusal:
        raise Unauthorized(refusal)
    user = db.session.get(User, str(claims["sub"]))
    if user is None or not user.is_active:
        raise Unauthorized(_("User not found or inactive"))
    if claims["pca"] < unix_seconds(user.password_changed_at):
        raise Unauthorized(_("Session invalidated. Please log in again."))
    g.current_user = user
    return user


current_user = LocalProxy(authenticated_user)


def login_required(view):
    """Require a valid access token of an active user."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        authenticated_user()
        return view(*args, **kwargs)

    return wrapper


def admin_required(view):
    """Require an administrator's access token (403 for other users)."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        if not authenticated_user().is_admin:
            raise Forbidden(_("Admin access required"))
        return view(*args, **kwargs)

    return wrapper


# -- sensitive changes: the password again, or a recent sign-in ------------------------

def signed_in_recently():
    """True when the request's access token comes from a sign-in less than RECENT_SIGN_IN_SECONDS ago
    (tokens without the claim, issued before it existed, are not recent)."""
    claims, _refusal = _verify_access_token()
    signed_in_at = (claims or {}).get(SIGN_IN_CLAIM)
    if not isinstance(signed_in_at, int):
        return False
    return time.time() - signed_in_at < current_app.config["RECENT_SIGN_IN_SECONDS"]


def _password_checks(user):
    return Lockout("password-check", user.id, PASSWORD_CHECK_FAILURES, PASSWORD_CHECK_LOCK_SECONDS)


def current_password_matches(user, password):
    """Check a signed-in user's password again. Wrong ones count per account; once locked, every answer
    is a 429 (the right password too) until the lock expires, so a stolen token cannot guess it."""
    checks = _password_checks(user)
    locked = checks.seconds_left()
    if locked:
        raise AccountLocked(locked)
    if passwords.verify_password(user.password_hash, password):
        checks.succeed()
        return True
    if checks.fail():
        audit.record("password_check_locked", user=user)
    return False


def confirm_recent_sign_in(user, password=None):
    """Allow a sensitive change (MFA settings, recovery codes, deleting the account): the request carries
    the current password, or its token comes from a recent sign-in. A password that is sent is always
    checked; accounts without one (OAuth only) have the recent sign-in alone."""
    if password:
        if not current_password_matches(user, password):
            raise Forbidden(_("Password is incorrect"))
        return
    if not signed_in_recently():
        raise Forbidden(_("Please sign in again to confirm this change."))
