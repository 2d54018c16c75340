"""The second factors themselves: TOTP secrets, e-mail codes (and their e-mail) and recovery codes; the
MFA settings (api/mfa) and the sign-in (core/accounts/sign_in.py) both use them.

Functions change the session without committing; the calling service owns the transaction.
Every check that consumes something is one conditional UPDATE, so two concurrent requests can
never both use the same code.
"""
import base64
import hmac
import io
import secrets
import string
from datetime import timedelta

import pyotp
import segno
from flask_babel import gettext as _
from flask_babel import lazy_gettext
from sqlalchemy import delete, func, or_, select, update

from ...errors import TooManyRequests
from ...extensions import db
from ...models.base import utcnow
from ...models.security import MfaSecret, RecoveryCode
from ...ratelimit import Counter, Lockout
from .. import crypto
from ..hashing import keyed_hash
from ..mail.compose import send_template

TOTP = "totp"
EMAIL = "email"
# Wrong second-factor codes of one account, whichever sign-in they came from: the account locks.
ACCOUNT_WRONG_CODES = 10
ACCOUNT_LOCK_SECONDS = 15 * 60
METHODS = (EMAIL, TOTP)
TOTP_ISSUER = "Trazo"
TOTP_WINDOW = 1  # steps accepted either side of now (clock drift)
EMAIL_CODE_MINUTES = 10
RECOVERY_CODE_COUNT = 8
RECOVERY_ALPHABET = string.ascii_uppercase + string.digits
RECOVERY_HALF = 5
ACTIVATION = "activation"


def wrong_codes_lockout(user):
    """The account's count of wrong second-factor codes (the API's MFA sign-in, the authorization server's page)."""
    return Lockout("mfa-account", user.id, ACCOUNT_WRONG_CODES, ACCOUNT_LOCK_SECONDS)


def secrets_row(user, create=False):
    row = db.session.get(MfaSecret, user.id)
    if row is None and create:
        row = MfaSecret(user_id=user.id)
        db.session.add(row)
    return row


def _code_hash(user, purpose, code):
    # Codes have little entropy: the hash is keyed (SECRET_KEY) and salted with user and purpose.
    return keyed_hash(f"{user.id}:{purpose}:{code}")


# -- TOTP ------------------------------------------------------------------------------

def start_totp_setup(user):
    """A new *pending* secret (the active one, if any, keeps working) and its QR code."""
    secret = pyotp.random_base32()
    secrets_row(user, create=True).totp_pending_secret = crypto.encrypt(secret)
    uri = pyotp.TOTP(secret).provisioning_uri(name=user.email, issuer_name=TOTP_ISSUER)
    buffer = io.BytesIO()
    segno.make(uri, error="m").save(buffer, kind="png", scale=6, border=4)
    return {"qr_code_base64": base64.b64encode(buffer.getvalue()).decode(), "secret_key": secret}


def _matching_step(secret, code, after_step):
    """The time step within the window whose code is `code` and that is newer than `after_step`."""
    totp = pyotp.TOTP(secret)
    now_step = totp.timecode(utcnow())
    for step in range(now_step - TOTP_WINDOW, now_step + TOTP_WINDOW + 1):
        if (after_step is None or step > after_step) and hmac.compare_digest(totp.generate_otp(step), code):
            return step
    return None


def has_pending_totp(user):
    row = secrets_row(user)
    return row is not None and row.totp_pending_secret is not None


def confirm_pending_totp(user, code):
    """Make the pending secret the active one when `code` belongs to it."""
    row = secrets_row(user)
    step = _matching_step(crypto.decrypt(row.totp_pending_secret), code, None)
    if step is None:
        return False
    row.totp_secret, row.totp_pending_secret = row.totp_pending_secret, None
    # The confirming code is spent too: it cannot sign in afterwards.
    row.totp_last_step = max(step, row.totp_last_step or step)
    return True


def verify_totp(user, code):
    """True for a code of the active secret not used before (its time step is recorded)."""
    row = secrets_row(user)
    if row is None or row.totp_secret is None:
        return False
    step = _matching_step(crypto.decrypt(row.totp_secret), code, row.totp_last_step)
    if step is None:
        return False
    claimed = db.session.execute(
        update(MfaSecret)
        .where(MfaSecret.user_id == user.id,
               or_(MfaSecret.totp_last_step.is_(None), MfaSecret.totp_last_step < step))
        .values(totp_last_step=step)
        .execution_options(synchronize_session="fetch"))
    return claimed.rowcount == 1


# -- e-mail codes ----------------------------------------------------------------------

def issue_email_code(user, purpose):
    """A fresh 6-digit code for `purpose` ("activation" or a login id); it replaces any older one."""
    code = f"{secrets.randbelow(10 ** 6):06d}"
    row = secrets_row(user, create=True)
    row.email_code_hash = _code_hash(user, purpose, code)
    row.email_code_purpose = purpose
    row.email_code_expires_at = utcnow() + timedelta(minutes=EMAIL_CODE_MINUTES)
    return code


def email_code_state(user, purpose):
    """Whether the code of `purpose` is "live", "expired" or "missing"."""
    row = secrets_row(user)
    if row is None or row.email_code_hash is None or row.email_code_purpose != purpose:
        return "missing"
    return "live" if row.email_code_expires_at > utcnow() else "expired"


def consume_email_code(user, purpose, code):
    """True (and the code is spent) when `code` is the live code of `purpose`."""
    spent = db.session.execute(
        update(MfaSecret)
        .where(MfaSecret.user_id == user.id, MfaSecret.email_code_purpose == purpose,
               MfaSecret.email_code_hash == _code_hash(user, purpose, code),
               MfaSecret.email_code_expires_at > utcnow())
        .values(email_code_hash=None, email_code_purpose=None, email_code_expires_at=None)
        .execution_options(synchronize_session="fetch"))
    return spent.rowcount == 1


def discard_email_code(user):
    row = secrets_row(user)
    if row is not None:
        row.email_code_hash = row.email_code_purpose = row.email_code_expires_at = None


def throttle(name, key, seconds):
    """One code e-mail per `seconds` for `key`; a 429 with Retry-After otherwise."""
    cooldown = Counter(name, key)
    if cooldown.hit(seconds) > 1:
        left = cooldown.seconds_left()
        raise TooManyRequests(left, _("Wait %(seconds)s seconds before asking for another code.", seconds=left))


def send_code(user, code, purpose):
    """E-mail a sign-in or activation (ACTIVATION) code, in the language of the request."""
    send_template(user.email, "mfa_code", lazy_gettext("Your Trazo verification code"), code=code,
                  minutes=EMAIL_CODE_MINUTES, activation=purpose == ACTIVATION)


# -- recovery codes --------------------------------------------------------------------

def _normalized_recovery_code(code):
    return "".join(code.split()).replace("-", "").upper()


def new_recovery_codes(user):
    """Replace the user's recovery codes with 8 new ones, shown once as XXXXX-XXXXX."""
    db.session.execute(delete(RecoveryCode).where(RecoveryCode.user_id == user.id))
    codes = []
    for _index in range(RECOVERY_CODE_COUNT):
        raw = "".join(secrets.choice(RECOVERY_ALPHABET) for _char in range(2 * RECOVERY_HALF))
        db.session.add(RecoveryCode(user_id=user.id, code_hash=_code_hash(user, "recovery", raw)))
        codes.append(f"{raw[:RECOVERY_HALF]}-{raw[RECOVERY_HALF:]}")
    return codes


def consume_recovery_code(user, code):
    """True (and the code is spent) for an unused recovery code of the user: one indexed lookup."""
    raw = _normalized_recovery_code(code)
    if len(raw) != 2 * RECOVERY_HALF or any(char not in RECOVERY_ALPHABET for char in raw):
        return False
    spent = db.session.execute(
        update(RecoveryCode)
        .where(RecoveryCode.user_id == user.id, RecoveryCode.code_hash == _code_hash(user, "recovery", raw),
               RecoveryCode.used_at.is_(None))
        .values(used_at=utcnow())
        .execution_options(synchronize_session="fetch"))
    return spent.rowcount >= 1


def unused_recovery_codes(user):
    return db.session.scalar(select(func.count()).select_from(RecoveryCode)
                             .where(RecoveryCode.user_id == user.id, RecoveryCode.used_at.is_(None)))


def unused_recovery_codes_by_user(user_ids):
    """{user_id: unused codes} for many users (a list or a SELECT of ids) in one query."""
    rows = db.session.execute(select(RecoveryCode.user_id, func.count())
                              .where(RecoveryCode.user_id.in_(user_ids), RecoveryCode.used_at.is_(None))
                              .group_by(RecoveryCode.user_id))
    return dict(rows.all())


# -- turning factors off ---------------------------------------------------------------

def forget_method(user, method):
    """Drop the secrets of one method."""
    row = secrets_row(user)
    if row is None:
        return
    if method == TOTP:
        row.totp_secret = row.totp_pending_secret = row.totp_last_step = None
    else:
        discard_email_code(user)


def forget_everything(user):
    """Drop every second-factor secret and recovery code of the user."""
    db.session.execute(delete(RecoveryCode).where(RecoveryCode.user_id == user.id))
    db.session.execute(delete(MfaSecret).where(MfaSecret.user_id == user.id))
