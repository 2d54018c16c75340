"""The e-mails of the MFA area: codes and notices when a factor is turned on or off."""
from flask_babel import gettext as _
from flask_babel import lazy_gettext

from ...errors import TooManyRequests
from ...ratelimit import Counter
from ...services.email import send_template
from .factors import EMAIL_CODE_MINUTES, TOTP

ACTIVATION = "activation"


def method_label(method):
    return lazy_gettext("an authenticator app") if method == TOTP else lazy_gettext("codes sent by e-mail")


def throttle(name, key, seconds):
    """One code e-mail per `seconds` for `key`; a 429 with Retry-After otherwise."""
    cooldown = Counter(name, key)
    if cooldown.hit(seconds) > 1:
        left = cooldown.seconds_left()
        raise TooManyRequests(left, _("Wait %(seconds)s seconds before asking for another code.", seconds=left))


def send_code(user, code, purpose):
    """A sign-in or activation code, in the language of the request."""
    send_template(user.email, "mfa_code", lazy_gettext("Your Trazo verification code"), code=code,
                  minutes=EMAIL_CODE_MINUTES, activation=purpose == ACTIVATION)


def send_enabled_notice(user, method):
    send_template(user.email, "mfa_enabled", lazy_gettext("Two-step verification turned on"),
                  method=method_label(method))


def send_locked_notice(user, wrong_codes, minutes):
    """Someone who knows the password failed the second step `wrong_codes` times."""
    send_template(user.email, "mfa_locked", lazy_gettext("Sign-in to your Trazo account was blocked"),
                  count=wrong_codes, minutes=minutes)


def send_disabled_notice(user, method=None, by_admin=False):
    send_template(user.email, "mfa_disabled", lazy_gettext("Two-step verification turned off"),
                  method=method_label(method), by_admin=by_admin)
