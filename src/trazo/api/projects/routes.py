"""Projects routes: the projects themselves, their export and their import.

Folders and diagrams are created under /projects/{project_id} by blueprints of their own areas.
"""
from flask import request
from flask.views import MethodView

from ...auth import current_user, signed_in_user, user_or_address
from ...errors import PLAN_LIMIT_DOC, ErrorSchema, ObjectErrorSchema, error_doc
from ...extensions import limiter
from ...models.workspaces import ADMIN, EDITOR, VIEWER
from ...ratelimit import limit
from ..blueprint import Blueprint
from ..common import MessageSchema
from . import exporting, importing, service
from .multipart import MultipartParser
from .schemas import (
    ExportQuerySchema,
    ExportSummarySchema,
    ImportQuerySchema,
    ImportResultSchema,
    ImportUploadSchema,
    ProjectCreateSchema,
    ProjectListQuerySchema,
    ProjectSchema,
    ProjectTransferSchema,
    ProjectUpdateSchema,
    ProjectWithDiagramsSchema,
)

blp = Blueprint("projects", __name__, description="Projects, export and import", personal_tokens=True)
blp.ARGUMENTS_PARSER = MultipartParser()  # the import's files and folder_id arrive in one multipart body
TRUE_VALUES = {"true", "1", "yes", "on", "t", "y"}


@blp.route("")
class Projects(MethodView):
    @blp.arguments(ProjectListQuerySchema, location="query")
    @blp.response(200, ProjectSchema(many=True))
    def get(self, query):
        """List the projects of every workspace I belong to, with their diagram counts"""
        return service.list_projects(signed_in_user, query["workspace_id"])

    @blp.arguments(ProjectCreateSchema)
    @blp.response(201, ProjectSchema)
    @blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
    def post(self, data):
        """Create a project"""
        return service.create_project(current_user, data)


@blp.route("/<project_id>", not_found="Project not found",
           role={"GET": VIEWER, "PUT": EDITOR, "DELETE": ADMIN})
class ProjectItem(MethodView):
    @blp.response(200, ProjectWithDiagramsSchema)
    def get(self, project_id):
        """Read a project with its folders and diagrams"""
        return service.project_tree(signed_in_user, project_id)

    @blp.arguments(ProjectUpdateSchema)
    @blp.response(200, ProjectSchema)
    def put(self, data, project_id):
        """Update a project"""
        return service.update_project(current_user, project_id, data)

    @blp.response(200, MessageSchema)
    def delete(self, project_id):
        """Delete a project with its folders and diagrams"""
        return service.delete_project(current_user, project_id)


@blp.route("/<project_id>/transfer", methods=["POST"], not_found="Project or workspace not found", role=ADMIN)
@blp.arguments(ProjectTransferSchema)
@blp.response(200, ProjectSchema)
@blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
@blp.alt_response(409, schema=ErrorSchema, description="The project already belongs to that workspace")
def transfer(data, project_id):
    """Move a project to another workspace (admin here, editor there; the target's limits apply)"""
    return service.transfer_project(current_user, project_id, data["workspace_id"])


def _succeeded(response):
    """Only delivered exports spend the budget (a typo in an id does not)."""
    return response.status_code < 400


@blp.route("/<project_id>/export", not_found="Project or folder not found", role=VIEWER)
@limiter.limit(limit("EXPORT"), key_func=user_or_address, deduct_when=_succeeded)
@blp.arguments(ExportQuerySchema, location="query")
@blp.response(200, description="The ZIP archive or the Markdown document", content_type="application/zip")
def export(query, project_id):
    """Download a project or one of its folders as ZIP or Markdown"""
    return exporting.export_response(current_user, project_id, query)


@blp.route("/<project_id>/export/summary", not_found="Project or folder not found", role=VIEWER)
@limiter.limit(limit("EXPORT_SUMMARY"), key_func=user_or_address, deduct_when=_succeeded)
@blp.arguments(ExportQuerySchema, location="query")
@blp.response(200, ExportSummarySchema)
def export_summary(query, project_id):
    """Tell what an export would hold and how large it is"""
    return exporting.export_summary(current_user, project_id, query)


def _dry_run():
    return request.args.get("dry_run", "").strip().lower() in TRUE_VALUES


@blp.route("/<project_id>/import", methods=["POST"], not_found="Project or folder not found", role=EDITOR)
@limiter.limit(limit("IMPORT"), key_func=user_or_address, scope="import", exempt_when=_dry_run)
@limiter.limit(limit("IMPORT_PREVIEW"), key_func=user_or_address, scope="import-preview",
               exempt_when=lambda: not _dry_run())
@blp.arguments(ImportQuerySchema, location="query")
@blp.arguments(ImportUploadSchema, location="files")
@blp.response(200, ImportResultSchema)
@blp.alt_response(400, schema=error_doc(ObjectErrorSchema, ErrorSchema),
                  description="No files, or {error: invalid_upload | nothing_to_import, message, ...}")
@blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
@blp.alt_response(413, schema=ErrorSchema, description="Upload too large")
@blp.alt_response(500, schema=ObjectErrorSchema,
                  description="{error: import_failed, rolled_back: true, message}: nothing was saved")
def import_into_project(query, upload, project_id):
    """Import diagram files, Markdown, ZIP archives or Excalidraw drawings (dry_run previews)"""
    return importing.import_files(current_user, project_id, upload["files"], upload["folder_id"],
                                  query["dry_run"])
