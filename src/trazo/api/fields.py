"""Fields shared by the content schemas (projects, folders, diagrams, files)."""
import marshmallow as ma
from flask_babel import gettext as _
from marshmallow import ValidationError
from werkzeug.http import parse_etags

from ..core.content.diagram_types import DIAGRAM_TYPES
from ..core.content.limits import HEX_COLOR, NAME_MAX
from ..core.history.changes import VersionMatch

DESCRIPTION_MAX = 50_000


class Name(ma.fields.String):
    """A trimmed, non-blank name of 1 to `max_length` characters."""

    def __init__(self, max_length=NAME_MAX, **kwargs):
        super().__init__(validate=ma.validate.Length(min=1, max=max_length), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs).strip()
        if not text:
            raise ValidationError(_("Must not be blank."))
        return text


def _known_diagram_type(value):
    if value not in DIAGRAM_TYPES:
        raise ValidationError(_("Unknown diagram type. Supported types: %(types)s.",
                                types=", ".join(sorted(DIAGRAM_TYPES))))


class DiagramType(ma.fields.String):
    """One of the known diagram types, compared case-insensitively."""

    def __init__(self, **kwargs):
        super().__init__(validate=_known_diagram_type, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        return super()._deserialize(value, attr, data, **kwargs).strip().lower()


def _hex_color(value):
    if not HEX_COLOR.match(value):
        raise ValidationError(_("Must be a hexadecimal color such as #3B82F6."))


class HexColor(ma.fields.String):
    def __init__(self, **kwargs):
        super().__init__(validate=_hex_color, **kwargs)


class IfMatch(ma.fields.String):
    """An If-Match header read as the versions it names (`*`: any); an empty header names none and is
    read as absent, as before."""

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if not text:
            return None
        etags = parse_etags(text)
        return VersionMatch(any=etags.star_tag, versions=frozenset(etags.as_set()))
