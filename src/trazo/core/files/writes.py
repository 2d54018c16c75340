"""Writing a diagram by path (docs/files-api.md, "PUT"): create it, with its folder when missing, or update it,
the revision recorded with the caller's source (`api` for the files API, `mcp` for the MCP tools).

Every write takes the account's lock first (the one plan limits take), so that two writes of one path never both
create it. Nothing here commits: the caller commits inside `core.history.changes.retrying`, which reads and plans
a save again when another one overtook it.
"""
from flask_babel import gettext as _

from ...errors import PreconditionFailed, ValidationFailed
from ...extensions import db
from ...models.base import utcnow
from ...models.content import utf8_size
from ...models.history import SOURCE_API
from ...models.workspaces import EDITOR
from ..billing.quotas import ensure_room, lock_account, row_overhead, spend_creations
from ..content import access
from ..events.publish import DIAGRAM_CREATED, diagram_event
from ..history.changes import VersionMatch, etag, save_change
from ..history.revisions import content_hash
from ..workspaces.billing import project_payer
from .index import folder_key_map, new_diagram, new_folder, read_index
from .paths import BadPath, check_content, resolve_type


def write(user, project_id, target, body, *, if_match: VersionMatch | None = None,
          if_none_match: VersionMatch | None = None, expected_version: int | None = None, source=SOURCE_API):
    """Create (created: True) or update the diagram at `target` from `body` ({content, type?, description?}); a
    revision with `source` records a change of type or content, and identical content records nothing. A
    precondition on a path with no file (If-Match, `expected_version`) is a 412 `file_missing`; If-None-Match
    naming the file (or `*`) a 412 `file_exists`. Answers {path, type, size, sha256, version, diagram_id,
    created}; the caller commits."""
    project = access.project(user, project_id, EDITOR)
    payer = project_payer(user, project)
    lock_account(payer.id)
    entry = read_index(project.id, with_hashes=False).find(target)
    if entry is None:
        if if_match or expected_version is not None:
            raise PreconditionFailed(_("There is no file at this path; If-Match cannot match."),
                                     error_code="file_missing")
        return _create(user, payer, project, target, body, source)
    if if_none_match is not None and if_none_match.admits(entry.version):
        raise PreconditionFailed(_("A file already exists at this path."), headers={"ETag": etag(entry)},
                                 error_code="file_exists", extra={"current_version": entry.version})
    return _update(user, entry.diagram_id, target, body, if_match, expected_version, source)


def _written(target, diagram, content, created):
    return {"path": target.path, "type": diagram.diagram_type, "size": utf8_size(content),
            "sha256": content_hash(content), "version": diagram.version, "diagram_id": diagram.id,
            "created": created}


def _refused(error, name="content"):
    return ValidationFailed(name, error.message, error.kind)


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


def _create(user, payer, project, target, body, source):
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
                                    body.get("description") or "", now, source)
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
    return _written(target, diagram, body["content"], True)


def _update(user, diagram_id, target, body, if_match, expected_version, source):
    def fields(diagram):
        data = {"content": body["content"], "diagram_type": _typed(target, body, diagram.diagram_type)}
        if body.get("description") is not None:
            data["description"] = body["description"]
        return data

    saved = save_change(user, diagram_id, fields, source, if_match=if_match, expected_version=expected_version)
    return _written(target, saved.diagram, body["content"], False)
