"""Opening a feed stream and asking for a ticket (core/events/streams.py holds the rules)."""
from flask import current_app
from flask_babel import get_locale

from ...auth import authenticated_user
from ...core.credentials import session_token_claims
from ...core.events import streams
from ...extensions import db
from ..sse import sse_response
from .stream import FeedStream


def _caller(user):
    claims, _refusal = session_token_claims()
    return streams.Caller(user.id, claims["pca"], claims["exp"], str(get_locale()))


def issue_ticket(data):
    """A one-use ticket for the feed the body names, for the signed-in caller."""
    user = authenticated_user()
    kind = streams.DIAGRAM if "diagram_id" in data else streams.WORKSPACE
    object_id = data.get("diagram_id") or data["workspace_id"]
    return streams.issue_ticket(current_app, user, _caller(user), kind, object_id)


def open_stream(kind, object_id, ticket, last_event_id):
    """The SSE answer following a feed: the caller from the ticket or else the session token (401 without
    either); the subscription registered before the answer starts, so a full worker answers 503."""
    app = current_app._get_current_object()
    if ticket is not None:
        user, caller = streams.redeem_ticket(app, ticket, kind, object_id, str(get_locale()))
    else:
        user = authenticated_user()
        caller = _caller(user)
    subscription, start = streams.subscribe(app, user, caller, kind, object_id, last_event_id)
    db.session.close()  # the stream may last hours: it holds no connection
    return sse_response(FeedStream(streams.feed(app), subscription, start, app.config["SSE_KEEPALIVE_SECONDS"],
                                   streams.unavailable_event()))
