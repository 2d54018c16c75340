"""Billing schemas, one per direction: plans, subscriptions, usage, checkout, invoices and the webhook's answer.

The responses dump rows (Plan, Subscription, Invoice) or the small dataclasses of plans.py and service.py;
amounts are kept in minor units (cents) and shown in major units.
"""
from decimal import ROUND_HALF_UP, Decimal

import marshmallow as ma
from flask_babel import gettext as _

from ...core.billing.money import to_major
from ..common import BaseSchema, Timestamp, not_blank

MAX_AMOUNT = Decimal("999999.99")
MAX_LIMIT = 1_000_000
STORAGE_DOC = {"description": "MiB of diagram content, descriptions and history (compressed); "
                              "-1 or null = unlimited"}
REVISIONS_DOC = {"description": "revisions kept per diagram before the oldest unlabelled ones are pruned; "
                                "-1 or null = unlimited"}
LABELLED_DOC = {"description": "named revisions a diagram may hold (they are never pruned; one more is refused "
                               "with 409); -1 or null = unlimited"}
MEMBERS_DOC = {"description": "members of each team workspace whose billing owner has the plan, owners included "
                              "(docs/teams.md); -1 or null = unlimited"}


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
    max_revisions_per_diagram = limit_field(load_default=None, metadata=REVISIONS_DOC)
    max_labelled_revisions_per_diagram = limit_field(load_default=None, metadata=LABELLED_DOC)
    max_members = limit_field(load_default=None, metadata=MEMBERS_DOC)
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
    max_revisions_per_diagram = limit_field(metadata=REVISIONS_DOC)
    max_labelled_revisions_per_diagram = limit_field(metadata=LABELLED_DOC)
    max_members = limit_field(metadata=MEMBERS_DOC)
    prices = _prices()
    is_active = ma.fields.Boolean()


class PlanPriceCreateSchema(BaseSchema):
    currency = ma.fields.String(required=True, validate=ma.validate.Length(equal=3))
    amount = amount_field(required=True, minimum=Decimal("0.01"))


class MajorAmount(ma.fields.Float):
    """A USD amount kept in minor units, shown in major units."""

    def _serialize(self, value, attr, obj, **kwargs):
        return to_major(value)


class Prices(ma.fields.Dict):
    """Minor units per currency, shown in major units."""

    def _serialize(self, value, attr, obj, **kwargs):
        return {currency: to_major(amount, currency) for currency, amount in value.items()}


class PlanSchema(BaseSchema):
    """Dumps a Plan row (or the administrators' plan of service.py)."""

    id = ma.fields.String(allow_none=True)
    name = ma.fields.String()
    code = ma.fields.String(allow_none=True)
    description = ma.fields.String(allow_none=True)
    price_usd = MajorAmount(attribute="base_amount")
    max_projects = ma.fields.Integer(allow_none=True, metadata={"description": "null = unlimited"})
    max_diagrams = ma.fields.Integer(allow_none=True, metadata={"description": "null = unlimited"})
    max_storage_mb = ma.fields.Integer(allow_none=True, metadata={"description": "MiB; null = unlimited"})
    max_revisions_per_diagram = ma.fields.Integer(allow_none=True, metadata=REVISIONS_DOC)
    max_labelled_revisions_per_diagram = ma.fields.Integer(allow_none=True, metadata=LABELLED_DOC)
    max_members = ma.fields.Integer(allow_none=True, metadata={
        "description": "members of each team workspace billed to a subscriber (owners included); null = unlimited"})
    is_active = ma.fields.Boolean()
    is_free = ma.fields.Boolean()
    prices = Prices(attribute="amounts", keys=ma.fields.String(), values=ma.fields.Float(),
                    metadata={"description": "monthly price per currency"})
    created_at = Timestamp(allow_none=True)
    updated_at = Timestamp(allow_none=True)


class GatewayConfigSchema(BaseSchema):
    """Dumps the gateway columns of a Plan row."""

    provider = ma.fields.String(allow_none=True, attribute="gateway_provider")
    external_product_id = ma.fields.String(allow_none=True, attribute="gateway_product_id")
    external_price_id = ma.fields.String(allow_none=True, attribute="gateway_price_id")


class AdminPlanSchema(PlanSchema):
    """Dumps an AdminPlan (plans.py)."""

    active_subscriptions = ma.fields.Integer()
    gateway_config = ma.fields.Nested(GatewayConfigSchema, attribute="plan")


class PlanDeletedSchema(BaseSchema):
    message = ma.fields.String(required=True)
    plan_id = ma.fields.String()
    deleted = ma.fields.Boolean()
    active_subscriptions_maintained = ma.fields.Integer()


class SubscriptionSchema(BaseSchema):
    """Dumps a Subscription row or an ImplicitSubscription (service.py)."""

    id = ma.fields.String(allow_none=True, metadata={"description": "null for the implicit free plan"})
    user_id = ma.fields.String()
    plan = ma.fields.Nested(PlanSchema)
    status = ma.fields.String(metadata={"description": "active, pending, payment_failed, cancelled or expired"})
    payment_provider = ma.fields.String(allow_none=True)
    stripe_customer_id = ma.fields.String(allow_none=True)
    stripe_subscription_id = ma.fields.String(allow_none=True)
    started_at = Timestamp(allow_none=True)
    current_period_start = Timestamp(allow_none=True)
    current_period_end = Timestamp(allow_none=True)
    cancel_at_period_end = ma.fields.Boolean()
    cancelled_at = Timestamp(allow_none=True)
    created_at = Timestamp(allow_none=True)
    updated_at = Timestamp(allow_none=True)


class UsageCounterSchema(BaseSchema):
    current = ma.fields.Integer()
    limit = ma.fields.Integer(allow_none=True, metadata={"description": "null = unlimited"})


class UsagePercentageSchema(BaseSchema):
    projects = ma.fields.Float()
    diagrams = ma.fields.Float()
    storage = ma.fields.Float()


class StorageBreakdownSchema(BaseSchema):
    content_bytes = ma.fields.Integer(metadata={"description": "UTF-8 bytes of diagram contents and descriptions"})
    history_bytes = ma.fields.Integer(metadata={"description": "bytes of the revisions as stored (compressed)"})
    overhead_bytes = ma.fields.Integer(metadata={"description": "the fixed cost of each diagram, folder and "
                                                                "revision row (docs/security.md)"})
    folders = ma.fields.Integer()
    revisions = ma.fields.Integer()


class UsageSchema(BaseSchema):
    plan_name = ma.fields.String()
    projects = ma.fields.Nested(UsageCounterSchema)
    diagrams = ma.fields.Nested(UsageCounterSchema)
    storage = ma.fields.Nested(UsageCounterSchema, metadata={
        "description": "bytes: content, descriptions, history and the overhead of each row (storage_breakdown)"})
    storage_breakdown = ma.fields.Nested(StorageBreakdownSchema)
    usage_percentage = ma.fields.Nested(UsagePercentageSchema)


class CheckoutSchema(BaseSchema):
    plan_id = ma.fields.String(required=True)


class CheckoutResultSchema(BaseSchema):
    session_id = ma.fields.String(allow_none=True)
    session_url = ma.fields.String(allow_none=True, metadata={"description": "where the browser goes to pay"})
    message = ma.fields.String(allow_none=True, metadata={"description": "set when the plan changed at once"})


class CancelQuerySchema(BaseSchema):
    immediate = ma.fields.Boolean(load_default=False)


class CancelResultSchema(BaseSchema):
    message = ma.fields.String(required=True)
    cancel_at = Timestamp(allow_none=True)
    access_until = Timestamp(allow_none=True)
    immediate = ma.fields.Boolean()


class PortalSessionSchema(BaseSchema):
    session_id = ma.fields.String()
    session_url = ma.fields.String()


class BillingHistoryQuerySchema(BaseSchema):
    limit = ma.fields.Integer(load_default=10, validate=ma.validate.Range(min=1, max=100))


class InvoiceAmount(ma.fields.Float):
    """What an invoice bills, in major units: the amount paid once it is paid, else the amount due."""

    _CHECK_ATTRIBUTE = False

    def _serialize(self, value, attr, invoice, **kwargs):
        return to_major(invoice.amount_paid if invoice.status == "paid" else invoice.amount_due, invoice.currency)


class CurrencyCode(ma.fields.String):
    """A currency kept in lower case, shown in upper case."""

    def _serialize(self, value, attr, obj, **kwargs):
        return value.upper()


class InvoiceDescription(ma.fields.String):
    """The invoice's description, else a generic one."""

    def _serialize(self, value, attr, obj, **kwargs):
        return value or _("Subscription payment")


class InvoiceSchema(BaseSchema):
    """Dumps an Invoice row."""

    id = ma.fields.String(attribute="stripe_invoice_id")
    amount = InvoiceAmount()
    currency = CurrencyCode()
    status = ma.fields.String(allow_none=True)
    description = InvoiceDescription()
    invoice_pdf = ma.fields.String(allow_none=True)
    hosted_invoice_url = ma.fields.String(allow_none=True)
    created_at = Timestamp(allow_none=True, attribute="issued_at")
    paid_at = Timestamp(allow_none=True)


class BillingHistorySchema(BaseSchema):
    invoices = ma.fields.List(ma.fields.Nested(InvoiceSchema))
    total_count = ma.fields.Integer()


class PdfUrlSchema(BaseSchema):
    pdf_url = ma.fields.String()


class WebhookResultSchema(BaseSchema):
    status = ma.fields.String(metadata={"description": "processed, duplicate (already handled) or ignored"})
