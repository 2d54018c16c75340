"""The membership rules of a team workspace (docs/teams.md, "Roles"): who may change whose role, remove
whom, leave, and hold the billing ownership; a workspace always keeps at least one owner.

Every change here runs under `members.lock_workspace` and reads the memberships after taking it (the
caller's own role included), so two owners demoting or removing each other at once leave one owner: the
second change sees the first one's result.
"""
from flask_babel import gettext as _
from sqlalchemy import func, select

from ...errors import N_, Conflict, Forbidden, NotFound, found_or_404
from ...extensions import db
from ...models.workspaces import ADMIN, OWNER, PERSONAL, RANK, Membership, Workspace
from ..content.access import INSUFFICIENT_ROLE, ensure_role
from .departure import end_membership
from .members import lock_workspace, record_event


def locked_workspace(user, workspace_id, need):
    """The team workspace `workspace_id` and the caller's membership, read under the workspace lock: 404 for
    a non-member, 403 insufficient_role below `need`, 409 for a personal workspace."""
    workspace_id = str(workspace_id)
    _member(workspace_id, user.id)  # a non-member takes no lock
    lock_workspace(workspace_id)
    workspace = found_or_404(db.session.get(Workspace, workspace_id, populate_existing=True),
                             N_("Workspace not found"))
    mine = _member(workspace_id, user.id)
    ensure_role(mine.role, need)
    if workspace.kind == PERSONAL:
        raise Conflict(_("A personal workspace has no other members"))
    return workspace, mine


def _member(workspace_id, user_id, message=None):
    return found_or_404(db.session.scalar(select(Membership).where(Membership.workspace_id == workspace_id,
                                                                   Membership.user_id == str(user_id))
                                          .execution_options(populate_existing=True)),
                        message or N_("Workspace not found"))


def _target(workspace, user_id):
    return _member(workspace.id, user_id, N_("Member not found"))


def _owner_count(workspace_id):
    return db.session.scalar(select(func.count()).select_from(Membership)
                             .where(Membership.workspace_id == workspace_id, Membership.role == OWNER))


def _ensure_another_owner(workspace, leaving):
    """409 when `leaving` (an owner who stops being one) is the workspace's last owner."""
    if leaving.role == OWNER and _owner_count(workspace.id) <= 1:
        raise Conflict(_("A workspace must keep at least one owner; make another member owner first"))


def _refuse(message):
    raise Forbidden(message, error_code=INSUFFICIENT_ROLE)


def ensure_may_grant(own_role, role):
    """403 insufficient_role when `role` is above the caller's own role (a role change, an invitation)."""
    if RANK[role] > RANK[own_role]:
        _refuse(_("You cannot grant a role above your own"))


def _hand_over_billing(workspace, leaving_user_id, actor_id):
    """When `leaving_user_id` holds the billing ownership and stops being an owner, the longest-standing
    other owner takes it (logged)."""
    if workspace.billing_owner_id != leaving_user_id:
        return
    heir = db.session.scalar(select(Membership.user_id)
                             .where(Membership.workspace_id == workspace.id, Membership.role == OWNER,
                                    Membership.user_id != leaving_user_id)
                             .order_by(Membership.joined_at, Membership.user_id).limit(1))
    workspace.billing_owner_id = heir
    record_event(workspace.id, actor_id, "billing_owner_changed", previous_user_id=leaving_user_id, user_id=heir,
                 automatic=True)


def change_role(user, workspace_id, target_id, role):
    """Admins set roles up to admin on non-owners; only owners grant or take `owner`; one owner stays."""
    workspace, mine = locked_workspace(user, workspace_id, ADMIN)
    target = _target(workspace, target_id)
    if OWNER in (role, target.role) and mine.role != OWNER:
        _refuse(_("Only an owner can grant or take the owner role"))
    ensure_may_grant(mine.role, role)
    if target.role == role:
        return target
    if target.role == OWNER:
        _ensure_another_owner(workspace, target)
        _hand_over_billing(workspace, target.user_id, user.id)
    record_event(workspace.id, user.id, "member_role_changed", user_id=target.user_id, previous_role=target.role,
                 role=role)
    target.role = role
    return target


def remove_member(user, workspace_id, target_id):
    """Admins remove non-owners, owners remove anyone, never the last owner; content stays."""
    workspace, mine = locked_workspace(user, workspace_id, ADMIN)
    target = _target(workspace, target_id)
    if target.role == OWNER and mine.role != OWNER:
        _refuse(_("Only an owner can remove an owner"))
    _ensure_another_owner(workspace, target)
    _hand_over_billing(workspace, target.user_id, user.id)
    record_event(workspace.id, user.id, "member_removed", user_id=target.user_id, role=target.role)
    end_membership(target)


def leave(user, workspace_id):
    """The caller leaves the team workspace (never its last owner); content stays."""
    workspace, mine = locked_workspace(user, workspace_id, "viewer")
    _ensure_another_owner(workspace, mine)
    _hand_over_billing(workspace, user.id, user.id)
    record_event(workspace.id, user.id, "member_left", user_id=user.id, role=mine.role)
    end_membership(mine)


def set_billing_owner(user, workspace_id, target_id):
    """An owner hands the billing ownership to an owner (409 for anyone else)."""
    workspace, _mine = locked_workspace(user, workspace_id, OWNER)
    try:
        target = _target(workspace, target_id)
    except NotFound:
        raise Conflict(_("The billing owner must be an owner of the workspace")) from None
    if target.role != OWNER:
        raise Conflict(_("The billing owner must be an owner of the workspace"))
    if workspace.billing_owner_id != target.user_id:
        record_event(workspace.id, user.id, "billing_owner_changed", previous_user_id=workspace.billing_owner_id,
                     user_id=target.user_id)
        workspace.billing_owner_id = target.user_id
    return workspace
