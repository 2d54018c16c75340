"""Comment schemas, one per direction (docs/comments.md)."""
import marshmallow as ma
from flask_babel import gettext as _
from marshmallow import ValidationError

from ...core.comments.threads import OPEN, STATUSES
from ...models.comments import ANCHOR_DIAGRAM, ANCHOR_ELEMENT, ANCHOR_LINES, BODY_MAX
from ..common import BaseSchema, PageQuerySchema, PageSchema, Timestamp

ELEMENT_ID_MAX = 200
LINE_MAX = 2_147_483_647


class Body(ma.fields.String):
    """Plain text of 1 to BODY_MAX characters, stored as written (never rendered as HTML by us)."""

    def __init__(self, **kwargs):
        super().__init__(required=True, validate=ma.validate.Length(min=1, max=BODY_MAX), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if not text.strip():
            raise ValidationError(_("Must not be blank."))
        return text


class AnchorSchema(BaseSchema):
    type = ma.fields.String(load_default=ANCHOR_DIAGRAM,
                            validate=ma.validate.OneOf((ANCHOR_DIAGRAM, ANCHOR_LINES, ANCHOR_ELEMENT)))
    start_line = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=1, max=LINE_MAX),
                                   metadata={"description": "lines: the first line, 1-based"})
    end_line = ma.fields.Integer(strict=True, validate=ma.validate.Range(min=1, max=LINE_MAX),
                                 metadata={"description": "lines: the last line, inclusive"})
    element_id = ma.fields.String(validate=ma.validate.Length(min=1, max=ELEMENT_ID_MAX),
                                  metadata={"description": "element: a sketch element id or a node identifier"})

    @ma.validates_schema
    def fits_its_type(self, data, **_kwargs):
        if data["type"] == ANCHOR_LINES:
            missing = [name for name in ("start_line", "end_line") if name not in data]
            if missing:
                raise ValidationError({name: [_("Missing data for required field.")] for name in missing})
            if data["start_line"] > data["end_line"]:
                raise ValidationError({"end_line": [_("Must not be before start_line.")]})
        if data["type"] == ANCHOR_ELEMENT and "element_id" not in data:
            raise ValidationError({"element_id": [_("Missing data for required field.")]})


class CommentCreateSchema(BaseSchema):
    body = Body()
    anchor = ma.fields.Nested(AnchorSchema, load_default=None)


class CommentBodySchema(BaseSchema):
    body = Body()


class CommentQuerySchema(PageQuerySchema):
    status = ma.fields.String(load_default=OPEN, validate=ma.validate.OneOf(STATUSES))


class CommentPersonSchema(BaseSchema):
    id = ma.fields.String()
    full_name = ma.fields.String(allow_none=True)


class MentionSchema(BaseSchema):
    user_id = ma.fields.String()
    full_name = ma.fields.String(allow_none=True)


class CommentSchema(BaseSchema):
    id = ma.fields.String()
    diagram_id = ma.fields.String()
    parent_id = ma.fields.String(allow_none=True)
    author = ma.fields.Nested(CommentPersonSchema, allow_none=True,
                              metadata={"description": "null once the account is gone"})
    body = ma.fields.String()
    anchor = ma.fields.Dict(metadata={
        "description": "type diagram, lines (start_line, end_line as made; current_start_line, current_end_line, "
                       "outdated, quote, revision) or element (element_id, outdated)"})
    mentions = ma.fields.List(ma.fields.Nested(MentionSchema))
    created_at = Timestamp()
    updated_at = Timestamp()
    resolved = ma.fields.Boolean()
    resolved_by = ma.fields.Nested(CommentPersonSchema, allow_none=True)
    resolved_at = Timestamp(allow_none=True)


class ThreadSchema(CommentSchema):
    replies = ma.fields.List(ma.fields.Nested(CommentSchema))


class ThreadPageSchema(PageSchema):
    items = ma.fields.List(ma.fields.Nested(ThreadSchema), required=True)
