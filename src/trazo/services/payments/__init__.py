"""The payment gateway (Stripe): credentials, API calls, webhook signatures, the gateway in force for a
request, and the plan catalog kept in step at the gateway (catalog_sync)."""
from .gateway import optional_gateway, release_connection, require_gateway
from .settings import gateway_settings
from .stripe_gateway import GatewayObjectMissing, StripeGateway, verify_event

__all__ = ["GatewayObjectMissing", "StripeGateway", "gateway_settings", "optional_gateway", "release_connection",
           "require_gateway", "verify_event"]
