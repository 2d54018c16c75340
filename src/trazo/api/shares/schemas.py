"""Shared-link schemas, one per direction."""
import marshmallow as ma
from flask_babel import gettext as _
from marshmallow import ValidationError, post_dump

from ...models.sharing import ACCESS_PROTECTED, ACCESS_PUBLIC
from ..common import BaseSchema, Timestamp, not_blank
from ..compiled_dump import CompiledDump

EXPIRATION_DAYS = (5, 10, 30)
DEFAULT_EXPIRATION_DAYS = 30
ACCESS_TYPES = (ACCESS_PUBLIC, ACCESS_PROTECTED)
CODE_LENGTH = ma.validate.Length(min=4, max=20)


def _expiration_days(value):
    if value is not None and value not in EXPIRATION_DAYS:
        raise ValidationError(_("Must be 5, 10, 30 or null (never expires)."))


def _access_code(value):
    not_blank(value)
    if value != value.strip():
        raise ValidationError(_("Must not start or end with spaces."))


class SharedLinkCreateSchema(BaseSchema):
    diagram_id = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=64))
    expiration_days = ma.fields.Integer(allow_none=True, load_default=DEFAULT_EXPIRATION_DAYS,
                                        validate=_expiration_days, strict=True)
    access_type = ma.fields.String(load_default=ACCESS_PUBLIC, validate=ma.validate.OneOf(ACCESS_TYPES))
    access_code = ma.fields.String(allow_none=True, load_default=None, validate=[CODE_LENGTH, _access_code])
    allow_copy_code = ma.fields.Boolean(load_default=False)


class SharedLinkUpdateSchema(BaseSchema):
    """Every field optional; `expiration_days: null` means "never expires" (not "unchanged")."""

    expiration_days = ma.fields.Integer(allow_none=True, validate=_expiration_days, strict=True)
    access_type = ma.fields.String(validate=ma.validate.OneOf(ACCESS_TYPES))
    access_code = ma.fields.String(validate=[CODE_LENGTH, _access_code])
    allow_copy_code = ma.fields.Boolean()


class SharedLinkSchema(BaseSchema):
    id = ma.fields.String(required=True)
    diagram_id = ma.fields.String(required=True)
    token = ma.fields.String(required=True)
    share_url = ma.fields.String(required=True)
    access_type = ma.fields.String(required=True)
    access_code = ma.fields.String(allow_none=True, metadata={
        "description": "The plain code, only in the answer that set or generated it"})
    allow_copy_code = ma.fields.Boolean(required=True)
    expires_at = Timestamp(allow_none=True)
    is_active = ma.fields.Boolean(required=True)
    created_at = Timestamp()
    updated_at = Timestamp()


class OptionalSharedLinkSchema(SharedLinkSchema):
    """A link, or JSON null when there is none."""

    @post_dump(pass_original=True)
    def null_without_link(self, data, original, **_kwargs):
        return None if original is None else data


class SharedLinkInfoSchema(BaseSchema):
    requires_code = ma.fields.Boolean(required=True, attribute="link.is_protected")
    is_expired = ma.fields.Boolean(required=True, attribute="link.is_expired")
    diagram_title = ma.fields.String(required=True, attribute="diagram.title")


class SharedDiagramSchema(CompiledDump, BaseSchema):
    title = ma.fields.String(required=True)
    description = ma.fields.String(allow_none=True)
    content = ma.fields.String(allow_none=True, metadata={"description": "The source, when copying is allowed"})
    diagram_type = ma.fields.String(required=True)
    rendered_content = ma.fields.String(required=True, metadata={"description": "The source the viewer draws"})
    config = ma.fields.Dict()
    allow_copy_code = ma.fields.Boolean(required=True)
    owner_name = ma.fields.String(allow_none=True, metadata={
        "description": "The owner's full name; null when the owner has none"})


class VerifyCodeSchema(BaseSchema):
    access_code = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=20))


class VerifiedDiagramSchema(SharedDiagramSchema):
    access_token = ma.fields.String(required=True, metadata={
        "description": "Send as header `X-Share-Access` (or query `access_token`) to read this link again"})
    access_token_expires_in = ma.fields.Integer(required=True, metadata={"description": "Seconds"})


class ShareAccessQuerySchema(BaseSchema):
    access_token = ma.fields.String(validate=ma.validate.Length(max=1024))


class ShareAccessHeaderSchema(BaseSchema):
    access_token = ma.fields.String(data_key="X-Share-Access", validate=ma.validate.Length(max=1024))
