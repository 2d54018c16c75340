"""Account administration used by the CLI."""
from sqlalchemy import select

from ...core.accounts import register, set_password
from ...extensions import db
from ...models import User
from ...models.user import ROLE_ADMIN
from .schemas import RegisterSchema


def create_or_promote_admin(email, password, full_name=None):
    """Return (user, created): a new administrator, or an existing account promoted with a new password."""
    data = RegisterSchema().load({"email": email, "password": password, "full_name": full_name})
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
