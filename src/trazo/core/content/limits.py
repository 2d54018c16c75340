"""The bounds of a project's content: how long a name may be, the color format of a folder, and how large
one diagram's content may be (a UTF-8 byte cap per type, sketches, which embed images, having their own)."""
import re
from dataclasses import dataclass

from flask import current_app
from flask_babel import gettext as _

from ...errors import ValidationFailed
from ...models.content import utf8_size
from .diagram_types import FREEHAND

NAME_MAX = 100
HEX_COLOR = re.compile(r"^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")


@dataclass(frozen=True)
class ContentCaps:
    """The content caps in bytes: `sketch` for freehand sketches, `diagram` for every other type."""

    diagram: int
    sketch: int

    def limit(self, diagram_type):
        return self.sketch if diagram_type == FREEHAND else self.diagram

    def fits(self, content, diagram_type):
        return utf8_size(content) <= self.limit(diagram_type)


def content_caps():
    """The caps of this application's settings (MAX_DIAGRAM_CONTENT_BYTES, MAX_SKETCH_CONTENT_BYTES)."""
    config = current_app.config
    return ContentCaps(diagram=config["MAX_DIAGRAM_CONTENT_BYTES"], sketch=config["MAX_SKETCH_CONTENT_BYTES"])


def ensure_content_fits(content, diagram_type):
    """A 422 on body.content when `content` is over the cap of `diagram_type`."""
    size, limit = utf8_size(content), content_caps().limit(diagram_type)
    if size > limit:
        raise ValidationFailed("content", _("The content is too large: %(size)s bytes, at most %(limit)s bytes "
                                            "for this diagram type.", size=size, limit=limit),
                               "string_too_long")
