"""Projects: list with diagram counts (every workspace of the caller), the project tree, create, update,
delete. Each answer carries the caller's role in the project's workspace (docs/teams.md)."""
from flask_babel import gettext as _
from sqlalchemy import bindparam, delete, func, select

from ...core.billing.quotas import ensure_within_plan
from ...core.comments.counts import OPEN_COMMENT_COUNT, counted
from ...core.content import access
from ...core.content.projects import CountedProject, counted_projects
from ...core.content.revalidations import ending_links
from ...core.events.publish import PROJECT_CREATED, PROJECT_DELETED, project_event
from ...core.workspaces.billing import workspace_payer
from ...core.workspaces.personal import personal_workspace_id
from ...core.workspaces.transfer import transfer_project as move_to_workspace
from ...errors import found_or_404
from ...extensions import db
from ...models.base import utcnow
from ...models.content import DEFAULT_PROJECT_EMOJI, Diagram, Folder, Project
from ...models.sharing import SharedLink
from ...models.workspaces import ADMIN, EDITOR, VIEWER
from ..content_schemas import FolderContents

# The reads of every tree, built once (building a statement costs more than running it on SQLite).
TREE = (access.reachable_projects().add_columns(Folder).outerjoin(Folder, Folder.project_id == Project.id)
        .where(Project.id == bindparam("project_id")).order_by(func.lower(Folder.name), Folder.id))
TREE_DIAGRAMS = (select(Diagram, OPEN_COMMENT_COUNT).where(Diagram.project_id == bindparam("project_id"))
                 .order_by(Diagram.created_at, Diagram.title, Diagram.id))


def list_projects(user, workspace_id=None):
    return counted_projects(user, workspace_id=workspace_id)


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
    return CountedProject(project, role, {})


def project_tree(user, project_id):
    """The project with its folders (each with its diagrams) and its root diagrams, in two queries: the
    project joined with its folders, then its diagrams (docs/operations.md, round trips)."""
    rows = db.session.execute(TREE, {"user_id": user.id, "project_id": str(project_id)}).all()
    project, role = found_or_404(rows[0] if rows else None, _("Project not found"))[:2]
    access.ensure_role(role, VIEWER)
    folders = [folder for _project, _role, folder in rows if folder is not None]
    diagrams = counted(db.session.execute(TREE_DIAGRAMS, {"project_id": project.id}))
    by_folder = {folder.id: [] for folder in folders}
    root, type_counts = [], {}
    for diagram in diagrams:
        by_folder.get(diagram.folder_id, root).append(diagram)
        type_counts[diagram.diagram_type] = type_counts.get(diagram.diagram_type, 0) + 1
    return CountedProject(project, role, type_counts, diagrams=root,
                          folders=[FolderContents(folder, by_folder[folder.id]) for folder in folders])


def update_project(user, project_id, data):
    project = access.project(user, project_id, EDITOR)
    if "emoji" in data and not data["emoji"]:
        data["emoji"] = DEFAULT_PROJECT_EMOJI
    for key, value in data.items():
        setattr(project, key, value)
    if data:
        project.updated_at = utcnow()
    db.session.commit()
    return counted_projects(user, project.id)[0]


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
    return counted_projects(user, project.id)[0]
