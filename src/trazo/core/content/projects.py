"""The hot reads as Core rows, not ORM objects (docs/operations.md, "The hot read path"): a project list, a
project tree and a diagram are read with SQLAlchemy Core statements, built once so the compiled-statement
cache answers them, and answered as mappings that the response schemas dump directly. The same statements
and columns as the ORM reads they replace; no object is loaded into the session, so nothing of a read can be
flushed by mistake."""
from sqlalchemy import bindparam, func, select

from ...extensions import db
from ...models.content import Diagram, Folder, Project
from ...models.workspaces import Membership
from ..comments.counts import OPEN_COMMENT_COUNT
from .access import member_of

PROJECTS, DIAGRAMS, FOLDERS = Project.__table__, Diagram.__table__, Folder.__table__
ROLE = Membership.__table__.c.role
# A project's columns as its answer names them (ProjectSchema), with the caller's role.
PROJECT_COLUMNS = (*PROJECTS.c, ROLE)
DIAGRAM_COLUMNS = (*DIAGRAMS.c, OPEN_COMMENT_COUNT)
FOLDER_COLUMNS = (FOLDERS.c.project_id, FOLDERS.c.name.label("folder_name"), FOLDERS.c.color,
                  FOLDERS.c.id.label("folder_id"), FOLDERS.c.created_at.label("folder_created_at"),
                  FOLDERS.c.updated_at.label("folder_updated_at"))

# The caller's projects with their diagram counts per type, in one grouped statement.
LISTING = (select(*PROJECT_COLUMNS, DIAGRAMS.c.diagram_type, func.count(DIAGRAMS.c.id).label("diagram_total"))
           .join(Membership, member_of(PROJECTS.c.workspace_id))
           .outerjoin(DIAGRAMS, DIAGRAMS.c.project_id == PROJECTS.c.id)
           .group_by(PROJECTS.c.id, ROLE, DIAGRAMS.c.diagram_type)
           .order_by(PROJECTS.c.created_at, PROJECTS.c.id))
LISTING_OF_WORKSPACE = LISTING.where(PROJECTS.c.workspace_id == bindparam("workspace_id"))
ONE_COUNTED = LISTING.where(PROJECTS.c.id == bindparam("project_id"))
# A project's tree: the project with the caller's role joined with its folders, then its diagrams.
TREE = (select(*PROJECT_COLUMNS, *FOLDER_COLUMNS).join(Membership, member_of(PROJECTS.c.workspace_id))
        .outerjoin(FOLDERS, FOLDERS.c.project_id == PROJECTS.c.id)
        .where(PROJECTS.c.id == bindparam("project_id")).order_by(func.lower(FOLDERS.c.name), FOLDERS.c.id))
TREE_DIAGRAMS = (select(*DIAGRAM_COLUMNS).where(DIAGRAMS.c.project_id == bindparam("project_id"))
                 .order_by(DIAGRAMS.c.created_at, DIAGRAMS.c.title, DIAGRAMS.c.id))
# One diagram with the caller's role in its workspace and its open comment count.
DIAGRAM = (select(*DIAGRAM_COLUMNS, ROLE).join(PROJECTS, PROJECTS.c.id == DIAGRAMS.c.project_id)
           .join(Membership, member_of(PROJECTS.c.workspace_id)).where(DIAGRAMS.c.id == bindparam("object_id")))


def mappings(statement, values):
    """The rows of a read as mappings, on the session's connection (a read's runs in autocommit,
    transactions.py)."""
    return db.session.connection().execute(statement, values).mappings()


def project_answer(project, role, type_counts):
    """A project as ProjectSchema dumps it: a project's row mapping (or `new_project_answer`'s), the caller's
    role, the counts per diagram type."""
    return {"id": project["id"], "name": project["name"], "description": project["description"],
            "emoji": project["emoji"], "user_id": project["user_id"], "workspace_id": project["workspace_id"],
            "role": role, "diagram_count": sum(type_counts.values()), "diagram_type_counts": type_counts,
            "created_at": project["created_at"], "updated_at": project["updated_at"]}


def new_project_answer(project, role):
    """A Project just written (no diagrams yet) as ProjectSchema dumps it."""
    return project_answer({column.key: getattr(project, column.key) for column in PROJECTS.c}, role, {})


def counted_projects(user_id, project_id=None, workspace_id=None):
    """The caller's projects (all, one workspace's, or the one `project_id` names) as ProjectSchema dumps
    them, with their per-type diagram counts, in one grouped statement."""
    values = {"user_id": user_id}
    if project_id is not None:
        statement, values["project_id"] = ONE_COUNTED, project_id
    elif workspace_id is not None:
        statement, values["workspace_id"] = LISTING_OF_WORKSPACE, workspace_id
    else:
        statement = LISTING
    projects, counts = {}, {}
    for row in mappings(statement, values):
        if row["id"] not in projects:
            projects[row["id"]], counts[row["id"]] = row, {}
        if row["diagram_type"] is not None:
            counts[row["id"]][row["diagram_type"]] = row["diagram_total"]
    return [project_answer(row, row["role"], counts[key]) for key, row in projects.items()]


def project_tree(user_id, project_id):
    """(the caller's role, the project with its folders, each with its diagrams, and its root diagrams) as
    ProjectWithDiagramsSchema dumps it, in two statements; None when the caller reaches no such project."""
    rows = mappings(TREE, {"user_id": user_id, "project_id": str(project_id)}).all()
    if not rows:
        return None
    folders = {row["folder_id"]: {"id": row["folder_id"], "name": row["folder_name"], "color": row["color"],
                                  "project_id": row["project_id"], "created_at": row["folder_created_at"],
                                  "updated_at": row["folder_updated_at"], "diagrams": []}
               for row in rows if row["folder_id"] is not None}
    root, type_counts = [], {}
    for diagram in mappings(TREE_DIAGRAMS, {"project_id": rows[0]["id"]}):
        folder = folders.get(diagram["folder_id"])
        (folder["diagrams"] if folder else root).append(diagram)
        type_counts[diagram["diagram_type"]] = type_counts.get(diagram["diagram_type"], 0) + 1
    role = rows[0]["role"]
    return role, {**project_answer(rows[0], role, type_counts), "diagrams": root, "folders": list(folders.values())}


def diagram(user_id, diagram_id):
    """The diagram with the caller's role (`role`) and its open comment count, as DiagramSchema dumps it;
    None when the caller reaches no such diagram."""
    return mappings(DIAGRAM, {"object_id": str(diagram_id), "user_id": user_id}).first()
