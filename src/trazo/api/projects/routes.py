"""Projects routes, plus the folder and diagram creations nested under a project."""
from flask.views import MethodView
from flask_smorest import Blueprint

from ...auth import current_user, login_required
from ...errors import PLAN_LIMIT_DOC, ObjectErrorSchema
from ..common import MessageSchema
from ..diagrams import service as diagrams
from ..diagrams.schemas import DiagramCreateSchema, DiagramSchema
from ..folders import service as folders
from ..folders.schemas import FolderCreateSchema, FolderSchema
from . import service
from .multipart import MultipartParser
from .schemas import ProjectCreateSchema, ProjectSchema, ProjectUpdateSchema, ProjectWithDiagramsSchema

blp = Blueprint("projects", __name__, description="Projects, export and import")
blp.ARGUMENTS_PARSER = MultipartParser()  # the import's files and folder_id arrive in one multipart body


@blp.route("")
class Projects(MethodView):
    decorators = [login_required]

    @blp.response(200, ProjectSchema(many=True))
    def get(self):
        """List my projects with their diagram counts"""
        return service.list_projects(current_user)

    @blp.arguments(ProjectCreateSchema)
    @blp.response(201, ProjectSchema)
    @blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
    def post(self, data):
        """Create a project"""
        return service.create_project(current_user, data)


@blp.route("/<project_id>")
class ProjectItem(MethodView):
    decorators = [login_required]

    @blp.response(200, ProjectWithDiagramsSchema)
    @blp.alt_response(404, "DEFAULT_ERROR", description="Project not found")
    def get(self, project_id):
        """Read a project with its folders and diagrams"""
        return service.project_tree(current_user, project_id)

    @blp.arguments(ProjectUpdateSchema)
    @blp.response(200, ProjectSchema)
    @blp.alt_response(404, "DEFAULT_ERROR", description="Project not found")
    def put(self, data, project_id):
        """Update a project"""
        return service.update_project(current_user, project_id, data)

    @blp.response(200, MessageSchema)
    @blp.alt_response(404, "DEFAULT_ERROR", description="Project not found")
    def delete(self, project_id):
        """Delete a project with its folders and diagrams"""
        return service.delete_project(current_user, project_id)


@blp.route("/<project_id>/folders", methods=["POST"])
@login_required
@blp.arguments(FolderCreateSchema)
@blp.response(201, FolderSchema)
@blp.alt_response(404, "DEFAULT_ERROR", description="Project not found")
def create_folder(data, project_id):
    """Create a folder in a project"""
    return folders.create_folder(current_user, project_id, data)


@blp.route("/<project_id>/diagrams", methods=["POST"])
@login_required
@blp.arguments(DiagramCreateSchema)
@blp.response(201, DiagramSchema)
@blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
@blp.alt_response(404, "DEFAULT_ERROR", description="Project or folder not found")
def create_diagram(data, project_id):
    """Create a diagram in a project"""
    return diagrams.create_diagram(current_user, project_id, data)


# The export and import routes live in their own modules on this blueprint.
from . import export_routes, import_routes  # noqa: E402,F401
