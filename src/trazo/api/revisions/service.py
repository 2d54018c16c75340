"""Diagram history: list, read, compare, name and restore revisions (core/history/revisions.py records them,
core/history/browse.py reads and restores them). Revisions answer with their author {id, full_name}
(docs/teams.md), joined in the statement that reads them."""
from flask_babel import gettext as _
from sqlalchemy import func, select

from ...core.billing.plans import labelled_revision_limit
from ...core.billing.quotas import ensure_room, lock_account
from ...core.content import access
from ...core.events.publish import REVISION_LABELLED, record
from ...core.history import browse
from ...core.history.changes import retrying
from ...core.history.revisions import start_history
from ...core.workspaces.billing import diagram_payer
from ...errors import Conflict
from ...extensions import db
from ...models.history import SOURCE_CREATE, DiagramRevision
from ...models.workspaces import EDITOR
from ..common import page_envelope


def list_revisions(user, diagram_id, page, page_size):
    """Newest first, without contents."""
    rows, total = browse.list_revisions(user, diagram_id, page, page_size)
    return page_envelope(rows, total, page, page_size)


def get_revision(user, diagram_id, number):
    return browse.get_revision(user, diagram_id, number)


def diff_revision(user, diagram_id, number, against):
    return browse.diff_revision(user, diagram_id, number, against)


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
    return browse.authored(newest)


def rename_label(user, diagram_id, number, label):
    """Rename or (with null) clear a revision's label; an unlabelled revision may be pruned again."""
    revision = browse.revision_of(access.diagram_id(user, diagram_id, EDITOR), number)
    if revision.label is None and label is not None:
        _ensure_label_room(diagram_payer(user, revision.diagram_id), revision.diagram_id)
    revision.label = label
    _labelled(user, revision)
    db.session.commit()
    return browse.authored(revision)


def restore_revision(user, diagram_id, number):
    """The diagram takes revision `number`'s title, type and content, recorded as a new revision."""
    return retrying(lambda: _restore_revision(user, diagram_id, number))


def _restore_revision(user, diagram_id, number):
    saved = browse.restore(user, diagram_id, number)
    if saved.history is not None:  # else it already is the current state
        db.session.commit()
    return saved.diagram
