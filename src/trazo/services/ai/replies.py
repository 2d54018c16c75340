"""Reading a chat reply: the diagram it proposes (between markers, fenced or bare) and the text around it.

Replies come from a model the user chose, so every step is linear in the length of the reply: fences
and marker lines are found with str methods, no two repeats of a pattern compete for one run of
spaces, and a line start is followed by whitespace other than line breaks only (any whitespace would
rescan a run of blank lines once from each of its lines).
"""
import re

from .text import MAX_REPLY_CHARS

START_MARKER = "<<<DIAGRAM>>>"
END_MARKER = "<<<END_DIAGRAM>>>"
FENCE = "```"

# Tolerant of what models write instead: 2-3 '<', spaces, DIAGRAMA (Spanish), '/', FIN_ or END_, 1-3 '>'.
# The spaces are taken possessively (`\s*+`): nothing after them starts with a space, so giving them back
# one at a time could never match, and did cost 0.65 s of CPU on a reply of 4 MiB of spaces after "<< /".
_MARKER = re.compile(r"<{2,3}\s*+(?:(/)\s*+)?(?:((?:END|FIN)[_ ])\s*+)?DIAGRAMA?\s*+>{1,3}", re.IGNORECASE)
_MARKER_LINE = re.compile(r"<{1,3}\s*(?:/\s*)?(?:(?:END|FIN)_?\s*)?DIAGRAMA?\s*>{0,3}", re.IGNORECASE)
_FENCE_TAG = re.compile(r"[\w+-]*")
_SPACES = re.compile(r"\s*")
_FENCED_END = re.compile(re.escape(FENCE) + r"\s*" + re.escape(END_MARKER))
MIN_FENCED_CODE = 20
MIN_TEXT_PIECE = 4

_MERMAID_START = re.compile(
    r"^[^\S\n]*(graph|flowchart|sequenceDiagram|classDiagram|stateDiagram(?:-v2)?|erDiagram|journey|gantt|pie|"
    r"gitGraph|mindmap|timeline|quadrantChart|requirementDiagram|C4\w+|sankey-beta|xychart-beta|block-beta|"
    r"packet-beta|architecture-beta|kanban)\b", re.MULTILINE)
_DBML_START = re.compile(r"^[^\S\n]*(Table|Enum|Project)\s+[\w\".][^\n]*\{", re.MULTILINE)
_PLANTUML_BLOCK = re.compile(r"@start(\w+).*?(?:@end\1|\Z)", re.DOTALL)


def _fences(text):
    """(start, end, tag, body) of each fenced block; an unclosed one runs to the end of the text."""
    position = 0
    while (start := text.find(FENCE, position)) >= 0:
        line_end = text.find("\n", start + len(FENCE))
        if line_end < 0:
            return
        tag = _FENCE_TAG.match(text[start + len(FENCE):line_end].lstrip(" \t")).group()
        close = text.find("\n" + FENCE, line_end + 1)
        end = len(text) if close < 0 else close + 1 + len(FENCE)
        yield start, end, tag, text[line_end + 1:len(text) if close < 0 else close]
        position = end


def _unwrap_fenced_code(text):
    """START + a fenced block + END, as some models write it, becomes START + the code + END."""
    pieces, position = [], 0
    while (start := text.find(START_MARKER, position)) >= 0:
        fence = _SPACES.match(text, start + len(START_MARKER)).end()
        if not text.startswith(FENCE, fence):
            pieces.append(text[position:fence])
            position = fence
            continue
        line_end = text.find("\n", fence + len(FENCE))
        closing = _FENCED_END.search(text, line_end + 1) if line_end >= 0 else None
        if closing is None:
            break  # no later block can be complete either
        body_end = closing.start()
        if body_end > line_end + 1 and text[body_end - 1] == "\n":
            body_end -= 1
        pieces += [text[position:start], f"{START_MARKER}\n{text[line_end + 1:body_end]}\n{END_MARKER}"]
        position = closing.end()
    return "".join(pieces) + text[position:]


def normalize_markers(text):
    """Write every start/end marker variant as the canonical markers, and unwrap fences inside them."""
    def canonical(match):
        return END_MARKER if match.group(1) or match.group(2) else START_MARKER

    return _unwrap_fenced_code(_MARKER.sub(canonical, text))


def has_start_marker(text):
    return START_MARKER in normalize_markers(text[:MAX_REPLY_CHARS])


def carries_diagram(text, diagram_type):
    """True when a reply proposes a whole diagram: markers, or a fence tagged with the diagram's type."""
    text = normalize_markers(text[:MAX_REPLY_CHARS])
    if START_MARKER in text:
        return True
    return any(tag.lower() == diagram_type.lower() and len(body.strip()) > MIN_FENCED_CODE
               for _start, _end, tag, body in _fences(text))


def _without_marker_lines(text):
    """The text without lines holding only a (mangled) marker; such a line and the blank lines
    around it leave one blank line."""
    kept, after_marker = [], False
    for line in text.split("\n"):
        if "<" in line and _MARKER_LINE.fullmatch(line.strip()):
            while kept and not kept[-1].strip():
                kept.pop()
            kept.append("")
            after_marker = True
        elif not (after_marker and not line.strip()):
            kept.append(line)
            after_marker = False
    return "\n".join(kept)


def _join_text(*pieces):
    kept = [piece.strip() for piece in pieces if len(piece.strip()) >= MIN_TEXT_PIECE]
    return _without_marker_lines("\n\n".join(kept)).strip()


def _unfence(code):
    """The inside of code wrapped whole in one fence, else the code itself."""
    stripped = code.strip()
    line_end = stripped.find("\n")
    if not stripped.startswith(FENCE) or line_end < 0:
        return code
    body = stripped[line_end + 1:]
    return body[:-len(FENCE) - 1] if body.endswith("\n" + FENCE) else body


def _bare_code(text, diagram_type):
    kind = diagram_type.lower()
    if kind in ("plantuml", "c4plantuml"):
        match = _PLANTUML_BLOCK.search(text)
        return (match.start(), match.end()) if match else None
    pattern = {"mermaid": _MERMAID_START, "dbml": _DBML_START}.get(kind)
    match = pattern.search(text) if pattern else None
    if not match:
        return None
    end = text.find("\n\n", match.start())
    if kind == "dbml":  # tables are separated by blank lines: the code runs to the last closing brace
        end = text.rfind("}") + 1
    return match.start(), end if end > match.start() else len(text)


def split_reply(text, diagram_type):
    """(code or None, text around it) of a reply that proposes a diagram (its first MAX_REPLY_CHARS)."""
    text = normalize_markers(text[:MAX_REPLY_CHARS])
    start = text.find(START_MARKER)
    if start >= 0:
        body_start = start + len(START_MARKER)
        end = text.find(END_MARKER, body_start)
        body_end = end if end >= 0 else len(text)
        after = text[end + len(END_MARKER):] if end >= 0 else ""
        code = _unfence(text[body_start:body_end]).strip()
        return code or None, _join_text(text[:start], after)
    for fence_start, fence_end, _tag, body in _fences(text):
        if len(body.strip()) > MIN_FENCED_CODE:
            return body.strip(), _join_text(text[:fence_start], text[fence_end:])
    found = _bare_code(text, diagram_type)
    if found:
        begin, end = found
        return text[begin:end].strip(), _join_text(text[:begin], text[end:])
    return None, _join_text(text)


def thinking_excerpt(thinking, limit=200, min_sentence=50):
    """A short display text taken from the model's reasoning, when it wrote nothing besides the code."""
    thinking = " ".join((thinking or "").split())
    if len(thinking) <= 10:
        return ""
    excerpt = thinking[:limit]
    sentence_end = max(excerpt.rfind(". "), excerpt.rfind(".\n"))
    if len(thinking) > limit and sentence_end >= min_sentence:
        excerpt = excerpt[:sentence_end + 1]
    return excerpt.strip()
