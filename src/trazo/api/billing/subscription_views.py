"""Subscription routes of the signed-in user."""

from ...auth import current_user, login_required
from . import checkout, invoices, subscriptions
from .blueprints import subscriptions_blp as blp
from .subscription_schemas import (
    BillingHistoryQuerySchema,
    BillingHistorySchema,
    CancelQuerySchema,
    CancelResultSchema,
    CheckoutResultSchema,
    CheckoutSchema,
    PdfUrlSchema,
    PortalSessionSchema,
    SubscriptionSchema,
    UsageSchema,
)

NOT_CONFIGURED = "Billing is not configured"


@blp.route("/me")
@login_required
@blp.response(200, SubscriptionSchema)
def my_subscription():
    """Read my subscription (the free plan when I have none)"""
    return subscriptions.my_subscription(current_user)


@blp.route("/usage")
@login_required
@blp.response(200, UsageSchema)
def usage():
    """Count my projects and diagrams against my plan's limits"""
    return subscriptions.usage(current_user)


@blp.route("/billing-history")
@login_required
@blp.arguments(BillingHistoryQuerySchema, location="query")
@blp.response(200, BillingHistorySchema)
@blp.alt_response(503, "DEFAULT_ERROR", description=NOT_CONFIGURED)
def billing_history(query):
    """List my invoices, newest first"""
    return invoices.billing_history(current_user, query["limit"])


@blp.route("/checkout", methods=["POST"])
@login_required
@blp.arguments(CheckoutSchema)
@blp.response(200, CheckoutResultSchema)
@blp.alt_response(400, "DEFAULT_ERROR", description="Already on this plan, or already paying for another")
@blp.alt_response(404, "DEFAULT_ERROR", description="Unknown plan")
@blp.alt_response(502, "DEFAULT_ERROR", description="The payment provider failed")
@blp.alt_response(503, "DEFAULT_ERROR", description=NOT_CONFIGURED)
def start_checkout(data):
    """Start paying for a plan (or switch to a free plan at once)"""
    return checkout.start_checkout(current_user, data["plan_id"])


@blp.route("/cancel", methods=["POST"])
@login_required
@blp.arguments(CancelQuerySchema, location="query")
@blp.response(200, CancelResultSchema)
@blp.alt_response(400, "DEFAULT_ERROR", description="No paid subscription")
@blp.alt_response(502, "DEFAULT_ERROR", description="The payment provider failed")
@blp.alt_response(503, "DEFAULT_ERROR", description=NOT_CONFIGURED)
def cancel(query):
    """Cancel my paid subscription, at the end of the period or immediately"""
    return subscriptions.cancel(current_user, query["immediate"])


@blp.route("/update-payment-method", methods=["POST"])
@login_required
@blp.response(200, PortalSessionSchema)
@blp.alt_response(400, "DEFAULT_ERROR", description="No paid subscription")
@blp.alt_response(503, "DEFAULT_ERROR", description=NOT_CONFIGURED)
def update_payment_method():
    """Open the payment provider's portal to change my payment method"""
    return checkout.payment_method_portal(current_user)


@blp.route("/invoices/<invoice_id>/pdf-url")
@login_required
@blp.response(200, PdfUrlSchema)
@blp.alt_response(404, "DEFAULT_ERROR", description="Not one of my invoices")
@blp.alt_response(503, "DEFAULT_ERROR", description=NOT_CONFIGURED)
def invoice_pdf_url(invoice_id):
    """Get the PDF address of one of my invoices"""
    return invoices.invoice_pdf_url(current_user, invoice_id)
