"""Saving a change to a diagram (docs/history.md): every write of a diagram's fields, whether the diagrams
PUT, a file PUT, a sync or a restore, goes through `save_change` inside `retrying(...)`:

    open (the row and its two newest revisions) → version check (If-Match, expected_version) → the
    content's cap → plan (core/history/revisions.py) → storage quota → write (attributes, version,
    history); the caller commits.

The diagram is read and written as a Core row (revisions.EditedDiagram), not an ORM object. Its UPDATE names
the version read, so a save another one overtook fails with StaleDataError and `retrying` reads and plans it
again, checking its If-Match against the newer version.
"""
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial

from flask_babel import gettext as _
from sqlalchemy.orm.exc import StaleDataError

from ...errors import Conflict, PreconditionFailed
from ...extensions import db
from ...models.base import utcnow
from ...models.content import utf8_size
from ..billing.plans import plan_for
from ..billing.quotas import ensure_room
from ..comments.anchors import follow
from ..content.limits import ensure_content_fits
from ..events.publish import DIAGRAM_MOVED, DIAGRAM_UPDATED, diagram_event
from .revisions import MEASURED_FIELDS, Change, State, open_diagram, plan_change, revision_limit


@dataclass(frozen=True)
class VersionMatch:
    """What a caller's If-Match names: any version (`*`) or these ones (the API parses the header)."""

    any: bool
    versions: frozenset[str]

    def admits(self, version: int) -> bool:
        return self.any or str(version) in self.versions


@dataclass(frozen=True)
class Saved:
    """A saved change: the diagram as written, the history change (None when nothing tracked changed) and
    the bytes the diagram's own columns grew by (content and description)."""

    diagram: object
    history: Change | None
    growth: int


def save_change(user, diagram_id, fields: Callable[[object], dict], source, *, if_match: VersionMatch | None = None,
                expected_version: int | None = None, limit_of=None, ignored=frozenset(), charge=True) -> Saved:
    """Write `fields(diagram)` (the keys to set, given the current row) to the caller's diagram as one change:
    404 when the caller is no member of its workspace, 403 below editor, 412 on a stale version, 422 over the
    content cap, 402 past the storage quota (unless `charge` is False: a sync charges its whole batch once).
    `limit_of()` gives the plan's revision limit (read once by a caller saving many); keys in `ignored` change
    no version."""
    editing = open_diagram(user, diagram_id)
    diagram = editing.diagram
    ensure_version(diagram, if_match, expected_version)
    data = fields(diagram)
    if "content" in data or "diagram_type" in data:
        ensure_content_fits(data.get("content", diagram.content or ""), data.get("diagram_type", diagram.diagram_type))
    plan_of = cache(partial(plan_for, editing.payer))  # read once, for the revision limit and the quota
    history = plan_change(editing, State.of(diagram).updated(data), user.id, source,
                          limit_of or revision_limit(editing.payer, plan_of))
    growth = content_growth(diagram, data)  # before any attribute changes: the stored sizes still hold
    if charge:
        ensure_room(editing.payer, {"storage": history.charged(growth) if history else growth}, plan_of=plan_of)
    before, version, folder_id = diagram.content, diagram.version, diagram.folder_id
    write_change(diagram, data, history, ignored)
    if editing.commented and "content" in data and data["content"] != before:  # anchors follow (docs/comments.md)
        follow(diagram.id, before or "", diagram.content or "", diagram.diagram_type)
    if diagram.version != version:  # published once the caller commits (docs/events.md)
        diagram_event(DIAGRAM_MOVED if diagram.folder_id != folder_id else DIAGRAM_UPDATED, diagram,
                      editing.workspace_id, user, at=diagram.updated_at)
    return Saved(diagram, history, growth)


def content_growth(diagram, data):
    """Bytes a change adds to the diagram's own storage (content and description; negative when it shrinks).
    Call it before the attributes change: it compares with the sizes stored."""
    return sum(utf8_size(data[name]) - getattr(diagram, f"{name}_size") for name in MEASURED_FIELDS if name in data)


def write_change(diagram, data, history, ignored=frozenset()):
    """Write the keys of `data` that change (with the sizes of the measured ones) to the EditedDiagram, the
    version moving when one outside `ignored` changes, then the planned history: the diagram's UPDATE, which
    checks the version read, comes first. Nothing is written when nothing changes; nothing is committed."""
    values = {key: value for key, value in data.items() if getattr(diagram, key) != value}
    edited = any(key not in ignored for key in values)
    values.update({f"{name}_size": utf8_size(values[name]) for name in MEASURED_FIELDS if name in values})
    if edited:
        values["version"], values["updated_at"] = next_version(diagram)
    if history and history.storage_delta:
        values["history_size"] = (diagram.history_size or 0) + history.storage_delta
    if values:
        diagram.write_row(values)
    if history:
        history.apply()


def next_version(diagram, at=None):
    """(version, updated_at) of a change of more than the presentation: a new version (the ETag), edit time."""
    return (diagram.version or 1) + 1, at or utcnow()


def bump_version(diagram, at=None):
    """The next version on an ORM-loaded diagram (a move). Its UPDATE names the version read (the mapper's
    version column), so a save that another one overtook fails (`retrying`)."""
    diagram.version, diagram.updated_at = next_version(diagram, at)


def retrying(operation, attempts=3):
    """`operation()`, read and planned again (after a rollback) when another save of the diagram got in
    between its read and its write: the diagram's UPDATE found another version than the one read
    (StaleDataError). Its If-Match is then checked against the newer version."""
    for _attempt in range(attempts):
        try:
            return operation()
        except StaleDataError:
            db.session.rollback()
    raise Conflict(_("This diagram is being saved by another request; try again."))


def etag(diagram):
    return version_etag(diagram.version)


def version_etag(version):
    """The ETag of a diagram at `version` (or of a file entry)."""
    return f'"{version}"'


def ensure_version(diagram, if_match: VersionMatch | None = None, expected_version: int | None = None) -> None:
    """412 when the caller's If-Match or `expected_version` names another version than the diagram's (a
    write based on a stale read). Neither given: the write goes through."""
    stale = expected_version is not None and expected_version != diagram.version
    if if_match is not None:
        stale = stale or not if_match.admits(diagram.version)
    if stale:
        raise PreconditionFailed(
            _("This diagram was changed elsewhere (it is now at version %(version)s). Reload it before saving.",
              version=diagram.version),
            headers={"ETag": etag(diagram)}, error_code="version_conflict",
            extra={"current_version": diagram.version})
