"""Diagrams: create, read, update (with the recent-order rule), delete, move, duplicate, recent."""
from flask_babel import gettext as _
from sqlalchemy import delete, select

from ...core.content_limits import ensure_content_fits
from ...core.ownership import folder_of_project, owned_diagram, owned_project
from ...core.quotas import ensure_room
from ...errors import NotFound
from ...extensions import db
from ...models.base import utcnow
from ...models.content import Diagram, Project, default_user_preferences, utf8_size

RECENT_COUNT = 4
# Saving only these (the view and panel layout) keeps updated_at, so "recent" reflects real edits.
PRESENTATION_FIELDS = frozenset({"viewport_zoom", "viewport_x", "viewport_y", "user_preferences"})
COPIED_FIELDS = ("content", "description", "diagram_type", "config", "user_preferences", "folder_id")
MEASURED_FIELDS = ("content", "description")


def _timestamps():
    now = utcnow()
    return {"created_at": now, "updated_at": now}


def _stored_size(diagram):
    return diagram.content_size + diagram.description_size


def create_diagram(user, project_id, data):
    ensure_content_fits(data["content"], data["diagram_type"])
    project = owned_project(user, project_id)
    folder_id = data.get("folder_id") or None
    if folder_id is not None:
        folder_id = folder_of_project(project.id, folder_id).id
    diagram = Diagram(project_id=project.id, folder_id=folder_id, title=data["title"], content=data["content"],
                      description=data["description"], diagram_type=data["diagram_type"], config=data["config"],
                      user_preferences=default_user_preferences(), **_timestamps())
    ensure_room(user, {"diagrams": 1, "storage": _stored_size(diagram)})
    db.session.add(diagram)
    db.session.commit()
    return diagram


def get_diagram(user, diagram_id):
    return owned_diagram(user, diagram_id)


def update_diagram(user, diagram_id, data):
    """Write the keys sent; updated_at moves only when a non-presentation field really changes."""
    diagram = owned_diagram(user, diagram_id)
    if "content" in data or "diagram_type" in data:
        ensure_content_fits(data.get("content", diagram.content), data.get("diagram_type", diagram.diagram_type))
    # Before any attribute changes, so the locked count still holds the stored sizes.
    ensure_room(user, {"storage": sum(utf8_size(data[name]) - getattr(diagram, f"{name}_size")
                                      for name in MEASURED_FIELDS if name in data)})
    if "folder_id" in data:  # an empty id, like null, means the project root
        data["folder_id"] = folder_of_project(diagram.project_id, data["folder_id"]).id if data["folder_id"] else None
    if "user_preferences" in data:
        data["user_preferences"] = {**default_user_preferences(), **(diagram.user_preferences or {}),
                                    **data["user_preferences"]}
    edited = any(getattr(diagram, key) != value for key, value in data.items() if key not in PRESENTATION_FIELDS)
    for key, value in data.items():
        setattr(diagram, key, value)
    if edited:
        diagram.updated_at = utcnow()
    db.session.commit()
    return diagram


def delete_diagram(user, diagram_id):
    """Delete the diagram; its shared links and chat sessions go with it (database cascades)."""
    diagram = owned_diagram(user, diagram_id)
    db.session.execute(delete(Diagram).where(Diagram.id == diagram.id))
    db.session.commit()
    return {"message": _("Diagram deleted successfully")}


def move_diagram(user, diagram_id, target_project_id):
    """Move the diagram to the root of another (or the same) project of the caller."""
    diagram = owned_diagram(user, diagram_id)
    target = db.session.scalar(select(Project.id).where(Project.id == str(target_project_id),
                                                        Project.user_id == user.id))
    if target is None:
        raise NotFound(_("Target project not found"))
    diagram.project_id, diagram.folder_id, diagram.updated_at = target, None, utcnow()
    db.session.commit()
    return diagram


def duplicate_diagram(user, diagram_id, title):
    """Copy the diagram next to the original under a new title, with a fresh view."""
    source = owned_diagram(user, diagram_id)
    ensure_content_fits(source.content, source.diagram_type)
    copy = Diagram(project_id=source.project_id, title=title, **_timestamps(),
                   **{name: getattr(source, name) for name in COPIED_FIELDS})
    ensure_room(user, {"diagrams": 1, "storage": _stored_size(copy)})
    db.session.add(copy)
    db.session.commit()
    return copy


def recent_diagrams(user):
    rows = db.session.execute(
        select(Diagram.id, Diagram.title, Diagram.diagram_type, Diagram.project_id, Diagram.updated_at,
               Project.name.label("project_name"), Project.emoji.label("project_emoji"))
        .join(Project, Project.id == Diagram.project_id)
        .where(Project.user_id == user.id)
        .order_by(Diagram.updated_at.desc(), Diagram.id)
        .limit(RECENT_COUNT))
    return [row._asdict() for row in rows]
