"""Diagram history in the ZIP export, both ways (docs/export-format.md, "History").

Each diagram with revisions gets a directory `.history/<its path>/` holding one file per revision
(`0001.mmd`: the content, named by number and by the extension of that revision's type) and an index,
`revisions.json`, that the manifest names as the diagram's `history_path`. Writing reads the revisions'
metadata and contents from the caller (`ExportSnapshot.read_history`); reading takes what is usable from
an archive and drops the rest, never failing an import over its history.
"""
import json
import posixpath
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from ..core.content.diagram_types import DIAGRAM_TYPES, FREEHAND, PLAIN_TEXT_EXTENSION, SOURCE_EXTENSIONS
from ..core.content.limits import NAME_MAX
from ..models.history import LABEL_MAX, SOURCE_IMPORT, SOURCES
from .comments import MAX_COMMENTS, read_comments
from .parse import decode
from .sketch import NotImportable, is_sketch, load_json

HISTORY_DIR = ".history"
HISTORY_INDEX = "revisions.json"
TEXT_ENCODING = ("utf-8", "surrogatepass")  # as core/history/revisions.py stores contents
MAX_NUMBER = 999_999_999  # what the revisions routes can name, far from the database integer's end
MOMENT_MAX = 40  # characters of an ISO 8601 time, offset and fraction included
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Warnings an imported diagram carries about its history.
UNREADABLE = "history_unreadable"  # the index is missing, not JSON, or lists nothing usable
PARTIAL = "history_partial"  # some listed revisions were left out


@dataclass
class ExportRevision:
    """A revision's metadata as the export reads it (its content comes alongside, or not at all)."""

    number: int
    title: str
    diagram_type: str
    source: str
    label: str | None
    created_at: datetime
    updated_at: datetime
    content_hash: str
    content_size: int
    lines_added: int
    lines_removed: int

    @property
    def file(self):
        return f"{self.number:04d}{SOURCE_EXTENSIONS.get(self.diagram_type, PLAIN_TEXT_EXTENSION)}"

    def index_entry(self):
        return {"number": self.number, "title": self.title, "type": self.diagram_type, "source": self.source,
                "label": self.label, "created_at": self.created_at.isoformat(),
                "updated_at": self.updated_at.isoformat(), "content_hash": self.content_hash,
                "content_size": self.content_size, "lines_added": self.lines_added,
                "lines_removed": self.lines_removed, "file": self.file}


def history_index(diagram, entries):
    """The bytes of a diagram's `revisions.json`: its path, one entry per revision, oldest first, and its
    comments when it has some (archive/comments.py)."""
    data = {"path": diagram.path, "revisions": entries}
    if getattr(diagram, "comments", None):
        data["comments"] = diagram.comments
    return json.dumps(data, ensure_ascii=False, indent=2).encode()


def encode_content(text):
    return text.encode(*TEXT_ENCODING)


def is_history_path(path):
    """Whether an archive path lies in a history directory (at the top, or under the export's directory)."""
    parts = path.split("/")
    return HISTORY_DIR in parts[:2] and len(parts) > parts.index(HISTORY_DIR) + 1


# -- reading an archive's history back ---------------------------------------------------------------

@dataclass
class PlannedRevision:
    number: int
    title: str
    diagram_type: str
    content: str
    source: str = SOURCE_IMPORT
    label: str | None = None
    created_at: datetime | None = None  # None: the time of the import
    updated_at: datetime | None = None
    lines: tuple | None = None  # (added, removed) as the archive counts them, when they are plausible

    @property
    def state(self):
        return self.title, self.diagram_type, self.content


def _moment(value):
    """An aware UTC datetime from an ISO 8601 text (naive ones are UTC), or None."""
    if not isinstance(value, str) or len(value) > MOMENT_MAX:
        return None
    try:
        moment = datetime.fromisoformat(value)
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def _text(value, limit):
    """A trimmed one-line text of at most `limit` characters, or None."""
    if not isinstance(value, str):
        return None
    return CONTROL.sub(" ", value).strip()[:limit].strip() or None


def _number(value):
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_NUMBER:
        return value
    return None


def _lines(entry):
    """The archive's (lines added, lines removed), when both are counts."""
    counts = entry.get("lines_added"), entry.get("lines_removed")
    if all(isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= MAX_NUMBER for count in counts):
        return counts
    return None


def _is_plain_name(name):
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\\" not in name


def _entries(data):
    """The objects of an index's `revisions` list (a bare list is accepted too)."""
    revisions = data.get("revisions") if isinstance(data, dict) else data
    return [entry for entry in revisions if isinstance(entry, dict)] if isinstance(revisions, list) else []


def _revision(entry, history, directory, caps, fallback_title):
    """The revision an index entry describes, or None when it is unusable."""
    number, name = _number(entry.get("number")), entry.get("file")
    if number is None or not _is_plain_name(name):
        return None
    path = f"{directory}/{name}"
    data = history.pop(path, None)  # each file serves one revision at most
    diagram_type = entry.get("type")
    if data is None or diagram_type not in DIAGRAM_TYPES:
        return None
    content = decode(data)[0]
    if not caps.fits(content, diagram_type):
        return None
    if diagram_type == FREEHAND:
        try:
            if not is_sketch(load_json(content)):
                return None
        except NotImportable:
            return None
    source = entry.get("source") if entry.get("source") in SOURCES else SOURCE_IMPORT
    created = _moment(entry.get("created_at"))
    return PlannedRevision(number, _text(entry.get("title"), NAME_MAX) or fallback_title, diagram_type, content,
                           source, _text(entry.get("label"), LABEL_MAX), created,
                           _moment(entry.get("updated_at")) or created, _lines(entry))


def read_history(history, index_path, caps, budget, fallback_title):
    """(revisions by number, warnings, comments) of the index at `index_path`; files it uses leave `history`.
    At most `budget` revisions are taken; a duplicated number keeps its first entry."""
    if index_path is None:
        return [], [], []
    if not isinstance(index_path, str) or index_path not in history:
        return [], [UNREADABLE], []
    data = history.pop(index_path)
    # Each entry is an object (a comment two): an index with far more braces than can be taken is not parsed.
    if data.count(b"{") > 4 * budget + 2 * MAX_COMMENTS + 8:
        return [], [UNREADABLE], []
    try:
        parsed = load_json(decode(data)[0])
    except NotImportable:
        parsed = None
    entries, comments = _entries(parsed), read_comments(parsed, _moment)
    directory = posixpath.dirname(index_path)
    revisions, numbers, dropped = [], set(), False
    for entry in entries:
        revision = None if len(revisions) >= budget else _revision(entry, history, directory, caps, fallback_title)
        if revision is None or revision.number in numbers:
            dropped = True
            continue
        numbers.add(revision.number)
        revisions.append(revision)
    if not revisions:
        return [], [UNREADABLE], comments
    return sorted(revisions, key=lambda revision: revision.number), [PARTIAL] if dropped else [], comments


def settle(revisions, current, limit, now, label_limit=None):
    """The history an imported diagram gets: `revisions` with their times made valid (none after `now`,
    none updated before created), the names of all but the newest `label_limit` labelled ones cleared
    (the plan's cap on named revisions; None: unlimited), the oldest unlabelled ones left out past the
    plan's `limit` (None: unlimited), and one more revision, source "import", when the newest does not
    hold the diagram's current state `current` (a PlannedRevision). Never empty."""
    kept = list(revisions)
    for revision in kept:
        revision.created_at = min(revision.created_at or now, now)
        revision.updated_at = min(max(revision.updated_at or now, revision.created_at), now)
    if label_limit is not None:
        labelled = [revision for revision in kept if revision.label is not None]
        for revision in labelled[:max(len(labelled) - label_limit, 0)]:
            revision.label = None
    if not kept or kept[-1].state != current.state:
        current.number = kept[-1].number + 1 if kept else 1
        current.created_at = current.updated_at = now
        kept.append(current)
    excess = len(kept) - max(limit, 1) if limit is not None else 0
    if excess > 0:
        pruned = {id(revision) for revision in [r for r in kept[:-1] if r.label is None][:excess]}
        kept = [revision for revision in kept if id(revision) not in pruned]
    return kept
