"""Export a project (or one folder) as a ZIP archive or a Markdown document, and announce its size.

The formats are written by archive/ (docs/export-format.md); here the caller's project is read from
the database, the diagrams' texts a batch at a time, into a temporary file (in memory while small),
then sent from that file after the request has given its database connection back, so neither a
large project nor a slow client holds much memory or a connection. With `include_history`, a ZIP also
holds each diagram's revisions, read a batch at a time too (core/history/batches.py), as many as an import
of the archive accepts: the newest, chosen from their stored sizes before any is read
(archive/history_bound.py). With
`include_images`, each diagram's SVG, drawn within a budget of time and drawings (core/content/images.py
DrawingBudget, docs/export-format.md "Images") with no database connection held while engines draw.
"""
import re
import tempfile
import unicodedata
from functools import partial
from urllib.parse import quote

from flask import Response, current_app, request
from flask_babel import gettext
from sqlalchemy import func, null, select
from werkzeug.wsgi import wrap_file

from ...archive.comments import export_entry
from ...archive.history import ExportRevision
from ...archive.history_bound import HistoryLimits
from ...archive.layout import ExportDiagram, ExportFolder, ExportSnapshot, assume_descriptions, mark_descriptions
from ...archive.markdown import estimated_tokens, markdown_chunks, markdown_measure
from ...archive.reader import ImportLimits
from ...archive.zip_export import write_zip, zip_size_bound
from ...core.content import access
from ...core.content.images import DrawingBudget
from ...core.content.limits import content_caps
from ...core.history.batches import HistoryStats, history_stats, newest_first, revisions_in_batches
from ...extensions import db
from ...models.comments import Comment
from ...models.content import Diagram, Folder
from ...models.workspaces import VIEWER
from ...ratelimit import spend

ZIP_TYPE = "application/zip"
MARKDOWN_TYPE = "text/markdown"  # Flask adds "; charset=utf-8" to text types
IN_MEMORY_BYTES = 1024 * 1024
# Texts are read in batches of about this many bytes (one diagram when it is larger) or rows.
BATCH_BYTES = 4 * 1024 * 1024
BATCH_ROWS = 200
METADATA = (Diagram.id, Diagram.title, Diagram.diagram_type, Diagram.folder_id, Diagram.created_at,
            Diagram.updated_at, Diagram.content_size, Diagram.description_size)


def _snapshot(user, project_id, query, with_images=False):
    """The caller's project (or one of its folders) with the metadata of the diagrams to export."""
    project = access.project(user, project_id, VIEWER)
    diagrams = select(*METADATA).where(Diagram.project_id == project.id)
    if query["folder_id"]:
        folders = [access.folder_of_project(project.id, query["folder_id"])]
        diagrams = diagrams.where(Diagram.folder_id == folders[0].id)
    else:
        folders = db.session.scalars(select(Folder).where(Folder.project_id == project.id)
                                     .order_by(func.lower(Folder.name), Folder.id)).all()
    folders = [ExportFolder(folder.id, folder.name, folder.color) for folder in folders]
    with_history = query["include_history"] and query["format"] == "zip"  # Markdown carries no history
    folder_id = folders[0].id if query["folder_id"] else None
    stats = history_stats(project.id, folder_id) if with_history else {}
    exported = [ExportDiagram(*row, revision_count=stats[row.id].count if row.id in stats else 0)
                for row in db.session.execute(diagrams.order_by(Diagram.created_at, Diagram.id))]
    if with_history:
        _attach_comments(exported)
    return ExportSnapshot(
        project={"id": project.id, "name": project.name, "emoji": project.emoji, "description": project.description},
        scope_folder=folders[0] if query["folder_id"] else None,
        folders=folders,
        diagrams=exported,
        with_descriptions=query["descriptions"],
        read_texts=diagram_texts,
        with_history=with_history,
        read_history=_export_revisions,
        newest_revisions=partial(newest_first, project.id, folder_id),
        history_limits=_history_limits(),
        with_images=with_images,
        read_images=diagram_images)


def _attach_comments(diagrams):
    """Each diagram's comments as its revisions.json holds them (archive/comments.py), roots first, in one query."""
    by_id = {diagram.id: diagram for diagram in diagrams}
    if not by_id:
        return
    for comment in db.session.scalars(select(Comment).where(Comment.diagram_id.in_(list(by_id)))
                                      .order_by(Comment.parent_id.is_not(None), Comment.created_at, Comment.id)):
        by_id[comment.diagram_id].comments.append(export_entry(comment))


def _history_limits():
    """What an import accepts of an archive's history (importing.py reads uploads with the same limits)."""
    limits = ImportLimits(file_bytes=current_app.config["MAX_REQUEST_BODY_BYTES"], content=content_caps())
    return HistoryLimits(files=limits.history_files, uncompressed_bytes=limits.uncompressed_bytes,
                         archive_bytes=current_app.config["MAX_IMPORT_UPLOAD_BYTES"], file_bytes=limits.file_bytes)


def _export_revisions(diagrams, with_content=True):
    """(diagram, ExportRevision, content) of the revisions `diagrams` keep (kept_history), a batch at a time."""
    kept = {diagram.id: diagram.kept_history for diagram in diagrams}
    stats = {key: HistoryStats(history.count, history.stored, history.largest) for key, history in kept.items()}
    ranges = {key: (history.first, history.last) for key, history in kept.items()}
    for diagram, metadata, content in revisions_in_batches(stats, diagrams, with_content, ranges):
        yield diagram, ExportRevision(*metadata), content


def _batches(diagrams, size):
    batch, total = [], 0
    for diagram in diagrams:
        if batch and (total + size(diagram) > BATCH_BYTES or len(batch) >= BATCH_ROWS):
            yield batch
            batch, total = [], 0
        batch.append(diagram)
        total += size(diagram)
    if batch:
        yield batch


def _read(batch, *columns):
    """{diagram id: (column values...)} of the diagrams in `batch`."""
    return {row[0]: row[1:] for row in db.session.execute(
        select(Diagram.id, *columns).where(Diagram.id.in_([diagram.id for diagram in batch])))}


def diagram_texts(diagrams, with_content=True):
    """(diagram, content, description) in the order of `diagrams`, loaded a batch of about BATCH_BYTES
    at a time, so an export holds a few diagrams in memory, never the whole project. A diagram deleted
    meanwhile comes out empty. Without content, content is None."""
    def size(diagram):
        return diagram.description_size + (diagram.content_size if with_content else 0)

    for batch in _batches(diagrams, size):
        rows = _read(batch, Diagram.content if with_content else null(), Diagram.description)
        for diagram in batch:
            content, description = rows.get(diagram.id, ("", ""))
            yield diagram, (content or "") if with_content else None, description or ""


def diagram_images(diagrams):
    """(diagram, SVG text or None, why not or None) in the order of `diagrams`: each batch of contents is
    read, the pooled connection given back, then drawn, so a slow engine or Kroki never holds the pool."""
    config = current_app.config
    budget = DrawingBudget(config["EXPORT_IMAGES_SECONDS"], config["EXPORT_IMAGE_RENDERS"])
    for batch in _batches(diagrams, lambda diagram: diagram.content_size):
        contents = _read(batch, Diagram.content)
        db.session.close()
        for diagram in batch:
            content = contents.get(diagram.id, ("",))[0]  # "" for a diagram deleted meanwhile
            yield diagram, *budget.draw(diagram.diagram_type, content or "")


def content_disposition(filename):
    """An attachment header with an ASCII fallback and the UTF-8 name (RFC 6266 / RFC 5987)."""
    ascii_name = unicodedata.normalize("NFKD", filename).encode("ascii", "ignore").decode()
    ascii_name = re.sub(r'["\\]', "", ascii_name).strip() or "export"
    if ascii_name.startswith("."):
        ascii_name = "export" + ascii_name
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename, safe='')}"


def export_response(user, project_id, query):
    """The download, sent from the file it was written to. Images cost drawing: an export with them
    spends RATE_LIMIT_EXPORT_IMAGES of the caller, once the project is known to be theirs."""
    with_images = query["include_images"] and query["format"] == "zip"
    snapshot = _snapshot(user, project_id, query, with_images)
    if with_images:
        spend("EXPORT_IMAGES", user.id)
    target = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES)
    try:
        if query["format"] == "markdown":
            for chunk in markdown_chunks(snapshot, query["variant"], gettext):
                target.write(chunk.encode())
            mimetype, extension = MARKDOWN_TYPE, ".md"
        else:
            mark_descriptions(snapshot)
            write_zip(snapshot, target, gettext)
            mimetype, extension = ZIP_TYPE, ".zip"
        size = target.tell()
        target.seek(0)
    except BaseException:
        target.close()
        raise
    return Response(wrap_file(request.environ, target), mimetype=mimetype, direct_passthrough=True,
                    headers={"Content-Disposition": content_disposition(snapshot.file_name(extension)),
                             "Content-Length": str(size)})


def export_summary(user, project_id, query):
    """Counts, size in bytes and (Markdown for AI) a token estimate of the same export.
    A ZIP's size is an upper bound from the sizes kept in the database (revisions included when asked
    for, as many as the export would hold: `history_omitted` counts those it would leave out): nothing is
    read, decompressed or compressed. Images are known only once drawn: with them, the
    size leaves them out and is no bound."""
    snapshot = _snapshot(user, project_id, query)
    tokens, upper_bound = None, False
    if query["format"] == "markdown":
        (size, characters), extension = markdown_measure(snapshot, query["variant"], gettext), ".md"
        if query["variant"] == "ai":
            tokens = estimated_tokens(characters)
    else:
        assume_descriptions(snapshot)
        size, extension = zip_size_bound(snapshot, gettext), ".zip"
        upper_bound = not query["include_images"]
    omitted = snapshot.history_note["revisions"] if snapshot.history_note else 0
    return {"diagram_count": len(snapshot.diagrams), "folder_count": len(snapshot.folders), "size_bytes": size,
            "size_is_upper_bound": upper_bound, "estimated_tokens": tokens, "filename": snapshot.file_name(extension),
            "history_omitted": omitted}
