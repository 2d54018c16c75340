"""What leaving a workspace does (docs/teams.md, "What leaving and deleting do"): the membership ends and
never touches content; the person's chat sessions on the workspace's diagrams are deleted with it, so their
open chat streams end at the next access check (api/chat/pipeline.py, SSE_ACCESS_CHECK_SECONDS), and their
personal access tokens reach only what their remaining memberships allow (core/content/access.py)."""
from sqlalchemy import delete, select

from ...extensions import db
from ...models.chat import ChatSession
from ...models.content import Diagram, Project


def workspace_diagrams(*workspace_ids):
    """A select of the ids of the diagrams of the workspaces `workspace_ids`."""
    return (select(Diagram.id).join(Project, Project.id == Diagram.project_id)
            .where(Project.workspace_id.in_(workspace_ids)))


def end_membership(membership):
    """Delete `membership` and its person's chat sessions on the workspace's diagrams (their messages
    cascade), in the caller's transaction."""
    db.session.execute(delete(ChatSession).where(ChatSession.user_id == membership.user_id,
                                                 ChatSession.diagram_id.in_(workspace_diagrams(
                                                     membership.workspace_id)))
                       .execution_options(synchronize_session=False))
    db.session.delete(membership)
