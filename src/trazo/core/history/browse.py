"""Reading a diagram's history and taking a state back (docs/history.md): list, read and compare revisions, and
restore one as a new revision. Revisions answer with their author's name, joined in the statement that reads
them. Shared by the revisions routes (api/revisions) and the MCP tools (api/mcp); naming revisions stays with the
routes. Nothing here commits: a restore's caller commits inside `changes.retrying`."""
from dataclasses import dataclass

from sqlalchemy import func, select

from ...errors import N_, found_or_404
from ...extensions import db
from ...models import User
from ...models.history import SOURCE_RESTORE, DiagramRevision
from ...models.workspaces import VIEWER
from ..content import access
from ..content.diagram_types import FREEHAND
from .changes import save_change
from .diffs import sketch_changes, unified_diff
from .revisions import decompress

CURRENT = "current"  # a comparison against the diagram as it is now
SUMMARY_COLUMNS = tuple(column for column in DiagramRevision.__table__.c if column.key != "content")
AUTHOR_NAME = User.full_name.label("author_name")


@dataclass(frozen=True)
class AuthoredRevision:
    """A revision with its author's name (RevisionSchema's `author`); the revision's columns read through."""

    revision: DiagramRevision
    author_name: str | None

    def __getattr__(self, name):  # called only for names the dataclass lacks
        return getattr(self.revision, name)


def with_author(statement):
    return statement.add_columns(AUTHOR_NAME).outerjoin(User, User.id == DiagramRevision.author_id)


def revision_of(diagram_id, number):
    """Revision `number` of a diagram the caller reached; 404 "Revision not found"."""
    return found_or_404(db.session.scalar(select(DiagramRevision).where(DiagramRevision.diagram_id == diagram_id,
                                                                        DiagramRevision.number == number)),
                        N_("Revision not found"))


def authored(revision):
    """`revision` with its author's name (a revision just written: its author is read by primary key)."""
    author = db.session.get(User, revision.author_id) if revision.author_id else None
    return AuthoredRevision(revision, author.full_name if author else None)


def list_revisions(user, diagram_id, page, page_size):
    """(the page's revisions newest first, without contents, with their authors' names; the total)."""
    owned = access.diagram_id(user, diagram_id, VIEWER)
    total = db.session.scalar(select(func.count()).where(DiagramRevision.diagram_id == owned))
    rows = db.session.execute(with_author(select(*SUMMARY_COLUMNS)).where(DiagramRevision.diagram_id == owned)
                              .order_by(DiagramRevision.number.desc())
                              .limit(page_size).offset((page - 1) * page_size)).all()
    return rows, total


def get_revision(user, diagram_id, number):
    """The revision with its content and its author's name (one statement after the access check)."""
    owned = access.diagram_id(user, diagram_id, VIEWER)
    row = found_or_404(db.session.execute(with_author(select(DiagramRevision))
                                          .where(DiagramRevision.diagram_id == owned,
                                                 DiagramRevision.number == number)).first(),
                       N_("Revision not found"))
    return AuthoredRevision(*row)


def _side(revision):
    return {"number": revision.number, "title": revision.title, "diagram_type": revision.diagram_type,
            "label": revision.label}


def _previous(diagram_id, number):
    return db.session.scalar(select(DiagramRevision).where(DiagramRevision.diagram_id == diagram_id,
                                                           DiagramRevision.number < number)
                             .order_by(DiagramRevision.number.desc()).limit(1))


def diff_revision(user, diagram_id, number, against):
    """Revision `number` compared with `against` (a number, CURRENT, or by default the revision before it);
    the older side is `from`, whichever was asked first."""
    if against == CURRENT:
        diagram = access.diagram(user, diagram_id, VIEWER)
        revision = revision_of(diagram.id, number)
        older = (_side(revision), decompress(revision.content))
        newer = ({"number": None, "title": diagram.title, "diagram_type": diagram.diagram_type, "label": None},
                 diagram.content or "")
    else:
        owned = access.diagram_id(user, diagram_id, VIEWER)
        revision = revision_of(owned, number)
        other = revision_of(owned, int(against)) if against is not None else _previous(owned, number)
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


def restore(user, diagram_id, number, source=SOURCE_RESTORE):
    """The diagram takes revision `number`'s title, type and content, recorded as a new revision of `source`
    (`restore`; `mcp` for the MCP tools). The Saved change; its `history` is None when the revision already is
    the current state (nothing to commit)."""
    def fields(diagram):
        revision = revision_of(diagram.id, number)
        return {"title": revision.title, "diagram_type": revision.diagram_type,
                "content": decompress(revision.content)}

    return save_change(user, diagram_id, fields, source)
