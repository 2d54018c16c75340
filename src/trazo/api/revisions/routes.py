"""Revisions routes under /diagrams/{diagram_id}/revisions: the owner's only (404 otherwise).

Naming (POST and PUT together) and restoring have per-user rates of their own, as comparing does
(RATE_LIMIT_REVISION_LABEL, RATE_LIMIT_REVISION_RESTORE, RATE_LIMIT_REVISION_DIFF: docs/history.md).
"""
from flask.views import MethodView

from ...auth import current_user, user_or_address
from ...errors import PLAN_LIMIT_DOC, ErrorSchema, ObjectErrorSchema
from ...extensions import limiter
from ...models.workspaces import EDITOR, VIEWER
from ...ratelimit import limit
from ..blueprint import Blueprint
from ..common import PageQuerySchema, with_etag
from ..content_schemas import DiagramSchema
from . import service
from .schemas import (
    DiffQuerySchema,
    DiffSchema,
    LabelCreateSchema,
    LabelUpdateSchema,
    RevisionPageSchema,
    RevisionSchema,
)

blp = Blueprint("revisions", __name__, description="Diagram history: revisions, comparison and restore",
                personal_tokens=True)
# Revision numbers fit the database's integer; a larger one names no revision (404).
REVISION = "<int(max=2147483647):number>"
LABELS = {"scope": "revision-label", "key_func": user_or_address}  # one budget for naming and renaming
LABEL_CAP_DOC = "The diagram already has as many named revisions as the plan allows"


@blp.route("/<diagram_id>/revisions", not_found="Diagram not found", role={"GET": VIEWER, "POST": EDITOR})
class Revisions(MethodView):
    @blp.arguments(PageQuerySchema, location="query")
    @blp.response(200, RevisionPageSchema)
    def get(self, query, diagram_id):
        """List a diagram's revisions, newest first (without contents)"""
        return service.list_revisions(current_user, diagram_id, query["page"], query["page_size"])

    @limiter.shared_limit(limit("REVISION_LABEL"), **LABELS)
    @blp.arguments(LabelCreateSchema)
    @blp.response(201, RevisionSchema)
    @blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
    @blp.alt_response(409, schema=ErrorSchema,
                      description=f"The current version already has a label, or: {LABEL_CAP_DOC.lower()}")
    def post(self, data, diagram_id):
        """Name the diagram's current version"""
        return service.label_current(current_user, diagram_id, data["label"])


@blp.route(f"/<diagram_id>/revisions/{REVISION}", not_found="Diagram or revision not found",
           role={"GET": VIEWER, "PUT": EDITOR})
class RevisionItem(MethodView):
    @blp.response(200, RevisionSchema)
    def get(self, diagram_id, number):
        """Read one revision with its content"""
        return service.get_revision(current_user, diagram_id, number)

    @limiter.shared_limit(limit("REVISION_LABEL"), **LABELS)
    @blp.arguments(LabelUpdateSchema)
    @blp.response(200, RevisionSchema)
    @blp.alt_response(409, schema=ErrorSchema, description=LABEL_CAP_DOC)
    def put(self, data, diagram_id, number):
        """Rename a revision's label, or clear it with null"""
        return service.rename_label(current_user, diagram_id, number, data["label"])


@blp.route(f"/<diagram_id>/revisions/{REVISION}/diff", not_found="Diagram or revision not found", role=VIEWER)
@limiter.limit(limit("REVISION_DIFF"), key_func=user_or_address)
@blp.arguments(DiffQuerySchema, location="query")
@blp.response(200, DiffSchema)
def diff(query, diagram_id, number):
    """Compare a revision with another one, or with the current diagram"""
    return service.diff_revision(current_user, diagram_id, number, query["against"])


@blp.route(f"/<diagram_id>/revisions/{REVISION}/restore", methods=["POST"],
           not_found="Diagram or revision not found", role=EDITOR)
@limiter.limit(limit("REVISION_RESTORE"), key_func=user_or_address)
@blp.response(200, DiagramSchema)
@blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
def restore(diagram_id, number):
    """Give the diagram a revision's title, type and content (recorded as a new revision)"""
    return with_etag(service.restore_revision(current_user, diagram_id, number))
