"""Render request schema."""
import marshmallow as ma

from ..common import BaseSchema, not_blank

MAX_SOURCE_CHARS = 100_000


class RenderSchema(BaseSchema):
    source = ma.fields.String(required=True, validate=[ma.validate.Length(max=MAX_SOURCE_CHARS), not_blank])
    diagram_type = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=50))
