"""Password reset by e-mail. The request answers at once and does its work after the response is sent,
so a known address answers exactly as fast as an unknown one. An account gets at most one reset e-mail per
RESET_MAIL_COOLDOWN_SECONDS, counted in the limiter storage; a confirmed reset revokes every personal access
token of the account (docs/security.md, "Accounts")."""
import logging
from datetime import timedelta
from urllib.parse import urlencode

from flask import after_this_request, copy_current_request_context, current_app
from flask_babel import gettext as _
from flask_babel import lazy_gettext
from sqlalchemy import select

from ...core.accounts import audit, passwords, personal_tokens
from ...core.accounts.users import set_password
from ...core.hashing import keyed_hash
from ...core.mail.compose import send_template
from ...errors import BadRequest
from ...extensions import db
from ...models import User
from ...models.base import utcnow
from ...ratelimit import Counter
from .service import clear_lockout

log = logging.getLogger(__name__)
RESET_TOKEN_LIFETIME = timedelta(hours=1)


def _after_the_response(work):
    """Run `work` when the server closes the response (after sending it), in a copy of this request's
    context: same language, same client address, a session of its own."""
    work = copy_current_request_context(work)

    def run():
        try:
            work()
        except Exception:  # the caller already has its answer; nothing left to tell it
            log.exception("work after the response failed")

    @after_this_request
    def defer(response):
        response.call_on_close(run)
        return response


def _send_reset_link(email):
    user = db.session.scalar(select(User).where(User.email == email))
    if user is None or not user.is_active or _cooling_down(user):
        return
    token, user.reset_token_hash = passwords.new_token()
    user.reset_token_expires_at = utcnow() + RESET_TOKEN_LIFETIME
    query = urlencode({"token": token, "email": user.email})
    send_template(user.email, "reset_password", lazy_gettext("Reset your Trazo password"),
                  link=f"{current_app.config['FRONTEND_URL']}/reset-password?{query}")
    db.session.commit()  # the token and its e-mail (outbox) together
    audit.record("password_reset_requested", user=user)


def _cooling_down(user):
    """Count this request against the account's reset-mail cooldown: True when a reset e-mail already left
    within RESET_MAIL_COOLDOWN_SECONDS (then nothing is sent and the mailed link stays the valid one). The
    count lives in the limiter storage, so every worker shares it; the answer does not depend on it."""
    seconds = current_app.config["RESET_MAIL_COOLDOWN_SECONDS"]
    return seconds > 0 and Counter("reset-mail", user.id).hit(seconds) > 1


def request_password_reset(email):
    """E-mail a single-use reset link when the account exists; neither the answer nor its time tells."""
    _after_the_response(lambda: _send_reset_link(email))
    return {"message": _("If the email exists, a reset link has been sent")}


def confirm_password_reset(email, token, new_password):
    user = db.session.scalar(select(User).where(User.email == email))
    valid = (user is not None and user.reset_token_expires_at is not None
             and user.reset_token_expires_at > utcnow()
             and passwords.same_hash(user.reset_token_hash, keyed_hash(token)))
    if not valid:
        raise BadRequest(_("Invalid or expired reset token"))
    grants = set_password(user, new_password)
    revoked = personal_tokens.revoke_all(user)  # whoever knew the old password may have minted some
    db.session.commit()
    clear_lockout(email)
    audit.record("password_reset_confirmed", user=user)
    if grants:
        audit.record("oauth_grants_revoked", user=user, details={"count": grants, "reason": "password_reset"})
    if revoked:
        audit.record("personal_tokens_revoked", user=user, details={"count": revoked, "reason": "password_reset"})
    return {"message": _("Password reset successfully")}
