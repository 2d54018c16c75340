"""Audit log schemas."""
import marshmallow as ma

from ...core.accounts.audit import EVENTS
from ..common import BaseSchema, NormalizedEmail, PageQuerySchema, PageSchema, Timestamp


class AuditQuerySchema(PageQuerySchema):
    event = ma.fields.String(validate=ma.validate.OneOf(EVENTS))
    user_id = ma.fields.String(validate=ma.validate.Length(max=36))
    email = NormalizedEmail()


class AuditEntrySchema(BaseSchema):
    id = ma.fields.String(required=True)
    event = ma.fields.String(required=True)
    user_id = ma.fields.String(allow_none=True)
    user_email = ma.fields.String(attribute="email", allow_none=True)
    ip_address = ma.fields.String(allow_none=True)
    details = ma.fields.Dict(allow_none=True)
    request_id = ma.fields.String(allow_none=True, metadata={"description": "X-Request-ID of the request that "
                                                                          "wrote the entry (also in the logs)"})
    created_at = Timestamp(required=True)


class AuditPageSchema(PageSchema):
    items = ma.fields.List(ma.fields.Nested(AuditEntrySchema), required=True)
