"""Export a project (or one folder) as a ZIP archive or a Markdown document, and announce its size."""
from flask import Response

from .export_layout import load_snapshot
from .export_text import estimated_tokens, markdown_document
from .export_zip import manifest, readme, zip_chunks
from .naming import content_disposition

ZIP_TYPE = "application/zip"
MARKDOWN_TYPE = "text/markdown"  # Flask adds "; charset=utf-8" to text types


def _snapshot(user, project_id, query):
    return load_snapshot(user, project_id, query["folder_id"], query["descriptions"])


def _zip_stream(snapshot):
    # The index texts are localized, so they are built now, inside the request.
    return zip_chunks(snapshot, readme(snapshot), manifest(snapshot))


def export_response(user, project_id, query):
    """The download; a ZIP is streamed while it is compressed."""
    snapshot = _snapshot(user, project_id, query)
    if query["format"] == "markdown":
        body, mimetype, extension = markdown_document(snapshot, query["variant"]).encode(), MARKDOWN_TYPE, ".md"
    else:
        body, mimetype, extension = _zip_stream(snapshot), ZIP_TYPE, ".zip"
    return Response(body, mimetype=mimetype,
                    headers={"Content-Disposition": content_disposition(snapshot.file_name(extension))})


def export_summary(user, project_id, query):
    """Counts, exact size in bytes and (Markdown for AI) a token estimate of the same export."""
    snapshot = _snapshot(user, project_id, query)
    tokens = None
    if query["format"] == "markdown":
        document = markdown_document(snapshot, query["variant"])
        size, extension = len(document.encode()), ".md"
        if query["variant"] == "ai":
            tokens = estimated_tokens(document)
    else:
        size, extension = sum(len(chunk) for chunk in _zip_stream(snapshot)), ".zip"
    return {"diagram_count": len(snapshot.diagrams), "folder_count": len(snapshot.folders), "size_bytes": size,
            "size_is_upper_bound": False, "estimated_tokens": tokens, "filename": snapshot.file_name(extension)}
