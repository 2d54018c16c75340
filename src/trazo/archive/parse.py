"""One uploaded file to one diagram: decoding, type detection, Markdown fences, titles."""
import posixpath
import re
from dataclasses import dataclass, field

from ..core.content.diagram_types import FREEHAND, RENDERABLE_TYPES
from ..core.content.limits import NAME_MAX
from .sketch import NotImportable, excalidraw_to_freehand, is_sketch, load_json, normalize_freehand

EXCALIDRAW = "excalidraw"
EXTENSION_TYPES = {
    ".mmd": "mermaid", ".mermaid": "mermaid", ".puml": "plantuml", ".plantuml": "plantuml", ".pu": "plantuml",
    ".iuml": "plantuml", ".d2": "d2", ".dbml": "dbml", ".dot": "graphviz", ".gv": "graphviz",
    ".freehand.json": FREEHAND, ".excalidraw": EXCALIDRAW, ".excalidraw.json": EXCALIDRAW,
}
MARKDOWN_EXTENSIONS = (".md", ".markdown")
DETECTED_EXTENSIONS = (*MARKDOWN_EXTENSIONS, ".txt", ".json")
KNOWN_EXTENSIONS = sorted({*EXTENSION_TYPES, *DETECTED_EXTENSIONS}, key=len, reverse=True)
MERMAID_STARTS = (
    "graph", "flowchart", "sequencediagram", "classdiagram", "statediagram", "erdiagram", "gantt", "pie", "journey",
    "gitgraph", "mindmap", "timeline", "quadrantchart", "requirementdiagram", "c4context", "c4container",
    "c4component", "c4dynamic", "c4deployment", "sankey", "xychart", "block-beta", "block", "packet-beta",
    "packet", "kanban", "architecture", "zenuml", "radar", "treemap", "%%{init", "---",
)
FENCE_TAGS = {"mermaid": "mermaid", "mmd": "mermaid", "plantuml": "plantuml", "puml": "plantuml",
              "uml": "plantuml", "d2": "d2", "dbml": "dbml", "dot": "graphviz",
              **{name: name for name in RENDERABLE_TYPES}}
# Linear on any input: no two repeats that can take the same characters sit side by side, and a line
# start is followed by [^\S\n]* (whitespace but line breaks): \s* would rescan a run of blank lines
# once from each of its lines.
FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+-]*)$")  # applied to a stripped line
DBML_LINE = re.compile(r"^[^\S\n]*(table|enum|project|ref|tablegroup)\s+\S", re.IGNORECASE | re.MULTILINE)
D2_LINE = re.compile(r"^[^\S\n]*(direction|shape|vars|classes)[^\S\n]*:|^[^\S\n]*[\w\"']+[^\S\n]*->[^\S\n]*[\w\"']",
                     re.MULTILINE)
DETECT_CHARS = 64 * 1024  # a source shows its type in its first lines; JSON is still read whole


@dataclass
class PlannedFolder:
    key: str  # the lower-cased name: folders are matched by name without regard to case
    name: str
    color: str | None = None
    id: str | None = None  # the project's folder it goes to, once the caller has placed the plan


@dataclass
class PlannedDiagram:
    title: str
    diagram_type: str
    content: str
    description: str = ""
    source: str = ""
    warnings: list = field(default_factory=list)
    folder: PlannedFolder | None = None  # None = the destination root
    restored: bool = False  # listed in our export's manifest: keeps its title among the upload's diagrams
    revisions: list = field(default_factory=list)  # PlannedRevision read from the archive's history
    history: list = field(default_factory=list)  # the revisions it gets, once settled (archive/history.py)
    comments: list = field(default_factory=list)  # PlannedComment read from the archive (archive/comments.py)

    @property
    def revision_count(self):
        return len(self.history)

    @property
    def folder_name(self):
        return self.folder.name if self.folder is not None else None

    @property
    def has_description(self):
        return bool(self.description.strip())


def decode(data):
    """Text of a file: UTF-8 (BOM tolerated) or UTF-16 with BOM; bad bytes replaced. Returns (text, replaced)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16", errors="replace")
    else:
        text = data.decode("utf-8-sig", errors="replace")
    # NUL cannot be stored in a PostgreSQL text column and has no place in a diagram source.
    return text.replace("\x00", "\ufffd"), "\ufffd" in text or "\x00" in text


def normalize_newlines(text):
    return text.replace("\r\n", "\n").replace("\r", "\n")


def trim_code(text):
    """Drop leading blank lines and trailing whitespace of a source."""
    return re.sub(r"^(?:[ \t]*\n)+", "", text).rstrip()


def split_extension(name):
    """("Flow", ".freehand.json"): the longest known extension wins, case-insensitively."""
    lower = name.lower()
    for extension in KNOWN_EXTENSIONS:
        if lower.endswith(extension) and len(lower) > len(extension):
            return name[:-len(extension)], extension
    base, dot, extension = name.rpartition(".")
    return (base, f".{extension.lower()}") if dot and base else (name, "")


def title_from_name(name):
    base, _extension = split_extension(posixpath.basename(name))
    title = re.sub(r"\s+", " ", base.replace("_", " ")).strip()
    return title[:NAME_MAX].strip() or "Diagram"


def detect_type(text):
    """Best guess of a source's type from its text, or None."""
    stripped = text.strip()
    if not stripped:
        return None
    head = stripped[:DETECT_CHARS]
    lower = head.lower()
    if any(marker in lower for marker in ("@startuml", "@startmindmap", "@startgantt")):
        return "plantuml"
    first_word = lower.split(None, 1)[0]
    if first_word in MERMAID_STARTS or lower.startswith(MERMAID_STARTS):
        return "mermaid"
    if first_word in ("digraph", "strict"):
        return "graphviz"
    if DBML_LINE.search(head) and "{" in head:
        return "dbml"
    if D2_LINE.search(head):
        return "d2"
    if stripped[0] in "{[":
        try:
            data = load_json(stripped)
        except NotImportable:
            return None
        if isinstance(data, dict) and data.get("type") == EXCALIDRAW:
            return EXCALIDRAW
        if is_sketch(data):
            return FREEHAND
    return None


def parse_markdown(text):
    """(type, code, title, description) from the first diagram fence of a Markdown text, or None."""
    lines = text.split("\n")
    start = end = language = opener = None
    for index, line in enumerate(lines):
        match = FENCE.match(line.strip()) if "```" in line or "~~~" in line else None
        if not match:
            continue
        if opener is None:
            opener, tag, start = match.group(1), match.group(2).lower(), index
            language = FENCE_TAGS.get(tag) if tag else ""
        elif match.group(1)[0] == opener[0] and len(match.group(1)) >= len(opener) and not match.group(2):
            if language is not None:
                end = index
                break
            opener = None  # the end of a block in another language
    if end is None:
        return None
    code = trim_code("\n".join(lines[start + 1:end]))
    diagram_type = language or detect_type(code)
    if diagram_type in (None, FREEHAND, EXCALIDRAW) or not code:
        return None
    title, rest = None, []
    for line in lines[:start] + lines[end + 1:]:
        if title is None and not rest and line.startswith("# "):
            title = line[2:].strip()[:NAME_MAX].strip() or None
            continue
        rest.append(line)
    description = re.sub(r"\n{3,}", "\n\n", "\n".join(rest)).strip()
    return diagram_type, code, title, description


def to_diagram(name, text, diagram_type, warnings):
    """A diagram of `diagram_type` from the decoded file text; NotImportable when it cannot be one."""
    if diagram_type == EXCALIDRAW:
        content, dropped = excalidraw_to_freehand(text)
        return PlannedDiagram(title_from_name(name), FREEHAND, content, warnings=dropped + warnings)
    if diagram_type == FREEHAND:
        return PlannedDiagram(title_from_name(name), FREEHAND, normalize_freehand(text), warnings=warnings)
    return PlannedDiagram(title_from_name(name), diagram_type, trim_code(text), warnings=warnings)


def parse_file(name, data, max_bytes):
    """One loose file -> (PlannedDiagram, None) or (None, skip reason)."""
    if len(data) > max_bytes:
        return None, "too_large"
    if not data.strip():
        return None, "empty"
    text, replaced = decode(data)
    text = normalize_newlines(text)
    warnings = ["replaced_characters"] if replaced else []
    _base, extension = split_extension(name)
    try:
        if extension in MARKDOWN_EXTENSIONS:
            parsed = parse_markdown(text)
            if parsed is None:
                return None, "no_diagram_block"
            diagram_type, code, title, description = parsed
            return PlannedDiagram(title or title_from_name(name), diagram_type, code, description,
                                  warnings=warnings), None
        diagram_type = EXTENSION_TYPES.get(extension)
        if diagram_type is None and extension in (*DETECTED_EXTENSIONS, ""):
            diagram_type = detect_type(text)
        if diagram_type is None:
            return None, "unsupported_type"
        if diagram_type == FREEHAND and detect_type(text) == EXCALIDRAW:
            diagram_type = EXCALIDRAW
        return to_diagram(name, text, diagram_type, warnings), None
    except NotImportable as exc:
        return None, str(exc)
