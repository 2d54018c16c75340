"""Folders: one level inside a project; deleting one moves its diagrams to the root or deletes them."""
from flask_babel import gettext as _
from sqlalchemy import delete, select, update

from ...core.billing.quotas import ensure_room, row_overhead, spend_creations
from ...core.comments.counts import OPEN_COMMENT_COUNT, counted
from ...core.content import access
from ...core.content.revalidations import ending_links
from ...core.events.publish import DIAGRAM_MOVED, diagram_event, diagrams_deleted
from ...core.workspaces.billing import project_payer
from ...extensions import db
from ...models.base import utcnow
from ...models.content import Diagram, Folder
from ...models.sharing import SharedLink
from ...models.workspaces import EDITOR, VIEWER
from ..content_schemas import FolderContents


def _in_folder(folder):
    # The project condition keeps a diagram of another project that names this folder out.
    return (Diagram.folder_id == folder.id) & (Diagram.project_id == folder.project_id)


def create_folder(user, project_id, data):
    """A folder, counted in the caller's storage (its row's overhead) and creation rate."""
    project = access.project(user, project_id, EDITOR)
    ensure_room(project_payer(user, project), {"storage": row_overhead(folders=1)})
    spend_creations(user, 1)
    folder = Folder(project_id=project.id, name=data["name"], color=data["color"])
    db.session.add(folder)
    db.session.commit()
    return folder


def folder_detail(user, folder_id):
    folder = access.folder(user, folder_id, VIEWER)
    diagrams = counted(db.session.execute(select(Diagram, OPEN_COMMENT_COUNT).where(_in_folder(folder))
                                          .order_by(Diagram.created_at, Diagram.title, Diagram.id)))
    return FolderContents(folder, diagrams)


def update_folder(user, folder_id, data):
    folder = access.folder(user, folder_id, EDITOR)
    for key, value in data.items():
        setattr(folder, key, value)
    if data:
        folder.updated_at = utcnow()
    db.session.commit()
    return folder


def delete_folder(user, folder_id, delete_diagrams):
    """Delete the folder; its diagrams go to the project root, or are deleted when asked."""
    folder = access.folder(user, folder_id, EDITOR)
    workspace_id = access.project_of(folder).workspace_id
    if delete_diagrams:
        ending_links(SharedLink.diagram_id.in_(select(Diagram.id).where(_in_folder(folder))))
        diagrams_deleted(workspace_id, db.session.scalars(select(Diagram.id).where(_in_folder(folder))), user)
        deleted = db.session.execute(delete(Diagram).where(_in_folder(folder))).rowcount
    else:
        deleted = 0
        moved = db.session.scalars(update(Diagram).where(_in_folder(folder)).values(folder_id=None, updated_at=utcnow())
                                   .returning(Diagram)).all()
        for diagram in moved:
            diagram_event(DIAGRAM_MOVED, diagram, workspace_id, user)
    db.session.execute(delete(Folder).where(Folder.id == folder.id))
    db.session.commit()
    if deleted:
        return {"message": _("Folder and %(count)s diagram(s) deleted successfully", count=deleted)}
    return {"message": _("Folder deleted successfully")}
