"""Diagram schemas, one per direction; the diagram output shared with projects and folders is in
api/content_schemas.py."""
import marshmallow as ma

from ...models.content import DEFAULT_DIAGRAM_TYPE, default_diagram_config
from ..common import BaseSchema, Timestamp
from ..fields import DESCRIPTION_MAX, DiagramType, Name

BACKGROUND_PATTERNS = ("plain", "dots", "grid")


class DiagramConfigSchema(BaseSchema):
    background_color = ma.fields.String(load_default="#ffffff", validate=ma.validate.Length(min=1, max=64))
    background_pattern = ma.fields.String(load_default="plain", validate=ma.validate.OneOf(BACKGROUND_PATTERNS))


class UserPreferencesSchema(BaseSchema):
    """Editor preferences of one diagram; an update replaces only the keys it sends."""

    description_pinned = ma.fields.Boolean()
    description_font_size = ma.fields.Integer(allow_none=True, validate=ma.validate.Range(min=10, max=32))
    description_panel_width = ma.fields.Integer(allow_none=True, validate=ma.validate.Range(min=280, max=700))
    chat_panel_width = ma.fields.Integer(allow_none=True, validate=ma.validate.Range(min=320, max=700))
    preferred_provider = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=64))
    preferred_model = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=200))


class DiagramCreateSchema(BaseSchema):
    title = Name(required=True)
    content = ma.fields.String(load_default="")
    description = ma.fields.String(allow_none=True, load_default="", validate=ma.validate.Length(max=DESCRIPTION_MAX))
    diagram_type = DiagramType(load_default=DEFAULT_DIAGRAM_TYPE)
    config = ma.fields.Nested(DiagramConfigSchema, load_default=default_diagram_config)
    folder_id = ma.fields.String(allow_none=True, load_default=None)


class DiagramUpdateSchema(BaseSchema):
    """Partial update: only the keys sent are written; null is refused for required fields."""

    title = Name()
    content = ma.fields.String()
    description = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=DESCRIPTION_MAX))
    diagram_type = DiagramType()
    config = ma.fields.Nested(DiagramConfigSchema)
    user_preferences = ma.fields.Nested(UserPreferencesSchema)
    folder_id = ma.fields.String(allow_none=True)
    viewport_zoom = ma.fields.Float(validate=ma.validate.Range(min=0.1, max=10.0))
    viewport_x = ma.fields.Float()
    viewport_y = ma.fields.Float()
    expected_version = ma.fields.Integer(
        strict=True, validate=ma.validate.Range(min=1, max=2**31 - 1),
        metadata={"description": "the version this save is based on: 412 when the diagram has moved on "
                                 "(like If-Match)"})


class DiagramMoveSchema(BaseSchema):
    target_project_id = ma.fields.String(required=True, validate=ma.validate.Length(min=1))


class DiagramDuplicateSchema(BaseSchema):
    title = Name(required=True)


class RecentDiagramSchema(BaseSchema):
    id = ma.fields.String()
    title = ma.fields.String()
    diagram_type = ma.fields.String()
    project_id = ma.fields.String()
    project_name = ma.fields.String()
    project_emoji = ma.fields.String()
    updated_at = Timestamp()
