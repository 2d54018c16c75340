"""AI chat sessions routes: sessions, messages and the streamed reply."""
from flask.views import MethodView

from ...auth import current_user, user_or_address
from ...errors import ErrorSchema
from ...extensions import limiter
from ...i18n import language_from_body
from ...models.workspaces import VIEWER
from ...ratelimit import limit
from ..blueprint import Blueprint
from ..common import MessageSchema
from . import pipeline, service
from .schemas import (
    ChatMessageSchema,
    ChatSessionSchema,
    MessageStatusSchema,
    ModelChoiceSchema,
    ProviderUsageSchema,
    SendMessageSchema,
    SessionCreateSchema,
    SessionDeletedSchema,
    SessionDetailSchema,
    SessionQuerySchema,
    SessionUpdateSchema,
)

blp = Blueprint("chat_sessions", __name__, description="AI chat sessions")
# Both ways of sending a message draw from one per-user budget.
send_limit = limiter.shared_limit(limit("AI"), scope="chat-send", key_func=user_or_address)
SESSION_NOT_FOUND = "Chat session not found"
FINISHED = "The session is finished"


@blp.route("", not_found="Diagram not found", role=VIEWER)
class Sessions(MethodView):
    @blp.arguments(SessionQuerySchema, location="query")
    @blp.response(200, ChatSessionSchema(many=True))
    def get(self, query):
        """List my chat sessions about a diagram"""
        return service.list_sessions(current_user, query["diagram_id"])

    @blp.arguments(SessionCreateSchema)
    @blp.response(201, ChatSessionSchema)
    def post(self, data):
        """Start a chat session about one of my diagrams"""
        return service.create_session(current_user, data["diagram_id"], data.get("title"))


@blp.route("/stats/provider-usage", methods=["GET"])
@blp.response(200, ProviderUsageSchema)
def provider_usage():
    """Count my chat replies by AI provider"""
    return service.provider_usage(current_user)


@blp.route("/<session_id>", not_found=SESSION_NOT_FOUND, role=VIEWER)
class Session(MethodView):
    @blp.response(200, SessionDetailSchema)
    def get(self, session_id):
        """Read a chat session with its messages"""
        return service.session_detail(current_user, session_id)

    @blp.arguments(SessionUpdateSchema)
    @blp.response(200, ChatSessionSchema)
    def put(self, data, session_id):
        """Rename a chat session"""
        return service.rename_session(current_user, session_id, data["title"])

    @blp.response(200, SessionDeletedSchema)
    def delete(self, session_id):
        """Delete a chat session and its messages"""
        return service.delete_session(current_user, session_id)


@blp.route("/<session_id>/model", methods=["PUT"], not_found=SESSION_NOT_FOUND, role=VIEWER)
@blp.arguments(ModelChoiceSchema)
@blp.response(200, ChatSessionSchema)
def choose_model(data, session_id):
    """Choose the AI provider and model of a chat session"""
    return service.choose_model(current_user, session_id, data["provider"], data["model"])


@blp.route("/<session_id>/messages", methods=["POST"],
           not_found="Chat session not found, or no AI provider is configured (the message is kept)", role=VIEWER)
@language_from_body
@send_limit
@blp.arguments(SendMessageSchema)
@blp.response(201, ChatMessageSchema)
@blp.alt_response(400, schema=ErrorSchema, description=FINISHED)
def send_message(data, session_id):
    """Send a message and get the AI's reply"""
    return pipeline.send_message(current_user, session_id, data)


@blp.route("/<session_id>/messages/stream", methods=["POST"], not_found=SESSION_NOT_FOUND, role=VIEWER)
@language_from_body
@send_limit
@blp.arguments(SendMessageSchema)
@blp.response(200, {"type": "string"}, content_type="text/event-stream",
              description="Server-Sent Events: `data: <json>` with type mode, phase, token, done or error "
                          "(no AI provider configured: mode, phase, then error with error_code no_provider)")
@blp.alt_response(400, schema=ErrorSchema, description=FINISHED)
def stream_message(data, session_id):
    """Send a message and stream the AI's reply as Server-Sent Events"""
    return pipeline.stream_message(current_user, session_id, data)


@blp.route("/<session_id>/messages/<message_id>", methods=["DELETE"], not_found="Chat session or message not found",
           role=VIEWER)
@blp.response(200, MessageSchema)
def delete_message(session_id, message_id):
    """Delete a message of a chat session"""
    return service.delete_message(current_user, session_id, message_id)


@blp.route("/<session_id>/messages/<message_id>/status", methods=["PUT"],
           not_found="Chat session or message not found", role=VIEWER)
@blp.arguments(MessageStatusSchema)
@blp.response(200, ChatMessageSchema)
@blp.alt_response(400, schema=ErrorSchema, description="No proposed diagram, or already decided")
def set_message_status(data, session_id, message_id):
    """Accept or reject the diagram a message proposes"""
    return service.set_improvement_status(current_user, session_id, message_id, data["status"])
