"""POST /projects/{id}/sync: a whole tree of files applied in one transaction (docs/files-api.md, "Sync").

Every file is checked before anything is written: one bad path, extension, type or content refuses the
whole sync with a 422 naming each bad file. Unchanged files (same hash and type) are not touched; the
diagrams and folders it creates are taken from the creation rate before anything is written (all or
none); the rest is written a diagram at a time (each flushed, so the rows it read are let go), and the
storage it adds (rows' overhead included) is counted exactly, once written, before the commit. A dry run
writes nothing and spends nothing: it answers the same lists and checks the quotas with an upper bound of
the history's compressed size and of the revisions it adds.
"""
from dataclasses import dataclass
from functools import cache

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import delete, func, select

from ...archive.reader import ImportLimits
from ...core.billing.quotas import ensure_room, lock_account, row_overhead, spend_creations
from ...core.content import access
from ...core.content.limits import content_caps
from ...core.content.paths import BadPath, Target, parse_path
from ...core.content.revalidations import ending_links
from ...core.events.publish import DIAGRAM_CREATED, diagram_event, diagrams_deleted
from ...core.history.changes import retrying, save_change
from ...core.history.revisions import compress_bound, content_hash, revision_limit
from ...core.workspaces.billing import project_payer
from ...errors import AppError, ValidationFailed
from ...extensions import db
from ...models.base import utcnow
from ...models.content import Diagram, utf8_size
from ...models.history import SOURCE_API, DiagramRevision
from ...models.sharing import SharedLink
from ...models.workspaces import EDITOR
from .paths import check_content, resolve_type
from .service import ambiguous_path, folder_key_map, new_diagram, new_folder, read_index

DELETE_CHUNK = 500  # ids per DELETE statement
FLUSH_CHUNK = 50  # new diagrams per flush


@dataclass
class Incoming:
    """One file of the request, once its path is read."""

    position: int
    target: Target
    content: str
    requested: str | None
    entry: object = None  # the index entry at its path, when there is one
    diagram_type: str = ""


def _problem(position, path, error, name):
    return {"loc": ["body", "files", position, name], "msg": error.message, "type": error.kind, "path": path}


def _read_paths(files):
    """The files whose paths are good, and a problem for each of the others (duplicates included)."""
    incoming, problems, seen = [], [], {}
    for position, item in enumerate(files):
        try:
            target = parse_path(item["path"])
        except BadPath as error:
            problems.append(_problem(position, item["path"], error, "path"))
            continue
        if target.key in seen:
            error = BadPath(_("The same file as files[%(index)s]: paths are compared without regard to case.",
                              index=seen[target.key]), "value_error.duplicate")
            problems.append(_problem(position, item["path"], error, "path"))
            continue
        seen[target.key] = position
        incoming.append(Incoming(position, target, item["content"], item.get("type")))
    return incoming, problems


def _check_size(files):
    limits = ImportLimits(file_bytes=current_app.config["MAX_REQUEST_BODY_BYTES"], content=content_caps())
    if not files:
        raise ValidationFailed("files", _("Send at least one file."), "too_short")
    if len(files) > limits.files:
        raise ValidationFailed("files", _("At most %(limit)s files per sync.", limit=limits.files), "too_long")
    total, limit = sum(utf8_size(item["content"]) for item in files), current_app.config["MAX_IMPORT_UPLOAD_BYTES"]
    if total > limit:
        raise ValidationFailed("files", _("The files hold %(size)s bytes in all, at most %(limit)s.",
                                          size=total, limit=limit), "too_long")


def sync_files(user, project_id, files, delete_missing, dry_run):
    """Apply (or preview) a tree: {dry_run, created, updated, unchanged, deleted, unaddressable}."""
    _check_size(files)
    incoming, problems = _read_paths(files)
    return retrying(lambda: _sync(user, project_id, incoming, problems, delete_missing, dry_run))


def _typed(incoming, index, problems):
    """Match each file to the index and settle its type; a problem for each file that cannot be written."""
    ambiguous = []
    for item in incoming:
        if item.target.key in index.ambiguous:
            ambiguous.append(item.target.path)
            continue
        item.entry = index.files.get(item.target.key)
        existing = item.entry.diagram_type if item.entry is not None else None
        try:
            item.diagram_type = resolve_type(item.target, item.content, item.requested, existing)
        except BadPath as error:
            problems.append(_problem(item.position, item.target.path, error, "type"))
            continue
        try:
            check_content(item.content, item.diagram_type)
        except BadPath as error:
            problems.append(_problem(item.position, item.target.path, error, "content"))
    if problems:
        raise AppError(sorted(problems, key=lambda problem: problem["loc"][2]), status=422)
    if ambiguous:
        raise ambiguous_path(ambiguous)


def _sync(user, project_id, incoming, path_problems, delete_missing, dry_run):
    project = access.project(user, project_id, EDITOR)
    payer = project_payer(user, project)
    if not dry_run:
        lock_account(payer.id)
    index = read_index(project.id)
    _typed(incoming, index, list(path_problems))
    created, changed, unchanged = [], [], []
    for item in incoming:
        if item.entry is None:
            created.append(item)
        elif item.diagram_type == item.entry.diagram_type and content_hash(item.content) == item.entry.sha256:
            unchanged.append(item)
        else:
            changed.append(item)
    sent = {item.target.key for item in incoming}
    deleted = [entry for key, entry in index.files.items() if key not in sent] if delete_missing else []
    answer = {"dry_run": dry_run, "created": [item.target.path for item in created],
              "updated": [item.target.path for item in changed],
              "unchanged": [item.target.path for item in unchanged],
              "deleted": sorted((entry.path for entry in deleted), key=lambda path: (path.lower(), path)),
              "unaddressable": index.unaddressable}
    if len(created) > len(deleted):
        ensure_room(payer, {"diagrams": len(created) - len(deleted)})
    folders = folder_key_map(project.id)
    missing = _missing_folders(created, folders)
    if dry_run:
        try:
            ensure_room(payer, {"storage": _storage_bound(created, changed, deleted, len(missing))})
        finally:
            db.session.rollback()
        return answer
    # Spent before writing, so a refused sync costs no writes (one the storage check refuses has spent it).
    spend_creations(user, len(created) + len(missing))
    growth = (_delete(user, project, deleted) + _create(user, project, created, folders, missing)
              + _update(user, payer, changed))
    ensure_room(payer, {"storage": growth}, written=True)
    db.session.commit()
    return answer


def _missing_folders(items, folders):
    """{key: name} of the folders the created files need that the project lacks (the first spelling)."""
    missing = {}
    for item in items:
        if item.target.folder is not None and item.target.key[0] not in folders:
            missing.setdefault(item.target.key[0], item.target.folder)
    return missing


def _storage_bound(created, changed, deleted, new_folders):
    """At most what the sync adds to the storage count, without compressing anything: a changed file adds
    at most one revision (two for a diagram without history), a deleted one frees at least its own row."""
    bound, revisions = 0, len(created)
    for item in created + changed:
        size = utf8_size(item.content)
        bound += size + compress_bound(size)
        if item.entry is not None:
            bound -= item.entry.size
            bound += 0 if item.entry.recorded else compress_bound(item.entry.size)
            revisions += 1 if item.entry.recorded else 2
    rows = row_overhead(diagrams=len(created) - len(deleted), folders=new_folders, revisions=revisions)
    return bound + rows - sum(entry.stored for entry in deleted)


def _delete(user, project, entries):
    """Delete the diagrams with their history; what they weighed, their rows included, as a negative growth."""
    ids, revisions = [entry.diagram_id for entry in entries], 0
    diagrams_deleted(project.workspace_id, ids, user)
    for start in range(0, len(ids), DELETE_CHUNK):
        chunk = ids[start:start + DELETE_CHUNK]
        revisions += db.session.scalar(select(func.count(DiagramRevision.id))
                                       .where(DiagramRevision.diagram_id.in_(chunk)))
        ending_links(SharedLink.diagram_id.in_(chunk))
        db.session.execute(delete(Diagram).where(Diagram.id.in_(chunk)))
    return -sum(entry.stored for entry in entries) - row_overhead(diagrams=len(ids), revisions=revisions)


def _create(user, project, items, folders, missing):
    """Insert the `missing` folders, then the new diagrams and their first revisions, a chunk at a time."""
    project_id, now = project.id, utcnow()
    new_folders = [new_folder(project_id, name, now) for name in missing.values()]
    folders.update(zip(missing, (folder.id for folder in new_folders), strict=True))
    growth = row_overhead(diagrams=len(items), folders=len(new_folders), revisions=len(items))
    db.session.add_all(new_folders)
    db.session.flush()
    for start in range(0, len(items), FLUSH_CHUNK):
        pairs = [new_diagram(user, project_id, folders.get(item.target.key[0]) if item.target.folder else None,
                             item.target.title, item.diagram_type, item.content, "", now)
                 for item in items[start:start + FLUSH_CHUNK]]
        db.session.add_all(diagram for diagram, _revision in pairs)
        db.session.flush()
        db.session.add_all(revision for _diagram, revision in pairs)
        db.session.flush()
        for diagram, _revision in pairs:
            diagram_event(DIAGRAM_CREATED, diagram, project.workspace_id, user, diagram_type=diagram.diagram_type)
        growth += sum(diagram.content_size + diagram.history_size for diagram, _revision in pairs)
    return growth


def _update(user, payer, items):
    """Write each changed file as a PUT without precondition would (a revision with source `api`); the
    storage is charged once for the whole sync, after the writes."""
    growth, limit_of = 0, cache(revision_limit(payer))  # the plan is read once, not once per diagram
    for item in items:
        data = {"content": item.content, "diagram_type": item.diagram_type}
        saved = save_change(user, item.entry.diagram_id, lambda _diagram, data=data: data, SOURCE_API,
                            limit_of=limit_of, charge=False)
        growth += saved.growth + (saved.history.counted_delta if saved.history else 0)
        db.session.flush()
    return growth
