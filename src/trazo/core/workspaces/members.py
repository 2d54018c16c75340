"""Joining a workspace and its log: every way in (creating it, an invitation, an invite link) goes through
`add_member`, which holds the workspace's row lock, so concurrent joins respect the billing owner's
`max_members` and two accepts of one invitation make one membership (docs/teams.md)."""
from flask_babel import gettext as _
from sqlalchemy import func, select, text

from ...errors import Conflict, Forbidden
from ...extensions import db
from ...models import User
from ...models.workspaces import Membership, Workspace, WorkspaceEvent
from ..billing.plans import plan_for
from ..events.publish import MEMBER_JOINED, MEMBER_LEFT, MEMBER_ROLE_CHANGED, person, record
from .billing import payer

# Audit log entries that are changes of members, and the feed event each one is.
MEMBER_EVENTS = {"workspace_created": MEMBER_JOINED, "invitation_accepted": MEMBER_JOINED,
                 "member_joined": MEMBER_JOINED, "member_role_changed": MEMBER_ROLE_CHANGED,
                 "member_removed": MEMBER_LEFT, "member_left": MEMBER_LEFT}


def lock_workspace(workspace_id):
    """Serialize membership changes of one workspace until the transaction ends (SELECT ... FOR UPDATE on
    PostgreSQL; on SQLite a no-op UPDATE, which takes the database write lock at once)."""
    if db.session.get_bind().dialect.name == "sqlite":
        db.session.execute(text("UPDATE workspaces SET id = id WHERE id = :id"), {"id": workspace_id})
    else:
        db.session.execute(select(Workspace.id).where(Workspace.id == workspace_id).with_for_update())


def record_event(workspace_id, actor_id, event, **details):
    """Add an entry to the workspace's audit log, in the caller's transaction; a change of members is also
    published on the workspace's feed once it commits (docs/events.md)."""
    db.session.add(WorkspaceEvent(workspace_id=workspace_id, actor_id=actor_id, event=event, details=details or None))
    if event in MEMBER_EVENTS:
        member = db.session.get(User, details["user_id"])
        record(MEMBER_EVENTS[event], workspace_id, {"workspace_id": workspace_id, "user": person(member),
                                                    "role": details.get("role")},
               by=db.session.get(User, actor_id) if actor_id else None)


def member_count(workspace_id):
    return db.session.scalar(select(func.count()).select_from(Membership)
                             .where(Membership.workspace_id == workspace_id))


def ensure_member_room(workspace, acting_user, adding=1):
    """403 resource_limit_exceeded (resource_type "members") when `adding` more members would pass the
    max_members of the billing owner's plan (administrators' workspaces are never limited). Call it under
    `lock_workspace`."""
    owner = payer(acting_user, workspace.billing_owner_id)
    if owner.is_admin:
        return
    limit = plan_for(owner).max_members
    if limit is None:
        return
    current = member_count(workspace.id)
    if current + adding > limit:
        raise Forbidden({"error": "resource_limit_exceeded", "resource_type": "members", "current_usage": current,
                         "limit": limit, "message": _("This workspace has reached its members limit "
                                                      "(%(current)s/%(limit)s)", current=current, limit=limit)})


def add_member(workspace, user, role, acting_user, event, **details):
    """Make `user` a member of the team `workspace` with `role` (409 when already one), within the members
    limit, logged as `event`; the caller commits."""
    lock_workspace(workspace.id)
    taken = db.session.scalar(select(Membership.user_id).where(Membership.workspace_id == workspace.id,
                                                               Membership.user_id == user.id))
    if taken is not None:
        raise Conflict(_("You are already a member of this workspace") if user.id == acting_user.id
                       else _("This person is already a member of this workspace"))
    ensure_member_room(workspace, acting_user)
    membership = Membership(workspace_id=workspace.id, user_id=user.id, role=role)
    db.session.add(membership)
    record_event(workspace.id, acting_user.id, event, user_id=user.id, email=user.email, role=role, **details)
    return membership
