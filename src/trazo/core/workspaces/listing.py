"""The caller's workspaces as they are listed (docs/teams.md): each with the caller's role and its number of
members, personal first then by name, in one statement. Shared by the workspace routes and the MCP tools."""
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, func, select

from ...extensions import db
from ...models.workspaces import PERSONAL, Membership, Workspace


@dataclass(frozen=True)
class ListedWorkspace:
    """A workspace with the caller's role and its number of members (WorkspaceSchema)."""

    id: str
    name: str
    kind: str
    role: str
    member_count: int
    billing_owner_id: str | None
    created_at: datetime


def listed(user, workspace_id=None):
    """The caller's workspaces (or the one `workspace_id` names, when the caller is a member) with role and member
    count, personal first then by name."""
    everyone = Membership.__table__.alias("everyone")
    counted = select(func.count()).where(everyone.c.workspace_id == Workspace.id).scalar_subquery()
    statement = (select(Workspace, Membership.role, counted)
                 .join(Membership, (Membership.workspace_id == Workspace.id) & (Membership.user_id == user.id))
                 .order_by(case((Workspace.kind == PERSONAL, 0), else_=1), func.lower(Workspace.name), Workspace.id))
    if workspace_id is not None:
        statement = statement.where(Workspace.id == str(workspace_id))
    return [ListedWorkspace(workspace.id, workspace.name, workspace.kind, role, count,
                            workspace.billing_owner_id, workspace.created_at)
            for workspace, role, count in db.session.execute(statement)]
