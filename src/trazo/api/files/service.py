"""The files API: a project's diagrams addressed by path (docs/files-api.md). Paths are in paths.py, the
whole-tree sync in sync.py.

The listing reads no diagram's content: each file's hash is the one its newest revision keeps (the newest
revision always holds the diagram's current state, docs/history.md); only a diagram without history has
its hash computed, its content read about 4 MiB at a time. Writes take the account's lock first (the one plan
limits take), so that two writes of one path never both create it.
"""
from dataclasses import dataclass, field
from datetime import datetime

from flask import Response
from flask_babel import gettext as _
from sqlalchemy import and_, bindparam, delete, func, select
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.http import parse_etags

from ...core.billing.quotas import ensure_room, lock_account, row_overhead, spend_creations
from ...core.content import access
from ...core.content.paths import EXTENSIONS, BadPath, path_key, path_of
from ...core.content.revalidations import ending_links
from ...core.events.publish import DIAGRAM_CREATED, diagram_event, diagrams_deleted
from ...core.history.changes import ensure_version, etag, retrying, save_change
from ...core.history.revisions import content_hash, start_history
from ...core.workspaces.billing import project_payer
from ...errors import Conflict, NotFound, PreconditionFailed, ValidationFailed
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
from ...models.history import SOURCE_API, DiagramRevision
from ...models.sharing import SharedLink
from ...models.workspaces import EDITOR, VIEWER
from .paths import check_content, resolve_type

HASH_BATCH_BYTES = 4 * 1024 * 1024  # content of diagrams without history a listing reads at once
MEDIA_TYPES = {".freehand.json": "application/json; charset=utf-8"}
TEXT_MEDIA_TYPE = "text/plain; charset=utf-8"
_NEWEST = (select(func.max(DiagramRevision.number)).where(DiagramRevision.diagram_id == Diagram.id)
           .correlate(Diagram).scalar_subquery())
INDEX = (select(Diagram.id, Diagram.title, Diagram.diagram_type, Diagram.version, Diagram.content_size,
                Diagram.description_size, Diagram.history_size, Diagram.updated_at, Folder.name.label("folder"),
                DiagramRevision.content_hash, DiagramRevision.content_size.label("revision_size"))
         .outerjoin(Folder, Folder.id == Diagram.folder_id)
         .outerjoin(DiagramRevision, and_(DiagramRevision.diagram_id == Diagram.id, DiagramRevision.number == _NEWEST))
         .where(Diagram.project_id == bindparam("project_id")))


@dataclass
class Entry:
    """One diagram of the index: what the listing shows, without its content."""

    diagram_id: str
    title: str
    diagram_type: str
    version: int
    size: int
    stored: int  # what it weighs toward the storage quota
    updated_at: datetime
    folder: str | None
    sha256: str | None
    path: str | None = None
    recorded: bool = False  # its newest revision holds its current content (else it has no history)


@dataclass
class Index:
    """A project's diagrams by path key; the ones that cannot be addressed are set apart with a reason."""

    files: dict = field(default_factory=dict)  # key -> Entry
    unaddressable: list = field(default_factory=list)  # {diagram_id, title, folder, reason}
    ambiguous: set = field(default_factory=set)  # keys several diagrams answer to

    def find(self, target):
        """The entry at `target`, None when there is none; 409 when several diagrams answer to it."""
        if target.key in self.ambiguous:
            raise ambiguous_path([target.path])
        return self.files.get(target.key)


def ambiguous_path(paths):
    return Conflict(_("Several diagrams answer to this path (their titles differ only in case, or their folders "
                      "do): rename one of them first."), error_code="ambiguous_path", extra={"paths": paths})


def read_index(project_id, with_hashes=True):
    """The project's index in one statement (and, `with_hashes`, one more for diagrams without history)."""
    entries = []
    for row in db.session.execute(INDEX, {"project_id": project_id}):
        recorded = row.content_hash is not None and row.revision_size == row.content_size
        entries.append(Entry(row.id, row.title, row.diagram_type, row.version, row.content_size,
                             row.content_size + row.description_size + row.history_size, row.updated_at,
                             row.folder, row.content_hash if recorded else None, recorded=recorded))
    if with_hashes:
        _hash_the_rest([entry for entry in entries if entry.sha256 is None])
    index, keyed = Index(), {}
    for entry in entries:
        entry.path = path_of(entry.folder, entry.title, entry.diagram_type)
        if entry.path is None:
            index.unaddressable.append(_unaddressable(entry, "invalid_name"))
            continue
        keyed.setdefault(path_key(entry.folder, entry.title, _extension(entry.path)), []).append(entry)
    for key, same in keyed.items():
        if len(same) == 1:
            index.files[key] = same[0]
        else:
            index.ambiguous.add(key)
            index.unaddressable.extend(_unaddressable(entry, "same_path") for entry in same)
    return index


def _extension(path):
    return next(ext for ext in EXTENSIONS if path.endswith(ext))


def _unaddressable(entry, reason):
    return {"diagram_id": entry.diagram_id, "title": entry.title, "folder": entry.folder,
            "type": entry.diagram_type, "reason": reason}


def _hash_the_rest(entries):
    """Hash the contents of diagrams whose newest revision does not give it (diagrams from before history),
    about HASH_BATCH_BYTES of content per statement: one statement unless they are large."""
    batch, size = {}, 0
    for entry in entries:
        batch[entry.diagram_id], size = entry, size + entry.size
        if size >= HASH_BATCH_BYTES or entry is entries[-1]:
            for diagram_id, content in db.session.execute(select(Diagram.id, Diagram.content)
                                                          .where(Diagram.id.in_(list(batch)))):
                batch[diagram_id].sha256 = content_hash(content or "")
            batch, size = {}, 0


def _file(entry):
    return {"path": entry.path, "type": entry.diagram_type, "size": entry.size, "sha256": entry.sha256,
            "version": entry.version, "diagram_id": entry.diagram_id, "updated_at": entry.updated_at}


def list_files(user, project_id):
    """Every addressable diagram of the project as a file, sorted by path, and the others apart."""
    project = access.project(user, project_id, VIEWER)
    index = read_index(project.id)
    files = sorted(index.files.values(), key=lambda entry: (entry.path.lower(), entry.path))
    return {"files": [_file(entry) for entry in files], "unaddressable": index.unaddressable}


def _found(index, target):
    entry = index.find(target)
    if entry is None:
        raise NotFound(_("File not found"))
    return entry


def read_file(user, project_id, target, if_none_match):
    """The raw source at `target` with its version as ETag (304 when If-None-Match names it)."""
    project = access.project(user, project_id, VIEWER)
    entry = _found(read_index(project.id, with_hashes=False), target)
    headers = {"Cache-Control": "private, no-cache"}
    held = parse_etags(if_none_match) if if_none_match else None
    if held is not None and (held.star_tag or held.contains_weak(str(entry.version))):
        return Response(status=304, headers={**headers, "ETag": etag(entry)})
    row = db.session.execute(select(Diagram.content, Diagram.version).where(Diagram.id == entry.diagram_id)).first()
    if row is None:  # deleted since the index was read
        raise NotFound(_("File not found"))
    return Response(row.content or "", headers={**headers, "ETag": etag(row)},
                    content_type=MEDIA_TYPES.get(target.extension, TEXT_MEDIA_TYPE))


def _written(target, diagram, content, created):
    return {"path": target.path, "type": diagram.diagram_type, "size": utf8_size(content),
            "sha256": content_hash(content), "version": diagram.version, "diagram_id": diagram.id,
            "created": created}


def _refused(error, location="body", name="content"):
    return ValidationFailed(name, error.message, error.kind, location=location)


def write_file(user, project_id, target, body, if_match=None, if_none_match=None):
    """Create (created: True) or update the diagram at `target` from `body` ({content, type?, description?});
    a revision with source `api` records a change of type or content, and identical content records
    nothing. Returns (answer, status, headers)."""
    def attempt():
        project = access.project(user, project_id, EDITOR)
        payer = project_payer(user, project)
        lock_account(payer.id)
        entry = read_index(project.id, with_hashes=False).find(target)
        if entry is None:
            if if_match:
                raise PreconditionFailed(_("There is no file at this path; If-Match cannot match."),
                                         error_code="file_missing")
            return _create(user, payer, project, target, body)
        if if_none_match and _names(if_none_match, entry):
            raise PreconditionFailed(_("A file already exists at this path."), headers={"ETag": etag(entry)},
                                     error_code="file_exists", extra={"current_version": entry.version})
        return _update(user, entry.diagram_id, target, body, if_match)

    answer = retrying(attempt)
    return answer, 201 if answer["created"] else 200, {"ETag": f'"{answer["version"]}"'}


def _names(header, entry):
    held = parse_etags(header)
    return held.star_tag or held.contains_weak(str(entry.version))


def _typed(target, body, existing=None):
    try:
        diagram_type = resolve_type(target, body["content"], body.get("type"), existing)
    except BadPath as error:
        raise _refused(error, name="type") from None
    try:
        check_content(body["content"], diagram_type)
    except BadPath as error:
        raise _refused(error) from None
    return diagram_type


def folder_key_map(project_id):
    """{folder key: id} of the project's folders; of several whose names differ only in case, the oldest."""
    found = {}
    for row in db.session.execute(select(Folder.id, Folder.name).where(Folder.project_id == project_id)
                                  .order_by(Folder.created_at.desc(), Folder.id.desc())):
        found[path_key(row.name, "", "")[0]] = row.id
    return found


def new_folder(project_id, name, now):
    return Folder(id=new_id(), project_id=project_id, name=name, color=DEFAULT_FOLDER_COLOR, created_at=now,
                  updated_at=now)


def new_diagram(user, project_id, folder_id, title, diagram_type, content, description, now):
    """A diagram of the files API and its first revision (source `api`), neither added to the session."""
    diagram = Diagram(id=new_id(), project_id=project_id, folder_id=folder_id, title=title, content=content,
                      description=description, diagram_type=diagram_type, config=default_diagram_config(),
                      user_preferences=default_user_preferences(), created_at=now, updated_at=now)
    return diagram, start_history(diagram, user.id, SOURCE_API, now)


def _create(user, payer, project, target, body):
    project_id = project.id
    diagram_type = _typed(target, body)
    now = utcnow()
    folder_id = folder = None
    if target.folder is not None:
        folder_id = folder_key_map(project_id).get(target.key[0])
        if folder_id is None:
            folder = new_folder(project_id, target.folder, now)
            folder_id = folder.id
    diagram, revision = new_diagram(user, project_id, folder_id, target.title, diagram_type, body["content"],
                                    body.get("description") or "", now)
    folders = 0 if folder is None else 1
    ensure_room(payer, {"diagrams": 1, "storage": diagram.content_size + diagram.description_size
                       + diagram.history_size + row_overhead(diagrams=1, folders=folders, revisions=1)})
    spend_creations(user, 1 + folders)
    if folder is not None:
        db.session.add(folder)
        db.session.flush()
    db.session.add(diagram)
    db.session.flush()
    db.session.add(revision)
    diagram_event(DIAGRAM_CREATED, diagram, project.workspace_id, user, diagram_type=diagram.diagram_type)
    db.session.commit()
    return _written(target, diagram, body["content"], True)


def _update(user, diagram_id, target, body, if_match):
    def fields(diagram):
        data = {"content": body["content"], "diagram_type": _typed(target, body, diagram.diagram_type)}
        if body.get("description") is not None:
            data["description"] = body["description"]
        return data

    saved = save_change(user, diagram_id, fields, SOURCE_API, if_match=if_match)
    answer = _written(target, saved.diagram, body["content"], False)
    db.session.commit()
    return answer


def delete_file(user, project_id, target, if_match=None):
    """Delete the diagram at `target` with its history (its folder stays)."""
    def attempt():
        project = access.project(user, project_id, EDITOR)
        entry = _found(read_index(project.id, with_hashes=False), target)
        ensure_version(entry, if_match)
        ending_links(SharedLink.diagram_id == entry.diagram_id)
        diagrams_deleted(project.workspace_id, [entry.diagram_id], user)
        deleted = db.session.execute(delete(Diagram).where(Diagram.id == entry.diagram_id,
                                                           Diagram.version == entry.version))
        if deleted.rowcount != 1:  # saved or deleted since the index was read: look again
            raise StaleDataError(entry.diagram_id)
        db.session.commit()

    retrying(attempt)
