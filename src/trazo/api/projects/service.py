"""Projects: list with diagram counts (every workspace of the caller), the project tree, create, update,
delete. Each answer carries the caller's role in the project's workspace (docs/teams.md)."""
from flask_babel import gettext as _
from sqlalchemy import delete, select

from ...core.billing.quotas import ensure_within_plan
from ...core.content import access
from ...core.content.projects import counted_projects, new_project_answer
from ...core.content.projects import project_tree as read_tree
from ...core.content.revalidations import ending_links
from ...core.events.publish import PROJECT_CREATED, PROJECT_DELETED, project_event
from ...core.workspaces.billing import workspace_payer
from ...core.workspaces.personal import personal_workspace_id
from ...core.workspaces.transfer import transfer_project as move_to_workspace
from ...errors import N_, found_or_404
from ...extensions import db
from ...models.base import utcnow
from ...models.content import DEFAULT_PROJECT_EMOJI, Diagram, Project
from ...models.sharing import SharedLink
from ...models.workspaces import ADMIN, EDITOR, VIEWER


def list_projects(user, workspace_id=None):
    return counted_projects(user.id, workspace_id=workspace_id)


def create_project(user, data):
    """A project in the workspace the body names (an editor's), by default the caller's personal one."""
    workspace_id = data.get("workspace_id") or personal_workspace_id(user.id)
    _workspace, role = access.workspace(user, workspace_id, EDITOR)
    project = Project(workspace_id=workspace_id, user_id=user.id, name=data["name"],
                      description=data.get("description"), emoji=data.get("emoji") or DEFAULT_PROJECT_EMOJI)
    ensure_within_plan(workspace_payer(user, workspace_id), "projects", adding=1)
    db.session.add(project)
    db.session.flush()  # its id, for the event
    project_event(PROJECT_CREATED, project, workspace_id, user)
    db.session.commit()
    return new_project_answer(project, role)


def project_tree(user, project_id):
    """The project with its folders (each with its diagrams) and its root diagrams, in two queries: the
    project joined with its folders, then its diagrams (docs/operations.md, round trips)."""
    role, tree = found_or_404(read_tree(user.id, project_id), N_("Project not found"))
    access.ensure_role(role, VIEWER)
    return tree


def update_project(user, project_id, data):
    project = access.project(user, project_id, EDITOR)
    if "emoji" in data and not data["emoji"]:
        data["emoji"] = DEFAULT_PROJECT_EMOJI
    for key, value in data.items():
        setattr(project, key, value)
    if data:
        project.updated_at = utcnow()
    db.session.commit()
    return counted_projects(user.id, project.id)[0]


def delete_project(user, project_id):
    """Delete the project (an admin's); folders, diagrams and what hangs off them go with it (database
    cascades)."""
    project = access.project(user, project_id, ADMIN)
    ending_links(SharedLink.diagram_id.in_(select(Diagram.id).where(Diagram.project_id == project.id)))
    project_event(PROJECT_DELETED, project, project.workspace_id, user)
    db.session.execute(delete(Project).where(Project.id == project.id))
    db.session.commit()
    return {"message": _("Project deleted successfully")}


def transfer_project(user, project_id, workspace_id):
    """Move the project to another workspace (core/workspaces/transfer.py); the project as GET /projects
    lists it."""
    project = move_to_workspace(user, project_id, workspace_id)
    db.session.commit()
    return counted_projects(user.id, project.id)[0]
