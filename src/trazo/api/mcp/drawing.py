"""The MCP tools that draw (docs/mcp.md): whether a source draws here, a diagram or a source as an image, and the
languages this server draws. Drawing is core/content/rendering's: the engines' deadlines and memory caps, the render
cache, the caller's share of the engines and their render-seconds (RATE_LIMIT_RENDER_SECONDS), as for the render
route; each call also spends the caller's RATE_LIMIT_RENDER."""
import base64

from flask_babel import gettext as _

from ...core.content import access, rendering
from ...core.content.diagram_types import FREEHAND, PLAIN_TEXT_EXTENSION, SOURCE_EXTENSIONS
from ...core.content.images import IMAGE_TYPES, ImageRequest, draw, image_etag
from ...errors import AppError
from ...models.workspaces import VIEWER
from .arguments import InvalidArguments
from .outcomes import Outcome

MIME_TYPES = {"svg": "image/svg+xml", "png": "image/png"}
# A reminder of each language's first lines, for a model about to write one (not a grammar).
SYNTAX = {
    "mermaid": "flowchart TD\n  A[Start] --> B{Ok?}\n  B -->|yes| C[Done]\n(also sequenceDiagram, classDiagram, "
               "erDiagram, stateDiagram-v2, gantt, ...: the first line names the diagram)",
    "plantuml": "@startuml\nAlice -> Bob: hello\n@enduml\n(every diagram between @startuml and @enduml)",
    "c4plantuml": "@startuml\n!include <C4/C4_Container>\nPerson(user, \"User\")\nSystem(app, \"App\")\n"
                  "Rel(user, app, \"uses\")\n@enduml\n(bundled libraries only: !include <...>)",
    "d2": "user -> api: calls\napi -> db: reads\ndb: {shape: cylinder}\n(no imports; icons are http(s) URLs)",
    "dbml": "Table users {\n  id int [pk]\n  name varchar\n}\nTable posts {\n  id int [pk]\n  user_id int "
            "[ref: > users.id]\n}",
    "graphviz": "digraph G {\n  a -> b;\n  b -> c;\n}",
}


def _drawing_problem(refusal):
    """A render refusal's text (a 422's list of problems joined)."""
    detail = refusal.detail
    return detail if isinstance(detail, str) else "; ".join(item["msg"] for item in detail)


def drawing(diagram_type, source):
    """{draws, error?, line?} of a source: draws is None when it could not be checked (no engine here for the
    type, the engines busy or too slow, the caller's render budget spent, a freehand sketch)."""
    if diagram_type == FREEHAND:
        return {"draws": None, "error": _("Freehand sketches are not drawn by this server's engines.")}
    try:
        verdict = rendering.check(IMAGE_TYPES.get(diagram_type, diagram_type), source)
    except AppError as refusal:
        return {"draws": None, "error": _drawing_problem(refusal)}
    if verdict.draws:
        return {"draws": True}
    return {"draws": False, "error": verdict.error, **({"line": verdict.line} if verdict.line else {})}


def validate_diagram(caller, arguments):
    caller.spend("RENDER")
    diagram_type = arguments["diagram_type"].strip().lower()
    verdict = rendering.check(IMAGE_TYPES.get(diagram_type, diagram_type), arguments["source"])
    if verdict.draws:
        return {"valid": True}
    return {"valid": False, "error": verdict.error, **({"line": verdict.line} if verdict.line else {})}


def render_diagram(caller, arguments):
    fmt, theme = arguments.get("format", "svg"), arguments.get("theme", "light")
    if "diagram_id" in arguments:
        if "source" in arguments or "diagram_type" in arguments:
            raise InvalidArguments([_("Give diagram_id, or diagram_type and source, not both.")])
        diagram = access.diagram(caller.user, arguments["diagram_id"], VIEWER)
        diagram_id, image = diagram.id, ImageRequest(diagram.diagram_type, diagram.content or "", fmt, theme)
    else:
        diagram_id, image = None, ImageRequest(arguments["diagram_type"], arguments["source"], fmt, theme)
    caller.spend("RENDER")
    body, complete = draw(image, image_etag(image))
    data = body if isinstance(body, bytes) else body.encode("utf-8")
    structured = {"format": fmt, "mime_type": MIME_TYPES[fmt], "bytes": len(data), "complete": complete,
                  "diagram_type": image.kind, "diagram_id": diagram_id}
    if fmt == "png":
        block = {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": MIME_TYPES[fmt]}
    else:  # SVG as text: every client shows it and a model reads it (not all take image/svg+xml images)
        block = {"type": "text", "text": body}
    return Outcome(structured, [block])


def diagram_types(_caller, _arguments):
    return {"types": [{**engine, "extension": SOURCE_EXTENSIONS.get(engine["type"], PLAIN_TEXT_EXTENSION),
                       "syntax": SYNTAX.get(engine["type"], "")} for engine in rendering.engines()]}
