"""Workspaces: the caller's list, one workspace, its members and its audit log; changes call the rules of
core/workspaces and commit (docs/teams.md)."""
from flask_babel import gettext as _
from sqlalchemy import func, select

from ...core.content import access
from ...core.workspaces import roles, teams
from ...core.workspaces.listing import listed
from ...errors import N_, found_or_404
from ...extensions import db
from ...models import User
from ...models.workspaces import ADMIN, VIEWER, Membership, WorkspaceEvent
from ..common import page_envelope


def list_workspaces(user):
    return listed(user)


def get_workspace(user, workspace_id):
    return found_or_404(next(iter(listed(user, workspace_id)), None), N_("Workspace not found"))


def create_workspace(user, name):
    workspace = teams.create_team(user, name)
    db.session.commit()
    return get_workspace(user, workspace.id)


def rename_workspace(user, workspace_id, name):
    teams.rename(user, workspace_id, name)
    db.session.commit()
    return get_workspace(user, workspace_id)


def delete_workspace(user, workspace_id, confirmation):
    teams.delete_team(user, workspace_id, confirmation)
    db.session.commit()
    return {"message": _("Workspace deleted")}


def list_members(user, workspace_id):
    """The members (any member may read them), in the order they joined."""
    access.workspace(user, workspace_id, VIEWER)
    return _members(Membership.workspace_id == str(workspace_id))


def _members(*where):
    rows = db.session.execute(select(Membership.user_id, User.email, User.full_name, Membership.role,
                                     Membership.joined_at)
                              .join(User, User.id == Membership.user_id).where(*where)
                              .order_by(Membership.joined_at, Membership.user_id))
    return [row._asdict() for row in rows]


def change_role(user, workspace_id, member_id, role):
    membership = roles.change_role(user, workspace_id, member_id, role)
    workspace_id, member_id = membership.workspace_id, membership.user_id
    db.session.commit()
    return _members(Membership.workspace_id == workspace_id, Membership.user_id == member_id)[0]


def remove_member(user, workspace_id, member_id):
    roles.remove_member(user, workspace_id, member_id)
    db.session.commit()
    return {"message": _("Member removed")}


def leave(user, workspace_id):
    roles.leave(user, workspace_id)
    db.session.commit()
    return {"message": _("You left the workspace")}


def set_billing_owner(user, workspace_id, member_id):
    roles.set_billing_owner(user, workspace_id, member_id)
    db.session.commit()
    return get_workspace(user, workspace_id)


def audit_log(user, workspace_id, page, page_size):
    """A page of the workspace's log (admins), newest first, each entry with its actor (null once gone)."""
    access.workspace(user, workspace_id, ADMIN)
    where = WorkspaceEvent.workspace_id == str(workspace_id)
    total = db.session.scalar(select(func.count()).select_from(WorkspaceEvent).where(where))
    rows = db.session.execute(select(WorkspaceEvent, User.full_name)
                              .outerjoin(User, User.id == WorkspaceEvent.actor_id).where(where)
                              .order_by(WorkspaceEvent.created_at.desc(), WorkspaceEvent.id.desc())
                              .limit(page_size).offset((page - 1) * page_size))
    entries = [{"id": event.id, "event": event.event, "details": event.details, "created_at": event.created_at,
                "actor": {"id": event.actor_id, "full_name": full_name} if event.actor_id else None}
               for event, full_name in rows]
    return page_envelope(entries, total, page, page_size)
