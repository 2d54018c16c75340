"""Revision schemas, one per direction."""
import marshmallow as ma
from flask_babel import gettext as _
from marshmallow import ValidationError

from ...core.history.browse import CURRENT
from ...core.history.revisions import decompress
from ...models.history import LABEL_MAX
from ..common import BaseSchema, PageSchema, Timestamp
from ..fields import Name


class LabelCreateSchema(BaseSchema):
    label = Name(max_length=LABEL_MAX, required=True)


class OptionalLabel(ma.fields.String):
    """A trimmed label of at most LABEL_MAX characters; null or a blank text clears it."""

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs).strip()
        ma.validate.Length(max=LABEL_MAX)(text)
        return text or None


class LabelUpdateSchema(BaseSchema):
    label = OptionalLabel(required=True, allow_none=True)


def _against(value):
    if value != CURRENT and not (value.isascii() and value.isdigit() and 0 < len(value) <= 9):
        raise ValidationError(_('Must be a revision number or "current".'))


class DiffQuerySchema(BaseSchema):
    against = ma.fields.String(load_default=None, validate=_against, metadata={
        "description": 'a revision number or "current"; by default the revision before this one'})


class AuthorSchema(BaseSchema):
    id = ma.fields.String()
    full_name = ma.fields.String(allow_none=True)


def _author(revision):
    """{id, full_name} of the revision's author (read with the revision), null once the account is gone."""
    if revision.author_id is None:
        return None
    return AuthorSchema().dump({"id": revision.author_id, "full_name": revision.author_name})


class RevisionSummarySchema(BaseSchema):
    number = ma.fields.Integer()
    title = ma.fields.String()
    diagram_type = ma.fields.String()
    source = ma.fields.String(metadata={"description": "create, edit, restore, import, duplicate, api or mcp"})
    label = ma.fields.String(allow_none=True)
    author_id = ma.fields.String(allow_none=True)
    author = ma.fields.Function(_author, metadata={"description": "{id, full_name}; null when the account is gone"})
    size = ma.fields.Integer(attribute="content_size", metadata={"description": "UTF-8 bytes of the content"})
    stored_size = ma.fields.Integer(metadata={"description": "compressed bytes counted by the storage quota"})
    content_hash = ma.fields.String(metadata={"description": "SHA-256 of the content (UTF-8), hex"})
    lines_added = ma.fields.Integer(metadata={"description": "against the previous revision"})
    lines_removed = ma.fields.Integer(metadata={"description": "against the previous revision"})
    created_at = Timestamp()
    updated_at = Timestamp(metadata={"description": "the last autosave this revision took in"})


class RevisionSchema(RevisionSummarySchema):
    content = ma.fields.Function(lambda revision: decompress(revision.content))


class RevisionPageSchema(PageSchema):
    items = ma.fields.List(ma.fields.Nested(RevisionSummarySchema), required=True)


class DiffSideSchema(BaseSchema):
    number = ma.fields.Integer(allow_none=True, metadata={"description": "null: the diagram as it is now"})
    title = ma.fields.String()
    diagram_type = ma.fields.String()
    label = ma.fields.String(allow_none=True)


class SketchChangesSchema(BaseSchema):
    elements_added = ma.fields.List(ma.fields.String())
    elements_removed = ma.fields.List(ma.fields.String())
    elements_changed = ma.fields.List(ma.fields.String())
    added_count = ma.fields.Integer()
    removed_count = ma.fields.Integer()
    changed_count = ma.fields.Integer()
    truncated = ma.fields.Boolean(metadata={"description": "true when an id list was cut (counts stay exact)"})


class DiffSchema(BaseSchema):
    from_ = ma.fields.Nested(DiffSideSchema, data_key="from", attribute="from")
    to = ma.fields.Nested(DiffSideSchema)
    diff = ma.fields.String(metadata={"description": "unified diff of the contents, from `from` to `to`"})
    lines_added = ma.fields.Integer()
    lines_removed = ma.fields.Integer()
    sketch = ma.fields.Nested(SketchChangesSchema, allow_none=True, metadata={
        "description": "freehand sketches: elements added, removed and changed, by id"})
