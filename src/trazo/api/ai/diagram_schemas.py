"""Request and response schemas of AI repair (fix) and conversion (convert)."""
import marshmallow as ma

from ..common import BaseSchema
from .generation_schemas import MAX_CODE, code_field
from .schemas import ProviderChoice


class FixRequestSchema(ProviderChoice):
    error_context = ma.fields.String(allow_none=True, load_default=None,
                                     validate=ma.validate.Length(max=5_000))
    diagram_code = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=MAX_CODE),
                                    metadata={"description": "Code to repair instead of the stored one "
                                                             "(e.g. unsaved editor text)"})


class FixResultSchema(BaseSchema):
    original_code = ma.fields.String(required=True)
    corrected_code = ma.fields.String(required=True)
    explanation = ma.fields.String(required=True)
    changes_summary = ma.fields.String(required=True)
    diff = ma.fields.String(required=True, metadata={"description": "Unified diff original -> corrected"})
    provider_used = ma.fields.String(required=True)
    model_used = ma.fields.String(required=True)
    generation_time = ma.fields.Float(required=True)
    validation_passed = ma.fields.Boolean(required=True)


class ConvertRequestSchema(ProviderChoice):
    diagram_code = code_field(required=True)
    source_type = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=32))
    target_type = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=32))
    model = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(min=1, max=200))


class ConvertResultSchema(BaseSchema):
    original_code = ma.fields.String(required=True)
    converted_code = ma.fields.String(required=True)
    source_type = ma.fields.String(required=True)
    target_type = ma.fields.String(required=True)
    provider_used = ma.fields.String(required=True)
    model_used = ma.fields.String(required=True)
    generation_time = ma.fields.Float(required=True)
    warning = ma.fields.String(allow_none=True)
