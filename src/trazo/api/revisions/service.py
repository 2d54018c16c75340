"""Diagram history: list, read, compare, name and restore revisions (core/history/revisions.py records them).
Revisions answer with their author {id, full_name} (docs/teams.md), joined in the statement that reads them."""
from dataclasses import dataclass

from flask_babel import gettext as _
from sqlalchemy import func, select

from ...core.billing.plans import labelled_revision_limit
from ...core.billing.quotas import ensure_room, lock_account
from ...core.content import access
from ...core.content.diagram_types import FREEHAND
from ...core.events.publish import REVISION_LABELLED, record
from ...core.history.changes import retrying, save_change
from ...core.history.diffs import sketch_changes, unified_diff
from ...core.history.revisions import decompress, start_history
from ...core.workspaces.billing import diagram_payer
from ...errors import Conflict, found_or_404
from ...extensions import db
from ...models import User
from ...models.history import SOURCE_CREATE, SOURCE_RESTORE, DiagramRevision
from ...models.workspaces import EDITOR, VIEWER
from ..common import page_envelope
from .schemas import CURRENT

SUMMARY_COLUMNS = tuple(column for column in DiagramRevision.__table__.c if column.key != "content")
AUTHOR_NAME = User.full_name.label("author_name")


@dataclass(frozen=True)
class AuthoredRevision:
    """A revision with its author's name (RevisionSchema's `author`); the revision's columns read through."""

    revision: DiagramRevision
    author_name: str | None

    def __getattr__(self, name):  # called only for names the dataclass lacks
        return getattr(self.revision, name)


def _with_author(statement):
    return statement.add_columns(AUTHOR_NAME).outerjoin(User, User.id == DiagramRevision.author_id)


def _revision(diagram_id, number):
    return found_or_404(db.session.scalar(select(DiagramRevision).where(DiagramRevision.diagram_id == diagram_id,
                                                                        DiagramRevision.number == number)),
                        _("Revision not found"))


def _authored(revision):
    """`revision` with its author's name (a revision just written: its author is read by primary key)."""
    author = db.session.get(User, revision.author_id) if revision.author_id else None
    return AuthoredRevision(revision, author.full_name if author else None)


def list_revisions(user, diagram_id, page, page_size):
    """Newest first, without contents."""
    owned = access.diagram_id(user, diagram_id, VIEWER)
    total = db.session.scalar(select(func.count()).where(DiagramRevision.diagram_id == owned))
    rows = db.session.execute(_with_author(select(*SUMMARY_COLUMNS)).where(DiagramRevision.diagram_id == owned)
                              .order_by(DiagramRevision.number.desc())
                              .limit(page_size).offset((page - 1) * page_size)).all()
    return page_envelope(rows, total, page, page_size)


def get_revision(user, diagram_id, number):
    """The revision with its content and its author's name (one statement after the access check)."""
    owned = access.diagram_id(user, diagram_id, VIEWER)
    row = found_or_404(db.session.execute(_with_author(select(DiagramRevision))
                                          .where(DiagramRevision.diagram_id == owned,
                                                 DiagramRevision.number == number)).first(),
                       _("Revision not found"))
    return AuthoredRevision(*row)


def _side(revision):
    return {"number": revision.number, "title": revision.title, "diagram_type": revision.diagram_type,
            "label": revision.label}


def _previous(diagram_id, number):
    return db.session.scalar(select(DiagramRevision).where(DiagramRevision.diagram_id == diagram_id,
                                                           DiagramRevision.number < number)
                             .order_by(DiagramRevision.number.desc()).limit(1))


def diff_revision(user, diagram_id, number, against):
    """Revision `number` compared with `against` (a number, "current", or by default the revision before
    it); the older side is `from`, whichever was asked first."""
    if against == CURRENT:
        diagram = access.diagram(user, diagram_id, VIEWER)
        revision = _revision(diagram.id, number)
        older = (_side(revision), decompress(revision.content))
        newer = ({"number": None, "title": diagram.title, "diagram_type": diagram.diagram_type, "label": None},
                 diagram.content or "")
    else:
        owned = access.diagram_id(user, diagram_id, VIEWER)
        revision = _revision(owned, number)
        other = _revision(owned, int(against)) if against is not None else _previous(owned, number)
        newer = (_side(revision), decompress(revision.content))
        if other is None:  # the first revision: everything in it was added
            older = ({"number": None, "title": "", "diagram_type": revision.diagram_type, "label": None}, "")
        else:
            older = (_side(other), decompress(other.content))
            if other.number > revision.number:
                older, newer = newer, older
    (from_side, old), (to_side, new) = older, newer
    result = unified_diff(old, new, _diff_label(from_side), _diff_label(to_side))
    sketch = None
    if FREEHAND in (from_side["diagram_type"], to_side["diagram_type"]):
        sketch = sketch_changes(old, new)
    return {"from": from_side, "to": to_side, **result, "sketch": sketch}


def _diff_label(side):
    return "current" if side["number"] is None else f"revision {side['number']}"


def _ensure_label_room(payer, diagram_id):
    """409 when the diagram already holds as many named revisions as the plan allows (labelled revisions
    are never pruned: docs/history.md). Counted under the account's lock, so two requests cannot both
    take the last place."""
    limit = labelled_revision_limit(payer)
    if limit is None:
        return
    lock_account(payer.id)
    named = db.session.scalar(select(func.count()).where(DiagramRevision.diagram_id == diagram_id,
                                                         DiagramRevision.label.is_not(None)))
    if named >= limit:
        raise Conflict(_("This diagram already has %(count)s named revisions and your plan allows %(limit)s; "
                         "clear the name of one before naming another.", count=named, limit=limit))


def _labelled(user, revision):
    record(REVISION_LABELLED, access.workspace_of_diagram(revision.diagram_id),
           {"diagram_id": revision.diagram_id, "revision_number": revision.number, "label": revision.label},
           revision.diagram_id, user)


def label_current(user, diagram_id, label):
    """Name the diagram's current state (its newest revision); a diagram from before history gets it
    recorded first."""
    return retrying(lambda: _label_current(user, diagram_id, label))


def _label_current(user, diagram_id, label):
    diagram = access.diagram(user, diagram_id, EDITOR)
    newest = db.session.scalar(select(DiagramRevision).where(DiagramRevision.diagram_id == diagram.id)
                               .order_by(DiagramRevision.number.desc()).limit(1))
    if newest is not None and newest.label is not None:
        raise Conflict(_('The current version is already named "%(label)s"; rename that revision instead.',
                         label=newest.label))
    payer = diagram_payer(user, diagram.id)
    _ensure_label_room(payer, diagram.id)
    if newest is None:
        newest = start_history(diagram, user.id, SOURCE_CREATE, diagram.updated_at, label)
        ensure_room(payer, {"storage": newest.stored_size})
        db.session.flush()  # the diagram's new history size, with its version check (a save in between retries)
        db.session.add(newest)
    newest.label = label
    _labelled(user, newest)
    db.session.commit()
    return _authored(newest)


def rename_label(user, diagram_id, number, label):
    """Rename or (with null) clear a revision's label; an unlabelled revision may be pruned again."""
    revision = _revision(access.diagram_id(user, diagram_id, EDITOR), number)
    if revision.label is None and label is not None:
        _ensure_label_room(diagram_payer(user, revision.diagram_id), revision.diagram_id)
    revision.label = label
    _labelled(user, revision)
    db.session.commit()
    return _authored(revision)


def restore_revision(user, diagram_id, number):
    """The diagram takes revision `number`'s title, type and content, recorded as a new revision."""
    return retrying(lambda: _restore_revision(user, diagram_id, number))


def _restore_revision(user, diagram_id, number):
    def fields(diagram):
        revision = _revision(diagram.id, number)
        return {"title": revision.title, "diagram_type": revision.diagram_type,
                "content": decompress(revision.content)}

    saved = save_change(user, diagram_id, fields, SOURCE_RESTORE)
    if saved.history is not None:  # else it already is the current state
        db.session.commit()
    return saved.diagram
