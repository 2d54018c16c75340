"""What changed between two versions of a diagram: line counts, a unified diff, and for sketches the elements.

These run inside web requests on content users send, so each has a time bound on the largest content
accepted (1 MiB of diagram code, 5 MiB of sketch JSON), whatever its shape:

- The lines both versions share at the start and at the end are set aside first, with C-speed string
  operations: a search for the first and the last differing character, then a step back to a line
  boundary. A usual save changes a few neighbouring lines, so what remains (the middle) is small.
- Only a middle of at most MAX_DIFF_LINES lines on each side is matched line by line
  (`difflib.SequenceMatcher`, on line numbers rather than the lines). Its cost grows with the square of
  the lengths times how often a line recurs: the worst inputs found (every line recurring about 1% of the
  time, arranged so that each match is one line long) take about 0.15 s of CPU at 800 lines on each
  side, 0.28 s at 1,000. Lines recurring more often are not used as anchors (the matcher's "autojunk"
  heuristic, which is what bounds that recurrence: without it 1,000 lines can take eight seconds), and
  the matcher indexes the longer side, the heuristic applying only from 200 lines on that side.
- A larger middle is reported as replaced as a whole: every line of the old middle removed, every line
  of the new one added (one hunk in the unified diff). The counts are then an upper bound of a minimal
  diff's, and stay cheap to compute.

`sketch_changes` decodes both sketches and makes one pass per element, with the cyclic garbage collector
paused meanwhile (`collector_paused`): that takes about 0.7-0.9 s of CPU for the worst 5 MiB inputs found
(300,000 tiny elements, or 1.7 million nested arrays, on each side), three to four times less than with the
collector walking the process's objects over and over while the arrays are made.

Lines end at "\\n" only, as for diff and patch (a "\\r" is part of its line); a last line without "\\n"
differs from the same line with one, and the unified diff marks it "\\ No newline at end of file" like
GNU diff.
"""
import gc
from contextlib import contextmanager
from difflib import SequenceMatcher
from heapq import nsmallest
from typing import NamedTuple

from ...strict_json import loads as strict_loads

MAX_DIFF_LINES = 800
MAX_LISTED_IDS = 500
NO_NEWLINE = "\\ No newline at end of file\n"
# Excalidraw bumps these on every mutation of an element, also one that leaves it as it was; a change of
# anything else ("seed" included: it shapes the drawn strokes) makes the element changed.
VOLATILE_KEYS = frozenset({"version", "versionNonce", "updated"})
FIRST_BLOCK = 64


class Run(NamedTuple):
    """Consecutive lines of both versions, kept (`old` == `new`) or changed (`old` replaced by `new`)."""

    old: str
    new: str
    old_count: int
    new_count: int
    changed: bool

    @classmethod
    def kept(cls, text, count):
        return cls(text, text, count, count, False)


def line_changes(old, new):
    """(lines added, lines removed) from `old` to `new`."""
    return _counts(changed_runs(old, new))


def unified_diff(old, new, from_label, to_label, context=3):
    """The unified diff from `old` to `new` ("" when they are equal) with its counts of added and removed lines."""
    if context < 0:
        raise ValueError("context must not be negative")
    runs = changed_runs(old, new)
    added, removed = _counts(runs)
    if not runs:
        return {"diff": "", "lines_added": 0, "lines_removed": 0}
    header = f"--- {_label(from_label)}\n+++ {_label(to_label)}\n"
    text = header + "".join(hunk.text() for hunk in _hunks(runs, context))
    return {"diff": text, "lines_added": added, "lines_removed": removed}


def _counts(runs):
    return sum(run.new_count for run in runs if run.changed), sum(run.old_count for run in runs if run.changed)


def changed_runs(old, new):
    """`old` and `new` as runs of kept and changed lines, in order (no run when they are equal)."""
    head, old_middle, new_middle, tail = _trimmed(old, new)
    if not old_middle and not new_middle:
        return []
    runs = [Run.kept(head, count_lines(head)), *_middle_runs(old_middle, new_middle), Run.kept(tail, count_lines(tail))]
    return [run for run in runs if run.old or run.new]


def count_lines(text):
    """The number of lines of `text` (a last line without "\\n" counts)."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def split_lines(text):
    """The lines of `text`, each with its "\\n" (the last one may have none)."""
    lines = text.split("\n")
    last = lines.pop()
    lines = [line + "\n" for line in lines]
    if last:
        lines.append(last)
    return lines


def _middle_runs(old, new):
    old_count, new_count = count_lines(old), count_lines(new)
    if not old or not new or old_count > MAX_DIFF_LINES or new_count > MAX_DIFF_LINES:
        return [Run(old, new, old_count, new_count, True)]
    return _matched_runs(split_lines(old), split_lines(new))


def _matched_runs(old_lines, new_lines):
    """The runs of a line-by-line match (lines become numbers first: equal lines compare and hash once)."""
    numbers = {}
    old_keys = [numbers.setdefault(line, len(numbers)) for line in old_lines]
    new_keys = [numbers.setdefault(line, len(numbers)) for line in new_lines]
    # SequenceMatcher is not symmetric: the shorter side (of equal lengths, the smaller lines) always goes first,
    # so that a diff counts the same lines both ways round.
    if (len(old_lines), old_lines) <= (len(new_lines), new_lines):
        opcodes = SequenceMatcher(None, old_keys, new_keys, autojunk=True).get_opcodes()
    else:  # the opcodes of new -> old, mirrored
        opcodes = [(tag, i1, i2, j1, j2) for tag, j1, j2, i1, i2
                   in SequenceMatcher(None, new_keys, old_keys, autojunk=True).get_opcodes()]
    runs = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            runs.append(Run.kept("".join(old_lines[i1:i2]), i2 - i1))
        else:
            runs.append(Run("".join(old_lines[i1:i2]), "".join(new_lines[j1:j2]), i2 - i1, j2 - j1, True))
    return runs


def _trimmed(old, new):
    """(head, old middle, new middle, tail): the longest runs of whole lines both share at each end, set aside."""
    head_end = old.rfind("\n", 0, _shared_prefix(old, new)) + 1
    old_end, new_end = len(old), len(new)
    tail_start = old_end - _shared_suffix(old, new, min(old_end, new_end) - head_end)
    if not (_starts_line(old, tail_start) and _starts_line(new, new_end - old_end + tail_start)):
        # The shared characters are the same in both: so are their line breaks.
        newline = old.find("\n", tail_start, old_end)
        tail_start = old_end if newline < 0 else newline + 1
    tail_length = old_end - tail_start
    return old[:head_end], old[head_end:tail_start], new[head_end:new_end - tail_length], old[tail_start:]


def _shared_prefix(old, new):
    """The length of the longest common prefix of `old` and `new`."""
    return _matching_length(lambda start, end: old[start:end] == new[start:end], min(len(old), len(new)))


def _shared_suffix(old, new, limit):
    """The length of the longest common suffix of `old` and `new`, at most `limit`."""
    old_end, new_end = len(old), len(new)
    return _matching_length(lambda start, end: old[old_end - end:old_end - start] == new[new_end - end:new_end - start],
                            limit)


def _starts_line(text, index):
    return index == 0 or text[index - 1] == "\n"


def _matching_length(same, limit):
    """The largest n <= limit with same(0, n): blocks of doubling size, then halving ones (linear in n)."""
    start, size = 0, FIRST_BLOCK
    while start < limit:
        end = min(start + size, limit)
        if not same(start, end):
            break
        start, size = end, size * 2
    else:
        return limit
    while end - start > 1:  # same(0, start), not same(0, end)
        middle = (start + end) // 2
        if same(start, middle):
            start = middle
        else:
            end = middle
    return start


class Hunk:
    """Lines of a unified diff under one "@@" header; starts are 0-based line indexes."""

    def __init__(self, old_start, new_start):
        self.old_start, self.new_start = old_start, new_start
        self.old_count = self.new_count = 0
        self.parts = []

    def keep(self, text, count):
        self.parts.append(_marked(text, " "))
        self.old_count += count
        self.new_count += count

    def change(self, run):
        self.parts.append(_marked(run.old, "-"))
        self.parts.append(_marked(run.new, "+"))
        self.old_count += run.old_count
        self.new_count += run.new_count

    def text(self):
        old_range, new_range = _range(self.old_start, self.old_count), _range(self.new_start, self.new_count)
        return f"@@ -{old_range} +{new_range} @@\n" + "".join(self.parts)


def _hunks(runs, context):
    """The hunks of `runs`: changes closer than 2 * `context` kept lines share one, as in `diff -u`."""
    hunks, hunk = [], None
    old_line = new_line = 0
    for index, run in enumerate(runs):
        if run.changed:
            if hunk is None:
                previous = runs[index - 1] if index else None
                lead = min(context, previous.old_count) if previous else 0
                hunk = Hunk(old_line - lead, new_line - lead)
                if lead:
                    hunk.keep(_last_lines(previous.old, lead), lead)
            hunk.change(run)
        elif hunk is not None:
            if index == len(runs) - 1 or run.old_count > 2 * context:
                trail = min(context, run.old_count)
                hunk.keep(_first_lines(run.old, trail), trail)
                hunks.append(hunk)
                hunk = None
            else:
                hunk.keep(run.old, run.old_count)
        old_line += run.old_count
        new_line += run.new_count
    if hunk is not None:
        hunks.append(hunk)
    return hunks


def _first_lines(text, count):
    if not count:
        return ""
    parts = text.split("\n", count)
    return text if len(parts) <= count else text[:len(text) - len(parts[-1])]


def _last_lines(text, count):
    """The last `count` lines of `text`, whole lines."""
    if not count:
        return ""
    splits = count + text.endswith("\n")
    parts = text.rsplit("\n", splits)
    return text if len(parts) <= splits else text[len(parts[0]) + 1:]


def _marked(text, mark):
    """The lines of `text`, each after `mark`; a last line without "\\n" gets one and the GNU diff note."""
    if not text:
        return ""
    marked = mark + text.replace("\n", "\n" + mark)
    return marked[:-len(mark)] if text.endswith("\n") else marked + "\n" + NO_NEWLINE


def _range(start, count):
    """A hunk's line range as diff writes it: "3" for one line, "3,0" for none (after line 3), else "3,5"."""
    if count == 1:
        return f"{start + 1}"
    return f"{start},0" if not count else f"{start + 1},{count}"


def _label(label):
    return str(label).replace("\r", " ").replace("\n", " ")


def sketch_changes(old, new):
    """The elements added, removed and changed from sketch `old` to sketch `new` (Excalidraw JSON).

    An element is an object of the "elements" list with a string "id"; one with `"isDeleted": true` is
    absent, and of several with the same id the last present one counts. Changed means different apart
    from VOLATILE_KEYS. Each id list is sorted and cut to MAX_LISTED_IDS (`truncated`); the counts are
    exact. None when either side is not a sketch ("" is one without elements).
    """
    with collector_paused():  # until the decoded sketches are gone: they go when the call returns
        return _sketch_changes(old, new)


def _sketch_changes(old, new):
    before, after = sketch_elements(old), sketch_elements(new)
    if before is None or after is None:
        return None
    added, removed = after.keys() - before.keys(), before.keys() - after.keys()
    # Only elements that differ at all are compared again without VOLATILE_KEYS.
    differing = [key for key, element in before.items() if (other := after.get(key)) is not None and other != element]
    changed = [key for key in differing if _lasting(before[key]) != _lasting(after[key])]
    lists = {"elements_added": added, "elements_removed": removed, "elements_changed": changed}
    summary = {name: nsmallest(MAX_LISTED_IDS, ids) for name, ids in lists.items()}
    summary.update(added_count=len(added), removed_count=len(removed), changed_count=len(changed),
                   truncated=any(len(ids) > MAX_LISTED_IDS for ids in lists.values()))
    return summary


def sketch_elements(text):
    """{id: element} of the present elements of sketch JSON `text`; None when it is not sketch JSON."""
    if not text or text.isspace():
        return {}
    try:
        # NaN and the infinities stay their names: a float NaN would differ from itself.
        data = strict_loads(text, parse_constant=str)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("elements"), list):
        return None
    # Decoded JSON holds exact dicts and strs: `type() is` is the cheap test, this loop runs per element.
    return {element["id"]: element for element in data["elements"]
            if type(element) is dict and type(element.get("id")) is str and element.get("isDeleted") is not True}


def _lasting(element):
    """`element` without VOLATILE_KEYS."""
    lasting = element.copy()
    for key in VOLATILE_KEYS:
        lasting.pop(key, None)
    return lasting


@contextmanager
def collector_paused():
    """The cyclic garbage collector off meanwhile (back on after, unless it was off already).

    Decoding JSON makes a container per object and array, and while millions are made the collector walks
    all the process's live containers again and again: 5 MiB of dense arrays take four times as long with it
    on. Decoded JSON has no reference cycles, so it leaves nothing for the collector; other threads get
    theirs collected a moment later.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
