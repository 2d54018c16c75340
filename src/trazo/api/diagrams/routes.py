"""Diagrams routes, and their creation under /projects/{project_id}/diagrams (a blueprint of its own,
mounted on the projects prefix).

Render, fix, convert and the history (revisions) are other blueprints mounted on the diagrams prefix.
A diagram's answers carry its version as an ETag; a write with If-Match answers 412 when the diagram has
moved on (docs/history.md).
"""
from flask.views import MethodView

from ...auth import current_user, signed_in_user, user_or_address
from ...errors import PLAN_LIMIT_DOC, ObjectErrorSchema, VersionConflictSchema
from ...extensions import limiter
from ...models.workspaces import EDITOR, VIEWER
from ...ratelimit import limit
from ..blueprint import Blueprint
from ..common import (
    ConditionalHeadersSchema,
    ImageQuerySchema,
    MessageSchema,
    PreconditionHeadersSchema,
    with_etag,
)
from ..content_schemas import DiagramSchema
from . import service
from .schemas import (
    DiagramCreateSchema,
    DiagramDuplicateSchema,
    DiagramMoveSchema,
    DiagramUpdateSchema,
    RecentDiagramSchema,
)

blp = Blueprint("diagrams", __name__, description="Diagrams and rendering", personal_tokens=True)
project_diagrams_blp = Blueprint("project_diagrams", __name__, description="Diagrams created in a project",
                                 personal_tokens=True)
STALE_DOC = "The diagram changed since the version If-Match (or expected_version) names"


@project_diagrams_blp.route("/<project_id>/diagrams", methods=["POST"], not_found="Project or folder not found",
                             role=EDITOR)
@project_diagrams_blp.arguments(DiagramCreateSchema)
@project_diagrams_blp.response(201, DiagramSchema)
@project_diagrams_blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
def create(data, project_id):
    """Create a diagram in a project"""
    return with_etag(service.create_diagram(current_user, project_id, data))


@blp.route("/recent")
@blp.response(200, RecentDiagramSchema(many=True))
def recent():
    """List my four most recently edited diagrams"""
    return service.recent_diagrams(current_user)


@blp.route("/<diagram_id>", not_found="Diagram not found", role={"GET": VIEWER, "PUT": EDITOR, "DELETE": EDITOR})
class DiagramItem(MethodView):
    @blp.response(200, DiagramSchema, headers={"ETag": {"schema": {"type": "string"}}})
    def get(self, diagram_id):
        """Read a diagram (its version is the ETag)"""
        return service.get_diagram(signed_in_user, diagram_id)

    @blp.arguments(DiagramUpdateSchema)
    @blp.arguments(PreconditionHeadersSchema, location="headers")
    @blp.response(200, DiagramSchema)
    @blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
    @blp.alt_response(412, schema=VersionConflictSchema, description=STALE_DOC)
    def put(self, data, headers, diagram_id):
        """Update a diagram"""
        return with_etag(service.update_diagram(current_user, diagram_id, data, headers["if_match"]))

    @blp.response(200, MessageSchema)
    def delete(self, diagram_id):
        """Delete a diagram and its history"""
        return service.delete_diagram(current_user, diagram_id)


@blp.route("/<diagram_id>/move", methods=["POST"], not_found="Diagram or target project not found", role=EDITOR)
@blp.arguments(DiagramMoveSchema)
@blp.arguments(PreconditionHeadersSchema, location="headers")
@blp.response(200, DiagramSchema)
@blp.alt_response(412, schema=VersionConflictSchema, description=STALE_DOC)
def move(data, headers, diagram_id):
    """Move a diagram to the root of another project"""
    return with_etag(service.move_diagram(current_user, diagram_id, data["target_project_id"], headers["if_match"]))


@blp.route("/<diagram_id>/duplicate", methods=["POST"], not_found="Diagram not found", role=EDITOR)
@blp.arguments(DiagramDuplicateSchema)
@blp.arguments(PreconditionHeadersSchema, location="headers")
@blp.response(200, DiagramSchema)
@blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
@blp.alt_response(412, schema=VersionConflictSchema, description=STALE_DOC)
def duplicate(data, headers, diagram_id):
    """Copy a diagram under a new title (the version If-Match names)"""
    return with_etag(service.duplicate_diagram(current_user, diagram_id, data["title"], headers["if_match"]))


@blp.route("/<diagram_id>/image.<any(svg, png):fmt>", not_found="Diagram not found", role=VIEWER)
@limiter.limit(limit("SHARED_IMAGE"), key_func=user_or_address)
@blp.arguments(ImageQuerySchema, location="query")
@blp.arguments(ConditionalHeadersSchema, location="headers")
@blp.response(200, {"type": "string", "format": "binary"}, content_type="image/svg+xml",
              description="The diagram as it is now, as SVG or PNG (ETag; 304 on If-None-Match)")
@blp.alt_response(304, description="The image named by If-None-Match is still current")
def image(query, headers, diagram_id, fmt):
    """My diagram as an image"""
    return service.diagram_image(current_user, diagram_id, fmt, query["theme"], headers["if_none_match"])
