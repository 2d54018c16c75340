"""The JSON Schemas of the MCP tools (docs/mcp.md): `inputSchema` (enforced by arguments.py exactly as shown) and
`outputSchema` (what `structuredContent` holds; clients validate it). Output schemas name what is always there
and let more through, so a field added later breaks no client."""
from ...core.content.diagram_types import DIAGRAM_TYPES
from ...core.files.paths import PATH_MAX
from ...models.comments import ANCHOR_DIAGRAM, ANCHOR_ELEMENT, ANCHOR_LINES, BODY_MAX
from ..fields import DESCRIPTION_MAX

ID_MAX = 64


def _id(what):
    return {"type": "string", "minLength": 1, "maxLength": ID_MAX, "description": what}


def _inputs(required=(), any_of=None, **properties):
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    if any_of:
        schema["anyOf"] = [{"required": list(names)} for names in any_of]
    return schema


def _object(required=(), **properties):
    return {"type": "object", "properties": properties, "required": list(required)}


def _list(items):
    return {"type": "array", "items": items}


STRING, INTEGER, BOOLEAN, OBJECT = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}, {"type": "object"}
MAYBE_STRING, MAYBE_INTEGER = {"type": ["string", "null"]}, {"type": ["integer", "null"]}
TIMESTAMP = {"type": "string", "format": "date-time"}
DIAGRAM_TYPE = {"type": "string", "enum": sorted(DIAGRAM_TYPES), "description": "a diagram type"}
PATH = {"type": "string", "minLength": 1, "maxLength": PATH_MAX,
        "description": "a file path such as docs/architecture.mmd: the directory part is the folder, the name the "
                       "title, the extension the type (.mmd mermaid, .puml plantuml, .d2, .dbml, .dot graphviz, "
                       ".freehand.json; .txt for other types, which then need diagram_type)"}
PAGE = {"type": "integer", "minimum": 1, "maximum": 1_000_000, "description": "page number, from 1 (default 1)"}
PAGE_SIZE = {"type": "integer", "minimum": 1, "maximum": 100, "description": "items per page (default 20)"}
PERSON = {"type": ["object", "null"], "properties": {"id": STRING, "full_name": MAYBE_STRING}}

# -- inputs ------------------------------------------------------------------------------------

NO_ARGUMENTS = _inputs()
SEARCH_IN = _inputs(
    ["query"], query={"type": "string", "minLength": 1, "maxLength": 200, "description": "words to look for"},
    workspace_id=_id("only this workspace"), project_id=_id("only this project"),
    diagram_type=DIAGRAM_TYPE, limit={"type": "integer", "minimum": 1, "maximum": 50, "description": "default 20"},
    cursor={"type": "string", "minLength": 1, "maxLength": 512, "description": "next_cursor of the previous page"})
PROJECTS_IN = _inputs(workspace_id=_id("only this workspace's projects"))
FILES_IN = _inputs(["project_id"], project_id=_id("the project"))
READ_IN = _inputs(any_of=(("diagram_id",), ("project_id", "path")), diagram_id=_id("the diagram"),
                  project_id=_id("the project holding the file"), path=PATH)
WRITE_IN = _inputs(
    ["project_id", "path", "content"], project_id=_id("the project"), path=PATH,
    content={"type": "string", "description": "the whole source of the diagram"},
    diagram_type=DIAGRAM_TYPE,
    description={"type": "string", "maxLength": DESCRIPTION_MAX, "description": "what the diagram shows"},
    expected_version={"type": "integer", "minimum": 1,
                      "description": "the version read: the write is refused if the diagram changed since"})
VALIDATE_IN = _inputs(["diagram_type", "source"],
                      diagram_type={"type": "string", "minLength": 1, "maxLength": 64,
                                    "description": "mermaid, plantuml, d2, dbml, graphviz, ... (see diagram_types)"},
                      source={"type": "string", "description": "the diagram's source"})
RENDER_IN = _inputs(any_of=(("diagram_id",), ("diagram_type", "source")), diagram_id=_id("a stored diagram"),
                    diagram_type=VALIDATE_IN["properties"]["diagram_type"], source=VALIDATE_IN["properties"]["source"],
                    format={"type": "string", "enum": ["svg", "png"], "description": "svg (default) or png"},
                    theme={"type": "string", "enum": ["light", "dark"], "description": "Mermaid's theme"})
REVISIONS_IN = _inputs(["diagram_id"], diagram_id=_id("the diagram"), page=PAGE, page_size=PAGE_SIZE)
DIFF_IN = _inputs(["diagram_id", "from"], diagram_id=_id("the diagram"),
                  **{"from": {"type": "integer", "minimum": 1, "description": "a revision number"},
                     "to": {"type": "integer", "minimum": 1,
                            "description": "another revision number; without it, the diagram as it is now"}})
RESTORE_IN = _inputs(["diagram_id", "number"], diagram_id=_id("the diagram"),
                     number={"type": "integer", "minimum": 1, "description": "the revision to take back"})
COMMENTS_IN = _inputs(["diagram_id"], diagram_id=_id("the diagram"), page=PAGE, page_size=PAGE_SIZE,
                      status={"type": "string", "enum": ["open", "resolved", "all"], "description": "default open"})
ANCHOR = _inputs(
    type={"type": "string", "enum": [ANCHOR_DIAGRAM, ANCHOR_LINES, ANCHOR_ELEMENT],
          "description": "diagram (default), lines (start_line and end_line) or element (element_id)"},
    start_line={"type": "integer", "minimum": 1, "description": "lines: the first line, 1-based"},
    end_line={"type": "integer", "minimum": 1, "description": "lines: the last line, inclusive"},
    element_id={"type": "string", "minLength": 1, "maxLength": 200,
                "description": "element: a node identifier, or a sketch element's id"})
COMMENT_IN = _inputs(["diagram_id", "body"], diagram_id=_id("the diagram"),
                     body={"type": "string", "minLength": 1, "maxLength": BODY_MAX,
                           "description": "plain text; @Full Name mentions a member"},
                     anchor=ANCHOR)

# -- outputs -----------------------------------------------------------------------------------

WORKSPACE = _object(["id", "name", "kind", "role"], id=STRING, name=STRING, kind=STRING, role=STRING,
                    member_count=INTEGER, created_at=TIMESTAMP)
PROJECT = _object(["id", "name", "workspace_id", "role"], id=STRING, name=STRING, description=MAYBE_STRING,
                  emoji=MAYBE_STRING, workspace_id=STRING, role=STRING, diagram_count=INTEGER,
                  diagram_type_counts={"type": "object", "additionalProperties": INTEGER},
                  created_at=TIMESTAMP, updated_at=TIMESTAMP)
FILE = _object(["path", "type", "version", "diagram_id"], path=STRING, type=STRING, size=INTEGER,
               sha256=MAYBE_STRING, version=INTEGER, diagram_id=STRING, updated_at=TIMESTAMP)
UNADDRESSABLE = _object(["diagram_id", "reason"], diagram_id=STRING, title=STRING, folder=MAYBE_STRING, type=STRING,
                        reason=STRING)
DIAGRAM = _object(["id", "project_id", "title", "diagram_type", "content", "version"], id=STRING, project_id=STRING,
                  folder_id=MAYBE_STRING, title=STRING, diagram_type=STRING, description=MAYBE_STRING,
                  content=STRING, version=INTEGER, path=MAYBE_STRING, created_at=TIMESTAMP, updated_at=TIMESTAMP)
DRAWING = {"draws": {"type": ["boolean", "null"],
                     "description": "whether the diagram draws on this server; null when it could not be checked"},
           "error": STRING, "line": INTEGER}
REVISION = _object(["number", "source"], number=INTEGER, title=STRING, diagram_type=STRING, source=STRING,
                   label=MAYBE_STRING, author=PERSON, size=INTEGER, lines_added=INTEGER, lines_removed=INTEGER,
                   created_at=TIMESTAMP, updated_at=TIMESTAMP)
SIDE = _object(["number"], number=MAYBE_INTEGER, title=STRING, diagram_type=STRING, label=MAYBE_STRING)
COMMENT = _object(["id", "diagram_id", "body"], id=STRING, diagram_id=STRING, parent_id=MAYBE_STRING, author=PERSON,
                  body=STRING, anchor=OBJECT, mentions=_list(OBJECT), created_at=TIMESTAMP, updated_at=TIMESTAMP,
                  resolved=BOOLEAN, resolved_by=PERSON, resolved_at={"type": ["string", "null"]})
THREAD = {**COMMENT, "properties": {**COMMENT["properties"], "replies": _list(COMMENT)}}


def _page(item):
    return _object(["items", "total"], items=_list(item), total=INTEGER, page=INTEGER, page_size=INTEGER,
                   total_pages=INTEGER)


HIT = _object(["diagram_id", "project_id", "workspace_id", "title", "diagram_type", "path", "snippet", "matches"],
              diagram_id=STRING, project_id=STRING, workspace_id=STRING, title=STRING, diagram_type=STRING,
              path=MAYBE_STRING, snippet=STRING, score={"type": "number"}, updated_at=STRING,
              matches=_list(_object(["start", "end"], start=INTEGER, end=INTEGER)))
SEARCH_OUT = _object(["items"], items=_list(HIT), next_cursor=MAYBE_STRING)
WORKSPACES_OUT = _object(["workspaces"], workspaces=_list(WORKSPACE))
PROJECTS_OUT = _object(["projects"], projects=_list(PROJECT))
FILES_OUT = _object(["files", "unaddressable"], files=_list(FILE), unaddressable=_list(UNADDRESSABLE))
READ_OUT = DIAGRAM
WRITE_OUT = _object(["path", "type", "version", "diagram_id", "created", "draws"], path=STRING, type=STRING,
                    size=INTEGER, sha256=STRING, version=INTEGER, diagram_id=STRING, created=BOOLEAN, **DRAWING)
VALIDATE_OUT = _object(["valid"], valid=BOOLEAN, error=STRING, line=INTEGER)
RENDER_OUT = _object(["format", "mime_type", "bytes"], format=STRING, mime_type=STRING, bytes=INTEGER,
                     complete=BOOLEAN, diagram_type=STRING, diagram_id=MAYBE_STRING)
REVISIONS_OUT = _page(REVISION)
DIFF_OUT = _object(["from", "to", "diff"], **{"from": SIDE, "to": SIDE}, diff=STRING, lines_added=INTEGER,
                   lines_removed=INTEGER, sketch={"type": ["object", "null"]})
RESTORE_OUT = _object(["diagram_id", "version", "restored"], diagram_id=STRING, version=INTEGER, title=STRING,
                      diagram_type=STRING, number=INTEGER, restored=BOOLEAN)
COMMENTS_OUT = _page(THREAD)
COMMENT_OUT = COMMENT
TYPES_OUT = _object(["types"], types=_list(_object(["type", "engine"], type=STRING, engine=STRING,
                                                   version=MAYBE_STRING, backend=STRING, extension=STRING,
                                                   syntax=STRING)))
