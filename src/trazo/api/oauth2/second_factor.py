"""The sign-in page's second step (docs/oauth-server.md, "Pages"): a TOTP code, counted against the account's wrong
codes like the API's MFA sign-in (core/accounts/factors.py: ACCOUNT_WRONG_CODES lock the account)."""
from flask_babel import gettext as _

from ...core.accounts import audit, factors
from ...errors import AccountLocked, Unauthorized
from ...extensions import db
from ...models.base import utcnow


def locked(user):
    return bool(factors.wrong_codes_lockout(user).seconds_left())


def check(user, code):
    """Accept the user's current TOTP code (commits), else Unauthorized, or AccountLocked once locked."""
    lockout = factors.wrong_codes_lockout(user)
    seconds = lockout.seconds_left()
    if seconds:
        raise AccountLocked(seconds)
    if factors.verify_totp(user, "".join(code.split())):
        user.last_login_at = utcnow()
        db.session.commit()
        lockout.succeed()
        audit.record("login_mfa_verified", user=user, details={"method": factors.TOTP, "via": "oauth2"})
        return
    db.session.rollback()
    audit.record("mfa_verify_failed", user=user, details={"method": factors.TOTP, "via": "oauth2"})
    if lockout.fail():
        audit.record("mfa_locked", user=user, details={"wrong_codes": factors.ACCOUNT_WRONG_CODES,
                                                       "lock_seconds": factors.ACCOUNT_LOCK_SECONDS})
        raise AccountLocked(factors.ACCOUNT_LOCK_SECONDS)
    raise Unauthorized(_("Invalid MFA code"))
