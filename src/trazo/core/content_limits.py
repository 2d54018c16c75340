"""How large one diagram's content may be: a UTF-8 byte cap per type, sketches (which embed images)
having their own."""
from flask import current_app
from flask_babel import gettext as _

from ..errors import ValidationFailed
from ..models.content import utf8_size
from .diagram_types import FREEHAND


def content_limit(diagram_type):
    setting = "MAX_SKETCH_CONTENT_BYTES" if diagram_type == FREEHAND else "MAX_DIAGRAM_CONTENT_BYTES"
    return current_app.config[setting]


def content_fits(content, diagram_type):
    return utf8_size(content) <= content_limit(diagram_type)


def ensure_content_fits(content, diagram_type):
    """A 422 on body.content when `content` is over the cap of `diagram_type`."""
    size, limit = utf8_size(content), content_limit(diagram_type)
    if size > limit:
        raise ValidationFailed("content", _("The content is too large: %(size)s bytes, at most %(limit)s bytes "
                                            "for this diagram type.", size=size, limit=limit),
                               "string_too_long")
