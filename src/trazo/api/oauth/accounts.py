"""Our accounts behind OAuth identities: find, link (verified e-mail only) or create."""
from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ...core.accounts import audit
from ...core.accounts.users import create_account, email_taken, whole_second
from ...errors import Forbidden
from ...extensions import db
from ...models import User
from ...models.security import OAuthIdentity


def _linked_user(identity):
    user_id = db.session.scalar(select(OAuthIdentity.user_id).where(
        OAuthIdentity.provider == identity.provider, OAuthIdentity.provider_user_id == identity.subject))
    return db.session.get(User, user_id) if user_id else None


def refuse(provider, email, reason, error):
    """Audit a failed OAuth sign-in, then raise `error`."""
    audit.record("oauth_login_failed", email=email, details={"provider": provider, "reason": reason})
    raise error


def _ensure_active(user, identity):
    if not user.is_active:
        refuse(identity.provider, identity.email, "inactive", Forbidden(_("Inactive user")))


def _identity_row(user, identity):
    return OAuthIdentity(user_id=user.id, provider=identity.provider, provider_user_id=identity.subject,
                         email=identity.email)


def _create_account(identity, email):
    """A new account without a password; the installation's first account becomes the administrator,
    exactly as with /users/register (the same race-safe claim)."""
    return create_account(email, lambda: _linked_user(identity) is not None or email_taken(email),
                          attach=lambda user: [_identity_row(user, identity)],
                          password_hash=None, has_usable_password=False,
                          full_name=(identity.name or "")[:200] or None, password_changed_at=whole_second())


def resolve_account(identity):
    """The account signing in with `identity`: linked, linked now, or created (audited)."""
    for _attempt in range(2):
        user = _linked_user(identity)
        if user is not None:
            _ensure_active(user, identity)
            return user
        if not identity.email or not identity.email_verified:
            refuse(identity.provider, identity.email, "email_not_verified",
                   Forbidden(_("Email not verified by OAuth provider")))
        email = identity.email.strip().lower()
        user = db.session.scalar(select(User).where(User.email == email))
        if user is None:
            user = _create_account(identity, email)
            if user is not None:
                audit.record("oauth_account_created", user=user, details={"provider": identity.provider})
                return user
            continue
        _ensure_active(user, identity)
        db.session.add(_identity_row(user, identity))
        try:
            db.session.commit()
        except IntegrityError:
            db.session.rollback()
            continue
        audit.record("oauth_account_linked", user=user, details={"provider": identity.provider})
        return user
    raise Forbidden(_("The account could not be linked. Please try again."))
