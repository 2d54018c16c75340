"""Ownership checks: a project, folder or diagram of the caller, or a 404 (never 403, no existence leak)."""
from flask_babel import gettext as _
from sqlalchemy import select

from ...errors import found_or_404
from ...extensions import db
from ...models.content import Diagram, Folder, Project


def _owned(statement, message):
    return found_or_404(db.session.scalar(statement), message)


def owned_project(user, project_id):
    """The caller's project `project_id`, or NotFound."""
    return _owned(select(Project).where(Project.id == str(project_id), Project.user_id == user.id),
                  _("Project not found"))


def owned_folder(user, folder_id):
    """The caller's folder `folder_id`, or NotFound."""
    return _owned(select(Folder).join(Project, Project.id == Folder.project_id)
                  .where(Folder.id == str(folder_id), Project.user_id == user.id),
                  _("Folder not found"))


def folder_of_project(project_id, folder_id):
    """The folder `folder_id` of the project `project_id` (one the caller owns), or NotFound."""
    return _owned(select(Folder).where(Folder.id == str(folder_id), Folder.project_id == project_id),
                  _("Folder not found"))


def _diagram(user, diagram_id, *columns):
    return _owned(select(*columns).join(Project, Project.id == Diagram.project_id)
                  .where(Diagram.id == str(diagram_id), Project.user_id == user.id),
                  _("Diagram not found"))


def owned_diagram(user, diagram_id):
    """The caller's diagram `diagram_id`, or NotFound."""
    return _diagram(user, diagram_id, Diagram)


def owned_diagram_id(user, diagram_id):
    """The id of the caller's diagram `diagram_id` (nothing else is read, its texts included), or NotFound."""
    return _diagram(user, diagram_id, Diagram.id)
