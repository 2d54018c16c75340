"""Team workspaces: creating, renaming and deleting them (docs/teams.md).

One account may be billing owner of at most MAX_TEAM_WORKSPACES team workspaces, so that nobody creates
rows without bound (409 beyond it).
"""
from flask_babel import gettext as _
from sqlalchemy import func, select

from ...errors import BadRequest, Conflict
from ...extensions import db
from ...models.base import new_id, utcnow
from ...models.workspaces import ADMIN, OWNER, PERSONAL, TEAM, Workspace
from ..billing.quotas import lock_account
from ..content import access
from .departure import delete_workspaces
from .members import add_member, lock_workspace, record_event

MAX_TEAM_WORKSPACES = 50


def create_team(user, name):
    """A team workspace, the caller its owner and billing owner (logged workspace_created). The caller commits.
    Counted under the account's lock, so concurrent creations cannot pass MAX_TEAM_WORKSPACES."""
    lock_account(user.id)
    owned = db.session.scalar(select(func.count()).select_from(Workspace)
                              .where(Workspace.kind == TEAM, Workspace.billing_owner_id == user.id))
    if owned >= MAX_TEAM_WORKSPACES:
        raise Conflict(_("You are the billing owner of %(count)s team workspaces, the most one account may have",
                         count=MAX_TEAM_WORKSPACES))
    workspace = Workspace(id=new_id(), name=name, kind=TEAM, billing_owner_id=user.id)
    db.session.add(workspace)
    db.session.flush()
    add_member(workspace, user, OWNER, user, "workspace_created", name=name)
    return workspace


def rename(user, workspace_id, name):
    """An admin renames the workspace (logged workspace_renamed). The caller commits."""
    workspace, _role = access.workspace(user, workspace_id, ADMIN)
    if workspace.name != name:
        record_event(workspace.id, user.id, "workspace_renamed", previous_name=workspace.name, name=name)
        workspace.name = name
        workspace.updated_at = utcnow()
    return workspace


def delete_team(user, workspace_id, confirmation):
    """An owner deletes the team workspace and its projects; `confirmation` must be its exact name (400);
    a personal workspace answers 409. The caller commits."""
    workspace, _role = access.workspace(user, workspace_id, OWNER)
    if workspace.kind == PERSONAL:
        raise Conflict(_("A personal workspace is deleted only with its account"))
    if confirmation != workspace.name:
        raise BadRequest(_("Type the workspace's exact name to confirm its deletion"))
    lock_workspace(workspace.id)
    delete_workspaces(workspace.id)
