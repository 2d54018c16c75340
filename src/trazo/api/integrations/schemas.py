"""Administrator integrations schemas, one per direction."""
import marshmallow as ma

from ...core.vendors import CATEGORIES
from ..common import BaseSchema, Timestamp, not_blank


class VendorQuerySchema(BaseSchema):
    category = ma.fields.String(validate=ma.validate.OneOf(CATEGORIES))


class VendorCreateSchema(BaseSchema):
    vendor_type = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=32))
    category = ma.fields.String(required=True, validate=ma.validate.OneOf(CATEGORIES))
    display_name = ma.fields.String(load_default=None, allow_none=True,
                                    validate=[ma.validate.Length(max=200), not_blank])
    config = ma.fields.Dict(keys=ma.fields.String(), required=True)


class VendorUpdateSchema(BaseSchema):
    display_name = ma.fields.String(validate=[ma.validate.Length(max=200), not_blank])
    config = ma.fields.Dict(keys=ma.fields.String(), allow_none=True)


class VendorSchema(BaseSchema):
    id = ma.fields.String(required=True)
    vendor_type = ma.fields.String(required=True)
    category = ma.fields.String(required=True)
    display_name = ma.fields.String(required=True)
    is_configured = ma.fields.Boolean()
    is_default = ma.fields.Boolean()
    is_active_payment = ma.fields.Boolean()
    is_active_oauth = ma.fields.Boolean()
    connection_tested = ma.fields.Boolean()
    last_test_at = Timestamp(allow_none=True)
    last_test_success = ma.fields.Boolean(allow_none=True)
    config_fields = ma.fields.List(ma.fields.String(), metadata={"description": "Names only, never values"})
    created_at = Timestamp()
    updated_at = Timestamp()


class MaskedConfigSchema(BaseSchema):
    vendor_id = ma.fields.String(required=True)
    config = ma.fields.Dict(required=True, metadata={"description": "Secrets masked: bullets and the last 4"})


class TestResultSchema(BaseSchema):
    success = ma.fields.Boolean(required=True)
    message = ma.fields.String(required=True)
    error_detail = ma.fields.String(allow_none=True)


class EmailStatusSchema(BaseSchema):
    configured_count = ma.fields.Integer()
    default_vendor = ma.fields.String(allow_none=True)
    has_default = ma.fields.Boolean()


class PaymentStatusSchema(BaseSchema):
    configured_count = ma.fields.Integer()
    active_vendor = ma.fields.String(allow_none=True)
    has_active = ma.fields.Boolean()


class OAuthStatusSchema(BaseSchema):
    configured_count = ma.fields.Integer()
    active_providers = ma.fields.List(ma.fields.String())


class IntegrationStatusSchema(BaseSchema):
    email = ma.fields.Nested(EmailStatusSchema)
    payment = ma.fields.Nested(PaymentStatusSchema)
    oauth = ma.fields.Nested(OAuthStatusSchema)
