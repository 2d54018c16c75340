"""The payment gateway (Stripe): credentials, API calls and webhook signatures."""
from .settings import gateway_settings
from .stripe_gateway import GatewayObjectMissing, StripeGateway, verify_event

__all__ = ["GatewayObjectMissing", "StripeGateway", "gateway_settings", "verify_event"]
