"""Every account's personal workspace: created with the account, its only member is its owner."""
from sqlalchemy import select

from ...extensions import db
from ...models.base import new_id
from ...models.workspaces import OWNER, PERSONAL, Membership, Workspace

PERSONAL_NAME = "Personal"


def add_personal_workspace(user):
    """Give the new account `user` (already flushed) its personal workspace, in the caller's transaction."""
    workspace = Workspace(id=new_id(), name=PERSONAL_NAME, kind=PERSONAL, billing_owner_id=user.id)
    db.session.add(workspace)
    db.session.flush()
    db.session.add(Membership(workspace_id=workspace.id, user_id=user.id, role=OWNER))
    return workspace


def personal_workspace_id(user_id):
    """The id of the personal workspace of `user_id`."""
    return db.session.scalar(select(Workspace.id).where(Workspace.kind == PERSONAL,
                                                        Workspace.billing_owner_id == user_id))
