"""The one access rule of content (docs/teams.md): a project, folder or diagram is reached through the
caller's membership of the project's workspace, in the statement that loads it (no extra round trip).

Not a member: 404, as if it did not exist (no existence leak). A member whose role is below the need of
the operation: 403 `insufficient_role`. Each function takes the role the operation needs (models/workspaces
ROLES: viewer < commenter < editor < admin < owner); the route declares the same need (`role=`,
api/blueprint.py) and the role matrix test holds them equal.
"""
from flask_babel import gettext as _
from sqlalchemy import and_, bindparam, select

from ...errors import N_, Forbidden, found_or_404
from ...extensions import db
from ...models.content import Diagram, Folder, Project
from ...models.sharing import SharedLink
from ...models.workspaces import RANK, Membership, Workspace

INSUFFICIENT_ROLE = "insufficient_role"


def member_of(workspace_column):
    """The join condition on Membership: the caller (the `user_id` bound parameter) in `workspace_column`."""
    return and_(Membership.workspace_id == workspace_column, Membership.user_id == bindparam("user_id"))


PROJECT = (select(Project, Membership.role).join(Membership, member_of(Project.workspace_id))
           .where(Project.id == bindparam("object_id")))
FOLDER = (select(Folder, Membership.role).join(Project, Project.id == Folder.project_id)
          .join(Membership, member_of(Project.workspace_id)).where(Folder.id == bindparam("object_id")))
DIAGRAM = (select(Diagram, Membership.role).join(Project, Project.id == Diagram.project_id)
           .join(Membership, member_of(Project.workspace_id)).where(Diagram.id == bindparam("object_id")))
SHARED_LINK = (select(SharedLink, Membership.role).join(Diagram, Diagram.id == SharedLink.diagram_id)
               .join(Project, Project.id == Diagram.project_id).join(Membership, member_of(Project.workspace_id))
               .where(SharedLink.id == bindparam("object_id")))
WORKSPACE = (select(Workspace, Membership.role).join(Membership, member_of(Workspace.id))
             .where(Workspace.id == bindparam("object_id")))
DIAGRAM_ID = (select(Diagram.id, Membership.role).join(Project, Project.id == Diagram.project_id)
              .join(Membership, member_of(Project.workspace_id)).where(Diagram.id == bindparam("object_id")))


def ensure_role(role, need):
    """403 insufficient_role unless `role` includes `need`."""
    if RANK[role] < RANK[need]:
        raise Forbidden(_("Your role in this workspace does not allow this"), error_code=INSUFFICIENT_ROLE)


def reach(statement, user, object_id, need, message):
    """The row of `statement` (an object joined with `member_of`, its last column the role; bound parameters
    `object_id` and `user_id`) when the caller's role includes `need`: 404 `message` for a non-member."""
    row = found_or_404(db.session.execute(statement, {"object_id": str(object_id), "user_id": user.id}).first(),
                       message)
    ensure_role(row.role, need)
    return row


def _reach(statement, user, object_id, need, message):
    return reach(statement, user, object_id, need, message)[0]


def project(user, project_id, need):
    """The project `project_id` when the caller's role in its workspace includes `need`."""
    return _reach(PROJECT, user, project_id, need, N_("Project not found"))


def folder(user, folder_id, need):
    """The folder `folder_id` when the caller's role in its project's workspace includes `need`."""
    return _reach(FOLDER, user, folder_id, need, N_("Folder not found"))


def diagram(user, diagram_id, need):
    """The diagram `diagram_id` when the caller's role in its project's workspace includes `need`."""
    return _reach(DIAGRAM, user, diagram_id, need, N_("Diagram not found"))


def diagram_id(user, diagram_id, need):
    """The id of the diagram `diagram_id` (nothing else is read, its texts included), as `diagram`."""
    return _reach(DIAGRAM_ID, user, diagram_id, need, N_("Diagram not found"))


def target_project(user, project_id, need):
    """`project` for a project named in a body (a move's target): 404 "Target project not found"."""
    return _reach(PROJECT, user, project_id, need, N_("Target project not found"))


def project_of(row):
    """The project of a folder or diagram already reached (from the session's identity map when loaded)."""
    return db.session.get(Project, row.project_id)


def workspace_of_diagram(diagram_id):
    """The id of the workspace a diagram already reached belongs to (what its events are published on)."""
    return db.session.scalar(select(Project.workspace_id).join(Diagram, Diagram.project_id == Project.id)
                             .where(Diagram.id == diagram_id))


def member_workspaces(user):
    """A select of the ids of every workspace the caller is a member of."""
    return select(Membership.workspace_id).where(Membership.user_id == user.id)


def shared_link(user, link_id, need):
    """The shared link `link_id` when the caller's role in its diagram's workspace includes `need`."""
    return _reach(SHARED_LINK, user, link_id, need, N_("Shared link not found"))


def folder_of_project(project_id, folder_id):
    """The folder `folder_id` of the project `project_id` (one the caller reached), or NotFound."""
    return found_or_404(db.session.scalar(select(Folder).where(Folder.id == str(folder_id),
                                                               Folder.project_id == project_id)),
                        N_("Folder not found"))


def workspace(user, workspace_id, need):
    """(the workspace `workspace_id`, the caller's role) when that role includes `need` (404 "Workspace not
    found" for a non-member), in one statement."""
    return reach(WORKSPACE, user, workspace_id, need, N_("Workspace not found"))
