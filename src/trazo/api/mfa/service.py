"""MFA settings of the signed-in user: status, turning factors on and off, recovery codes.

Every change needs the current password or a recent sign-in: a stolen access token alone cannot turn a
factor on, off, or read new recovery codes. The routes that turn a factor on declare it
(`recent_sign_in=True`, api/blueprint.py); the others confirm it here, after their own 400s
(`confirm_recent_sign_in`).
"""
from dataclasses import dataclass

from flask_babel import gettext as _
from flask_babel import lazy_gettext

from ...auth import confirm_recent_sign_in
from ...core.accounts import audit, factors
from ...core.accounts.factors import ACTIVATION, EMAIL, TOTP, send_code, throttle
from ...core.mail.compose import send_template
from ...errors import BadRequest
from ...extensions import db
from ...models import User
from ...ratelimit import Counter

ACTIVATION_COOLDOWN_SECONDS = 60
ACTIVATION_WRONG_CODES = 5


@dataclass(frozen=True)
class MfaStatus:
    """A user's MFA settings (StatusSchema reads the user's columns) and their unused recovery codes."""

    user: User
    recovery_codes_remaining: int

    def __getattr__(self, name):
        return getattr(self.user, name)


def status(user):
    return MfaStatus(user, factors.unused_recovery_codes(user))


# -- notices ---------------------------------------------------------------------------

def _method_label(method):
    return lazy_gettext("an authenticator app") if method == TOTP else lazy_gettext("codes sent by e-mail")


def send_enabled_notice(user, method):
    send_template(user.email, "mfa_enabled", lazy_gettext("Two-step verification turned on"),
                  method=_method_label(method))


def send_disabled_notice(user, method=None, by_admin=False):
    send_template(user.email, "mfa_disabled", lazy_gettext("Two-step verification turned off"),
                  method=_method_label(method), by_admin=by_admin)


def _activate(user, method, set_as_default):
    """Add `method`; recovery codes are made when the user has no unused ones. Commits."""
    methods = [m for m in factors.METHODS if m in user.mfa_methods or m == method]
    user.mfa_methods = methods
    user.mfa_enabled = True
    if set_as_default or user.mfa_default_method not in methods:
        user.mfa_default_method = method
    codes = factors.new_recovery_codes(user) if factors.unused_recovery_codes(user) == 0 else None
    send_enabled_notice(user, method)
    db.session.commit()
    audit.record("mfa_enabled", user=user, details={"method": method})
    return codes


def _activation_result(message, codes):
    return {"message": message, "codes": codes}


# -- TOTP ------------------------------------------------------------------------------

def setup_totp(user):
    """A pending secret and its QR code; the active secret changes only when enable-totp confirms."""
    result = factors.start_totp_setup(user)
    db.session.commit()
    return result


def enable_totp(user, code, set_as_default=True):
    if not factors.has_pending_totp(user):
        raise BadRequest(_("Run /mfa/setup-totp first to create the TOTP secret"))
    if not factors.confirm_pending_totp(user, code):
        raise BadRequest(_("Invalid TOTP code"))
    codes = _activate(user, TOTP, set_as_default)
    return _activation_result(_("TOTP MFA enabled successfully"), codes)


# -- e-mail ----------------------------------------------------------------------------

def _activation_wrong_codes(user):
    return Counter("mfa-activation-wrong-codes", user.id)


def enable_email(user):
    """E-mail an activation code (one per minute)."""
    if EMAIL in user.mfa_methods:
        raise BadRequest(_("E-mail MFA is already enabled"))
    throttle("mfa-activation-cooldown", user.id, ACTIVATION_COOLDOWN_SECONDS)
    code = factors.issue_email_code(user, ACTIVATION)
    send_code(user, code, ACTIVATION)
    db.session.commit()
    _activation_wrong_codes(user).clear()
    return {"message": _("Verification code sent to your e-mail")}


def verify_email_activation(user, code, set_as_default=True):
    state = factors.email_code_state(user, ACTIVATION)
    if state == "missing":
        raise BadRequest(_("No pending verification code. Ask for a new one."))
    if state == "expired":
        raise BadRequest(_("The verification code has expired. Ask for a new one."))
    if not factors.consume_email_code(user, ACTIVATION, code):
        db.session.rollback()
        if _activation_wrong_codes(user).hit(factors.EMAIL_CODE_MINUTES * 60) >= ACTIVATION_WRONG_CODES:
            factors.discard_email_code(user)
            db.session.commit()
            _activation_wrong_codes(user).clear()
        raise BadRequest(_("Invalid verification code"))
    codes = _activate(user, EMAIL, set_as_default)
    return _activation_result(_("E-mail MFA enabled successfully"), codes)


def disable(user, method, password=None):
    if method not in user.mfa_methods:
        raise BadRequest(_("The requested MFA method is not active"))
    confirm_recent_sign_in(user, password)
    factors.forget_method(user, method)
    remaining = [m for m in user.mfa_methods if m != method]
    user.mfa_methods = remaining
    if remaining:
        if user.mfa_default_method not in remaining:
            user.mfa_default_method = remaining[0]
    else:
        user.mfa_enabled = False
        user.mfa_default_method = None
        factors.forget_everything(user)
    send_disabled_notice(user, method)
    db.session.commit()
    audit.record("mfa_disabled", user=user, details={"method": method})
    return {"message": _("MFA method '%(method)s' disabled successfully", method=method)}


def regenerate_recovery_codes(user, password=None):
    if not user.mfa_enabled:
        raise BadRequest(_("MFA is not enabled"))
    confirm_recent_sign_in(user, password)
    codes = factors.new_recovery_codes(user)
    db.session.commit()
    audit.record("mfa_recovery_codes_regenerated", user=user)
    return {"codes": codes}


def set_default_method(user, method, password=None):
    if not user.mfa_enabled:
        raise BadRequest(_("MFA is not enabled"))
    if method not in user.mfa_methods:
        raise BadRequest(_("The requested MFA method is not active"))
    confirm_recent_sign_in(user, password)
    user.mfa_default_method = method
    db.session.commit()
    return {"message": _("Default MFA method changed to '%(method)s'", method=method)}
