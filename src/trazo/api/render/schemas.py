"""Render request schema (the source's size is checked against RENDER_MAX_SOURCE_BYTES by the service)."""
import marshmallow as ma

from ..common import BaseSchema, not_blank


class RenderSchema(BaseSchema):
    source = ma.fields.String(required=True, validate=not_blank)
    diagram_type = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=50))
