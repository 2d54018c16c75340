"""Import files into a project: preview (dry run) or create everything in one transaction.

archive/ reads the uploads (each archive opened once) and plans what they hold; here the plan is
placed in the project (existing folders, titles not yet taken), given its history (import_history.py),
checked against the caller's quotas and, unless it is a dry run, written.
"""
import logging
from dataclasses import dataclass, field

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from ...archive.naming import unique
from ...archive.plan import ImportPlan, build_plan
from ...archive.reader import ImportLimits, InvalidUpload, Upload, read_uploads, upload_name
from ...core.billing.quotas import count_resources, ensure_room, row_overhead, spend_creations
from ...core.content import access
from ...core.content.limits import NAME_MAX, content_caps
from ...core.events.publish import DIAGRAM_CREATED, diagram_event
from ...core.workspaces.billing import project_payer
from ...errors import AppError, BadRequest, Forbidden
from ...extensions import db
from ...models.base import new_id, utcnow
from ...models.content import (
    DEFAULT_FOLDER_COLOR,
    Diagram,
    Folder,
    default_diagram_config,
    default_user_preferences,
    utf8_size,
)
from ...models.workspaces import EDITOR
from ..fields import DESCRIPTION_MAX
from .import_history import DiffBudget, history_bound, imported_comments, imported_revisions, settle_histories

log = logging.getLogger(__name__)


@dataclass
class ImportPreview:
    """What a dry run answers (ImportResultSchema): the placed plan and the diagram counters."""

    plan: ImportPlan
    target_folder: str | None
    current_usage: int
    limit: int | None
    allowed: bool

    @property
    def diagrams(self):
        return self.plan.diagrams

    @property
    def skipped(self):
        return self.plan.skipped

    @property
    def folders(self):
        return [folder.name for folder in self.plan.folders.values()]

    @property
    def diagram_count(self):
        return len(self.plan.diagrams)

    @property
    def folder_count(self):
        return len(self.plan.folders)


@dataclass
class ImportOutcome(ImportPreview):
    """What an import answers: the preview's fields and the ids it created."""

    created_diagram_ids: list = field(default_factory=list)
    created_folder_ids: list = field(default_factory=list)


def _limits():
    return ImportLimits(file_bytes=current_app.config["MAX_REQUEST_BODY_BYTES"], content=content_caps())


def _read_uploads(files, limits):
    if not files:
        raise BadRequest(_("No files uploaded"))
    uploads = [Upload(upload_name(storage.filename), storage.read()) for storage in files]
    if sum(len(upload.data) for upload in uploads) > current_app.config["MAX_IMPORT_UPLOAD_BYTES"]:
        raise AppError(_("Upload too large"), status=413)
    try:
        return read_uploads(uploads, limits)
    except InvalidUpload as refused:
        raise BadRequest({"error": "invalid_upload", "file": refused.file, "reason": refused.reason,
                          "message": _("The file %(file)s cannot be imported (%(reason)s).", file=refused.file,
                                       reason=refused.reason)}) from None


def _place(project, plan, target):
    """Bind the plan's folders to the project's folders of the same name (which keep their name), and
    give each planned diagram a title not yet used where it goes (existing titles included)."""
    existing = {folder.name.lower(): folder
                for folder in db.session.scalars(select(Folder).where(Folder.project_id == project.id))}
    for key, planned in plan.folders.items():
        if key in existing:
            planned.id, planned.name = existing[key].id, existing[key].name
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
            place = diagram.folder.id or ("new", diagram.folder.key)
        # Diagrams restored from our manifest only avoid titles stored before, so an export comes back as it was.
        taken = set(stored.get(place, ()))
        if not diagram.restored:
            taken |= added.get(place, set())
        diagram.title = unique(diagram.title, taken, NAME_MAX)
        added.setdefault(place, set()).add(diagram.title.lower())


def _diagram_usage(payer):
    return count_resources(payer.id, "diagrams")


def _new_folders(plan):
    """The planned folders the project does not have yet (_place bound the others)."""
    return [planned for planned in plan.folders.values() if planned.id is None]


def _additions(plan, history_bytes):
    """What the import adds to the caller's quota counters: diagrams, and bytes of content, descriptions
    and history (stored, compressed) with the overhead of every row it inserts."""
    size = sum(utf8_size(planned.content) + utf8_size(planned.description[:DESCRIPTION_MAX])
               + sum(utf8_size(comment.body) for comment in planned.comments) for planned in plan.diagrams)
    rows = row_overhead(diagrams=len(plan.diagrams), folders=len(_new_folders(plan)),
                        revisions=sum(len(planned.history) for planned in plan.diagrams))
    return {"diagrams": len(plan.diagrams), "storage": size + history_bytes + rows}


def _quota_preview(payer, plan):
    """Whether the caller's quotas allow the import; a dry run reports a refusal instead of raising it.
    The counters shown are diagrams; a storage refusal only turns `allowed` off. The history counts at
    the most it can weigh compressed (history_bound), so a preview may refuse what the import allows."""
    usage = _diagram_usage(payer)
    try:
        ensure_room(payer, _additions(plan, history_bound(plan)))
    except Forbidden as refused:
        detail = refused.detail if isinstance(refused.detail, dict) else {}
        limit = detail.get("limit") if detail.get("resource_type") == "diagrams" else None
        return {"current_usage": usage, "limit": limit, "allowed": False}
    finally:
        db.session.rollback()
    return {"current_usage": usage, "limit": None, "allowed": True}


def _folder_id(planned, target):
    if target is not None:
        return target.id
    return planned.folder.id if planned.folder is not None else None


def _create(user, project, plan, target, now):
    """Insert the new folders, every diagram and their revisions (checked against the quotas and spent from
    the creation rate first); the caller commits or rolls back."""
    additions = _additions(plan, 0)
    spent = len(plan.diagrams) + len(_new_folders(plan))
    new_folders = []
    for planned in _new_folders(plan):
        planned.id = new_id()
        new_folders.append(Folder(id=planned.id, project_id=project.id, name=planned.name,
                                  color=planned.color or DEFAULT_FOLDER_COLOR, created_at=now, updated_at=now))
    diagrams = [Diagram(id=new_id(), project_id=project.id, folder_id=_folder_id(planned, target),
                        title=planned.title, content=planned.content,
                        description=planned.description[:DESCRIPTION_MAX],
                        diagram_type=planned.diagram_type, config=default_diagram_config(),
                        user_preferences=default_user_preferences(), created_at=now, updated_at=now)
                for planned in plan.diagrams]
    budget = DiffBudget()
    revisions = [row for diagram, planned in zip(diagrams, plan.diagrams, strict=True)
                 for row in imported_revisions(diagram, planned, user.id, budget)]
    additions["storage"] += sum(diagram.history_size for diagram in diagrams)
    payer = project_payer(user, project)
    ensure_room(payer, additions)
    spend_creations(user, spent)
    usage = _diagram_usage(payer)
    db.session.add_all(new_folders)
    db.session.flush()
    db.session.add_all(diagrams)
    db.session.flush()  # the revisions' rows refer to the diagrams'
    db.session.add_all(revisions)
    db.session.flush()
    db.session.add_all(imported_comments(diagrams, plan.diagrams, now))
    db.session.flush()
    for diagram in diagrams:
        diagram_event(DIAGRAM_CREATED, diagram, project.workspace_id, user, diagram_type=diagram.diagram_type)
    return {"current_usage": usage + len(diagrams), "limit": None, "allowed": True,
            "created_diagram_ids": [diagram.id for diagram in diagrams],
            "created_folder_ids": [folder.id for folder in new_folders]}


def import_files(user, project_id, files, folder_id, dry_run):
    """Preview or run an import of loose files, Markdown, ZIP archives (ours included) and Excalidraw."""
    project = access.project(user, project_id, EDITOR)
    target = access.folder_of_project(project.id, folder_id) if folder_id else None
    limits = _limits()
    plan = build_plan(_read_uploads(files, limits), limits)
    if target is not None:
        plan.flatten()
    _place(project, plan, target)
    now = utcnow()
    settle_histories(user, plan, now)
    target_name = target.name if target is not None else None
    if dry_run:
        return ImportPreview(plan, target_name, **_quota_preview(project_payer(user, project), plan))
    if not plan.diagrams:
        raise BadRequest({"error": "nothing_to_import", "skipped": plan.skipped,
                          "message": _("None of the files holds a diagram that can be imported.")})
    try:
        result = _create(user, project, plan, target, now)
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
    return ImportOutcome(plan, target_name, **result)
