"""Subscription, usage, checkout, billing history and webhook schemas, one per direction."""
import marshmallow as ma

from ..common import BaseSchema, Timestamp
from .plan_schemas import PlanSchema


class SubscriptionSchema(BaseSchema):
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


class UsageSchema(BaseSchema):
    plan_name = ma.fields.String()
    projects = ma.fields.Nested(UsageCounterSchema)
    diagrams = ma.fields.Nested(UsageCounterSchema)
    storage = ma.fields.Nested(UsageCounterSchema,
                               metadata={"description": "bytes of diagram content and descriptions"})
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


class InvoiceSchema(BaseSchema):
    id = ma.fields.String()
    amount = ma.fields.Float()
    currency = ma.fields.String()
    status = ma.fields.String(allow_none=True)
    description = ma.fields.String()
    invoice_pdf = ma.fields.String(allow_none=True)
    hosted_invoice_url = ma.fields.String(allow_none=True)
    created_at = Timestamp(allow_none=True)
    paid_at = Timestamp(allow_none=True)


class BillingHistorySchema(BaseSchema):
    invoices = ma.fields.List(ma.fields.Nested(InvoiceSchema))
    total_count = ma.fields.Integer()


class PdfUrlSchema(BaseSchema):
    pdf_url = ma.fields.String()


class WebhookResultSchema(BaseSchema):
    status = ma.fields.String(metadata={"description": "processed, duplicate (already handled) or ignored"})
