"""A project's revisions read from the database a batch at a time (the export with history:
docs/export-format.md).

An export holds at most what an import accepts: `newest_first` lists the revisions' metadata, newest
first, so that archive/history_bound.py keeps the newest ones that fit before any content is read; the
reading then takes each diagram's kept range of numbers only.

Small histories are read several diagrams at once, up to about BATCH_BYTES of stored (compressed)
content or BATCH_ROWS revisions; a larger one alone, a page of revisions at a time sized by its largest
revision; each content is decompressed only as it is handed over. So an export holds a few revisions
in memory, never a project's history.
"""
from dataclasses import dataclass

from sqlalchemy import and_, func, null, or_, select

from ...extensions import db
from ...models.content import Diagram
from ...models.history import DiagramRevision
from .revisions import decompress

BATCH_BYTES = 4 * 1024 * 1024
BATCH_ROWS = 200
METADATA_ROWS = 2000  # revisions read at once without their contents
METADATA = (DiagramRevision.number, DiagramRevision.title, DiagramRevision.diagram_type, DiagramRevision.source,
            DiagramRevision.label, DiagramRevision.created_at, DiagramRevision.updated_at,
            DiagramRevision.content_hash, DiagramRevision.content_size, DiagramRevision.lines_added,
            DiagramRevision.lines_removed)


@dataclass(frozen=True)
class HistoryStats:
    count: int = 0
    stored: int = 0  # bytes of compressed content
    largest: int = 0  # the largest revision's


def history_stats(project_id, folder_id=None):
    """diagram id -> HistoryStats of the project's diagrams (or one folder's) that have revisions."""
    statement = (select(DiagramRevision.diagram_id, func.count(DiagramRevision.id),
                        func.sum(DiagramRevision.stored_size), func.max(DiagramRevision.stored_size))
                 .join(Diagram, Diagram.id == DiagramRevision.diagram_id).where(Diagram.project_id == project_id)
                 .group_by(DiagramRevision.diagram_id))
    if folder_id is not None:
        statement = statement.where(Diagram.folder_id == folder_id)
    return {row[0]: HistoryStats(row[1], row[2] or 0, row[3] or 0) for row in db.session.execute(statement)}


def newest_first(project_id, folder_id, limit):
    """(diagram id, METADATA..., stored size) of at most `limit` of the project's revisions (or one folder's),
    newest first: each diagram's by number, downward, and the diagrams interleaved by the time of the
    oldest revision kept so far (the earliest creation among the revision and those after it), so a
    prefix of this list holds each diagram's newest revisions and leaves out the oldest ones of the
    project. Nothing is decompressed."""
    kept_since = func.min(DiagramRevision.created_at).over(partition_by=DiagramRevision.diagram_id,
                                                           order_by=DiagramRevision.number.desc())
    ranked = (select(DiagramRevision.diagram_id, *METADATA, DiagramRevision.stored_size, kept_since.label("since"))
              .join(Diagram, Diagram.id == DiagramRevision.diagram_id).where(Diagram.project_id == project_id))
    if folder_id is not None:
        ranked = ranked.where(Diagram.folder_id == folder_id)
    ranked = ranked.subquery()
    columns = [column for column in ranked.c if column.key != "since"]
    return db.session.execute(select(*columns).order_by(ranked.c.since.desc(), ranked.c.diagram_id,
                                                        ranked.c.number.desc()).limit(limit)).all()


def _columns(with_content):
    return (DiagramRevision.diagram_id, *METADATA, DiagramRevision.content if with_content else null())


def _handed(diagram, row, with_content):
    return diagram, tuple(row[1:-1]), decompress(row[-1]) if with_content else None


def _in_range(diagram, ranges):
    """The condition on `diagram`'s revisions: all of them, or the kept range of numbers."""
    if diagram.id not in ranges:
        return DiagramRevision.diagram_id == diagram.id
    first, last = ranges[diagram.id]
    return and_(DiagramRevision.diagram_id == diagram.id, DiagramRevision.number.between(first, last))


def _read_together(group, with_content, ranges):
    if not group:
        return
    by_diagram = {}
    for row in db.session.execute(select(*_columns(with_content))
                                  .where(or_(*[_in_range(diagram, ranges) for diagram in group]))
                                  .order_by(DiagramRevision.diagram_id, DiagramRevision.number)):
        by_diagram.setdefault(row[0], []).append(row)
    for diagram in group:
        for row in by_diagram.pop(diagram.id, ()):
            yield _handed(diagram, row, with_content)


def _read_alone(diagram, stats, with_content, ranges):
    """A large history, `page` revisions at a time (by number)."""
    page = max(1, min(BATCH_ROWS, BATCH_BYTES // max(stats.largest, 1))) if with_content else METADATA_ROWS
    after = ranges[diagram.id][0] - 1 if diagram.id in ranges else 0
    while True:
        rows = db.session.execute(select(*_columns(with_content))
                                  .where(_in_range(diagram, ranges), DiagramRevision.number > after)
                                  .order_by(DiagramRevision.number).limit(page)).all()
        for row in rows:
            yield _handed(diagram, row, with_content)
        if len(rows) < page:
            return
        after = rows[-1][1]


def revisions_in_batches(stats, diagrams, with_content=True, ranges=None):
    """(diagram, metadata, content) for the revisions of `diagrams`, in their order then by number:
    metadata holds the METADATA columns in order, content is None without content; `stats` is what
    history_stats() found (or what is kept of it). `ranges`: {diagram id: (first, last)} numbers to read
    of those diagrams (the others: every revision)."""
    ranges = ranges or {}
    rows_cap = BATCH_ROWS if with_content else METADATA_ROWS
    group, weight, count = [], 0, 0
    for diagram in diagrams:
        measured = stats.get(diagram.id, HistoryStats())
        size = measured.stored if with_content else 0
        alone = measured.count > rows_cap or size > BATCH_BYTES
        if group and (alone or weight + size > BATCH_BYTES or count + measured.count > rows_cap):
            yield from _read_together(group, with_content, ranges)
            group, weight, count = [], 0, 0
        if alone:
            yield from _read_alone(diagram, measured, with_content, ranges)
            continue
        group.append(diagram)
        weight, count = weight + size, count + measured.count
    yield from _read_together(group, with_content, ranges)
