"""Prompt-history schemas, one per direction."""
import marshmallow as ma

from ...models.ai import OPERATION_TYPES
from ..common import BaseSchema, PageQuerySchema, PageSchema, Timestamp, not_blank

MAX_PROMPT_CHARS = 5000


class PromptHistoryQuerySchema(PageQuerySchema):
    search = ma.fields.String(validate=ma.validate.Length(max=200))
    diagram_id = ma.fields.String(validate=ma.validate.Length(max=64))


class PromptHistoryCreateSchema(BaseSchema):
    prompt_text = ma.fields.String(required=True, validate=[ma.validate.Length(max=MAX_PROMPT_CHARS), not_blank])
    operation_type = ma.fields.String(required=True, validate=ma.validate.OneOf(OPERATION_TYPES))
    diagram_id = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=64))


class PromptHistorySchema(BaseSchema):
    id = ma.fields.String(required=True)
    diagram_id = ma.fields.String(allow_none=True)
    prompt_text = ma.fields.String(required=True)
    operation_type = ma.fields.String(required=True)
    created_at = Timestamp()
    used_at = Timestamp()


class PromptHistoryPageSchema(PageSchema):
    items = ma.fields.List(ma.fields.Nested(PromptHistorySchema), required=True)
