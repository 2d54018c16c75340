"""Who may follow which feed (docs/events.md): a member who can read the diagram or the workspace, with a
session token or a one-use ticket made from one; and the check, every SSE_ACCESS_CHECK_SECONDS, that ends
the streams of callers who lost access (removed, left, deactivated, password changed, token expired, the
diagram deleted or moved out of their workspaces), in one pass over a worker's streams.
"""
import hashlib
import json
import secrets
import time
from contextlib import contextmanager
from dataclasses import dataclass

from flask_babel import force_locale
from flask_babel import gettext as _
from sqlalchemy import bindparam, select

from ...errors import N_, ServiceUnavailable, TooManyRequests, Unauthorized
from ...extensions import db
from ...models import User
from ...models.content import Diagram, Project
from ...models.workspaces import VIEWER, Membership
from ...services.feed.errors import FeedUnavailable
from ...services.feed.hub import Full, Subscription
from ..accounts.session_tokens import unix_seconds
from ..content.access import member_of, reach, workspace
from .publish import EXTENSION, diagram_topic, workspace_topic

DIAGRAM, WORKSPACE = "diagram", "workspace"
DIAGRAM_FEED = (select(Diagram.id, Project.workspace_id, Membership.role)
                .join(Project, Project.id == Diagram.project_id).join(Membership, member_of(Project.workspace_id))
                .where(Diagram.id == bindparam("object_id")))
ACCESS_ENDED = "access_ended"


@dataclass(frozen=True)
class Caller:
    """Who opens a stream, as their token says: the account, the password-change stamp and expiry of the
    token (a ticket carries its token's), and the language of the messages the stream may end with."""

    user_id: str
    stamp: int
    expires: int
    locale: str


@dataclass(frozen=True)
class Followed:
    kind: str
    object_id: str
    workspace_id: str

    @property
    def topic(self):
        return diagram_topic(self.object_id) if self.kind == DIAGRAM else workspace_topic(self.object_id)


def feed(app):
    return app.extensions[EXTENSION]


def followed(user, kind, object_id):
    """What the caller asks to follow, once they may read it (404 for a non-member, as everywhere)."""
    if kind == DIAGRAM:
        row = reach(DIAGRAM_FEED, user, object_id, VIEWER, N_("Diagram not found"))
        return Followed(DIAGRAM, row.id, row.workspace_id)
    found, _role = workspace(user, object_id, VIEWER)
    return Followed(WORKSPACE, found.id, found.id)


# -- tickets -------------------------------------------------------------------------------------

def _ticket_key(ticket):
    return hashlib.sha256(ticket.encode()).hexdigest()


def issue_ticket(app, user, caller, kind, object_id):
    """A one-use ticket to open the feed of `kind` `object_id` without a header, valid EVENT_TICKET_SECONDS;
    only its digest is kept."""
    target = followed(user, kind, object_id)
    ticket = secrets.token_urlsafe(32)
    seconds = app.config["EVENT_TICKET_SECONDS"]
    value = json.dumps({"kind": target.kind, "object_id": target.object_id, "user_id": caller.user_id,
                        "stamp": caller.stamp, "expires": caller.expires})
    with unavailable_feed():
        feed(app).broker.put_ticket(_ticket_key(ticket), value, seconds)
    return {"ticket": ticket, "expires_in": seconds}


def redeem_ticket(app, ticket, kind, object_id, locale):
    """(the user, their Caller) of a ticket for this feed, used up by this call; 401 when it is unknown,
    used, expired, for another feed, or its account changed password or was deactivated since."""
    refused = Unauthorized(_("Invalid, used or expired ticket"))
    if not ticket or len(ticket) > 100:
        raise refused
    with unavailable_feed():
        value = feed(app).broker.take_ticket(_ticket_key(ticket))
    if value is None:
        raise refused
    held = json.loads(value)
    if held["kind"] != kind or held["object_id"] != str(object_id):
        raise refused
    user = db.session.get(User, held["user_id"])
    if user is None or not user.is_active or held["stamp"] < unix_seconds(user.password_changed_at):
        raise refused
    return user, Caller(user.id, held["stamp"], held["expires"], locale)


# -- opening a stream ----------------------------------------------------------------------------

def subscribe(app, user, caller, kind, object_id, last_event_id=None):
    """(the caller's registered Subscription to a feed they may read, the id its stream goes on from): 503
    with Retry-After when this worker holds EVENT_STREAMS_PER_WORKER streams, 429 when the user holds
    EVENT_STREAMS_PER_USER here. Without `last_event_id`, the feed's newest id, read before registering: the
    stream replays what comes between (nothing is lost between the read and the registration)."""
    target = followed(user, kind, object_id)
    if last_event_id is None:
        with unavailable_feed():
            last_event_id = feed(app).broker.latest(target.topic)
    subscription = Subscription(target.topic, caller.user_id, target.workspace_id, (caller, target))
    try:
        feed(app).hub.add(subscription, app.config["EVENT_STREAMS_PER_WORKER"], app.config["EVENT_STREAMS_PER_USER"])
    except Full as full:
        if full.scope == "user":
            raise TooManyRequests(30, _("You have too many open event streams; close one first.")) from None
        # a spread of retry times: refused clients retrying together would meet the same full worker
        raise ServiceUnavailable(_("Too many open event streams on this server; try again shortly."),
                                 headers={"Retry-After": str(3 + secrets.randbelow(8))}) from None
    return subscription, last_event_id


def _unavailable_text():
    return _("Live updates are unavailable right now; try again shortly.")


def unavailable_event():
    """The last event of a stream whose feed store failed (the client reconnects with Last-Event-ID)."""
    return {"message": _unavailable_text(), "error_code": "feed_unavailable"}


@contextmanager
def unavailable_feed():
    """The feed's store failing (Redis down) answered as a 503, not a 500."""
    try:
        yield
    except FeedUnavailable as error:
        raise ServiceUnavailable(_unavailable_text(), headers={"Retry-After": "5"}) from error


# -- the access check of open streams ------------------------------------------------------------

def access_ended(locale):
    with force_locale(locale):
        return {"message": _("You no longer have access to this feed."), "error_code": ACCESS_ENDED}


def auditor(app):
    """The hub's access check: [(subscription, last event)] for the streams whose caller lost access; its
    statements run on a connection taken for them and given back at once."""

    def audit(subscriptions):
        if not subscriptions:
            return []
        with app.app_context():
            try:
                return _lost_access(subscriptions)
            finally:
                db.session.remove()

    return audit


def _lost_access(subscriptions):
    user_ids = {subscription.user_id for subscription in subscriptions}
    diagram_ids = {target.object_id for _caller, target in (s.context for s in subscriptions) if target.kind == DIAGRAM}
    users = {row.id: row for row in db.session.execute(
        select(User.id, User.is_active, User.password_changed_at).where(User.id.in_(user_ids)))}
    diagrams = dict(db.session.execute(select(Diagram.id, Project.workspace_id)
                                       .join(Project, Project.id == Diagram.project_id)
                                       .where(Diagram.id.in_(diagram_ids))).all()) if diagram_ids else {}
    memberships = set(db.session.execute(select(Membership.workspace_id, Membership.user_id)
                                         .where(Membership.user_id.in_(user_ids))).all())
    now = time.time()
    ended = []
    for subscription in subscriptions:
        caller, target = subscription.context
        account = users.get(caller.user_id)
        workspace_id = diagrams.get(target.object_id) if target.kind == DIAGRAM else target.object_id
        if (account is None or not account.is_active or caller.stamp < unix_seconds(account.password_changed_at)
                or caller.expires <= now or workspace_id is None
                or (workspace_id, caller.user_id) not in memberships):
            ended.append((subscription, access_ended(caller.locale)))
        else:
            subscription.workspace_id = workspace_id
    return ended
