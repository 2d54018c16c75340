"""Billing routes: the plans on sale, the caller's subscription, the administration of plans, and the payment
provider's webhook (authenticated by its signature, not a token, and not rate-limited by address: the
provider's deliveries share few addresses)."""
from flask import request
from flask.views import MethodView

from ...auth import current_user
from ...errors import ErrorSchema
from ..blueprint import ADMIN, PUBLIC, Blueprint
from . import invoices, plans, service, webhook
from .schemas import (
    AdminPlanSchema,
    BillingHistoryQuerySchema,
    BillingHistorySchema,
    CancelQuerySchema,
    CancelResultSchema,
    CheckoutResultSchema,
    CheckoutSchema,
    PdfUrlSchema,
    PlanCreateSchema,
    PlanDeletedSchema,
    PlanPriceCreateSchema,
    PlanSchema,
    PlanUpdateSchema,
    PortalSessionSchema,
    SubscriptionSchema,
    UsageSchema,
    WebhookResultSchema,
)

plans_blp = Blueprint("plans", __name__, description="Plans")
subscriptions_blp = Blueprint("subscriptions", __name__, description="Subscriptions and billing")
admin_plans_blp = Blueprint("admin_plans", __name__, description="Plan administration")
webhooks_blp = Blueprint("webhooks", __name__, description="Payment provider webhooks")

NOT_CONFIGURED = "Billing is not configured"
PROVIDER_FAILED = "The payment provider failed"
SIGNED_EVENT = {"required": True, "description": "A payment provider event, signed in the Stripe-Signature header",
                "content": {"application/json": {"schema": {"type": "object"}}}}


# -- plans on sale -------------------------------------------------------------------------

@plans_blp.route("", auth=PUBLIC, transaction=True)  # creates the FREE plan on first use
@plans_blp.response(200, PlanSchema(many=True))
def list_plans():
    """List the plans on sale"""
    return plans.list_active_plans()


@plans_blp.route("/<plan_id>", auth=PUBLIC, not_found="Plan not found")
@plans_blp.response(200, PlanSchema)
def get_plan(plan_id):
    """Read a plan"""
    return plans.plan_or_404(plan_id)


# -- the caller's subscription -----------------------------------------------------------

@subscriptions_blp.route("/me", transaction=True)  # the FREE plan on first use
@subscriptions_blp.response(200, SubscriptionSchema)
def my_subscription():
    """Read my subscription (the free plan when I have none)"""
    return service.my_subscription(current_user)


@subscriptions_blp.route("/usage", transaction=True)  # the FREE plan on first use
@subscriptions_blp.response(200, UsageSchema)
def usage():
    """Count my projects and diagrams against my plan's limits"""
    return service.usage(current_user)


@subscriptions_blp.route("/billing-history", transaction=True)  # keeps the gateway's invoices
@subscriptions_blp.arguments(BillingHistoryQuerySchema, location="query")
@subscriptions_blp.response(200, BillingHistorySchema)
@subscriptions_blp.alt_response(503, schema=ErrorSchema, description=NOT_CONFIGURED)
def billing_history(query):
    """List my invoices, newest first"""
    return invoices.billing_history(current_user, query["limit"])


@subscriptions_blp.route("/checkout", methods=["POST"], not_found="Plan not found")
@subscriptions_blp.arguments(CheckoutSchema)
@subscriptions_blp.response(200, CheckoutResultSchema)
@subscriptions_blp.alt_response(400, schema=ErrorSchema,
                                description="Already on this plan, or already paying for another")
@subscriptions_blp.alt_response(502, schema=ErrorSchema, description=PROVIDER_FAILED)
@subscriptions_blp.alt_response(503, schema=ErrorSchema, description=NOT_CONFIGURED)
def start_checkout(data):
    """Start paying for a plan (or switch to a free plan at once)"""
    return service.start_checkout(current_user, data["plan_id"])


@subscriptions_blp.route("/cancel", methods=["POST"])
@subscriptions_blp.arguments(CancelQuerySchema, location="query")
@subscriptions_blp.response(200, CancelResultSchema)
@subscriptions_blp.alt_response(400, schema=ErrorSchema, description="No paid subscription")
@subscriptions_blp.alt_response(502, schema=ErrorSchema, description=PROVIDER_FAILED)
@subscriptions_blp.alt_response(503, schema=ErrorSchema, description=NOT_CONFIGURED)
def cancel(query):
    """Cancel my paid subscription, at the end of the period or immediately"""
    return service.cancel(current_user, query["immediate"])


@subscriptions_blp.route("/update-payment-method", methods=["POST"])
@subscriptions_blp.response(200, PortalSessionSchema)
@subscriptions_blp.alt_response(400, schema=ErrorSchema, description="No paid subscription")
@subscriptions_blp.alt_response(503, schema=ErrorSchema, description=NOT_CONFIGURED)
def update_payment_method():
    """Open the payment provider's portal to change my payment method"""
    return service.payment_method_portal(current_user)


@subscriptions_blp.route("/invoices/<invoice_id>/pdf-url", not_found="Invoice not found or access denied",
                         transaction=True)  # keeps the invoice the gateway answered
@subscriptions_blp.response(200, PdfUrlSchema)
@subscriptions_blp.alt_response(503, schema=ErrorSchema, description=NOT_CONFIGURED)
def invoice_pdf_url(invoice_id):
    """Get the PDF address of one of my invoices"""
    return invoices.invoice_pdf_url(current_user, invoice_id)


# -- administration of plans -------------------------------------------------------------

@admin_plans_blp.route("", auth=ADMIN, transaction=True)  # GET creates the FREE plan on first use
class AdminPlans(MethodView):
    @admin_plans_blp.response(200, AdminPlanSchema(many=True))
    def get(self):
        """List every plan, inactive ones too"""
        return plans.list_all_plans()

    @admin_plans_blp.arguments(PlanCreateSchema)
    @admin_plans_blp.response(201, AdminPlanSchema)
    @admin_plans_blp.alt_response(400, schema=ErrorSchema, description="Duplicate name or code, reserved code")
    @admin_plans_blp.alt_response(502, schema=ErrorSchema, description=PROVIDER_FAILED)
    def post(self, data):
        """Create a plan (synchronised with the payment provider when configured)"""
        return plans.create_plan(data)


@admin_plans_blp.route("/<plan_id>", auth=ADMIN, not_found="Plan not found")
class AdminPlan(MethodView):
    @admin_plans_blp.arguments(PlanUpdateSchema)
    @admin_plans_blp.response(200, AdminPlanSchema)
    @admin_plans_blp.alt_response(400, schema=ErrorSchema, description="Not allowed for this plan")
    @admin_plans_blp.alt_response(502, schema=ErrorSchema, description=PROVIDER_FAILED)
    def put(self, data, plan_id):
        """Edit a plan"""
        return plans.update_plan(plan_id, data)

    @admin_plans_blp.response(200, PlanDeletedSchema)
    @admin_plans_blp.alt_response(400, schema=ErrorSchema, description="The FREE plan")
    def delete(self, plan_id):
        """Delete a plan, or deactivate it when it has subscriptions"""
        return plans.delete_plan(plan_id)


@admin_plans_blp.route("/<plan_id>/prices", methods=["POST"], auth=ADMIN, not_found="Plan not found")
@admin_plans_blp.arguments(PlanPriceCreateSchema)
@admin_plans_blp.response(201, AdminPlanSchema)
@admin_plans_blp.alt_response(400, schema=ErrorSchema, description="Unsupported or existing currency")
def add_price(data, plan_id):
    """Add a price in another currency to a plan"""
    return plans.add_price(plan_id, data["currency"], data["amount"])


@admin_plans_blp.route("/<plan_id>/prices/<currency>", methods=["DELETE"], auth=ADMIN,
                       not_found="Plan or price not found")
@admin_plans_blp.response(200, AdminPlanSchema)
@admin_plans_blp.alt_response(400, schema=ErrorSchema, description="The USD price")
def remove_price(plan_id, currency):
    """Remove a plan's price in one currency"""
    return plans.remove_price(plan_id, currency)


# -- the payment provider's webhook ------------------------------------------------------

@webhooks_blp.route("/<provider>", methods=["POST"], auth=PUBLIC, not_found="Unknown provider")
@webhooks_blp.doc(requestBody=SIGNED_EVENT)
@webhooks_blp.response(200, WebhookResultSchema)
@webhooks_blp.alt_response(400, schema=ErrorSchema, description="Unparsable event")
@webhooks_blp.alt_response(401, schema=ErrorSchema, description="Missing or invalid signature")
@webhooks_blp.alt_response(409, schema=ErrorSchema,
                           description="Raced with another event; the provider delivers it again")
@webhooks_blp.alt_response(422, "UNPROCESSABLE_ENTITY", description="A body that is not acceptable JSON")
@webhooks_blp.alt_response(503, schema=ErrorSchema, description=NOT_CONFIGURED)
def receive(provider):
    """Receive a payment provider event ("payment" is the configured provider)"""
    return webhook.receive(provider, request.get_data(cache=False), request.headers.get("Stripe-Signature"))
