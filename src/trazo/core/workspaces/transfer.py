"""Moving a project to another workspace (docs/teams.md, "Leaving, removal and deletion": transferring).

The caller is an admin of the project's workspace and an editor of the target (not a member of the
target: 404). The project then counts against the target's billing owner, whose limits apply to its
projects, diagrams and storage as to a creation. Chat sessions on its diagrams belong to their authors
alone; those of people who are not members of the target end with the move (deleted), as when a member
leaves. Both workspaces log the move.
"""
from flask_babel import gettext as _
from sqlalchemy import delete, func, select

from ...errors import Conflict, found_or_404
from ...extensions import db
from ...models.chat import ChatMessage, ChatSession
from ...models.content import Diagram, Folder
from ...models.history import DiagramRevision
from ...models.workspaces import ADMIN, EDITOR, Membership
from ..billing.quotas import ensure_room, row_overhead
from ..content import access
from .billing import project_payer, workspace_payer
from .members import record_event

TRANSFERRED_OUT, TRANSFERRED_IN = "project_transferred_out", "project_transferred_in"


def project_footprint(project_id):
    """(diagrams, storage bytes) of a project as the quotas count them, rows included, in one statement."""
    diagrams = (select(func.count(Diagram.id).label("diagrams"),
                       func.coalesce(func.sum(Diagram.content_size + Diagram.description_size + Diagram.history_size),
                                     0).label("size"))
                .where(Diagram.project_id == project_id).subquery())
    folders = select(func.count(Folder.id)).where(Folder.project_id == project_id).scalar_subquery()
    revisions = (select(func.count(DiagramRevision.id)).join(Diagram, Diagram.id == DiagramRevision.diagram_id)
                 .where(Diagram.project_id == project_id).scalar_subquery())
    row = db.session.execute(select(diagrams.c.diagrams, diagrams.c.size, folders.label("folders"),
                                    revisions.label("revisions"))).one()
    return row.diagrams, row.size + row_overhead(row.diagrams, row.folders, row.revisions)


def _end_outsiders_sessions(project_id, workspace_id):
    """Delete the chat sessions on the project's diagrams whose authors are not members of `workspace_id`."""
    ending = (select(ChatSession.id).join(Diagram, Diagram.id == ChatSession.diagram_id)
              .where(Diagram.project_id == project_id,
                     ChatSession.user_id.not_in(select(Membership.user_id)
                                                .where(Membership.workspace_id == workspace_id))))
    session_ids = db.session.scalars(ending).all()
    if session_ids:
        db.session.execute(delete(ChatMessage).where(ChatMessage.session_id.in_(session_ids)))
        db.session.execute(delete(ChatSession).where(ChatSession.id.in_(session_ids)))
    return len(session_ids)


def transfer_project(user, project_id, workspace_id):
    """Move the project `project_id` into the workspace `workspace_id`, in the caller's transaction (the
    caller commits). 409 when it already is there; the target billing owner's limits apply."""
    project = access.project(user, project_id, ADMIN)
    role = found_or_404(access.role_in(user, workspace_id), _("Workspace not found"))
    access.ensure_role(role, EDITOR)
    if project.workspace_id == workspace_id:
        raise Conflict(_("The project already belongs to this workspace"))
    source_id = project.workspace_id
    target_payer = workspace_payer(user, workspace_id)
    if target_payer.id != project_payer(user, project).id:  # into another account's limits
        diagrams, storage = project_footprint(project.id)
        ensure_room(target_payer, {"projects": 1, **({"diagrams": diagrams} if diagrams else {}), "storage": storage})
    ended = _end_outsiders_sessions(project.id, workspace_id)
    project.workspace_id = workspace_id
    details = {"project_id": project.id, "project_name": project.name}
    record_event(source_id, user.id, TRANSFERRED_OUT, to_workspace_id=workspace_id, **details)
    record_event(workspace_id, user.id, TRANSFERRED_IN, from_workspace_id=source_id, ended_chat_sessions=ended,
                 **details)
    return project
