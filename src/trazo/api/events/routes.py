"""Change feed routes (docs/events.md): a diagram's feed, a workspace's feed, and tickets for EventSource.

A stream needs the session token's header or a one-use ticket (`?ticket=`, never logged: the access log
writes paths without their query); personal access tokens are refused. Opening streams and asking for
tickets share one per-user budget (RATE_LIMIT_EVENT_STREAMS)."""
from ...auth import user_or_address
from ...errors import ErrorSchema
from ...extensions import limiter
from ...models.workspaces import VIEWER
from ...ratelimit import limit
from ..blueprint import TICKET, Blueprint
from . import service
from .schemas import ResumeHeadersSchema, StreamQuerySchema, TicketRequestSchema, TicketSchema

blp = Blueprint("events", __name__, description="The change feed: live events over Server-Sent Events")
diagram_blp = Blueprint("diagram_events", __name__, description="A diagram's change feed")
workspace_blp = Blueprint("workspace_events", __name__, description="A workspace's change feed")
streams_limit = limiter.shared_limit(limit("EVENT_STREAMS"), scope="event-streams", key_func=user_or_address)
STREAM = {"type": "string"}
STREAM_DOC = ("Server-Sent Events: `id:`, `event:` (diagram.created, diagram.updated, diagram.moved, diagram.deleted, "
              "revision.labelled, comment.created|updated|deleted|resolved|reopened{}; reset; error) and JSON `data:`, "
              "a keep-alive comment every 15 s")
FULL = "Too many open streams on this worker (see Retry-After), or the feed's store is unavailable"


@diagram_blp.route("/<diagram_id>/events", auth=TICKET, not_found="Diagram not found", role=VIEWER)
@streams_limit
@diagram_blp.arguments(StreamQuerySchema, location="query")
@diagram_blp.arguments(ResumeHeadersSchema, location="headers")
@diagram_blp.response(200, STREAM, content_type="text/event-stream", description=STREAM_DOC.format(""))
@diagram_blp.alt_response(503, schema=ErrorSchema, description=FULL)
def diagram_events(query, headers, diagram_id):
    """Follow a diagram's changes and comments"""
    return service.open_stream("diagram", diagram_id, query.get("ticket"), headers.get("last_event_id"))


@workspace_blp.route("/<workspace_id>/events", auth=TICKET, not_found="Workspace not found", role=VIEWER)
@streams_limit
@workspace_blp.arguments(StreamQuerySchema, location="query")
@workspace_blp.arguments(ResumeHeadersSchema, location="headers")
@workspace_blp.response(200, STREAM, content_type="text/event-stream",
                        description=STREAM_DOC.format(", member.joined|left|role_changed, project.created|deleted"))
@workspace_blp.alt_response(503, schema=ErrorSchema, description=FULL)
def workspace_events(query, headers, workspace_id):
    """Follow a workspace's changes: its diagrams, members and projects"""
    return service.open_stream("workspace", workspace_id, query.get("ticket"), headers.get("last_event_id"))


@blp.route("/tickets", methods=["POST"], not_found="Diagram or workspace not found", role=VIEWER)
@streams_limit
@blp.arguments(TicketRequestSchema)
@blp.response(201, TicketSchema)
@blp.alt_response(503, schema=ErrorSchema, description="The feed's store is unavailable")
def create_ticket(data):
    """Get a one-use ticket to open a feed with EventSource (valid 60 s)"""
    return service.issue_ticket(data)
