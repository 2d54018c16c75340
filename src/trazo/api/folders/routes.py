"""Folders routes; creation lives under /projects/{project_id}/folders."""
from flask.views import MethodView
from flask_smorest import Blueprint

from ...auth import current_user, login_required
from ..common import MessageSchema
from . import service
from .schemas import FolderDeleteQuerySchema, FolderSchema, FolderUpdateSchema, FolderWithDiagramsSchema

blp = Blueprint("folders", __name__, description="Folders")


@blp.route("/<folder_id>")
class FolderItem(MethodView):
    decorators = [login_required]

    @blp.response(200, FolderWithDiagramsSchema)
    @blp.alt_response(404, "DEFAULT_ERROR", description="Folder not found")
    def get(self, folder_id):
        """Read a folder with its diagrams"""
        return service.folder_detail(current_user, folder_id)

    @blp.arguments(FolderUpdateSchema)
    @blp.response(200, FolderSchema)
    @blp.alt_response(404, "DEFAULT_ERROR", description="Folder not found")
    def put(self, data, folder_id):
        """Rename or recolor a folder"""
        return service.update_folder(current_user, folder_id, data)

    @blp.arguments(FolderDeleteQuerySchema, location="query")
    @blp.response(200, MessageSchema)
    @blp.alt_response(404, "DEFAULT_ERROR", description="Folder not found")
    def delete(self, query, folder_id):
        """Delete a folder, moving its diagrams to the project root or deleting them"""
        return service.delete_folder(current_user, folder_id, query["delete_diagrams"])
