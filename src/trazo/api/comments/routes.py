"""Comment routes (docs/comments.md): threads under /diagrams/{diagram_id}/comments, each comment under
/comments/{comment_id}. Reading needs viewer, writing commenter (editing is the author's, deleting the
author's or an admin's: the service checks). New threads, replies and edits share one per-user rate
(RATE_LIMIT_COMMENTS)."""
from flask.views import MethodView

from ...auth import current_user, user_or_address
from ...errors import PLAN_LIMIT_DOC, ErrorSchema, ObjectErrorSchema
from ...extensions import limiter
from ...models.workspaces import COMMENTER, VIEWER
from ...ratelimit import limit
from ..blueprint import Blueprint
from . import service
from .schemas import CommentBodySchema, CommentCreateSchema, CommentQuerySchema, CommentSchema, ThreadPageSchema

diagram_comments_blp = Blueprint("diagram_comments", __name__, description="Comment threads of a diagram",
                                 personal_tokens=True)
blp = Blueprint("comments", __name__, description="Comments: reply, edit, delete, resolve and reopen",
                personal_tokens=True)
WRITES = {"scope": "comments", "key_func": user_or_address}  # one budget for threads, replies and edits
ON_A_REPLY = "The comment is a reply: only a thread's first comment takes replies and is resolved or reopened"


@diagram_comments_blp.route("/<diagram_id>/comments", not_found="Diagram not found",
                            role={"GET": VIEWER, "POST": COMMENTER})
class DiagramComments(MethodView):
    @diagram_comments_blp.arguments(CommentQuerySchema, location="query")
    @diagram_comments_blp.response(200, ThreadPageSchema)
    def get(self, query, diagram_id):
        """List the diagram's threads, newest first, each with its replies oldest first"""
        return service.list_threads(current_user, diagram_id, query["status"], query["page"], query["page_size"])

    @limiter.shared_limit(limit("COMMENTS"), **WRITES)
    @diagram_comments_blp.arguments(CommentCreateSchema)
    @diagram_comments_blp.response(201, CommentSchema)
    @diagram_comments_blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
    def post(self, data, diagram_id):
        """Open a thread on the diagram, its lines or one of its elements"""
        return service.create(current_user, diagram_id, data)


@blp.route("/<comment_id>/replies", methods=["POST"], not_found="Comment not found", role=COMMENTER)
@limiter.shared_limit(limit("COMMENTS"), **WRITES)
@blp.arguments(CommentBodySchema)
@blp.response(201, CommentSchema)
@blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
@blp.alt_response(409, schema=ErrorSchema, description=ON_A_REPLY)
def reply(data, comment_id):
    """Reply to a thread"""
    return service.reply(current_user, comment_id, data)


@blp.route("/<comment_id>", not_found="Comment not found", role=COMMENTER)
class CommentItem(MethodView):
    @limiter.shared_limit(limit("COMMENTS"), **WRITES)
    @blp.arguments(CommentBodySchema)
    @blp.response(200, CommentSchema)
    @blp.alt_response(403, schema=ObjectErrorSchema, description="Not the comment's author, or " + PLAN_LIMIT_DOC)
    def put(self, data, comment_id):
        """Edit a comment's body (its author only)"""
        return service.edit(current_user, comment_id, data)

    @blp.response(204, description="Deleted, a thread's first comment with its replies")
    def delete(self, comment_id):
        """Delete a comment (its author, or a workspace admin)"""
        service.delete(current_user, comment_id)


@blp.route("/<comment_id>/resolve", methods=["POST"], not_found="Comment not found", role=COMMENTER)
@blp.response(200, CommentSchema)
@blp.alt_response(409, schema=ErrorSchema, description=ON_A_REPLY)
def resolve(comment_id):
    """Mark a thread resolved"""
    return service.set_resolved(current_user, comment_id, True)


@blp.route("/<comment_id>/reopen", methods=["POST"], not_found="Comment not found", role=COMMENTER)
@blp.response(200, CommentSchema)
@blp.alt_response(409, schema=ErrorSchema, description=ON_A_REPLY)
def reopen(comment_id):
    """Open a resolved thread again"""
    return service.set_resolved(current_user, comment_id, False)
