"""Import files into a project: preview (dry run) or create everything in one transaction."""
import logging

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from ...core.ownership import owned_project
from ...core.quotas import ensure_room
from ...errors import AppError, BadRequest, Forbidden, found_or_404
from ...extensions import db
from ...models.base import new_id, utcnow
from ...models.content import (
    DEFAULT_FOLDER_COLOR,
    Diagram,
    Folder,
    Project,
    default_diagram_config,
    default_user_preferences,
    utf8_size,
)
from ..fields import DESCRIPTION_MAX, NAME_MAX
from .import_files import Upload, check_request_limits, upload_name
from .import_plan import build_plan
from .naming import unique

log = logging.getLogger(__name__)


def _target_folder(project, folder_id):
    if not folder_id:
        return None
    return found_or_404(db.session.scalar(select(Folder).where(Folder.id == str(folder_id),
                                                               Folder.project_id == project.id)),
                        _("Folder not found"))


def _read_uploads(files):
    if not files:
        raise BadRequest(_("No files uploaded"))
    uploads = [Upload(upload_name(storage.filename), storage.read()) for storage in files]
    if sum(len(upload.data) for upload in uploads) > current_app.config["MAX_IMPORT_UPLOAD_BYTES"]:
        raise AppError(_("Upload too large"), status=413)
    check_request_limits(uploads)
    return uploads


def _destinations(project, plan, target):
    """Where each planned diagram goes, with a title not yet used there (existing titles included)."""
    existing = {folder.name.lower(): folder
                for folder in db.session.scalars(select(Folder).where(Folder.project_id == project.id))}
    stored, added = {}, {}
    for folder_id, title in db.session.execute(select(Diagram.folder_id, Diagram.title)
                                               .where(Diagram.project_id == project.id)):
        stored.setdefault(folder_id, set()).add(title.lower())
    for diagram in plan.diagrams:
        if target is not None:
            place = target.id
        elif diagram.folder is None:
            place = None
        else:
            place = existing[diagram.folder].id if diagram.folder in existing else ("new", diagram.folder)
        # Diagrams restored from our manifest only avoid titles stored before, so an export comes back as it was.
        taken = set(stored.get(place, ()))
        if not diagram.restored:
            taken |= added.get(place, set())
        diagram.title = unique(diagram.title, taken, NAME_MAX)
        added.setdefault(place, set()).add(diagram.title.lower())
    return existing


def _preview(plan, target, existing):
    def folder_name(key):
        return existing[key].name if key in existing else plan.folders[key].name

    return {
        "diagram_count": len(plan.diagrams),
        "folder_count": len(plan.folders),
        "folders": [folder_name(key) for key in plan.folders],
        "diagrams": [{"title": d.title, "diagram_type": d.diagram_type,
                      "folder": folder_name(d.folder) if d.folder is not None else None, "source": d.source,
                      "has_description": bool(d.description.strip()), "warnings": d.warnings}
                     for d in plan.diagrams],
        "skipped": plan.skipped,
        "target_folder": target.name if target is not None else None,
    }


def _diagram_usage(user):
    return db.session.scalar(select(func.count(Diagram.id)).join(Project, Project.id == Diagram.project_id)
                             .where(Project.user_id == user.id))


def _additions(plan):
    """What the import adds to the plan's counters: diagrams, and bytes of content and descriptions."""
    size = sum(utf8_size(planned.content) + utf8_size(planned.description[:DESCRIPTION_MAX])
               for planned in plan.diagrams)
    return {"diagrams": len(plan.diagrams), "storage": size}


def _quota_preview(user, plan):
    """Whether the plan allows the import; a dry run reports a refusal instead of raising it.
    The counters shown are diagrams; a storage refusal only turns `allowed` off."""
    usage = _diagram_usage(user)
    try:
        ensure_room(user, _additions(plan))
    except Forbidden as refused:
        detail = refused.detail if isinstance(refused.detail, dict) else {}
        limit = detail.get("limit") if detail.get("resource_type") == "diagrams" else None
        return {"current_usage": usage, "limit": limit, "allowed": False}
    finally:
        db.session.rollback()
    return {"current_usage": usage, "limit": None, "allowed": True}


def _create(user, project, plan, target, existing):
    """Insert the new folders and every diagram; the caller commits or rolls back."""
    ensure_room(user, _additions(plan))
    usage = _diagram_usage(user)
    now = utcnow()
    folder_ids = {key: folder.id for key, folder in existing.items()}
    new_folders = [Folder(id=new_id(), project_id=project.id, name=planned.name,
                          color=planned.color or DEFAULT_FOLDER_COLOR, created_at=now, updated_at=now)
                   for key, planned in plan.folders.items() if key not in existing]
    db.session.add_all(new_folders)
    db.session.flush()
    folder_ids.update({folder.name.lower(): folder.id for folder in new_folders})
    diagrams = [Diagram(id=new_id(), project_id=project.id,
                        folder_id=target.id if target is not None else folder_ids.get(planned.folder),
                        title=planned.title, content=planned.content,
                        description=planned.description[:DESCRIPTION_MAX],
                        diagram_type=planned.diagram_type, config=default_diagram_config(),
                        user_preferences=default_user_preferences(), created_at=now, updated_at=now)
                for planned in plan.diagrams]
    db.session.add_all(diagrams)
    db.session.flush()
    return {"current_usage": usage + len(diagrams), "limit": None, "allowed": True,
            "created_diagram_ids": [diagram.id for diagram in diagrams],
            "created_folder_ids": [folder.id for folder in new_folders]}


def import_files(user, project_id, files, folder_id, dry_run):
    """Preview or run an import of loose files, Markdown, ZIP archives (ours included) and Excalidraw."""
    project = owned_project(user, project_id)
    target = _target_folder(project, folder_id)
    plan = build_plan(_read_uploads(files))
    if target is not None:
        plan.flatten()
    existing = _destinations(project, plan, target)
    preview = _preview(plan, target, existing)
    if dry_run:
        return {**preview, **_quota_preview(user, plan)}
    if not plan.diagrams:
        raise BadRequest({"error": "nothing_to_import", "skipped": plan.skipped,
                          "message": _("None of the files holds a diagram that can be imported.")})
    try:
        result = _create(user, project, plan, target, existing)
        db.session.commit()
    except AppError:
        db.session.rollback()
        raise
    except SQLAlchemyError:
        db.session.rollback()
        log.exception("import into project %s failed", project_id)
        raise AppError({"error": "import_failed", "rolled_back": True,
                        "message": _("The import failed and nothing was saved. Please try again.")},
                       status=500) from None
    return {**preview, **result}
