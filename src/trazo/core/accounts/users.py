"""Account rules shared by registration, OAuth sign-in and the CLI: what a new account needs, the
first-admin claim, passwords."""
from datetime import timedelta

import marshmallow as ma
from flask_babel import gettext as _
from marshmallow import ValidationError
from sqlalchemy import func, inspect, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value

from ...errors import BadRequest
from ...extensions import db
from ...models import InstallationClaim, User
from ...models.base import new_id, utcnow
from ...models.security import OAuthIdentity
from ...models.user import ROLE_ADMIN, ROLE_USER
from ..workspaces.personal import add_personal_workspace
from . import oauth_grants, passwords

FIRST_ADMIN_CLAIM = "first_admin"
FULL_NAME_MAX_LENGTH = 200
_email_address = ma.validate.Email()
_full_name = ma.validate.Length(max=FULL_NAME_MAX_LENGTH)


def check_new_password(password, email=None, field="password"):
    """Raise ValidationError for `field` listing every rule of the password policy that `password` breaks
    (being the account's e-mail address is one)."""
    try:
        passwords.check_policy(password, email)
    except ValidationError as exc:
        raise ValidationError(exc.messages, field_name=field) from exc


def checked_registration(email, password, full_name=None):
    """{email, password, full_name}, the address trimmed and lower-cased, when they follow the rules of a new
    account (the users area's RegisterSchema applies the same ones); ValidationError {field: [messages]}
    otherwise."""
    errors = {}
    email = email.strip().lower()
    try:
        _email_address(email)
    except ValidationError as exc:
        errors["email"], email = exc.messages, None
    if full_name is not None:
        try:
            _full_name(full_name)
        except ValidationError as exc:
            errors["full_name"] = exc.messages
    try:
        check_new_password(password, email)
    except ValidationError as exc:
        errors["password"] = exc.messages
    if errors:
        raise ValidationError(errors)
    return {"email": email, "password": password, "full_name": full_name}


def count_users():
    return db.session.scalar(select(func.count()).select_from(User))


def email_taken(email):
    return db.session.scalar(select(User.id).where(User.email == email)) is not None


def whole_second():
    return utcnow().replace(microsecond=0)


def create_account(email, taken, attach=None, **fields):
    """Create and commit an account; the installation's first account becomes the administrator, exactly once
    (a race-safe claim: the loser of a concurrent claim is created as a user).  The account gets its personal
    workspace (docs/teams.md). `attach(user)` answers rows to store with the new account; `taken()` tells,
    after a conflict, that a concurrent request created the account, and then the answer is None."""
    for may_claim_admin in (True, False):
        claims_admin = may_claim_admin and count_users() == 0
        user = User(id=new_id(), email=email, role=ROLE_ADMIN if claims_admin else ROLE_USER, **fields)
        db.session.add(user)
        if claims_admin:
            db.session.add(InstallationClaim(name=FIRST_ADMIN_CLAIM, value=user.id, claimed_at=utcnow()))
        try:
            db.session.flush()  # the user row first: the attached rows refer to it
            add_personal_workspace(user)
            if attach is not None:
                db.session.add_all(attach(user))
            db.session.commit()
            return user
        except IntegrityError:
            db.session.rollback()
            if taken():
                return None
    return None


def register(data):
    """Create an account; the very first one becomes the administrator, exactly once."""
    email = data["email"]
    if email_taken(email):
        raise BadRequest(_("User with this email already exists"))
    user = create_account(email, lambda: email_taken(email),
                          password_hash=passwords.hash_password(data["password"]),
                          full_name=data.get("full_name"), password_changed_at=whole_second())
    if user is None:
        raise BadRequest(_("User with this email already exists"))
    return user


def set_password(user, new_password):
    """Store a new password; every token issued before now stops working (pca), and every OAuth grant is revoked
    in the caller's transaction (docs/oauth-server.md); how many grants were live."""
    changed_at = whole_second()
    if user.password_changed_at and changed_at <= user.password_changed_at:
        changed_at = user.password_changed_at + timedelta(seconds=1)
    user.password_hash = passwords.hash_password(new_password)
    user.password_changed_at = changed_at
    user.has_usable_password = True
    user.reset_token_hash = None
    user.reset_token_expires_at = None
    return oauth_grants.revoke_all(user)


def create_or_promote_admin(email, password, full_name=None):
    """Return (user, created): a new administrator, or an existing account promoted with a new password
    (the CLI's create-admin)."""
    data = checked_registration(email, password, full_name)
    user = db.session.scalar(select(User).where(User.email == data["email"]))
    if user is None:
        user = register(data)
        created = True
    else:
        set_password(user, data["password"])
        created = False
    user.role = ROLE_ADMIN
    user.is_active = True
    db.session.commit()
    return user, created


def linked_identities(user):
    """The identities linked to the account, oldest first (shown by /users/me). The account's deferred
    picture, which the profile shows too, comes in the same query when it is not loaded yet."""
    rows = db.session.execute(select(User.profile_picture, OAuthIdentity).select_from(User)
                              .outerjoin(OAuthIdentity, OAuthIdentity.user_id == User.id)
                              .where(User.id == user.id).order_by(OAuthIdentity.linked_at)).all()
    if rows and "profile_picture" in inspect(user).unloaded:
        set_committed_value(user, "profile_picture", rows[0].profile_picture)
    return [identity for _picture, identity in rows if identity is not None]
