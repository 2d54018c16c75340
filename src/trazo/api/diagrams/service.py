"""Diagrams: create, read, update (with the recent-order rule), delete, move, duplicate, recent.

Every change of a diagram's title, type or content is recorded in its history, and a write that names
the version it was based on (If-Match, expected_version) is refused when that version is no longer
current (core/history/changes.py, docs/history.md)."""

from flask_babel import gettext as _
from sqlalchemy import delete, select

from ...core.billing.quotas import ensure_room, row_overhead, spend_creations
from ...core.comments.counts import open_comment_count
from ...core.content import access
from ...core.content.images import ImageRequest
from ...core.content.limits import ensure_content_fits
from ...core.content.projects import diagram as read_diagram
from ...core.content.revalidations import ending_links
from ...core.events.publish import DIAGRAM_CREATED, DIAGRAM_MOVED, diagram_event, diagrams_deleted
from ...core.history.changes import bump_version, ensure_version, retrying, save_change, version_etag
from ...core.history.revisions import start_history
from ...core.workspaces.billing import project_payer
from ...errors import N_, found_or_404
from ...extensions import db
from ...models.base import new_id, utcnow
from ...models.content import Diagram, Project, default_user_preferences
from ...models.history import SOURCE_CREATE, SOURCE_DUPLICATE, SOURCE_EDIT
from ...models.sharing import SharedLink
from ...models.workspaces import EDITOR, VIEWER
from ..images import image_response

RECENT_COUNT = 4
# Saving only these (the view and panel layout) keeps updated_at and the version, so "recent" reflects real
# edits and a layout change never makes another tab's save stale.
PRESENTATION_FIELDS = frozenset({"viewport_zoom", "viewport_x", "viewport_y", "user_preferences"})
COPIED_FIELDS = ("content", "description", "diagram_type", "config", "user_preferences", "folder_id")


def _timestamps():
    now = utcnow()
    return {"created_at": now, "updated_at": now}


def _stored_size(diagram):
    """What a new diagram and its first revision add to the storage figure, their rows included."""
    return (diagram.content_size + diagram.description_size + diagram.history_size
            + row_overhead(diagrams=1, revisions=1))


def _new_diagram(user, project, source, **columns):
    """A diagram with its first revision in `project`, checked against the quotas of the workspace's billing
    owner and the caller's creation rate, and added to the session."""
    diagram = Diagram(id=new_id(), **columns, **_timestamps())
    revision = start_history(diagram, user.id, source)
    ensure_room(project_payer(user, project), {"diagrams": 1, "storage": _stored_size(diagram)})
    spend_creations(user, 1)
    db.session.add(diagram)
    db.session.flush()  # the revision's row refers to the diagram's
    db.session.add(revision)
    diagram_event(DIAGRAM_CREATED, diagram, project.workspace_id, user, diagram_type=diagram.diagram_type)
    db.session.commit()
    diagram.open_comment_count = 0  # a new diagram (a copy too) has no comments
    return diagram


def create_diagram(user, project_id, data):
    ensure_content_fits(data["content"], data["diagram_type"])
    project = access.project(user, project_id, EDITOR)
    folder_id = data.get("folder_id") or None
    if folder_id is not None:
        folder_id = access.folder_of_project(project.id, folder_id).id
    return _new_diagram(user, project, SOURCE_CREATE, project_id=project.id, folder_id=folder_id, title=data["title"],
                        content=data["content"], description=data["description"],
                        diagram_type=data["diagram_type"], config=data["config"],
                        user_preferences=default_user_preferences())


def get_diagram(user, diagram_id):
    """The diagram joined with the caller's membership and its open comment count, in one statement (a
    mapping DiagramSchema dumps, core/content/projects.py), with its ETag."""
    row = found_or_404(read_diagram(user.id, diagram_id), N_("Diagram not found"))
    access.ensure_role(row["role"], VIEWER)
    return row, {"ETag": version_etag(row["version"])}


def diagram_image(user, diagram_id, fmt, theme, if_none_match):
    """The diagram as an image (private caches only: the answer needs a member's token)."""
    diagram = access.diagram(user, diagram_id, VIEWER)
    return image_response(ImageRequest(diagram.diagram_type, diagram.content or "", fmt, theme), if_none_match,
                          public=False)


def update_diagram(user, diagram_id, data, if_match=None, source=SOURCE_EDIT):
    """Write the keys sent; updated_at and the version move only when a non-presentation field really
    changes, and a change of title, type or content is recorded in the history."""
    return retrying(lambda: _update_diagram(user, diagram_id, dict(data), if_match, source))


def _update_diagram(user, diagram_id, data, if_match, source):
    expected_version = data.pop("expected_version", None)

    def fields(diagram):
        if "folder_id" in data:  # an empty id, like null, means the project root
            folder_id = data["folder_id"]
            data["folder_id"] = access.folder_of_project(diagram.project_id, folder_id).id if folder_id else None
        if "user_preferences" in data:
            data["user_preferences"] = {**default_user_preferences(), **(diagram.user_preferences or {}),
                                        **data["user_preferences"]}
        return data

    saved = save_change(user, diagram_id, fields, source, if_match=if_match, expected_version=expected_version,
                        ignored=PRESENTATION_FIELDS)
    db.session.commit()
    return saved.diagram  # the row as written, with its open comment count (core/history/revisions.EditedDiagram)


def delete_diagram(user, diagram_id):
    """Delete the diagram; its history, shared links and chat sessions go with it (database cascades)."""
    diagram = access.diagram(user, diagram_id, EDITOR)
    ending_links(SharedLink.diagram_id == diagram.id)
    diagrams_deleted(access.workspace_of_diagram(diagram.id), [diagram.id], user)
    db.session.execute(delete(Diagram).where(Diagram.id == diagram.id))
    db.session.commit()
    return {"message": _("Diagram deleted successfully")}


def move_diagram(user, diagram_id, target_project_id, if_match=None):
    """Move the diagram to the root of another (or the same) project; the caller edits both."""
    return retrying(lambda: _move_diagram(user, diagram_id, target_project_id, if_match))


def _move_diagram(user, diagram_id, target_project_id, if_match):
    diagram = access.diagram(user, diagram_id, EDITOR)
    ensure_version(diagram, if_match)
    target = access.target_project(user, target_project_id, EDITOR)
    payer, source = project_payer(user, target), access.project_of(diagram)
    if payer.id != project_payer(user, source).id:  # into another account's limits
        ensure_room(payer, {"diagrams": 1, "storage": _stored_size(diagram) - row_overhead(revisions=1)})
    bump_version(diagram)
    diagram.project_id, diagram.folder_id = target.id, None
    diagram_event(DIAGRAM_MOVED, diagram, (target.workspace_id, source.workspace_id), user)
    count = open_comment_count(diagram.id)
    db.session.commit()
    diagram.open_comment_count = count
    return diagram


def duplicate_diagram(user, diagram_id, title, if_match=None):
    """Copy the diagram (the version If-Match names, when given) next to the original under a new title,
    with a fresh view and a history of its own that starts at the copy."""
    source = access.diagram(user, diagram_id, EDITOR)
    ensure_version(source, if_match)
    ensure_content_fits(source.content, source.diagram_type)
    return _new_diagram(user, access.project_of(source), SOURCE_DUPLICATE, project_id=source.project_id, title=title,
                        **{name: getattr(source, name) for name in COPIED_FIELDS})


def recent_diagrams(user):
    rows = db.session.execute(
        select(Diagram.id, Diagram.title, Diagram.diagram_type, Diagram.project_id, Diagram.updated_at,
               Project.name.label("project_name"), Project.emoji.label("project_emoji"))
        .join(Project, Project.id == Diagram.project_id)
        .where(Project.workspace_id.in_(access.member_workspaces(user)))
        .order_by(Diagram.updated_at.desc(), Diagram.id)
        .limit(RECENT_COUNT))
    return [row._asdict() for row in rows]
