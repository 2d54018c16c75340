"""Plan limits, checked by the content area inside its transaction, just before the insert.

The check is atomic with the insert: it first locks the user's row (SELECT ... FOR NO KEY UPDATE on
PostgreSQL; on SQLite a no-op UPDATE of that row, which takes the database write lock at once),
so a concurrent creation by the same user waits until this transaction commits and then counts
the row it inserted. Counts are live: nothing is metered. Storage is the sum of the byte sizes kept
on each diagram (content and description, UTF-8, and its history as stored, compressed) plus a fixed
overhead per diagram, folder and revision row (STORAGE_OVERHEAD_*_BYTES, about what a row costs the
database: docs/security.md), compared with the plan's limit in bytes. Creations of diagrams and folders
also spend a per-user rate (RATE_LIMIT_CREATIONS, `spend_creations`).
"""
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import ColumnElement, Select, bindparam, func, select, text

from ...errors import Forbidden
from ...extensions import db
from ...models import User
from ...models.billing import MEGABYTE, RESOURCE_TYPES, Plan
from ...models.comments import Comment
from ...models.content import Diagram, Folder, Project
from ...models.history import DiagramRevision
from ...models.workspaces import Workspace
from ...ratelimit import spend
from .plans import plan_for

# What a comment row costs besides its body (about a revision row's less the content's indexes).
COMMENT_OVERHEAD_BYTES = 300


def comment_overhead(comments: int) -> int:
    """Bytes the storage figure counts for `comments` rows besides their bodies."""
    return comments * COMMENT_OVERHEAD_BYTES


def row_overhead(diagrams: int = 0, folders: int = 0, revisions: int = 0) -> int:
    """Bytes the storage figure counts for these rows besides their content (negative counts free them)."""
    config = current_app.config
    return (diagrams * config["STORAGE_OVERHEAD_DIAGRAM_BYTES"] + folders * config["STORAGE_OVERHEAD_FOLDER_BYTES"]
            + revisions * config["STORAGE_OVERHEAD_REVISION_BYTES"])


@dataclass(frozen=True)
class Counts:
    """A user's live counts over the workspaces they are billing owner of: projects, diagrams, folders,
    revisions, and bytes of diagram content and descriptions and of their history (stored, compressed), and
    comments with the bytes of their bodies."""

    projects: int
    diagrams: int
    folders: int
    revisions: int
    content_bytes: int
    history_bytes: int
    comments: int = 0
    comment_bytes: int = 0

    @property
    def overhead_bytes(self) -> int:
        return row_overhead(self.diagrams, self.folders, self.revisions) + comment_overhead(self.comments)

    @property
    def storage(self) -> int:
        return self.content_bytes + self.history_bytes + self.comment_bytes + self.overhead_bytes


def _counts_statement(projects: ColumnElement[bool]) -> Select:
    """Every count of the projects that meet `projects` (a condition on Project), as one statement."""
    diagrams = _owned(select(func.count(Diagram.id).label("diagrams"),
                             func.coalesce(func.sum(Diagram.content_size + Diagram.description_size), 0)
                             .label("content_bytes"),
                             func.coalesce(func.sum(Diagram.history_size), 0).label("history_bytes")),
                      projects).subquery()
    folders = (select(func.count(Folder.id)).join(Project, Project.id == Folder.project_id)
               .where(projects).scalar_subquery())
    revisions = _owned(select(func.count(DiagramRevision.id)).join(Diagram, Diagram.id == DiagramRevision.diagram_id),
                       projects).scalar_subquery()
    on_diagrams = (Diagram, Diagram.id == Comment.diagram_id)
    comments = _owned(select(func.count(Comment.id)).select_from(Comment).join(*on_diagrams),
                      projects).scalar_subquery()
    comment_bytes = _owned(select(func.coalesce(func.sum(Comment.body_size), 0)).select_from(Comment)
                           .join(*on_diagrams), projects).scalar_subquery()
    project_count = select(func.count(Project.id)).where(projects).scalar_subquery()
    return select(project_count.label("projects"), diagrams.c.diagrams, folders.label("folders"),
                  revisions.label("revisions"), diagrams.c.content_bytes, diagrams.c.history_bytes,
                  comments.label("comments"), comment_bytes.label("comment_bytes"))


def _owned(statement: Select, projects: ColumnElement[bool]) -> Select:
    return statement.join(Project, Project.id == Diagram.project_id).where(projects)


# The projects a user is billing owner of (docs/teams.md), and the counting statements, built once: building
# them costs more than running them, and the writes that grow the storage run them under the account's lock.
BILLED = Project.workspace_id.in_(select(Workspace.id).where(Workspace.billing_owner_id == bindparam("user_id")))
COUNT_ALL = _counts_statement(BILLED)
COUNT_PROJECT = _counts_statement(Project.id == bindparam("project_id"))
COUNT_PROJECTS = select(func.count(Project.id)).where(BILLED)
COUNT_DIAGRAMS = _owned(select(func.count(Diagram.id)), BILLED)
LOCK_ACCOUNT = select(User.id).where(User.id == bindparam("user_id")).with_for_update(key_share=True)
LOCK_ACCOUNT_SQLITE = text("UPDATE users SET id = id WHERE id = :user_id")


def count_all(user_id: str) -> Counts:
    """Every count of `user_id` in one statement. Its cost grows with the user's revisions (~50 ms per 100,000
    on PostgreSQL, docs/security.md), paid by the usage route and by writes that grow the storage."""
    return _counted(COUNT_ALL, {"user_id": user_id})


def count_project(project_id: str) -> Counts:
    """Every count of one project (its `projects` is 1), as count_all counts them: what moving it weighs."""
    return _counted(COUNT_PROJECT, {"project_id": project_id})


def _counted(statement: Select, values: dict) -> Counts:
    return Counts(**db.session.execute(statement, values).one()._asdict())


def count_resources(user_id: str, resource_type: str) -> int:
    """Live usage: a count of projects or diagrams, or the storage figure in bytes (Counts.storage), in
    one statement."""
    if resource_type == "projects":
        return db.session.scalar(COUNT_PROJECTS, {"user_id": user_id}) or 0  # never NULL
    if resource_type == "diagrams":
        return db.session.scalar(COUNT_DIAGRAMS, {"user_id": user_id})
    return count_all(user_id).storage


def spend_creations(user: User, count: int) -> None:
    """Take `count` diagrams and folders from the user's creation rate (RATE_LIMIT_CREATIONS); a 429 with
    Retry-After, and nothing taken, when fewer are left. Call it before writing them."""
    if count > 0:
        spend("CREATIONS", user.id, cost=count)


def lock_account(user_id: str) -> None:
    """Serialize the plan-limited creations of one user until the transaction ends (the files API also
    takes it first, so that two writes of one path cannot both create it). On PostgreSQL the row lock is
    FOR NO KEY UPDATE: it excludes the other holders of this lock, not the foreign-key checks of rows that
    refer to the user (a revision's author, a project's maker), which take FOR KEY SHARE."""
    sqlite = db.session.get_bind().dialect.name == "sqlite"
    db.session.execute(LOCK_ACCOUNT_SQLITE if sqlite else LOCK_ACCOUNT, {"user_id": user_id})


def _megabytes(size: int) -> str:
    return f"{size / MEGABYTE:.1f}".removesuffix(".0")


def _limit_message(resource_type: str, current: int, limit: int, adding: int) -> str:
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


def ensure_within_plan(user: User, resource_type: str, adding: int = 1) -> None:
    """Raise a 403 resource_limit_exceeded when `adding` more `resource_type` ("projects" or
    "diagrams") would pass the user's plan limit. Administrators are never limited. Call it inside
    the transaction that inserts, right before the insert; the lock lasts until its commit."""
    ensure_room(user, {resource_type: adding})


def ensure_room(user: User, additions: Mapping[str, int], written: bool = False,
                plan_of: Callable[[], Plan] | None = None) -> None:
    """`ensure_within_plan` for several resources under one lock, e.g. {"diagrams": 1, "storage": 2048}.
    Storage is counted in bytes; a write that does not grow it (adding <= 0) is always allowed, so a
    user over the quota can still shrink or delete. `written`: the additions are already flushed in this
    transaction, so the live counts include them (a sync checks its exact growth after writing it).
    `plan_of()`: the user's plan, when the caller has read it already."""
    unknown = set(additions) - set(RESOURCE_TYPES)
    if unknown:
        raise ValueError(f"unknown resource type {unknown.pop()!r}; expected one of {RESOURCE_TYPES}")
    wanted = {resource: adding for resource, adding in additions.items() if resource != "storage" or adding > 0}
    if user.is_admin or not wanted:
        return
    plan = plan_of() if plan_of else plan_for(user)  # before the lock, which every write of the account waits for
    limits = {resource: limit for resource in wanted if (limit := plan.limit_for(resource)) is not None}
    if not limits:  # nothing to count: no lock
        return
    lock_account(user.id)
    for resource_type, limit in limits.items():
        adding = wanted[resource_type]
        current = count_resources(user.id, resource_type) - (adding if written else 0)
        if current + adding > limit:
            raise Forbidden({"error": "resource_limit_exceeded", "resource_type": resource_type,
                             "current_usage": current, "limit": limit,
                             "message": _limit_message(resource_type, current, limit, adding)})
