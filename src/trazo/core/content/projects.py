"""The caller's projects as they are listed (docs/teams.md): every workspace of the caller, each project with
the caller's role and its diagram counts per type, in one grouped statement. Shared by the projects routes and
the MCP tools."""
from dataclasses import dataclass, field

from sqlalchemy import bindparam, func

from ...extensions import db
from ...models.content import Diagram, Project
from ...models.workspaces import Membership
from . import access


@dataclass(frozen=True)
class CountedProject:
    """A project row with the caller's role and its diagram counts per type (ProjectSchema); in the tree,
    also its folders (FolderContents) and root diagrams (ProjectWithDiagramsSchema). The row's columns read
    through."""

    project: Project
    role: str
    diagram_type_counts: dict
    folders: list = field(default_factory=list)
    diagrams: list = field(default_factory=list)

    @property
    def diagram_count(self):
        return sum(self.diagram_type_counts.values())

    def __getattr__(self, name):  # called only for names the dataclass lacks
        return getattr(self.project, name)


# The reads of every listing, built once (building a statement costs more than running it on SQLite).
LISTING = (access.reachable_projects().add_columns(Diagram.diagram_type, func.count(Diagram.id))
           .outerjoin(Diagram, Diagram.project_id == Project.id)
           .group_by(Project.id, Membership.role, Diagram.diagram_type)
           .order_by(Project.created_at, Project.id))
LISTING_OF_WORKSPACE = LISTING.where(Project.workspace_id == bindparam("workspace_id"))
ONE_COUNTED = LISTING.where(Project.id == bindparam("project_id"))


def counted_projects(user, project_id=None, workspace_id=None):
    """The caller's projects (all, one workspace's, or the one `project_id` names) with their per-type diagram
    counts, in one grouped query."""
    values = {"user_id": user.id}
    if project_id is not None:
        statement, values["project_id"] = ONE_COUNTED, project_id
    elif workspace_id is not None:
        statement, values["workspace_id"] = LISTING_OF_WORKSPACE, workspace_id
    else:
        statement = LISTING
    projects = {}
    for project, role, diagram_type, count in db.session.execute(statement, values):
        counted = projects.setdefault(project.id, CountedProject(project, role, {}))
        if diagram_type is not None:
            counted.diagram_type_counts[diagram_type] = count
    return list(projects.values())
