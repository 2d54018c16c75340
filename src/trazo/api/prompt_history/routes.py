"""Prompt history routes."""
from flask.views import MethodView

from ...auth import current_user
from ...errors import ErrorSchema
from ...models.workspaces import VIEWER
from ..blueprint import Blueprint
from ..common import MessageSchema
from . import service
from .schemas import PromptHistoryCreateSchema, PromptHistoryPageSchema, PromptHistoryQuerySchema, PromptHistorySchema

blp = Blueprint("prompt_history", __name__, description="Prompt history", personal_tokens=True)


@blp.route("", role={"POST": VIEWER})  # a prompt may name a diagram the caller reads
class PromptHistoryCollection(MethodView):
    @blp.arguments(PromptHistoryQuerySchema, location="query")
    @blp.response(200, PromptHistoryPageSchema)
    def get(self, args):
        """List my prompts, most recently used first"""
        return service.list_prompts(current_user, **args)

    @blp.arguments(PromptHistoryCreateSchema)
    @blp.response(201, PromptHistorySchema, description="A new entry")
    @blp.alt_response(200, schema=PromptHistorySchema, success=True,
                      description="The same prompt was already there; its used_at moved to now")
    @blp.alt_response(404, schema=ErrorSchema, description="Diagram not found")  # the POST only
    def post(self, data):
        """Save a prompt (a repeated prompt only moves to the top)"""
        entry, created = service.save_prompt(current_user, data["prompt_text"], data["operation_type"],
                                             data["diagram_id"])
        return entry, 201 if created else 200


@blp.route("/<entry_id>", methods=["DELETE"], not_found="Prompt history entry not found")
@blp.response(200, MessageSchema)
def delete_entry(entry_id):
    """Delete a prompt from my history"""
    return service.delete_prompt(current_user, entry_id)
