"""Folders routes, and their creation under /projects/{project_id}/folders (a blueprint of its own,
mounted on the projects prefix)."""
from flask.views import MethodView

from ...auth import current_user
from ...errors import PLAN_LIMIT_DOC, ObjectErrorSchema
from ...models.workspaces import EDITOR, VIEWER
from ..blueprint import Blueprint
from ..common import MessageSchema
from ..content_schemas import FolderSchema, FolderWithDiagramsSchema
from . import service
from .schemas import FolderCreateSchema, FolderDeleteQuerySchema, FolderUpdateSchema

blp = Blueprint("folders", __name__, description="Folders", personal_tokens=True)
project_folders_blp = Blueprint("project_folders", __name__, description="Folders created in a project",
                                personal_tokens=True)


@project_folders_blp.route("/<project_id>/folders", methods=["POST"], not_found="Project not found",
                            role=EDITOR)
@project_folders_blp.arguments(FolderCreateSchema)
@project_folders_blp.response(201, FolderSchema)
@project_folders_blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
def create(data, project_id):
    """Create a folder in a project"""
    return service.create_folder(current_user, project_id, data)


@blp.route("/<folder_id>", not_found="Folder not found", role={"GET": VIEWER, "PUT": EDITOR, "DELETE": EDITOR})
class FolderItem(MethodView):
    @blp.response(200, FolderWithDiagramsSchema)
    def get(self, folder_id):
        """Read a folder with its diagrams"""
        return service.folder_detail(current_user, folder_id)

    @blp.arguments(FolderUpdateSchema)
    @blp.response(200, FolderSchema)
    def put(self, data, folder_id):
        """Rename or recolor a folder"""
        return service.update_folder(current_user, folder_id, data)

    @blp.arguments(FolderDeleteQuerySchema, location="query")
    @blp.response(200, MessageSchema)
    def delete(self, query, folder_id):
        """Delete a folder, moving its diagrams to the project root or deleting them"""
        return service.delete_folder(current_user, folder_id, query["delete_diagrams"])
