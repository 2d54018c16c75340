"""The payment gateway (Stripe): credentials, API calls, webhook signatures, and the plan catalog kept in
step at the gateway (catalog_sync). The gateway in force for a request is core's choice (core/payments.py)."""
from .stripe_gateway import GatewayObjectMissing, GatewaySettings, StripeGateway, verify_event

__all__ = ["GatewayObjectMissing", "GatewaySettings", "StripeGateway", "verify_event"]
