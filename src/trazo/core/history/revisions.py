"""Diagram history: every change to a diagram's title, type or content becomes a revision (docs/history.md);
a change is saved by core/history/changes.py (`save_change`), which plans it here.

`plan_change` uses the two newest revisions read with the diagram (and reads the ones retention may
prune) and decides: nothing for an identical state; amend the newest revision when the same author saves again
within REVISION_COALESCE_SECONDS of its creation (only unlabelled `edit`/`api` revisions are amended);
else a new revision, pruning the oldest unlabelled ones past the plan's limit. A diagram created before
history existed gets its current state recorded first, as revision 1. The newest revision always holds
the diagram's current state; the diagram's `history_size` is the sum of its revisions' stored sizes.
"""
import hashlib
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import and_, bindparam, delete, func, insert, select, update
from sqlalchemy.orm.exc import StaleDataError

from ...errors import NotFound
from ...extensions import db
from ...models.base import new_id, utcnow
from ...models.content import Diagram, Project
from ...models.history import SOURCE_API, SOURCE_CREATE, SOURCE_EDIT, DiagramRevision
from ...models.workspaces import EDITOR, Membership, Workspace
from ..billing.plans import plan_for
from ..billing.quotas import row_overhead
from ..comments.counts import COMMENTED, OPEN_COMMENT_COUNT
from ..content.access import ensure_role
from ..workspaces.billing import payer
from .diffs import line_changes

AMENDABLE_SOURCES = frozenset({SOURCE_EDIT, SOURCE_API})
MEASURED_FIELDS = ("content", "description")  # the diagram columns whose sizes count in the storage quota
COMPRESSION_LEVEL = 6
TEXT_ENCODING = ("utf-8", "surrogatepass")
DIAGRAMS, REVISIONS = Diagram.__table__, DiagramRevision.__table__
# What plan_change reads of the two newest revisions (the content serves only the older one's).
HEAD_COLUMNS = (REVISIONS.c.id, REVISIONS.c.number, REVISIONS.c.label, REVISIONS.c.source, REVISIONS.c.author_id,
                REVISIONS.c.created_at, REVISIONS.c.stored_size, REVISIONS.c.content)
# The statements of every save, built once (building them costs more than running them on SQLite), run as
# Core statements on the session's connection: a save loads no ORM object (docs/history.md).
_NEWEST = (select(func.max(REVISIONS.c.number)).where(REVISIONS.c.diagram_id == DIAGRAMS.c.id)
           .correlate(DIAGRAMS).scalar_subquery())
_WORKSPACES, _MEMBERS = Workspace.__table__, Membership.__table__
OPEN_DIAGRAM = (select(*DIAGRAMS.c, _MEMBERS.c.role, _WORKSPACES.c.billing_owner_id, OPEN_COMMENT_COUNT, COMMENTED,
                       _WORKSPACES.c.id, *HEAD_COLUMNS)
                .join(Project.__table__, Project.__table__.c.id == DIAGRAMS.c.project_id)
                .join(_WORKSPACES, _WORKSPACES.c.id == Project.__table__.c.workspace_id)
                .join(_MEMBERS, and_(_MEMBERS.c.workspace_id == _WORKSPACES.c.id,
                                     _MEMBERS.c.user_id == bindparam("user_id")))
                .outerjoin(REVISIONS, and_(REVISIONS.c.diagram_id == DIAGRAMS.c.id, REVISIONS.c.number >= _NEWEST - 1))
                .where(DIAGRAMS.c.id == bindparam("diagram_id"))
                .order_by(REVISIONS.c.number.desc()))
DIAGRAM_FIELDS = tuple(column.key for column in DIAGRAMS.c)
_HEAD_AT = len(DIAGRAM_FIELDS) + 5  # where a row's revision columns start
# A save's UPDATE sets the columns its parameters name, where the diagram still has the version read.
WRITE_DIAGRAM = update(DIAGRAMS).where(DIAGRAMS.c.id == bindparam("diagram_id"),
                                       DIAGRAMS.c.version == bindparam("read_version"))
AMENDED_COLUMNS = ("title", "diagram_type", "content", "content_size", "stored_size", "content_hash", "lines_added",
                   "lines_removed", "updated_at")
AMEND_REVISION = (update(REVISIONS).where(REVISIONS.c.id == bindparam("revision_id"), REVISIONS.c.label.is_(None))
                  .values({name: bindparam(f"new_{name}") for name in AMENDED_COLUMNS}))
INSERT_REVISIONS = insert(REVISIONS)
PRUNE_REVISIONS = delete(REVISIONS).where(REVISIONS.c.id.in_(bindparam("revision_ids", expanding=True)))


class EditedDiagram:
    """A diagram's row as a save reads and changes it: its columns as attributes, and its open comment count.
    Not an ORM object: the save writes it with one UPDATE (`write_row`), so nothing of it is flushed later."""

    def __init__(self, values):
        self.__dict__.update(values)

    def write_row(self, values):
        """Set `values` (columns and their new values) in the database and here; the UPDATE names the version
        read, so a save that another one overtook raises StaleDataError (`retrying` reads it again)."""
        written = db.session.connection().execute(WRITE_DIAGRAM, {"diagram_id": self.id, "read_version": self.version,
                                                                  **values})
        if written.rowcount != 1:
            raise StaleDataError(f"diagram {self.id} was saved by another request")
        self.__dict__.update(values)


@dataclass(frozen=True)
class State:
    """What a revision records of a diagram."""

    title: str
    diagram_type: str
    content: str

    @classmethod
    def of(cls, diagram):
        return cls(diagram.title, diagram.diagram_type, diagram.content or "")

    def updated(self, data):
        """This state with the tracked keys of `data` (a partial update) applied."""
        return State(data.get("title", self.title), data.get("diagram_type", self.diagram_type),
                     data.get("content", self.content))


def compress(text):
    return zlib.compress(text.encode(*TEXT_ENCODING), COMPRESSION_LEVEL)


def compress_bound(size):
    """zlib's compressBound(): the most compressing `size` bytes writes (zlib or raw deflate, as ZIP
    entries are), so sizes can be bounded without compressing anything."""
    return size + (size >> 12) + (size >> 14) + (size >> 25) + 13


def decompress(blob):
    return zlib.decompress(blob).decode(*TEXT_ENCODING)


def content_hash(text):
    return hashlib.sha256(text.encode(*TEXT_ENCODING)).hexdigest()


def _stored_columns(state, previous_content):
    """The columns a revision of `state` stores, its line counts against `previous_content`."""
    blob = compress(state.content)
    added, removed = line_changes(previous_content, state.content)
    return {"title": state.title, "diagram_type": state.diagram_type, "content": blob,
            "content_size": len(state.content.encode(*TEXT_ENCODING)), "stored_size": len(blob),
            "content_hash": content_hash(state.content), "lines_added": added, "lines_removed": removed}


def revision_values(diagram_id, number, state, author_id, source, previous_content, at, label=None):
    """The columns of a revision of `state`, its line counts against `previous_content`."""
    return {"id": new_id(), "diagram_id": diagram_id, "number": number, "author_id": author_id, "source": source,
            "label": label, "created_at": at, "updated_at": at, **_stored_columns(state, previous_content)}


def new_revision(diagram_id, number, state, author_id, source, previous_content, at, label=None):
    """A revision row of `state` (not added to the session), its line counts against `previous_content`."""
    return DiagramRevision(**revision_values(diagram_id, number, state, author_id, source, previous_content, at,
                                             label))


@dataclass
class Change:
    """A planned change of a diagram's history: apply() writes it in the caller's transaction."""

    new: list = field(default_factory=list)  # the columns of the revisions to insert (revision_values), oldest first
    amended_id: str | None = None  # the revision an autosave amends...
    amended_columns: dict = field(default_factory=dict)  # ...with these values
    amended_growth: int = 0  # its stored size after the change minus before
    pruned: list = field(default_factory=list)  # (id, stored_size) of revisions to delete

    @property
    def storage_delta(self):
        """Bytes the history grows by (negative when it shrinks)."""
        grown = sum(revision["stored_size"] for revision in self.new) + self.amended_growth
        return grown - sum(size for _id, size in self.pruned)

    @property
    def counted_delta(self):
        """What the storage figure grows by: the history's bytes and the overhead of the revision rows added
        less those pruned (core/billing/quotas.py)."""
        return self.storage_delta + row_overhead(revisions=len(self.new) - len(self.pruned))

    def charged(self, content_growth):
        """What the quota check of the save adds: content growth and history growth (rows included), except
        that an autosave that grows neither the content nor the number of revisions is not checked (the check
        takes the account's lock: docs/history.md, "Retention and storage", bounds what this leaves)."""
        if not self.new and content_growth <= 0:
            return content_growth
        return content_growth + self.counted_delta

    def apply(self):
        """Write the revisions; call it once the diagram's row is written (`write_change`), with its version
        check, so an overtaken save writes no revision."""
        connection = db.session.connection()
        if self.pruned:
            connection.execute(PRUNE_REVISIONS, {"revision_ids": [revision_id for revision_id, _ in self.pruned]})
        if self.amended_id is not None:
            values = {f"new_{name}": value for name, value in self.amended_columns.items()}
            amended = connection.execute(AMEND_REVISION, {"revision_id": self.amended_id, **values})
            if amended.rowcount != 1:  # named meanwhile: a labelled revision is never amended
                raise StaleDataError(f"revision {self.amended_id} was labelled during the save")
        if self.new:
            connection.execute(INSERT_REVISIONS, self.new)


def revision_limit(user, plan_of=None):
    """The `limit_of` of plan_change for `user`: the plan's revision limit (of `plan_of()` when the caller
    reads the plan itself), looked up only when needed (administrators are unlimited)."""
    plan_of = plan_of or (lambda: plan_for(user))
    return lambda: None if user.is_admin else plan_of().max_revisions_per_diagram


def _coalesces(newest, author_id, source, at):
    window = timedelta(seconds=current_app.config["REVISION_COALESCE_SECONDS"])
    return (newest.label is None and newest.source == source and source in AMENDABLE_SOURCES
            and newest.author_id == author_id and at - newest.created_at < window)


def _prunable(diagram_id, limit, inserted):
    """(id, stored_size) of the oldest unlabelled revisions to delete so that, with `inserted` more,
    the diagram keeps at most `limit` revisions (labelled ones are never pruned)."""
    rows = db.session.execute(select(DiagramRevision.id, DiagramRevision.stored_size, DiagramRevision.label)
                              .where(DiagramRevision.diagram_id == diagram_id)
                              .order_by(DiagramRevision.number)).all()
    excess = len(rows) + inserted - max(limit, 1)
    if excess <= 0:
        return []
    return [(row.id, row.stored_size) for row in rows if row.label is None][:excess]


class Head(NamedTuple):
    """What plan_change knows of one of the two newest revisions (HEAD_COLUMNS)."""

    id: str
    number: int
    label: str | None
    source: str
    author_id: str | None
    created_at: datetime
    stored_size: int
    content: bytes


@dataclass
class Editing:
    """A diagram opened for a change: the row, its two newest revisions (newest first), the account whose
    plan limits the change (its workspace's billing owner), whether the diagram has comments, and its
    workspace."""

    diagram: object
    head: list
    payer: object
    commented: bool = False
    workspace_id: str | None = None


def open_diagram(user, diagram_id):
    """The diagram (an EditedDiagram) with its two newest revisions and the account its plan limits
    (core/workspaces/billing.py), read in one statement: NotFound when the caller is no member of its
    workspace, 403 insufficient_role below editor. Nothing is locked: the diagram's UPDATE checks that the
    version read is still current before any revision is written (`write_change`), else the save is read and
    planned again (`retrying`). (A row lock would not do: a SELECT ... FOR UPDATE that waited returns the newer
    diagram row with the revisions of its older snapshot.)"""
    db.session.flush()  # the caller's pending ORM writes go first, as before a session read
    rows = db.session.connection().execute(OPEN_DIAGRAM, {"diagram_id": str(diagram_id), "user_id": user.id}).all()
    if not rows:
        raise NotFound(_("Diagram not found"))
    first = rows[0]
    role, billing_owner_id, open_comment_count, commented, workspace_id = first[len(DIAGRAM_FIELDS):_HEAD_AT]
    ensure_role(role, EDITOR)
    diagram = EditedDiagram({**dict(zip(DIAGRAM_FIELDS, first, strict=False)),
                             "open_comment_count": open_comment_count})  # (it answers the save)
    return Editing(diagram, [Head(*row[_HEAD_AT:]) for row in rows if row[_HEAD_AT] is not None],
                   payer(user, billing_owner_id), bool(commented), workspace_id)


def plan_change(editing, after, author_id, source, limit_of, at=None):
    """The history change that moving the diagram to the state `after` makes, or None when nothing
    tracked changes. `limit_of()` gives the plan's revision limit (None: unlimited); it is called only
    when a revision is added."""
    diagram, newest_two = editing.diagram, editing.head
    before = State.of(diagram)
    if after == before:
        return None
    at = at or utcnow()
    change = Change()
    if newest_two and _coalesces(newest_two[0], author_id, source, at):
        newest = newest_two[0]
        previous = decompress(newest_two[1].content) if len(newest_two) > 1 else ""
        change.amended_id = newest.id
        change.amended_columns = {**_stored_columns(after, previous), "updated_at": at}
        change.amended_growth = change.amended_columns["stored_size"] - newest.stored_size
        return change
    number = newest_two[0].number + 1 if newest_two else 1
    if not newest_two:  # a diagram from before history: its state so far becomes revision 1
        change.new.append(revision_values(diagram.id, 1, before, author_id, SOURCE_CREATE, "",
                                       min(diagram.updated_at or at, at)))
        number = 2
    change.new.append(revision_values(diagram.id, number, after, author_id, source, before.content, at))
    limit = limit_of()
    if limit is not None:
        change.pruned = _prunable(diagram.id, limit, len(change.new))
    return change


def start_history(diagram, author_id, source, at=None, label=None):
    """Revision 1 of a diagram being created, with the diagram's `history_size` set to its size. The
    diagram needs its id; the caller adds the revision to the session once the diagram's row is written."""
    at = at or diagram.created_at or utcnow()
    revision = new_revision(diagram.id, 1, State.of(diagram), author_id, source, "", at, label)
    diagram.history_size = revision.stored_size
    return revision
