"""Export a project (or one folder) as a ZIP archive or a Markdown document, and announce its size.

The export is written to a temporary file (in memory while small) reading a few diagrams at a time,
then sent from that file after the request has given its database connection back, so neither a
large project nor a slow client holds much memory or a connection.
"""
import tempfile

from flask import Response, request
from werkzeug.wsgi import wrap_file

from .export_layout import assume_descriptions, load_snapshot, mark_descriptions
from .export_text import estimated_tokens, markdown_chunks, markdown_measure
from .export_zip import manifest, readme, write_zip, zip_size_bound
from .naming import content_disposition

ZIP_TYPE = "application/zip"
MARKDOWN_TYPE = "text/markdown"  # Flask adds "; charset=utf-8" to text types
IN_MEMORY_BYTES = 1024 * 1024


def _snapshot(user, project_id, query):
    return load_snapshot(user, project_id, query["folder_id"], query["descriptions"])


def _write_markdown(snapshot, variant, target):
    for chunk in markdown_chunks(snapshot, variant):
        target.write(chunk.encode())


def export_response(user, project_id, query):
    """The download, sent from the file it was written to."""
    snapshot = _snapshot(user, project_id, query)
    target = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES)
    try:
        if query["format"] == "markdown":
            _write_markdown(snapshot, query["variant"], target)
            mimetype, extension = MARKDOWN_TYPE, ".md"
        else:
            mark_descriptions(snapshot)
            # The index texts are localized, so they are built here, inside the request.
            write_zip(snapshot, target, readme(snapshot), manifest(snapshot))
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
    A ZIP's size is an upper bound from the sizes kept in the database: nothing is read or compressed."""
    snapshot = _snapshot(user, project_id, query)
    tokens, upper_bound = None, False
    if query["format"] == "markdown":
        (size, characters), extension = markdown_measure(snapshot, query["variant"]), ".md"
        if query["variant"] == "ai":
            tokens = estimated_tokens(characters)
    else:
        assume_descriptions(snapshot)
        size, extension, upper_bound = zip_size_bound(snapshot, readme(snapshot), manifest(snapshot)), ".zip", True
    return {"diagram_count": len(snapshot.diagrams), "folder_count": len(snapshot.folders), "size_bytes": size,
            "size_is_upper_bound": upper_bound, "estimated_tokens": tokens, "filename": snapshot.file_name(extension)}
