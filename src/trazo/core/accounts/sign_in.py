"""The step every sign-in shares once the first factor is right (password or OAuth): an access token, or
for accounts with MFA the start of the second step, which /mfa/verify, /mfa/switch-method and
/mfa/resend-email-code continue (api/mfa/login.py; token rules: docs/api.md).

A login with MFA sends at most 1 + MAX_RESENDS e-mail codes, RESEND_COOLDOWN_SECONDS apart, counted per
login (the `lid` claim of the mfa token) in the limiter storage.
"""
import uuid

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import select

from ...errors import AccountLocked, TooManyRequests, Unauthorized
from ...extensions import db
from ...models import User
from ...models.base import utcnow
from ...ratelimit import Counter, Lockout
from . import audit, factors, passwords
from .factors import EMAIL
from .session_tokens import issue_mfa_token, issue_session_token

MAX_RESENDS = 3
RESEND_COOLDOWN_SECONDS = 60
LOCKOUT_FAILURES = 5
LOCKOUT_SECONDS = 15 * 60


def login_lockout(email):
    """Wrong passwords counted per e-mail, whichever page or route sent them (the API's login, the
    authorization server's sign-in page)."""
    return Lockout("login", email, LOCKOUT_FAILURES, LOCKOUT_SECONDS)


def checked_credentials(email, password):
    """The active user whose e-mail and password these are, else Unauthorized, or AccountLocked (429) once the
    e-mail has LOCKOUT_FAILURES wrong ones; the password is rehashed when its parameters are old. Commits nothing.

    Unknown and inactive accounts cost one password verification too and count toward the lockout,
    so neither the time nor the answers tell them from an active account with a wrong password.
    """
    lockout = login_lockout(email)
    locked = lockout.seconds_left()
    if locked:
        raise AccountLocked(locked)
    user = db.session.scalar(select(User).where(User.email == email))
    if user is None or not user.is_active:
        passwords.burn_verification_time(password)
        raise _credentials_refused(lockout, email)
    if not passwords.verify_password(user.password_hash, password):
        raise _credentials_refused(lockout, email)
    lockout.succeed()
    if passwords.needs_rehash(user.password_hash):
        user.password_hash = passwords.hash_password(password)
    return user


def _credentials_refused(lockout, email):
    """The answer to wrong credentials: a 401, or the 429 of the failure that locks the e-mail."""
    audit.record("login_failed", email=email)
    if lockout.fail():
        audit.record("login_locked", email=email)
        return AccountLocked(LOCKOUT_SECONDS)
    return Unauthorized(_("Incorrect email or password"))


def login_lifetime():
    """How long a login may wait for its second factor (the mfa token's lifetime), in seconds."""
    return current_app.config["MFA_TOKEN_EXPIRES"]


def sign_in(user, event, details=None):
    """Finish a first factor: an MFA challenge for accounts with MFA, otherwise a (bearer) access token
    and the sign-in recorded in the audit log as `event`. Commits."""
    if user.mfa_enabled and user.mfa_methods:
        db.session.commit()
        return start_challenge(user)
    user.last_login_at = utcnow()
    db.session.commit()
    audit.record(event, user=user, details=details)
    return {"access_token": issue_session_token(user), "token_type": "bearer", "mfa_enabled": False}


def start_challenge(user):
    """Open an MFA login: a 5-minute `mfa` token bound to this login attempt (and the e-mail code
    when e-mail is the default method)."""
    methods = list(user.mfa_methods)
    default = user.mfa_default_method if user.mfa_default_method in methods else methods[0]
    login_id = uuid.uuid4().hex
    token = issue_mfa_token(user, login_id, methods, default)
    if default == EMAIL:
        send_login_code(user, login_id)
    return {"mfa_required": True, "mfa_token": token, "mfa_default_method": default,
            "available_methods": methods}


def send_login_code(user, login_id):
    """E-mail a code for this login; returns how many resends are left."""
    factors.throttle("mfa-email-cooldown", login_id, RESEND_COOLDOWN_SECONDS)
    sends = Counter("mfa-email-sends", login_id)
    sent = sends.hit(login_lifetime())
    if sent > 1 + MAX_RESENDS:
        raise TooManyRequests(sends.seconds_left(), _("Resend limit reached. Please sign in again."))
    code = factors.issue_email_code(user, login_id)
    factors.send_code(user, code, "login")
    db.session.commit()  # the code and its e-mail (outbox) together
    return 1 + MAX_RESENDS - sent
