"""Comments in the ZIP export with history, both ways (docs/export-format.md, "Comments").

A diagram's comments travel in its `revisions.json`, under `comments`: oldest first, each
`{id, parent_id, body, anchor, resolved, resolved_at, created_at, updated_at}` (authors stay behind: accounts do
not travel). Reading keeps what is usable: a body of text within the comment limit, an anchor object of a
known type (else the whole diagram), a reply whose root came before it; the rest is dropped.
"""
from dataclasses import dataclass
from datetime import datetime

from ..models.comments import ANCHOR_DIAGRAM, ANCHOR_ELEMENT, ANCHOR_LINES, BODY_MAX

ANCHOR_TYPES = (ANCHOR_DIAGRAM, ANCHOR_LINES, ANCHOR_ELEMENT)
MAX_COMMENTS = 5_000  # per diagram an import takes
ANCHOR_KEYS = {"type", "start_line", "end_line", "revision", "quote", "current_start_line", "current_end_line",
               "element_id", "outdated"}
ANCHOR_TEXT_MAX = BODY_MAX


def _moment_text(value):
    return value.isoformat() if value is not None else None


def export_entry(comment):
    """A comment row as its diagram's revisions.json holds it."""
    return {"id": comment.id, "parent_id": comment.parent_id, "body": comment.body, "anchor": comment.anchor,
            "resolved": comment.resolved, "resolved_at": _moment_text(comment.resolved_at),
            "created_at": _moment_text(comment.created_at), "updated_at": _moment_text(comment.updated_at)}


@dataclass
class PlannedComment:
    key: str
    parent_key: str | None
    body: str
    anchor: dict
    resolved: bool
    resolved_at: datetime | None
    created_at: datetime | None
    updated_at: datetime | None


def _anchor(value):
    if not isinstance(value, dict) or value.get("type") not in ANCHOR_TYPES:
        return {"type": ANCHOR_DIAGRAM}
    anchor = {}
    for key in ANCHOR_KEYS & set(value):
        item = value[key]
        if isinstance(item, bool) or (isinstance(item, int) and 0 <= item <= 10**9) \
                or (isinstance(item, str) and len(item) <= ANCHOR_TEXT_MAX) or item is None:
            anchor[key] = item
    return anchor


def read_comments(data, moment):
    """The usable comments of a parsed revisions.json (`moment` reads a time, or None), at most MAX_COMMENTS."""
    entries = data.get("comments") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    comments, roots = [], set()
    for entry in entries[:MAX_COMMENTS]:
        if not isinstance(entry, dict):
            continue
        key, parent, body = entry.get("id"), entry.get("parent_id"), entry.get("body")
        if not isinstance(key, str) or not isinstance(body, str) or not body.strip() or len(body) > BODY_MAX:
            continue
        if parent is not None and parent not in roots:
            continue  # a reply needs its root, read before it
        if parent is None:
            roots.add(key)
        created = moment(entry.get("created_at"))
        resolved = entry.get("resolved") is True and parent is None
        comments.append(PlannedComment(key, parent, body, _anchor(entry.get("anchor")), resolved,
                                       moment(entry.get("resolved_at")) if resolved else None, created,
                                       moment(entry.get("updated_at")) or created))
    return comments
