"""A quick heuristic syntax check of diagram code (Mermaid, PlantUML, D2, DBML).

It catches what models most often get wrong (a missing header, unbalanced blocks or braces,
malformed DBML statements); it is not a parser. An empty list means no problem was found.
"""
import re

from flask_babel import gettext as _

MERMAID_ALIASES = ("flowchart", "sequence", "class", "state", "er", "gantt", "pie", "journey")
MERMAID_HEADERS = (
    "graph", "flowchart", "sequenceDiagram", "classDiagram", "classDiagram-v2", "stateDiagram",
    "stateDiagram-v2", "erDiagram", "gantt", "pie", "journey", "gitGraph", "mindmap", "timeline",
    "quadrantChart", "requirementDiagram", "C4Context", "C4Container", "C4Component", "C4Dynamic",
    "C4Deployment", "sankey-beta", "sankey", "xychart-beta", "xychart", "block-beta", "block",
    "packet-beta", "packet", "architecture-beta", "kanban", "zenuml", "radar-beta", "treemap-beta",
    "treemap",
)
PLANTUML_BLOCK_WORDS = ("package ", "namespace ", "class ", "interface ", "enum ")
# Far above what a model writes within its output budget; a longer "diagram" is refused unread, since
# every check walks the code line by line.
MAX_CHECKED_CHARS = 256 * 1024
DBML_NAME = r'(?:"[^"]*"|\w+)'
# Applied to replies from a model the user chose: linear patterns only (see FENCED_BLOCK in
# services/ai/text.py).
DBML_TABLE = re.compile(rf"^Table\s+{DBML_NAME}(\.{DBML_NAME})?(\s+as\s+\w+)?(\s*\[[^\]]*\])?(\s*\{{)?\s*$")
DBML_COLUMN = rf"{DBML_NAME}(\.{DBML_NAME})*(\.\([\w\s,\"]+\))?"
DBML_REF_BLOCK = re.compile(r"^Ref(\s+\w+)?\s*\{\s*$")
DBML_REF_LINE = re.compile(rf"^Ref(\s+\w+)?\s*:\s*{DBML_COLUMN}\s*(<>|<|>|-)\s*{DBML_COLUMN}(\s*\[[^\]]*\])?\s*$")
DBML_CONTENT = re.compile(r"^[^\S\n]*(Table|Enum)\s+\S|^[^\S\n]*Ref\s*(\w+\s*)?[:{]|\[[^\[\]]*ref:", re.MULTILINE)
STRINGS = {quote: re.compile(rf"{quote}(?:\\.|[^{quote}\\])*+{quote}") for quote in "\"'"}


def code_language(diagram_type):
    """mermaid, plantuml, d2 or dbml for the types written in one of them, else None."""
    kind = (diagram_type or "").strip().lower()
    if "mermaid" in kind or kind in MERMAID_ALIASES:
        return "mermaid"
    if "plantuml" in kind or kind == "uml":
        return "plantuml"
    if "d2" in kind:
        return "d2"
    if "dbml" in kind:
        return "dbml"
    return None


def syntax_problems(code, diagram_type):
    """Problems found in `code` for its type, as localized sentences (empty when none)."""
    if not code or not code.strip():
        return [_("The diagram code is empty.")]
    if len(code) > MAX_CHECKED_CHARS:
        return [_("The diagram code is too long to check (more than %(limit)s characters).",
                  limit=MAX_CHECKED_CHARS)]
    checks = {"mermaid": _mermaid, "plantuml": _plantuml, "d2": _d2, "dbml": _dbml}
    check = checks[code_language(diagram_type) or "mermaid"]
    return check(code.splitlines())


def _unclosed(count):
    return _("%(count)s block(s) opened and never closed.", count=count)


def _mermaid(lines):
    body = [(number, line.strip()) for number, line in enumerate(lines, 1)
            if line.strip() and not line.strip().startswith("%%")]
    if not body:
        return [_("The diagram code is empty.")]
    first = body[0][1]
    if not any(first == header or first.startswith((header + " ", header + ";", header + "\t"))
               for header in MERMAID_HEADERS):
        return [_("Line %(line)s: a Mermaid diagram must start with its type (for example flowchart TD, "
                  "sequenceDiagram or erDiagram).", line=body[0][0])]
    depth = 0
    for number, line in body[1:]:
        if re.match(r"^subgraph\b", line):
            depth += 1
        elif line == "end":
            if depth == 0:
                return [_("Line %(line)s: 'end' without a matching 'subgraph'.", line=number)]
            depth -= 1
    return [_unclosed(depth)] if depth else []


def _plantuml(lines):
    stripped = [(number, line.strip()) for number, line in enumerate(lines, 1)
                if line.strip() and not line.strip().startswith(("'", "/'"))]
    start = next((number for number, line in stripped if line.startswith("@startuml")), None)
    end = next((number for number, line in stripped if line.startswith("@enduml")), None)
    if start is None:
        return [_("Line 1: a PlantUML diagram must start with @startuml.")]
    if end is None:
        return [_("The PlantUML diagram must end with @enduml.")]
    if end < start:
        return [_("Line %(line)s: @enduml comes before @startuml.", line=end)]
    depth = 0
    for number, line in stripped:
        if "{" in line and any(word in line for word in PLANTUML_BLOCK_WORDS):
            depth += 1
        elif line == "}":
            if depth == 0:
                return [_("Line %(line)s: '}' without a matching opening block.", line=number)]
            depth -= 1
    return [_unclosed(depth)] if depth else []


def _balanced(lines, strip_line):
    depth = 0
    for number, raw in enumerate(lines, 1):
        if "{" not in raw and "}" not in raw:
            continue
        for char in strip_line(raw):
            if char == "{":
                depth += 1
            elif char == "}":
                if depth == 0:
                    return [_("Line %(line)s: '}' without a matching '{'.", line=number)]
                depth -= 1
    return [_unclosed(depth)] if depth else []


def _without_strings(line, quotes):
    """Quoted strings emptied (braces or comment marks inside them do not count).

    A quote that is never closed stays as it is; no later quote of that kind can close either, so
    it is not looked for again (rescanning from each one would be quadratic).
    """
    live = "".join(filter(line.__contains__, quotes))
    if not live:  # most lines: nothing to empty
        return line
    pieces, position = [], 0
    while live and (opening := re.compile(f"[{live}]").search(line, position)):
        quote = opening.group()
        found = STRINGS[quote].match(line, opening.start())
        if found is None:
            live = live.replace(quote, "")
            continue
        pieces += [line[position:found.start()], quote * 2]
        position = found.end()
    return "".join(pieces) + line[position:]


def _d2_line(line):
    if line.strip().startswith("#"):
        return ""
    return _without_strings(line, '"').split("#", 1)[0]


def _d2(lines):
    return _balanced(lines, _d2_line)


def _dbml_line(line):
    return _without_strings(line, "\"'").split("//", 1)[0]


def _dbml(lines):
    # Once: every check below reads the code without strings and comments (a line with no quote or slash
    # has none).
    lines = [_dbml_line(line) if "'" in line or '"' in line or "/" in line else line for line in lines]
    problems = _balanced(lines, str)
    if problems:
        return problems
    if not DBML_CONTENT.search("\n".join(lines)):
        return [_("A DBML diagram needs at least one Table, Enum or Ref.")]
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if line.startswith("Table ") and not DBML_TABLE.match(line):
            return [_("Line %(line)s: a table is declared as 'Table name {' (optionally 'as alias').",
                      line=number)]
        if (line.startswith("Ref ") or line.startswith("Ref:")) and not (
                DBML_REF_BLOCK.match(line) or DBML_REF_LINE.match(line)):
            return [_("Line %(line)s: a reference is written 'Ref: table.column > table.column'.",
                      line=number)]
    return []
