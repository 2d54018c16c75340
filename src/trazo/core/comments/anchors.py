"""Comment anchors that follow the source (docs/comments.md, "Anchors follow the source").

A lines anchor records, when made, the diagram's newest revision number and the quoted lines; its current
range starts as made. Each save that changes the content moves the range with the diff of the content
before and after (`core/history/diffs.changed_runs`, the one bounded line match a save costs): lines
inserted or removed above it shift it, unchanged lines keep it; when an anchored line changes or vanishes
(or lines are inserted between two anchored ones) the anchor is `outdated` and keeps its quote and its last
current range. An element anchor is outdated once its element is gone: a sketch element of that `id`, or
for a text diagram the identifier as a whole word.
"""
import re

from sqlalchemy import func, select

from ...extensions import db
from ...models.comments import ANCHOR_DIAGRAM, ANCHOR_ELEMENT, ANCHOR_LINES, Comment
from ...models.history import DiagramRevision
from ..content.diagram_types import FREEHAND
from ..history.diffs import changed_runs, sketch_elements, split_lines

FOLLOWED = (ANCHOR_LINES, ANCHOR_ELEMENT)


class AnchorError(ValueError):
    """An anchor that does not fit the diagram's current content (the API answers 422)."""


def made(diagram, anchor):
    """The anchor to store for a comment made now on `diagram` (`anchor` as validated by the schema)."""
    kind = (anchor or {}).get("type", ANCHOR_DIAGRAM)
    if kind == ANCHOR_LINES:
        start, end = anchor["start_line"], anchor["end_line"]
        lines = split_lines(diagram.content or "")
        if not 1 <= start <= end <= len(lines):
            raise AnchorError(f"lines {start}-{end} are outside the content's {len(lines)} lines")
        revision = db.session.scalar(select(func.max(DiagramRevision.number))
                                     .where(DiagramRevision.diagram_id == diagram.id))
        return {"type": ANCHOR_LINES, "start_line": start, "end_line": end, "revision": revision,
                "quote": "".join(lines[start - 1:end]), "current_start_line": start, "current_end_line": end,
                "outdated": False}
    if kind == ANCHOR_ELEMENT:
        element_id = anchor["element_id"]
        return {"type": ANCHOR_ELEMENT, "element_id": element_id,
                "outdated": not element_exists(diagram.diagram_type, diagram.content or "", element_id)}
    return {"type": ANCHOR_DIAGRAM}


def element_exists(diagram_type, content, element_id):
    if diagram_type == FREEHAND:
        elements = sketch_elements(content)
        return bool(elements) and element_id in elements
    return re.search(rf"(?<![\w]){re.escape(element_id)}(?![\w])", content) is not None


def follow(diagram_id, before, after, diagram_type=None):
    """Move the anchors of the diagram's comments from content `before` to `after` (one statement loads the
    followed anchors; nothing else runs when there are none). Nothing is committed."""
    if before == after:
        return
    comments = db.session.scalars(select(Comment).where(Comment.diagram_id == diagram_id,
                                                        Comment.anchor["type"].as_string().in_(FOLLOWED))).all()
    live = [comment for comment in comments if not comment.anchor.get("outdated")]
    if not live:
        return
    runs = None
    for comment in live:
        anchor = dict(comment.anchor)
        if anchor["type"] == ANCHOR_LINES:
            if runs is None:
                runs = changed_runs(before or "", after or "")
            moved = moved_range(runs, anchor["current_start_line"], anchor["current_end_line"])
            if moved is None:
                anchor["outdated"] = True
            else:
                anchor["current_start_line"], anchor["current_end_line"] = moved
        elif not element_exists(diagram_type, after or "", anchor["element_id"]):
            anchor["outdated"] = True
        if anchor != comment.anchor:
            comment.anchor = anchor  # a new dict: the JSON column sees the change


def moved_range(runs, start, end):
    """(start, end) of the 1-based inclusive line range after the change `runs`; None when a line of it
    changed or vanished, or lines came in between two of its lines."""
    old_line = new_line = 0  # lines before the run
    shift = None
    for run in runs:
        old_first, old_last = old_line + 1, old_line + run.old_count
        if run.changed:
            if run.old_count and old_first <= end and old_last >= start:
                return None  # an anchored line changed or vanished
            if not run.old_count and start <= old_line < end:
                return None  # lines inserted inside the range
        elif old_first <= start <= old_last:
            shift = new_line - old_line  # a range going on past this run meets a changed one (checked above)
        old_line += run.old_count
        new_line += run.new_count
        if old_line >= end and shift is not None:
            break
    if shift is None:
        return start, end  # no line of the content left before it: kept as it is
    return start + shift, end + shift
