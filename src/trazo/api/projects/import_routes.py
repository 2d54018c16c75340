"""Import route of the projects blueprint."""
from flask import request

from ...auth import current_user, login_required
from ...errors import PLAN_LIMIT_DOC, ErrorSchema, ObjectErrorSchema, error_doc
from ...extensions import limiter
from ...ratelimit import limit, user_or_address
from . import import_service
from .routes import blp
from .schemas import ImportQuerySchema, ImportResultSchema, ImportUploadSchema

TRUE_VALUES = {"true", "1", "yes", "on", "t", "y"}


def _dry_run():
    return request.args.get("dry_run", "").strip().lower() in TRUE_VALUES


@blp.route("/<project_id>/import", methods=["POST"])
@login_required
@limiter.limit(limit("IMPORT"), key_func=user_or_address, scope="import", exempt_when=_dry_run)
@limiter.limit(limit("IMPORT_PREVIEW"), key_func=user_or_address, scope="import-preview",
               exempt_when=lambda: not _dry_run())
@blp.arguments(ImportQuerySchema, location="query")
@blp.arguments(ImportUploadSchema, location="files")
@blp.response(200, ImportResultSchema)
@blp.alt_response(400, schema=error_doc(ObjectErrorSchema, ErrorSchema),
                  description="No files, or {error: invalid_upload | nothing_to_import, message, ...}")
@blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
@blp.alt_response(404, "DEFAULT_ERROR", description="Project or folder not found")
@blp.alt_response(413, "DEFAULT_ERROR", description="Upload too large")
@blp.alt_response(429, "DEFAULT_ERROR", description="Too many imports")
@blp.alt_response(500, schema=ObjectErrorSchema,
                  description="{error: import_failed, rolled_back: true, message}: nothing was saved")
def import_into_project(query, upload, project_id):
    """Import diagram files, Markdown, ZIP archives or Excalidraw drawings (dry_run previews)"""
    return import_service.import_files(current_user, project_id, upload["files"], upload["folder_id"],
                                       query["dry_run"])
