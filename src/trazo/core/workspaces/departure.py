"""Leaving a workspace, deleting workspaces, and what deleting an account does to its workspaces
(docs/teams.md, "Leaving, removal and deletion").

Leaving (or being removed) ends the membership and never touches content; the person's chat sessions on the
workspace's diagrams are deleted with it, so their open chat streams end at the next access check
(api/chat/pipeline.py, SSE_ACCESS_CHECK_SECONDS), and their personal access tokens reach only what their
remaining memberships allow (core/content/access.py).

An account's deletion takes its personal workspace and every team workspace of which it is the only
member; it is refused (409, naming them) while it is the last owner of a team workspace others remain in;
where it is billing owner and other owners remain, the longest-standing of them becomes billing owner.
"""
from flask_babel import gettext as _
from sqlalchemy import delete, select

from ...errors import Conflict
from ...extensions import db
from ...models.chat import ChatSession
from ...models.content import Diagram, Project
from ...models.sharing import SharedLink
from ...models.workspaces import OWNER, PERSONAL, TEAM, Membership, Workspace
from ..content.revalidations import ending_links
from .members import lock_workspace, record_event


def workspace_diagrams(*workspace_ids):
    """A select of the ids of the diagrams of the workspaces `workspace_ids`."""
    return (select(Diagram.id).join(Project, Project.id == Diagram.project_id)
            .where(Project.workspace_id.in_(workspace_ids)))


def end_chat_sessions(*conditions):
    """Delete the chat sessions that meet `conditions` (their messages cascade), in the caller's transaction:
    how many went."""
    return db.session.execute(delete(ChatSession).where(*conditions)
                              .execution_options(synchronize_session=False)).rowcount


def end_membership(membership):
    """Delete `membership` and its person's chat sessions on the workspace's diagrams, in the caller's
    transaction."""
    end_chat_sessions(ChatSession.user_id == membership.user_id,
                      ChatSession.diagram_id.in_(workspace_diagrams(membership.workspace_id)))
    db.session.delete(membership)


def delete_workspaces(*workspace_ids):
    """Delete the workspaces; their projects, folders, diagrams, shared links, invitations and log go with
    them (database cascades) and their shared links' image answers end. The caller commits."""
    if not workspace_ids:
        return
    ending_links(SharedLink.diagram_id.in_(workspace_diagrams(*workspace_ids)))
    db.session.execute(delete(Workspace).where(Workspace.id.in_(workspace_ids))
                       .execution_options(synchronize_session=False))


def _members(workspace_id):
    return db.session.execute(select(Membership.user_id, Membership.role)
                              .where(Membership.workspace_id == workspace_id)
                              .order_by(Membership.joined_at, Membership.user_id)).all()


def before_account_deletion(user):
    """Settle the workspaces of `user` before the account row goes (its memberships cascade with it): 409
    naming the team workspaces it must hand over first, else the workspaces to delete are deleted and the
    billing ownerships it holds pass on. The caller commits."""
    rows = db.session.execute(select(Workspace.id, Workspace.name, Workspace.kind)
                              .join(Membership, Membership.workspace_id == Workspace.id)
                              .where(Membership.user_id == user.id)
                              .order_by(Workspace.name, Workspace.id)).all()
    doomed, blocking, staying = [], [], []
    for workspace_id, name, kind in rows:
        if kind == PERSONAL:
            doomed.append(workspace_id)
            continue
        lock_workspace(workspace_id)
        members = _members(workspace_id)
        others = [(member, role) for member, role in members if member != user.id]
        mine = next((role for member, role in members if member == user.id), None)
        if not others:
            doomed.append(workspace_id)
        elif mine == OWNER and not any(role == OWNER for _member, role in others):
            blocking.append(name)
        else:
            staying.append((workspace_id, others))
    if blocking:
        raise Conflict(_("You are the last owner of workspaces others still use; make another member owner or "
                         "delete them first: %(names)s", names=", ".join(blocking)))
    for workspace_id, others in staying:
        _pass_on(db.session.get(Workspace, workspace_id), user, others)
    delete_workspaces(*doomed)


def _pass_on(workspace, user, others):
    if workspace.kind == TEAM and workspace.billing_owner_id == user.id:
        heir = next(member for member, role in others if role == OWNER)
        workspace.billing_owner_id = heir
        record_event(workspace.id, None, "billing_owner_changed", previous_user_id=user.id, user_id=heir,
                     automatic=True)
    record_event(workspace.id, None, "member_left", user_id=user.id, email=user.email, account_deleted=True)
