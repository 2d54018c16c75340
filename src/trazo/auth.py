"""The request's access token, the current user, access decorators and the checks before sensitive
changes (the token rules are in docs/api.md, "Authentication and tokens"; issuing and reading tokens
is core/accounts/session_tokens.py).

A `Bearer tzo_...` credential is an OAuth access token, for the MCP endpoint only (docs/oauth-server.md): the
API answers it 401. A `Bearer trz_...` credential is a personal access token instead (core/accounts/personal_tokens.py,
docs/automation.md): valid only on the routes whose blueprint allows it, with the scope the route needs
(api/blueprint.py); anywhere else it is a 403, whatever its scopes.

The request's token is verified once per request (core/credentials.py: one PyJWT decode of a valid token,
flask-jwt-extended's `verify_jwt_in_request` for anything else): the rate-limit key (`user_or_address`) and
the view share the outcome, and the view raises a refusal again for the extension's error handlers to
answer through the loaders below (401, the localized detail and `WWW-Authenticate: Bearer`).
"""
import time
from collections import namedtuple
from functools import wraps

from flask import current_app, g
from flask_babel import gettext as _
from sqlalchemy import bindparam, inspect, select
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.util import identity_key
from werkzeug.local import LocalProxy

from .core.accounts import audit, passwords, personal_tokens
from .core.accounts.language import kept_language
from .core.accounts.session_tokens import SIGN_IN_CLAIM, is_bound_access_token, unix_seconds
from .core.credentials import oauth_token_text, personal_token, personal_token_text, session_token_claims, token_subject
from .errors import AccountLocked, Forbidden, Unauthorized, app_error_response
from .extensions import db, jwt
from .models import User
from .ratelimit import Lockout, client_address, spend

# The signed-in user's row: the columns the ORM loads with a User (not the deferred picture), by a Core statement
# built once, on the session's connection. The checks read it; a route that asks for the User gets one made from
# it, with no second statement (`_user_of`).
USER_COLUMNS = tuple(prop.columns[0] for prop in inspect(User).column_attrs if not prop.deferred)
USER_KEYS = tuple(column.key for column in USER_COLUMNS)
USER_ROW = select(*USER_COLUMNS).where(User.id == bindparam("user_id"))


class SignedInUser(namedtuple("SignedInUser", USER_KEYS)):
    """The signed-in user's loaded columns (USER_ROW), read-only, with the User's `is_admin`."""

    __slots__ = ()
    is_admin = User.is_admin


# Wrong current passwords of a signed-in user, counted per account across every route that asks for it.
PASSWORD_CHECK_FAILURES = 5
PASSWORD_CHECK_LOCK_SECONDS = 15 * 60


# -- the extension's loaders for access tokens --------------------------------------------

@jwt.token_verification_loader
def _is_bound_access_token(_header, claims):
    """An access token (the extension itself refuses only refresh tokens) naming its expiry and the
    password it is bound to."""
    return is_bound_access_token(claims)


def _refusal(detail=None):
    return app_error_response(Unauthorized(detail))


@jwt.unauthorized_loader
def _no_token(_reason):
    return _refusal(_("Not authenticated"))


@jwt.expired_token_loader
def _expired_token(_header, _claims):
    return _refusal(_("Token has expired"))


@jwt.invalid_token_loader
def _invalid_token(_reason):
    return _refusal()  # "Could not validate credentials": bad signature, garbage, wrong type, missing claims


@jwt.token_verification_failed_loader
def _unbound_token(_header, _claims):
    return _refusal()


# -- the request's token and user -------------------------------------------------------

def user_or_address():
    """A limit's key: per user when the request carries a valid access token, else per address (an invalid
    token is answered by the view, not by the key)."""
    identity = token_subject()
    return f"user:{identity}" if identity else f"ip:{client_address()}"


def authenticated_user(token_scope=None):
    """The active user the request's access token belongs to (an ORM User), or a 401 (docs/api.md). A personal
    access token passes only where the route allows `token_scope` ("read" or "write"; None: never)."""
    if "current_user" not in g:
        account = signed_in(token_scope)
        if "current_user" not in g:  # a personal access token's check loads its User itself
            g.current_user = _user_of(account)
    return g.current_user


def signed_in(token_scope=None):
    """The active user the request's access token belongs to, as the columns read (a SignedInUser; the User
    itself when a personal access token's check loaded it), or a 401 as `authenticated_user`. The access
    check runs it before the view; a view whose service reads no more than the user's columns passes it
    (`signed_in_user`), so no ORM User is made (docs/operations.md, "The hot read path")."""
    if "signed_in" in g:
        return g.signed_in
    if personal_token_text() is not None:
        g.signed_in = _personal_token_user(token_scope)
        return g.signed_in
    if oauth_token_text() is not None:  # issued for the MCP endpoint (docs/oauth-server.md): not for the API
        raise Unauthorized(_("This token is for the MCP endpoint only: the API needs a session or a personal "
                             "access token."))
    claims, refusal = session_token_claims()
    if refusal is not None:
        raise refusal
    row = db.session.connection().execute(USER_ROW, {"user_id": str(claims["sub"])}).first()
    if row is None or not row.is_active:
        raise Unauthorized(_("User not found or inactive"))
    if claims["pca"] < unix_seconds(row.password_changed_at):
        raise Unauthorized(_("Session invalidated. Please log in again."))
    columns = dict(zip(USER_KEYS, row, strict=True))
    columns["language"] = kept_language(row.id, row.language)
    g.signed_in = SignedInUser(**columns)
    return g.signed_in


def _user_of(account):
    """The ORM User of the SignedInUser `account`, as a query would have given it: the session's own when it
    holds it already, else made from the columns read and attached as loaded, without a statement."""
    user = db.session.identity_map.get(identity_key(User, account.id))
    if user is None:
        user = User(**dict(zip(USER_KEYS, account, strict=True)))
        make_transient_to_detached(user)  # as if loaded: no pending change; the deferred picture loads when read
        db.session.add(user)
    return user


def _personal_token_user(token_scope):
    """The owner of the request's personal access token, once it may be used here with its scopes; the use
    spends the token's own rate limit (RATE_LIMIT_PERSONAL_TOKEN) and is recorded (at most once a minute)."""
    found = personal_token()
    if found is None:
        raise Unauthorized(_("Invalid, expired or revoked personal access token"))
    token, user = found
    if not user.is_active:
        raise Unauthorized(_("User not found or inactive"))
    if token_scope is None:
        raise Forbidden(_("Personal access tokens cannot be used on this route: sign in instead."))
    if token_scope == personal_tokens.WRITE and not personal_tokens.can_write(token):
        raise Forbidden(_("This personal access token can only read: this route needs the write scope."))
    spend("PERSONAL_TOKEN", token.id)
    personal_tokens.note_use(token, user, client_address())
    g.current_user = user
    return user


current_user = LocalProxy(authenticated_user)
signed_in_user = LocalProxy(signed_in)


def login_required(view, token_scope=None):
    """Require a valid access token of an active user (or a personal access token with `token_scope`)."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        signed_in(token_scope)
        return view(*args, **kwargs)

    return wrapper


def admin_required(view):
    """Require an administrator's access token (403 for other users)."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        if not signed_in().is_admin:
            raise Forbidden(_("Admin access required"))
        return view(*args, **kwargs)

    return wrapper


# -- sensitive changes: the password again, or a recent sign-in ------------------------

def signed_in_recently():
    """True when the request's access token comes from a sign-in less than RECENT_SIGN_IN_SECONDS ago
    (tokens without the claim, issued before it existed, are not recent)."""
    claims, _refusal = session_token_claims()
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
