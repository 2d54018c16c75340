"""Plan schemas, one per direction."""
from decimal import ROUND_HALF_UP, Decimal

import marshmallow as ma

from ..common import BaseSchema, Timestamp, not_blank

MAX_AMOUNT = Decimal("999999.99")
MAX_LIMIT = 1_000_000
STORAGE_DOC = {"description": "MiB of diagram content and descriptions; -1 or null = unlimited"}


class PlanCode(ma.fields.String):
    """Upper-case letters, digits, "_" and "-" (lower case is accepted and upper-cased)."""

    def _deserialize(self, value, attr, data, **kwargs):
        value = super()._deserialize(value, attr, data, **kwargs)
        return value.strip().upper()


def amount_field(**kwargs):
    minimum = kwargs.pop("minimum", Decimal("0"))
    # The metadata documents the bounds as numbers (apispec would write Decimals as strings).
    return ma.fields.Decimal(places=2, rounding=ROUND_HALF_UP, allow_nan=False,
                             validate=ma.validate.Range(min=minimum, max=MAX_AMOUNT),
                             metadata={"minimum": float(minimum), "maximum": float(MAX_AMOUNT)}, **kwargs)


def limit_field(**kwargs):
    """A plan limit: a count, or -1 / null for unlimited."""
    return ma.fields.Integer(strict=True, allow_none=True, validate=ma.validate.Range(min=-1, max=MAX_LIMIT),
                             **kwargs)


def _name(**kwargs):
    return ma.fields.String(validate=[ma.validate.Length(min=1, max=50), not_blank], **kwargs)


def _code(**kwargs):
    return PlanCode(validate=[ma.validate.Length(min=1, max=30), ma.validate.Regexp(r"^[A-Z0-9_-]+$")], **kwargs)


def _prices(**kwargs):
    return ma.fields.Dict(keys=ma.fields.String(validate=ma.validate.Regexp(r"^[A-Za-z]{3}$")),
                          values=amount_field(minimum=Decimal("0.01")), **kwargs)


class PlanCreateSchema(BaseSchema):
    name = _name(required=True)
    code = _code(required=True)
    description = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=500))
    price_usd = amount_field(required=True)
    max_projects = limit_field(load_default=None)
    max_diagrams = limit_field(load_default=None)
    max_storage_mb = limit_field(load_default=None, metadata=STORAGE_DOC)
    prices = _prices(load_default=dict)
    is_active = ma.fields.Boolean(load_default=True)


class PlanUpdateSchema(BaseSchema):
    """Only the keys sent change; null limits mean unlimited."""

    name = _name()
    code = _code()
    description = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=500))
    price_usd = amount_field()
    max_projects = limit_field()
    max_diagrams = limit_field()
    max_storage_mb = limit_field(metadata=STORAGE_DOC)
    prices = _prices()
    is_active = ma.fields.Boolean()


class PlanPriceCreateSchema(BaseSchema):
    currency = ma.fields.String(required=True, validate=ma.validate.Length(equal=3))
    amount = amount_field(required=True, minimum=Decimal("0.01"))


class PlanSchema(BaseSchema):
    id = ma.fields.String(allow_none=True)
    name = ma.fields.String()
    code = ma.fields.String(allow_none=True)
    description = ma.fields.String(allow_none=True)
    price_usd = ma.fields.Float()
    max_projects = ma.fields.Integer(allow_none=True, metadata={"description": "null = unlimited"})
    max_diagrams = ma.fields.Integer(allow_none=True, metadata={"description": "null = unlimited"})
    max_storage_mb = ma.fields.Integer(allow_none=True, metadata={"description": "MiB; null = unlimited"})
    is_active = ma.fields.Boolean()
    is_free = ma.fields.Boolean()
    prices = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Float(),
                            metadata={"description": "monthly price per currency"})
    created_at = Timestamp(allow_none=True)
    updated_at = Timestamp(allow_none=True)


class GatewayConfigSchema(BaseSchema):
    provider = ma.fields.String(allow_none=True)
    external_product_id = ma.fields.String(allow_none=True)
    external_price_id = ma.fields.String(allow_none=True)


class AdminPlanSchema(PlanSchema):
    active_subscriptions = ma.fields.Integer()
    gateway_config = ma.fields.Nested(GatewayConfigSchema)


class PlanDeletedSchema(BaseSchema):
    message = ma.fields.String(required=True)
    plan_id = ma.fields.String()
    deleted = ma.fields.Boolean()
    active_subscriptions_maintained = ma.fields.Integer()
