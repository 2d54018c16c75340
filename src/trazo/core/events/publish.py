"""Events of the change feed (docs/events.md), recorded in the writing transaction and published after it
commits: a rolled-back change publishes nothing, and a subscriber never sees a change it cannot read yet.

`record` keeps the event on the session; the Session listeners (`init_app`) hand the committed ones to the
feed's broker in one round trip, and drop them on a rollback. The event's data is written as JSON when it is
recorded, so it says what the transaction wrote.
"""
import json
import logging

from flask import current_app, has_app_context
from sqlalchemy import event
from sqlalchemy.orm import Session

from ...extensions import db
from ...models.base import utcnow

log = logging.getLogger(__name__)

PENDING = "trazo.feed_events"
EXTENSION = "trazo.feed"

DIAGRAM_CREATED = "diagram.created"
DIAGRAM_UPDATED = "diagram.updated"
DIAGRAM_MOVED = "diagram.moved"
DIAGRAM_DELETED = "diagram.deleted"
REVISION_LABELLED = "revision.labelled"
COMMENT = "comment"  # comment.created, .updated, .deleted, .resolved, .reopened
MEMBER_JOINED = "member.joined"
MEMBER_LEFT = "member.left"
MEMBER_ROLE_CHANGED = "member.role_changed"
PROJECT_CREATED = "project.created"
PROJECT_DELETED = "project.deleted"


def diagram_topic(diagram_id):
    return f"d:{diagram_id}"


def workspace_topic(workspace_id):
    return f"w:{workspace_id}"


def _json(value):
    if hasattr(value, "isoformat"):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def person(user):
    return None if user is None else {"id": user.id, "full_name": user.full_name}


def record(name, workspace_ids, data, diagram_id=None, by=None):
    """Publish the event `name` on the feeds of `workspace_ids` (one id or several) and, with `diagram_id`, of
    that diagram, once the session's transaction commits. `data` gains `author` (`by`) and `at`."""
    if isinstance(workspace_ids, str):
        workspace_ids = (workspace_ids,)
    topics = [workspace_topic(workspace_id) for workspace_id in dict.fromkeys(workspace_ids)]
    if diagram_id is not None:
        topics.append(diagram_topic(diagram_id))
    text = json.dumps({**data, "author": person(by), "at": data.get("at") or utcnow()}, default=_json,
                      ensure_ascii=False, separators=(",", ":"))
    db.session.info.setdefault(PENDING, []).append((topics, name, text))


def diagram_event(name, diagram, workspace_ids, by, **extra):
    """A diagram's event on its own feed and its workspace's: what a client needs to refresh it."""
    data = {"diagram_id": diagram.id, "project_id": diagram.project_id, "folder_id": diagram.folder_id,
            "version": diagram.version, "title": diagram.title, **extra}
    record(name, workspace_ids, data, diagram.id, by)


def diagrams_deleted(workspace_id, diagram_ids, by):
    for diagram_id in diagram_ids:
        record(DIAGRAM_DELETED, workspace_id, {"diagram_id": diagram_id}, diagram_id, by)


def project_event(name, project, workspace_id, by):
    record(name, workspace_id, {"project_id": project.id, "name": project.name}, by=by)


def init_app(app):
    """The Session listeners, registered once per process (they act only where a feed is configured)."""
    for name, listener in (("after_commit", _committed), ("after_transaction_end", _transaction_ended)):
        if not event.contains(Session, name, listener):
            event.listen(Session, name, listener)


def _committed(session):
    pending = session.info.pop(PENDING, None)
    if not pending or not has_app_context():
        return
    feed = current_app.extensions.get(EXTENSION)
    if feed is None:
        return
    try:
        feed.broker.publish(pending)
    except Exception:  # the change is committed: a feed outage must not turn it into an error
        log.warning("event feed: %d committed events were not published", len(pending), exc_info=True)


def _transaction_ended(session, transaction):
    if transaction.parent is None:  # rolled back (a commit has already taken the events)
        session.info.pop(PENDING, None)
