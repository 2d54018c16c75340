"""How much history an export holds: never more than an import accepts (docs/export-format.md, "History",
"What an export holds at most").

Labelled revisions are kept forever and a restore costs little storage, so a small quota can hold a
history far larger than an import reads (archive/reader.py ImportLimits, and the upload cap). The
export keeps each diagram's newest revisions, newest first across the project, while the archive stays
within the import's limits, and leaves the older ones out, saying so in the manifest. The choice is made
from the sizes kept in the database (the content's size and its compressed size), before any content is
read or decompressed, so a history past the limits costs about what one that fits costs.
"""
from dataclasses import dataclass

from ..core.history.revisions import compress_bound
from .history import ExportRevision, history_index

# Bytes left free under each limit, for what may change between the choice and the writing (a label
# renamed meanwhile) and for the multipart envelope of the upload.
SAFETY_BYTES = 64 * 1024


def entry_bound(name, data_bound):
    """Local header, central directory record and data of one ZIP entry (no extra fields)."""
    name_size = len(name.encode())
    return 30 + name_size + data_bound + 46 + name_size


@dataclass(frozen=True)
class HistoryLimits:
    """What an import accepts, as far as an export's history goes (built from the same settings)."""

    files: int  # files in history directories (revisions and indexes)
    uncompressed_bytes: int  # every file of the archive, uncompressed
    archive_bytes: int  # the upload (MAX_IMPORT_UPLOAD_BYTES)
    file_bytes: int  # one file: a diagram's revisions.json

    def room(self, uncompressed_taken, compressed_taken):
        """The room left to the history once the rest of the archive takes these bytes."""
        return HistoryRoom(self.files, self.uncompressed_bytes - uncompressed_taken - SAFETY_BYTES,
                           self.archive_bytes - compressed_taken - SAFETY_BYTES, self.file_bytes - SAFETY_BYTES)


@dataclass(frozen=True)
class HistoryRoom:
    files: int
    uncompressed: int
    compressed: int
    index_bytes: int


@dataclass
class KeptHistory:
    """The revisions of one diagram an export holds: numbers `first` to `last`, newest ones."""

    first: int
    last: int
    count: int = 0
    stored: int = 0  # their compressed bytes, as stored
    largest: int = 0  # the largest one's
    index_bytes: int = 0  # the most its revisions.json weighs

    def add(self, number, stored_size, index_bytes):
        self.first, self.count, self.stored = number, self.count + 1, self.stored + stored_size
        self.largest, self.index_bytes = max(self.largest, stored_size), index_bytes


def _entry_growth(diagram, revision):
    """The most one more entry adds to a diagram's revisions.json (its separator included)."""
    return len(history_index(diagram, [revision.index_entry()])) - len(history_index(diagram, [])) + 2


def _growth(snapshot, diagram, history, revision, stored_size):
    """(files, uncompressed bytes, compressed bytes, index bytes after) that one more revision adds."""
    before = history.index_bytes if history else len(history_index(diagram, []))
    after = before + _entry_growth(diagram, revision)

    def index_cost(size):
        return entry_bound(f"{snapshot.root}/{diagram.history_path}", compress_bound(size))

    files = 1 if history else 2
    uncompressed = revision.content_size + after - (before if history else 0)
    # A revision's entry weighs its stored size at most: both are zlib level 6 of the same bytes, the
    # stored one with 6 bytes of zlib framing more.
    compressed = (entry_bound(f"{snapshot.root}/{diagram.history_dir}/{revision.file}", stored_size)
                  + index_cost(after) - (index_cost(before) if history else 0))
    return files, uncompressed, compressed, after


def keep_newest(snapshot, room, describe):
    """Decide which revisions `snapshot` holds within `room`: each history diagram gets `kept_history`
    (None, and no history directory, when none fit) and `history_omitted`; the snapshot gets
    `history_note` ({"revisions", "detail"}) when any is left out. `describe(count)` is the localized
    detail. Reads at most room.files + 1 revisions' metadata, newest first, and stops at the first that
    does not fit: everything older is left out."""
    diagrams = {diagram.id: diagram for diagram in snapshot.diagrams if diagram.history_path}
    limit = max(room.files, 0) + 1
    rows = snapshot.newest_revisions(limit)
    kept, used, complete = {}, (0, 0, 0), len(rows) < limit
    for row in rows:
        diagram = diagrams.get(row[0])
        if diagram is None:  # created after the snapshot was read
            continue
        revision, stored_size, history = ExportRevision(*row[1:-1]), row[-1], kept.get(row[0])
        *grows, index_bytes = _growth(snapshot, diagram, history, revision, stored_size)
        total = tuple(a + b for a, b in zip(used, grows, strict=True))
        if (total[0] > room.files or total[1] > room.uncompressed or total[2] > room.compressed
                or index_bytes > room.index_bytes):
            complete = False
            break
        used = total
        if history is None:
            history = kept[diagram.id] = KeptHistory(revision.number, revision.number)
        history.add(revision.number, stored_size, index_bytes)
    omitted = 0
    for diagram in diagrams.values():
        diagram.kept_history = kept.get(diagram.id)
        if not complete:
            diagram.history_omitted = max(diagram.revision_count - getattr(diagram.kept_history, "count", 0), 0)
            omitted += diagram.history_omitted
        if diagram.kept_history is None:
            diagram.history_dir = diagram.history_path = None
    snapshot.history_note = {"revisions": omitted, "detail": describe(omitted)} if omitted else None
