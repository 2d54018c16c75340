"""Reading a chat reply: the diagram it proposes (between markers, fenced or bare) and the text around it."""
import re

START_MARKER = "<<<DIAGRAM>>>"
END_MARKER = "<<<END_DIAGRAM>>>"

# Tolerant of what models write instead: 2-3 '<', spaces, DIAGRAMA (Spanish), '/', FIN_ or END_, 1-3 '>'.
_MARKER = re.compile(r"<{2,3}\s*(/)?\s*((?:END|FIN)[_ ])?\s*DIAGRAMA?\s*>{1,3}", re.IGNORECASE)
_MARKER_LINE = re.compile(r"^\s*<{1,3}\s*/?\s*(?:(?:END|FIN)[_ ]?)?\s*DIAGRAMA?\s*>{0,3}\s*$",
                          re.IGNORECASE | re.MULTILINE)
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:\n```|\Z)", re.DOTALL)
_FENCE_INSIDE_MARKERS = re.compile(re.escape(START_MARKER) + r"\s*```[\w+-]*[^\n]*\n(.*?)\n?```\s*"
                                   + re.escape(END_MARKER), re.DOTALL)
MIN_FENCED_CODE = 20
MIN_TEXT_PIECE = 4

_MERMAID_START = re.compile(
    r"^\s*(graph|flowchart|sequenceDiagram|classDiagram|stateDiagram(?:-v2)?|erDiagram|journey|gantt|pie|"
    r"gitGraph|mindmap|timeline|quadrantChart|requirementDiagram|C4\w+|sankey-beta|xychart-beta|block-beta|"
    r"packet-beta|architecture-beta|kanban)\b", re.MULTILINE)
_DBML_START = re.compile(r"^\s*(Table|Enum|Project)\s+[\w\".]+[^\n]*\{", re.MULTILINE)
_PLANTUML_BLOCK = re.compile(r"@start(\w+).*?(?:@end\1|\Z)", re.DOTALL)


def normalize_markers(text):
    """Write every start/end marker variant as the canonical markers, and unwrap fences inside them."""
    def canonical(match):
        return END_MARKER if match.group(1) or match.group(2) else START_MARKER

    text = _MARKER.sub(canonical, text)
    return _FENCE_INSIDE_MARKERS.sub(lambda m: f"{START_MARKER}\n{m.group(1)}\n{END_MARKER}", text)


def has_start_marker(text):
    return START_MARKER in normalize_markers(text)


def carries_diagram(text, diagram_type):
    """True when a reply proposes a whole diagram: markers, or a fence tagged with the diagram's type."""
    text = normalize_markers(text)
    if START_MARKER in text:
        return True
    return any(tag.lower() == diagram_type.lower() and len(body.strip()) > MIN_FENCED_CODE
               for tag, body in _FENCE.findall(text))


def _join_text(*pieces):
    kept = [piece.strip() for piece in pieces if len(piece.strip()) >= MIN_TEXT_PIECE]
    return _MARKER_LINE.sub("", "\n\n".join(kept)).strip()


def _unfence(code):
    match = _FENCE.fullmatch(code.strip())
    return match.group(2) if match else code


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
    """(code or None, text around it) of a reply that proposes a diagram."""
    text = normalize_markers(text)
    start = text.find(START_MARKER)
    if start >= 0:
        body_start = start + len(START_MARKER)
        end = text.find(END_MARKER, body_start)
        body_end = end if end >= 0 else len(text)
        after = text[end + len(END_MARKER):] if end >= 0 else ""
        code = _unfence(text[body_start:body_end]).strip()
        return code or None, _join_text(text[:start], after)
    for match in _FENCE.finditer(text):
        if len(match.group(2).strip()) > MIN_FENCED_CODE:
            return match.group(2).strip(), _join_text(text[:match.start()], text[match.end():])
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
