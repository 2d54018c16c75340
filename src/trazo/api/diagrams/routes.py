"""Diagrams routes, and their creation under /projects/{project_id}/diagrams (a blueprint of its own,
mounted on the projects prefix).

Render, fix and convert are other blueprints mounted on the diagrams prefix.
"""
from flask.views import MethodView

from ...auth import current_user
from ...errors import PLAN_LIMIT_DOC, ObjectErrorSchema
from ..blueprint import Blueprint
from ..common import MessageSchema
from ..content_schemas import DiagramSchema
from . import service
from .schemas import (
    DiagramCreateSchema,
    DiagramDuplicateSchema,
    DiagramMoveSchema,
    DiagramUpdateSchema,
    RecentDiagramSchema,
)

blp = Blueprint("diagrams", __name__, description="Diagrams and rendering")
project_diagrams_blp = Blueprint("project_diagrams", __name__, description="Diagrams created in a project")


@project_diagrams_blp.route("/<project_id>/diagrams", methods=["POST"], not_found="Project or folder not found")
@project_diagrams_blp.arguments(DiagramCreateSchema)
@project_diagrams_blp.response(201, DiagramSchema)
@project_diagrams_blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
def create(data, project_id):
    """Create a diagram in a project"""
    return service.create_diagram(current_user, project_id, data)


@blp.route("/recent")
@blp.response(200, RecentDiagramSchema(many=True))
def recent():
    """List my four most recently edited diagrams"""
    return service.recent_diagrams(current_user)


@blp.route("/<diagram_id>", not_found="Diagram not found")
class DiagramItem(MethodView):
    @blp.response(200, DiagramSchema)
    def get(self, diagram_id):
        """Read a diagram"""
        return service.get_diagram(current_user, diagram_id)

    @blp.arguments(DiagramUpdateSchema)
    @blp.response(200, DiagramSchema)
    @blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
    def put(self, data, diagram_id):
        """Update a diagram"""
        return service.update_diagram(current_user, diagram_id, data)

    @blp.response(200, MessageSchema)
    def delete(self, diagram_id):
        """Delete a diagram"""
        return service.delete_diagram(current_user, diagram_id)


@blp.route("/<diagram_id>/move", methods=["POST"], not_found="Diagram or target project not found")
@blp.arguments(DiagramMoveSchema)
@blp.response(200, DiagramSchema)
def move(data, diagram_id):
    """Move a diagram to the root of another project"""
    return service.move_diagram(current_user, diagram_id, data["target_project_id"])


@blp.route("/<diagram_id>/duplicate", methods=["POST"], not_found="Diagram not found")
@blp.arguments(DiagramDuplicateSchema)
@blp.response(200, DiagramSchema)
@blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
def duplicate(data, diagram_id):
    """Copy a diagram under a new title"""
    return service.duplicate_diagram(current_user, diagram_id, data["title"])
