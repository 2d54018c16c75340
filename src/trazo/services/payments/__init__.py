"""The payment gateway (Stripe): credentials, API calls, webhook signatures, and the plan catalog kept in
step at the gateway (catalog_sync). The gateway in force for a request, and the API's answer to each of
its failures (errors.py), are core's (core/billing/payments.py)."""
from .errors import (
    GatewayDeadlinePassed,
    GatewayFailed,
    GatewayObjectMissing,
    PaymentFailure,
    WebhookPayloadInvalid,
    WebhookSignatureInvalid,
    WebhookSignatureMissing,
)
from .stripe_gateway import GatewaySettings, StripeGateway, verify_event

__all__ = ["GatewayDeadlinePassed", "GatewayFailed", "GatewayObjectMissing", "GatewaySettings", "PaymentFailure",
           "StripeGateway", "WebhookPayloadInvalid", "WebhookSignatureInvalid", "WebhookSignatureMissing",
           "verify_event"]
