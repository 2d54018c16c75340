"""The second step of a sign-in for accounts with MFA: /mfa/verify, /mfa/switch-method and
/mfa/resend-email-code continue the challenge that /users/login and the OAuth callback start
(core/accounts/sign_in.py).

Everything is counted per login (the `lid` claim of the mfa token) in the limiter storage: wrong
codes (5, then the login must restart), e-mails sent (core/accounts/sign_in.py), completion.
Wrong codes also count per account, across logins: 10 lock the account's second step for 15 minutes
(audited, the owner is told by e-mail once per lock), so new logins bring no new guesses.
"""
from flask import current_app
from flask_babel import gettext as _
from flask_babel import lazy_gettext

from ...core.accounts import audit, factors
from ...core.accounts.factors import EMAIL, TOTP
from ...core.accounts.session_tokens import issue_session_token, read_mfa_token, unix_seconds
from ...core.accounts.sign_in import login_lifetime, send_login_code
from ...core.mail.compose import send_template
from ...errors import AccountLocked, BadRequest, Unauthorized
from ...extensions import db
from ...models import User
from ...models.base import utcnow
from ...ratelimit import Counter

MAX_WRONG_CODES = 5
ACCOUNT_WRONG_CODES = factors.ACCOUNT_WRONG_CODES
ACCOUNT_LOCK_SECONDS = factors.ACCOUNT_LOCK_SECONDS


def _wrong_codes(login_id):
    return Counter("mfa-wrong-codes", login_id)


def _completed(login_id):
    return Counter("mfa-login-completed", login_id)


def _account_codes(user):
    return factors.wrong_codes_lockout(user)


def expired_login_error():
    # The browser client sends the user back to the sign-in page when this text contains "expir".
    return Unauthorized(_("Invalid or expired MFA verification token. Please sign in again."))


def _open_login(mfa_token):
    """The claims and the user of a login still waiting for its second factor."""
    claims = read_mfa_token(mfa_token)
    if claims is None or _completed(claims["lid"]).value():
        raise expired_login_error()
    user = db.session.get(User, str(claims["sub"]))
    if (user is None or not user.is_active or not user.mfa_enabled
            or int(claims.get("pca", -1)) < unix_seconds(user.password_changed_at)):
        raise expired_login_error()
    return claims, user


def _usable_method(claims, user, method):
    if method not in claims["methods"] or method not in user.mfa_methods:
        raise BadRequest(_("The requested MFA method is not active"))
    return method


def verify(data):
    """Check the second factor of a login and answer the (5-day) access token."""
    claims, user = _open_login(data["mfa_token"])
    login_id = claims["lid"]
    account = _account_codes(user)
    locked = account.seconds_left()
    if locked:
        raise AccountLocked(locked)
    wrong = _wrong_codes(login_id)
    if wrong.value() >= MAX_WRONG_CODES:
        raise _too_many_wrong_codes()
    if data.get("is_recovery_code"):
        method, accepted = "recovery", factors.consume_recovery_code(user, data["code"])
    else:
        method = _usable_method(claims, user, data.get("method") or claims["default_method"])
        code = "".join(data["code"].split())
        accepted = (factors.verify_totp(user, code) if method == TOTP
                    else factors.consume_email_code(user, login_id, code))
    if not accepted:
        db.session.rollback()
        audit.record("mfa_verify_failed", user=user, details={"method": method})
        if account.fail():
            _lock_account(user)
        if wrong.hit(login_lifetime()) >= MAX_WRONG_CODES:
            raise _too_many_wrong_codes()
        raise Unauthorized(_("Invalid MFA code"))
    if _completed(login_id).hit(login_lifetime()) > 1:
        db.session.rollback()  # another request finished this login first: keep the code unspent
        raise expired_login_error()
    user.last_login_at = utcnow()
    remaining = factors.unused_recovery_codes(user)
    db.session.commit()
    wrong.clear()
    account.succeed()
    if method == "recovery":
        audit.record("mfa_recovery_used", user=user, details={"recovery_codes_remaining": remaining})
    else:
        audit.record("login_mfa_verified", user=user, details={"method": method})
    audit.record("login_success", user=user, details={"mfa_method": method})
    result = {"access_token": issue_session_token(user, current_app.config["MFA_ACCESS_TOKEN_EXPIRES"]),
              "token_type": "bearer"}
    if method == "recovery" and remaining == 0:
        result["recovery_warning"] = _("You have used your last recovery code. Generate new codes in your "
                                       "security settings.")
    return result


def _lock_account(user):
    """The failure that locks: audited, the owner told (their password is known to whoever is guessing)."""
    # Someone who knows the password failed the second step ACCOUNT_WRONG_CODES times.
    send_template(user.email, "mfa_locked", lazy_gettext("Sign-in to your Trazo account was blocked"),
                  count=ACCOUNT_WRONG_CODES, minutes=ACCOUNT_LOCK_SECONDS // 60)
    db.session.commit()  # the notice (outbox); the lock itself is in the limiter storage
    audit.record("mfa_locked", user=user, details={"wrong_codes": ACCOUNT_WRONG_CODES,
                                                   "lock_seconds": ACCOUNT_LOCK_SECONDS})
    raise AccountLocked(ACCOUNT_LOCK_SECONDS)


def _too_many_wrong_codes():
    return Unauthorized(_("This sign-in has expired after too many wrong codes. Please sign in again."))


def switch_method(data):
    """Change the method of a login in progress; switching to e-mail sends a code if none is live."""
    claims, user = _open_login(data["mfa_token"])
    method = _usable_method(claims, user, data["method"])
    if method == EMAIL and factors.email_code_state(user, claims["lid"]) != "live":
        send_login_code(user, claims["lid"])
    return {"message": _("MFA method switched to '%(method)s'", method=method), "method": method}


def resend_email_code(data):
    """Send a new e-mail code for a login in progress (3 resends, 60 s apart)."""
    claims, user = _open_login(data["mfa_token"])
    _usable_method(claims, user, EMAIL)
    remaining = send_login_code(user, claims["lid"])
    return {"message": _("Verification code resent"), "resends_remaining": remaining}
