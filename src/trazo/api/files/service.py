"""The files API's routes over core/files (docs/files-api.md): the listing, a file's raw source with its ETag,
a write by path and a deletion. Paths, the index and writes are core/files' (shared with the MCP tools); the
whole-tree sync is sync.py."""
from flask import Response
from flask_babel import gettext as _
from sqlalchemy import delete, select
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.http import parse_etags

from ...core.content import access
from ...core.content.revalidations import ending_links
from ...core.events.publish import diagrams_deleted
from ...core.files import index, writes
from ...core.history.changes import VersionMatch, ensure_version, etag, retrying
from ...errors import NotFound
from ...extensions import db
from ...models.content import Diagram
from ...models.history import SOURCE_API
from ...models.sharing import SharedLink
from ...models.workspaces import EDITOR

MEDIA_TYPES = {".freehand.json": "application/json; charset=utf-8"}
TEXT_MEDIA_TYPE = "text/plain; charset=utf-8"


def list_files(user, project_id):
    """Every addressable diagram of the project as a file, sorted by path, and the others apart."""
    return index.list_files(user, project_id)


def _held(header):
    """The versions an If-None-Match header names (`*`: any), weak ones included; None without the header."""
    if not header:
        return None
    held = parse_etags(header)
    return VersionMatch(any=held.star_tag, versions=frozenset(held.as_set(include_weak=True)))


def read_file(user, project_id, target, if_none_match):
    """The raw source at `target` with its version as ETag (304 when If-None-Match names it)."""
    entry = index.find_file(user, project_id, target)
    headers = {"Cache-Control": "private, no-cache"}
    held = _held(if_none_match)
    if held is not None and held.admits(entry.version):
        return Response(status=304, headers={**headers, "ETag": etag(entry)})
    row = db.session.execute(select(Diagram.content, Diagram.version).where(Diagram.id == entry.diagram_id)).first()
    if row is None:  # deleted since the index was read
        raise NotFound(_("File not found"))
    return Response(row.content or "", headers={**headers, "ETag": etag(row)},
                    content_type=MEDIA_TYPES.get(target.extension, TEXT_MEDIA_TYPE))


def write_file(user, project_id, target, body, if_match=None, if_none_match=None):
    """Create (created: True) or update the diagram at `target` from `body` ({content, type?, description?});
    a revision with source `api` records a change of type or content, and identical content records
    nothing. Returns (answer, status, headers)."""
    def attempt():
        answer = writes.write(user, project_id, target, body, if_match=if_match, if_none_match=_held(if_none_match),
                              source=SOURCE_API)
        db.session.commit()
        return answer

    answer = retrying(attempt)
    return answer, 201 if answer["created"] else 200, {"ETag": f'"{answer["version"]}"'}


def delete_file(user, project_id, target, if_match=None):
    """Delete the diagram at `target` with its history (its folder stays)."""
    def attempt():
        project = access.project(user, project_id, EDITOR)
        entry = index.read_index(project.id, with_hashes=False).found(target)
        ensure_version(entry, if_match)
        ending_links(SharedLink.diagram_id == entry.diagram_id)
        diagrams_deleted(project.workspace_id, [entry.diagram_id], user)
        deleted = db.session.execute(delete(Diagram).where(Diagram.id == entry.diagram_id,
                                                           Diagram.version == entry.version))
        if deleted.rowcount != 1:  # saved or deleted since the index was read: look again
            raise StaleDataError(entry.diagram_id)
        db.session.commit()

    retrying(attempt)

