"""Files routes under /projects/{project_id}: a project's diagrams addressed by path, as a repository holds
them (docs/files-api.md). The owner's only: another user's project answers 404."""
from flask.views import MethodView

from ...auth import current_user, user_or_address
from ...errors import PLAN_LIMIT_DOC, CodedErrorSchema, ErrorSchema, ObjectErrorSchema, VersionConflictSchema
from ...extensions import limiter
from ...models.workspaces import EDITOR, VIEWER
from ...ratelimit import limit
from ..blueprint import Blueprint
from ..common import ConditionalHeadersSchema, PreconditionHeadersSchema
from . import service, sync
from .schemas import (
    PUT_BODY,
    FileListingSchema,
    FileWrittenSchema,
    SyncQuerySchema,
    SyncResultSchema,
    SyncSchema,
    WriteHeadersSchema,
    file_body,
    file_target,
)

blp = Blueprint("files", __name__, description="Files: a project's diagrams addressed by path",
                personal_tokens=True)
AMBIGUOUS_DOC = "Several diagrams answer to the path: {detail, error_code: ambiguous_path, paths}"
STALE_DOC = "If-Match names another version (version_conflict), or If-None-Match: * and the file exists"


@blp.route("/<project_id>/files", not_found="Project not found", role=VIEWER)
@blp.response(200, FileListingSchema)
def listing(project_id):
    """List a project's files: path, type, size, SHA-256 and version"""
    return service.list_files(current_user, project_id)


@blp.route("/<project_id>/files/<path:file_path>", not_found="Project or file not found", merge_slashes=False,
           role={"GET": VIEWER, "PUT": EDITOR, "DELETE": EDITOR})
class FileItem(MethodView):
    @blp.arguments(ConditionalHeadersSchema, location="headers")
    @blp.response(200, {"type": "string"}, content_type="text/plain",
                  description="The raw source (a freehand sketch as application/json); ETag: its version")
    @blp.alt_response(304, description="The version If-None-Match names is still current")
    @blp.alt_response(409, schema=CodedErrorSchema, description=AMBIGUOUS_DOC)
    def get(self, headers, project_id, file_path):
        """Read a file's raw source"""
        return service.read_file(current_user, project_id, file_target(file_path), headers["if_none_match"])

    @blp.arguments(WriteHeadersSchema, location="headers")
    @blp.doc(requestBody=PUT_BODY)
    @blp.response(200, FileWrittenSchema, description="Updated (or unchanged: same ETag, no revision)")
    @blp.alt_response(201, schema=FileWrittenSchema, description="Created", success=True)
    @blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
    @blp.alt_response(409, schema=CodedErrorSchema, description=AMBIGUOUS_DOC)
    @blp.alt_response(412, schema=VersionConflictSchema, description=STALE_DOC)
    @blp.alt_response(413, schema=ErrorSchema, description="Request body too large")
    def put(self, headers, project_id, file_path):
        """Create or update a file from a raw body or {content, type?, description?}"""
        target = file_target(file_path)
        return service.write_file(current_user, project_id, target, file_body(target), headers["if_match"],
                                  headers["if_none_match"])

    @blp.arguments(PreconditionHeadersSchema, location="headers")
    @blp.response(204, description="Deleted with its history")
    @blp.alt_response(409, schema=CodedErrorSchema, description=AMBIGUOUS_DOC)
    @blp.alt_response(412, schema=VersionConflictSchema, description=STALE_DOC)
    def delete(self, headers, project_id, file_path):
        """Delete a file (its folder stays)"""
        service.delete_file(current_user, project_id, file_target(file_path), headers["if_match"])


@blp.route("/<project_id>/sync", methods=["POST"], not_found="Project not found", role=EDITOR)
@limiter.limit(limit("FILES_SYNC"), key_func=user_or_address, scope="files-sync")
@blp.arguments(SyncQuerySchema, location="query")
@blp.arguments(SyncSchema)
@blp.response(200, SyncResultSchema)
@blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
@blp.alt_response(409, schema=CodedErrorSchema, description=AMBIGUOUS_DOC)
@blp.alt_response(413, schema=ErrorSchema, description="Request body too large")
def sync_tree(query, data, project_id):
    """Apply a whole tree of files in one transaction (dry_run previews)"""
    return sync.sync_files(current_user, project_id, data["files"], data["delete_missing"],
                           data["dry_run"] or query["dry_run"])
