"""Accounts: sign-in, password change, profile, deletion (registration and the first-admin claim live in
`core/accounts/users.py`, what every sign-in shares in `core/accounts/sign_in.py`, password reset in `reset.py`)."""
from dataclasses import dataclass

from flask_babel import gettext as _
from sqlalchemy import func, select

from ...auth import confirm_recent_sign_in, current_password_matches
from ...core.accounts import audit, personal_tokens, users
from ...core.accounts.language import remember_language
from ...core.accounts.session_tokens import issue_session_token
from ...core.accounts.sign_in import checked_credentials, login_lockout, sign_in
from ...core.accounts.users import count_users, linked_identities, set_password
from ...core.billing.plans import ensure_account_deletable, plan_summary
from ...core.workspaces.departure import before_account_deletion
from ...errors import BadRequest, Forbidden
from ...extensions import db
from ...models import User
from ...models.base import utcnow
from ...models.security import OAuthIdentity
from ...models.user import ROLE_ADMIN

DELETE_PHRASES = ("delete me", "elimíname")


# -- installation ----------------------------------------------------------------------

def installation_status():
    users = count_users()
    return {"needs_setup": users == 0, "user_count": users}


def _admins():
    return db.session.scalar(select(func.count()).select_from(User).where(User.role == ROLE_ADMIN))


def admin_count():
    return {"count": _admins()}


# -- sign-in ---------------------------------------------------------------------------

def login(email, password):
    """Check the credentials (with lockout, core/accounts/sign_in.py); answer a token or an MFA challenge."""
    user = checked_credentials(email, password)
    remember_language(user)
    return sign_in(user, "login_success")


def clear_lockout(email):
    login_lockout(email).clear()


# -- passwords -------------------------------------------------------------------------

def change_password(user, current_password, new_password, revoke_tokens=False):
    """Change the password after checking the current one; returns a fresh token. Personal access tokens
    live on unless `revoke_tokens` (then all of them go, in the same transaction)."""
    if not user.has_usable_password:
        raise Forbidden(_("This account signs in with a linked provider and has no password to confirm. "
                          "Use 'forgot password' to create one."))
    if not current_password:
        raise BadRequest(_("Current password is required"))
    if not current_password_matches(user, current_password):
        raise BadRequest(_("Current password is incorrect"))
    grants = set_password(user, new_password)
    revoked = personal_tokens.revoke_all(user) if revoke_tokens else 0
    db.session.commit()
    audit.record("password_changed", user=user)
    if grants:
        audit.record("oauth_grants_revoked", user=user, details={"count": grants, "reason": "password_change"})
    if revoked:
        audit.record("personal_tokens_revoked", user=user, details={"count": revoked, "reason": "password_change"})
    return {"message": _("Password changed successfully"), "access_token": issue_session_token(user),
            "token_type": "bearer"}


# -- profile ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Profile:
    """An account as /users/me shows it: the row (UserSchema reads its columns), the active plan in the shape
    the browser client reads ({plan: {name, price_usd, max_projects, max_diagrams}} or None) and the OAuth
    identities linked to it."""

    user: User
    subscription: dict | None
    oauth_providers: list[OAuthIdentity]

    def __getattr__(self, name):
        return getattr(self.user, name)


def profile(user):
    return Profile(user, plan_summary(user), linked_identities(user))


def register(data):
    return profile(users.register(data))


def update_profile(user, data):
    for field in ("full_name", "profile_picture", "timezone"):
        if field in data:
            setattr(user, field, data[field])
    user.updated_at = utcnow()
    db.session.commit()
    return profile(user)


NOTIFICATION_COLUMNS = {"comment_mentions": "notify_comment_mentions", "comment_replies": "notify_comment_replies"}


def update_notifications(user, data):
    """Change the notification choices sent (booleans); answers the account (NotificationsSchema reads it)."""
    for field, column in NOTIFICATION_COLUMNS.items():
        if field in data:
            setattr(user, column, data[field])
    db.session.commit()
    return user


def delete_account(user, phrase, password=None):
    """Delete the account and everything it owns, in one transaction (the password or a recent sign-in)."""
    if (phrase or "").strip().lower() not in DELETE_PHRASES:
        raise BadRequest(_("Invalid confirmation phrase"))
    confirm_recent_sign_in(user, password)
    if user.is_admin and _admins() <= 1:
        raise Forbidden(_("Cannot delete the only administrator account."))
    ensure_account_deletable(user)
    before_account_deletion(user)  # its personal workspace goes, team ones are deleted or handed on
    db.session.delete(user)
    db.session.commit()
    audit.record("account_deleted", user=user)
    return {"message": _("Account deleted successfully")}
