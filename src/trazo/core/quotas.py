"""Plan limits, checked by the content area inside its transaction, just before the insert.

The check is atomic with the insert: it first locks the user's row (SELECT ... FOR UPDATE on
PostgreSQL; on SQLite a no-op UPDATE of that row, which takes the database write lock at once),
so a concurrent creation by the same user waits until this transaction commits and then counts
the row it inserted. Counts are live: nothing is metered. Storage is the sum of the byte sizes kept
on each diagram (content and description, UTF-8, and its history as stored, compressed), compared
with the plan's limit in bytes.
"""
from flask_babel import gettext as _
from sqlalchemy import func, select, text

from ..errors import Forbidden
from ..extensions import db
from ..models import User
from ..models.billing import MEGABYTE, RESOURCE_TYPES
from ..models.content import Diagram, Project
from .plans import plan_for


def count_resources(user_id, resource_type):
    """Live usage: a count of projects or diagrams, or the bytes of diagram content, descriptions and
    history."""
    if resource_type == "projects":
        statement = select(func.count(Project.id)).where(Project.user_id == user_id)
    else:
        measure = (func.count(Diagram.id) if resource_type == "diagrams"
                   else func.coalesce(func.sum(Diagram.content_size + Diagram.description_size
                                               + Diagram.history_size), 0))
        statement = select(measure).join(Project, Project.id == Diagram.project_id).where(Project.user_id == user_id)
    return db.session.scalar(statement)


def lock_account(user_id):
    """Serialize the plan-limited creations of one user until the transaction ends (the files API also
    takes it first, so that two writes of one path cannot both create it)."""
    if db.session.get_bind().dialect.name == "sqlite":
        db.session.execute(text("UPDATE users SET id = id WHERE id = :id"), {"id": user_id})
    else:
        db.session.execute(select(User.id).where(User.id == user_id).with_for_update())


def _megabytes(size):
    return f"{size / MEGABYTE:.1f}".removesuffix(".0")


def _limit_message(resource_type, current, limit, adding):
    values = {"current": current, "limit": limit, "adding": adding}
    if resource_type == "storage":
        return _("This would exceed your storage limit (%(current)s MB used of %(limit)s MB)",
                 current=_megabytes(current), limit=_megabytes(limit))
    if resource_type == "projects":
        if adding > 1:
            return _("Adding %(adding)s projects would exceed your projects limit (%(current)s/%(limit)s)", **values)
        return _("You have reached your projects limit (%(current)s/%(limit)s)", **values)
    if adding > 1:
        return _("Adding %(adding)s diagrams would exceed your diagrams limit (%(current)s/%(limit)s)", **values)
    return _("You have reached your diagrams limit (%(current)s/%(limit)s)", **values)


def ensure_within_plan(user, resource_type, adding=1):
    """Raise a 403 resource_limit_exceeded when `adding` more `resource_type` ("projects" or
    "diagrams") would pass the user's plan limit. Administrators are never limited. Call it inside
    the transaction that inserts, right before the insert; the lock lasts until its commit."""
    ensure_room(user, {resource_type: adding})


def ensure_room(user, additions, written=False):
    """`ensure_within_plan` for several resources under one lock, e.g. {"diagrams": 1, "storage": 2048}.
    Storage is counted in bytes; a write that does not grow it (adding <= 0) is always allowed, so a
    user over the quota can still shrink or delete. `written`: the additions are already flushed in this
    transaction, so the live counts include them (a sync checks its exact growth after writing it)."""
    unknown = set(additions) - set(RESOURCE_TYPES)
    if unknown:
        raise ValueError(f"unknown resource type {unknown.pop()!r}; expected one of {RESOURCE_TYPES}")
    wanted = {resource: adding for resource, adding in additions.items() if resource != "storage" or adding > 0}
    if user.is_admin or not wanted:
        return
    lock_account(user.id)
    plan = plan_for(user)
    for resource_type, adding in wanted.items():
        limit = plan.limit_for(resource_type)
        if limit is None:
            continue
        current = count_resources(user.id, resource_type) - (adding if written else 0)
        if current + adding > limit:
            raise Forbidden({"error": "resource_limit_exceeded", "resource_type": resource_type,
                             "current_usage": current, "limit": limit,
                             "message": _limit_message(resource_type, current, limit, adding)})
