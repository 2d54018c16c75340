"""Cleaning model output: hiding <think> blocks (also while streaming) and extracting diagram code."""
import re

# What is read of one reply: far above what a model writes within its output budget, and small
# enough that parsing a hostile reply stays cheap.
MAX_REPLY_CHARS = 512 * 1024
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
# Replies come from a model the user chose: every pattern runs in linear time. Optional parts carry
# their own trailing \s* so that two repeats never compete for the same run of spaces.
FENCED_BLOCK = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
START_MARKER = re.compile(r"<{2,3}\s*DIAGRAMA?\s*>{1,3}", re.IGNORECASE)
END_MARKER = re.compile(r"<{2,3}\s*(?:/\s*)?(?:(?:END|FIN)_\s*)?DIAGRAMA?\s*>{1,3}", re.IGNORECASE)
MARKER_FRAGMENT = re.compile(r"<{0,3}\s*(?:/\s*)?(?:(?:END|FIN)_)?DIAGRAMA?\s*>{0,3}", re.IGNORECASE)


def _partial_suffix(text, tag):
    """Length of the longest end of `text` that could be the start of `tag` split across chunks."""
    for size in range(min(len(text), len(tag) - 1), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


class ThinkFilter:
    """Feed streamed deltas, get back only the visible text; think text is collected apart."""

    def __init__(self):
        self._pending = ""
        self._inside = False
        self._thinking = []

    def feed(self, delta):
        text, position, visible = self._pending + delta, 0, []
        while True:
            tag = THINK_CLOSE if self._inside else THINK_OPEN
            found = text.find(tag, position)
            if found < 0:
                break
            self._emit(text[position:found], visible)
            position = found + len(tag)
            self._inside = not self._inside
        held = len(text) - _partial_suffix(text[position:], tag)
        self._emit(text[position:held], visible)
        self._pending = text[held:]
        return "".join(visible)

    def _emit(self, text, visible):
        (self._thinking if self._inside else visible).append(text)

    def finish(self):
        """The text held back at the end; an unclosed think block stays hidden."""
        rest, self._pending = self._pending, ""
        if self._inside:
            self._thinking.append(rest)
            return ""
        return rest

    @property
    def thinking(self):
        return "".join(self._thinking).strip()


def strip_think(text):
    """Remove closed think blocks; from an unclosed `<think>` on, everything is dropped."""
    hidden = ThinkFilter()
    return hidden.feed(text or "") + hidden.finish()


def strip_fence(text):
    """The inside of a reply wrapped whole in one Markdown fence, else the text itself (trimmed)."""
    text = (text or "").strip()
    if text.startswith("```"):
        first_line_end = text.find("\n")
        if first_line_end < 0:
            return ""
        text = text[first_line_end + 1:]
        if text.rstrip().endswith("```"):
            text = text.rstrip()[:-3]
    return text.strip()


def _between_markers(text):
    start = START_MARKER.search(text)
    if not start:
        return None
    end = END_MARKER.search(text, start.end())
    return text[start.end():end.start() if end else len(text)]


def _is_marker_fragment(line):
    """A line left over from a mangled marker, such as `END_DIAGRAM>>>` or `<<</DIAGRAMA>`."""
    return ("<" in line or ">" in line) and MARKER_FRAGMENT.fullmatch(line.strip()) is not None


def extract_code(text):
    """The diagram code of a reply: fenced block, else text between markers, else the whole reply."""
    text = strip_think((text or "")[:MAX_REPLY_CHARS])
    fenced = FENCED_BLOCK.search(text)
    if fenced:
        code = fenced.group(1)
    else:
        between = _between_markers(text)
        code = strip_fence(between) if between is not None else text
    return "\n".join(line for line in code.splitlines() if not _is_marker_fragment(line)).strip()
