"""What the files API adds to the path rules of core/content/paths.py (docs/files-api.md): the type a new
file of each extension gets, and whether a content can be that type's source.
"""
from flask_babel import gettext as _

from ...archive.sketch import NotImportable, is_sketch, load_json
from ...core.content.diagram_types import FREEHAND, PLAIN_TEXT_EXTENSION
from ...core.content.limits import content_caps
from ...core.content.paths import BadPath, extension_of
from ...models.content import utf8_size

# The type a new file of each extension gets (.txt names its type in a JSON body; .puml may be C4).
EXTENSION_TYPES = {".mmd": "mermaid", ".puml": "plantuml", ".d2": "d2", ".dbml": "dbml", ".dot": "graphviz",
                   ".freehand.json": FREEHAND}
C4_PROBE_CHARS = 64 * 1024


def looks_like_c4(content):
    """Whether a PlantUML source includes the C4 library (it is then C4-PlantUML)."""
    for line in content[:C4_PROBE_CHARS].splitlines():
        stripped = line.strip().lower()
        if stripped.startswith("!include") and "c4" in stripped:
            return True
    return False


def resolve_type(target, content, requested=None, existing=None):
    """The type a file written at `target` takes: the one asked for (it must be written with this
    extension), else the existing diagram's, else the extension's (C4 for a .puml including C4)."""
    if requested is not None:
        if extension_of(requested) != target.extension:
            raise BadPath(_("A %(type)s diagram is written as %(extension)s, not %(given)s.", type=requested,
                            extension=extension_of(requested), given=target.extension), "value_error.type")
        return requested
    if existing is not None:
        return existing
    if target.extension == ".puml":
        return "c4plantuml" if looks_like_c4(content) else "plantuml"
    if target.extension == PLAIN_TEXT_EXTENSION:
        raise BadPath(_("A .txt file needs its diagram type: send a JSON body with \"type\"."), "value_error.type")
    return EXTENSION_TYPES[target.extension]


def check_content(content, diagram_type):
    """BadPath when `content` cannot be this type's source: over its cap, or a sketch that is not sketch
    JSON. Returns its UTF-8 size."""
    size, limit = utf8_size(content), content_caps().limit(diagram_type)
    if size > limit:
        raise BadPath(_("The content is too large: %(size)s bytes, at most %(limit)s bytes for this diagram type.",
                        size=size, limit=limit), "string_too_long")
    if "\x00" in content:
        raise BadPath(_("Must not contain NUL characters."), "value_error.content")
    if diagram_type == FREEHAND:
        try:
            sketch = is_sketch(load_json(content))
        except NotImportable:
            sketch = False
        if not sketch:
            raise BadPath(_("A freehand sketch must be sketch JSON: an object with an \"elements\" list."),
                          "value_error.content")
    return size
