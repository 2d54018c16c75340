"""Moving a project to another workspace (docs/teams.md, "Leaving, removal and deletion": transferring).

The caller is an admin of the project's workspace and an editor of the target (not a member of the
target: 404). The project then counts against the target's billing owner, whose limits apply to its
projects, diagrams and storage as to a creation. Chat sessions on its diagrams belong to their authors
alone; those of people who are not members of the target end with the move (deleted), as when a member
leaves. Both workspaces log the move.
"""
from flask_babel import gettext as _
from sqlalchemy import select

from ...errors import Conflict
from ...models.chat import ChatSession
from ...models.content import Diagram
from ...models.workspaces import ADMIN, EDITOR, Membership
from ..billing.quotas import count_project, ensure_room
from ..content import access
from ..events.publish import PROJECT_CREATED, PROJECT_DELETED, project_event
from .billing import project_payer, workspace_payer
from .departure import end_chat_sessions
from .members import record_event

TRANSFERRED_OUT, TRANSFERRED_IN = "project_transferred_out", "project_transferred_in"


def _end_outsiders_sessions(project_id, workspace_id):
    """Delete the chat sessions on the project's diagrams whose authors are not members of `workspace_id`."""
    return end_chat_sessions(
        ChatSession.diagram_id.in_(select(Diagram.id).where(Diagram.project_id == project_id)),
        ChatSession.user_id.not_in(select(Membership.user_id).where(Membership.workspace_id == workspace_id)))


def transfer_project(user, project_id, workspace_id):
    """Move the project `project_id` into the workspace `workspace_id`, in the caller's transaction (the
    caller commits). 409 when it already is there; the target billing owner's limits apply."""
    project = access.project(user, project_id, ADMIN)
    access.workspace(user, workspace_id, EDITOR)
    if project.workspace_id == workspace_id:
        raise Conflict(_("The project already belongs to this workspace"))
    source_id = project.workspace_id
    target_payer = workspace_payer(user, workspace_id)
    if target_payer.id != project_payer(user, project).id:  # into another account's limits
        counts = count_project(project.id)
        ensure_room(target_payer, {"projects": 1, **({"diagrams": counts.diagrams} if counts.diagrams else {}),
                                   "storage": counts.storage})
    ended = _end_outsiders_sessions(project.id, workspace_id)
    project.workspace_id = workspace_id
    details = {"project_id": project.id, "project_name": project.name}
    record_event(source_id, user.id, TRANSFERRED_OUT, to_workspace_id=workspace_id, **details)
    record_event(workspace_id, user.id, TRANSFERRED_IN, from_workspace_id=source_id, ended_chat_sessions=ended,
                 **details)
    project_event(PROJECT_DELETED, project, source_id, user)  # on the feeds: it left one workspace for another
    project_event(PROJECT_CREATED, project, workspace_id, user)
    return project
