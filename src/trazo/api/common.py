"""Schemas and helpers shared by every area."""
import math

import marshmallow as ma
from flask_babel import gettext as _
from marshmallow import EXCLUDE, ValidationError

from ..core.history.changes import etag
from .fields import IfMatch


def _holds_nul(value):
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(key) or _holds_nul(item) for key, item in value.items())
    return isinstance(value, (list, tuple)) and any(_holds_nul(item) for item in value)


class BaseSchema(ma.Schema):
    """Unknown fields are dropped, never an error and never stored (docs/api.md)."""

    class Meta:
        unknown = EXCLUDE

    @ma.pre_load
    def refuse_nul_characters(self, data, **_kwargs):
        """PostgreSQL text cannot hold NUL: refuse it as bad input instead of failing in the database."""
        if _holds_nul(data):
            raise ValidationError(_("Must not contain NUL characters."))
        return data


class NormalizedEmail(ma.fields.Email):
    """An e-mail address, trimmed and lower-cased before validation."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str):
            value = value.strip().lower()
        return super()._deserialize(value, attr, data, **kwargs)


class Timestamp(ma.fields.DateTime):
    """ISO 8601 in UTC with offset."""

    def __init__(self, **kwargs):
        super().__init__(format="iso", **kwargs)


class MessageSchema(BaseSchema):
    message = ma.fields.String(required=True)


MAX_PAGE = 1_000_000  # keeps the offset a 64-bit integer on every database


class PageQuerySchema(BaseSchema):
    page = ma.fields.Integer(load_default=1, validate=ma.validate.Range(min=1, max=MAX_PAGE))
    page_size = ma.fields.Integer(load_default=20, validate=ma.validate.Range(min=1, max=100))


class PageSchema(BaseSchema):
    """The page fields the browser client reads (docs/api.md); subclasses add `items`."""

    total = ma.fields.Integer(required=True)
    page = ma.fields.Integer(required=True)
    page_size = ma.fields.Integer(required=True)
    total_pages = ma.fields.Integer(required=True)


def page_envelope(items, total, page, page_size):
    """The page shape the browser client reads: items, total, page, page_size, total_pages."""
    return {"items": items, "total": total, "page": page, "page_size": page_size,
            "total_pages": math.ceil(total / page_size) if total else 0}


def not_blank(value):
    if not value or not value.strip():
        raise ValidationError(_("Must not be blank."))


class LoginResultSchema(BaseSchema):
    """What a sign-in answers (/users/login, the OAuth callback): an access token, or an MFA challenge."""

    access_token = ma.fields.String()
    token_type = ma.fields.String()
    mfa_enabled = ma.fields.Boolean()
    mfa_required = ma.fields.Boolean()
    mfa_token = ma.fields.String()
    mfa_default_method = ma.fields.String(allow_none=True)
    available_methods = ma.fields.List(ma.fields.String())


class PreconditionHeadersSchema(BaseSchema):
    """The If-Match header of a write that must not overwrite a newer version (docs/history.md)."""

    if_match = IfMatch(data_key="If-Match", load_default=None,
                       metadata={"description": 'the ETag read with the diagram (e.g. "7"), or *'})


def with_etag(diagram):
    """A view's answer of `diagram` with its ETag header (its version)."""
    return diagram, {"ETag": etag(diagram)}


class ImageQuerySchema(BaseSchema):
    theme = ma.fields.String(load_default="light", validate=ma.validate.OneOf(("light", "dark")),
                             metadata={"description": "Mermaid's theme; other languages ignore it"})


class ConditionalHeadersSchema(BaseSchema):
    """The If-None-Match header of a conditional read: 304 when it names the current ETag."""

    if_none_match = ma.fields.String(data_key="If-None-Match", load_default=None)
