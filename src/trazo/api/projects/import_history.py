"""The history of imported diagrams (docs/export-format.md, "History").

Every imported diagram gets revisions: those its archive holds, when it is one of our exports with
history, and one of source "import" holding its state as imported whenever the archive's newest one does
not (always the case for other files). The plan's revision limit applies as it does to edits.

Each revision's lines added and removed are counted against the one before it (core/history/diffs.py). Matching
lines costs up to the product of the two line counts, and an archive may hold thousands of revisions, so
an import matches at most DIFF_BUDGET line pairs in all (about two seconds for the worst inputs, far less
for usual ones); past it, a revision keeps the counts its archive gives when they can be true, else it
counts as replacing every line, as core/history/diffs.py reports a change too large to match.
"""
from dataclasses import dataclass, field

from ...archive.history import PlannedRevision, settle
from ...core.billing.plans import labelled_revision_limit
from ...core.history.diffs import MAX_DIFF_LINES, count_lines
from ...core.history.revisions import State, compress_bound, new_revision, revision_limit, start_history
from ...models.base import new_id
from ...models.comments import Comment
from ...models.content import utf8_size
from ...models.history import SOURCE_IMPORT


def settle_histories(user, plan, now):
    """Decide each planned diagram's revisions (`planned.history`), its title and place being final."""
    limit = revision_limit(user)() if plan.diagrams else None
    labels = labelled_revision_limit(user) if plan.diagrams else None
    for planned in plan.diagrams:
        current = PlannedRevision(0, planned.title, planned.diagram_type, planned.content, SOURCE_IMPORT)
        planned.history, planned.revisions = settle(planned.revisions, current, limit, now, labels), []


def history_bound(plan):
    """The most the planned revisions can weigh once compressed, without compressing them: what a dry
    run counts toward the storage quota (the import itself counts what it stores)."""
    return sum(compress_bound(utf8_size(revision.content)) for planned in plan.diagrams
               for revision in planned.history)


DIFF_BUDGET = 10_000_000


@dataclass
class DiffBudget:
    """The line pairs an import may still match to count its revisions' changed lines."""

    left: int = field(default_factory=lambda: DIFF_BUDGET)

    def spend(self, old, new):
        """Whether counting the lines changed from `old` to `new` is within the budget (then spent)."""
        # What differs is matched line by line only up to MAX_DIFF_LINES a side, whatever the rest.
        cost = min(count_lines(old), MAX_DIFF_LINES) * min(count_lines(new), MAX_DIFF_LINES)
        if cost > self.left:
            return False
        self.left -= cost
        return True


def _unmatched_counts(revision, previous):
    """Lines (added, removed) of a revision past the budget: its archive's, when they can be true."""
    added, removed = count_lines(revision.content), count_lines(previous)
    if revision.lines and revision.lines[0] <= added and revision.lines[1] <= removed:
        return revision.lines
    return (added, removed) if revision.content != previous else (0, 0)


def imported_revisions(diagram, planned, author_id, budget):
    """The revision rows of a new diagram (its id set; they are not added to the session), its
    `history_size` set to their stored size."""
    history = planned.history
    if len(history) == 1 and history[0].number == 1 and history[0].source == SOURCE_IMPORT and not history[0].label:
        return [start_history(diagram, author_id, SOURCE_IMPORT, history[0].created_at)]
    rows, previous = [], ""
    for revision in history:
        matched = budget.spend(previous, revision.content)
        row = new_revision(diagram.id, revision.number, State(*revision.state), author_id, revision.source,
                           previous if matched else "", revision.created_at, revision.label)
        if not matched:
            row.lines_added, row.lines_removed = _unmatched_counts(revision, previous)
        row.updated_at = revision.updated_at
        rows.append(row)
        previous = revision.content
    diagram.history_size = sum(row.stored_size for row in rows)
    return rows


def imported_comments(diagrams, planned_diagrams, now):
    """The comment rows of the new diagrams from their archives (docs/export-format.md, "Comments"): body,
    anchor, resolution and times kept, no author (accounts do not travel), replies under their new roots."""
    rows = []
    for diagram, planned in zip(diagrams, planned_diagrams, strict=True):
        ids = {}
        for comment in planned.comments:
            created = min(comment.created_at or now, now)
            ids[comment.key] = new_id()
            rows.append(Comment(id=ids[comment.key], diagram_id=diagram.id, parent_id=ids.get(comment.parent_key),
                                author_id=None, body=comment.body,
                                anchor=comment.anchor, mentions=[], resolved=comment.resolved,
                                resolved_at=min(comment.resolved_at or now, now) if comment.resolved else None,
                                created_at=created, updated_at=min(max(comment.updated_at or created, created), now)))
    return rows
