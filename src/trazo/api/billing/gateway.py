"""The payment gateway in force for the current request, if billing is configured."""
from flask_babel import gettext as _

from ...errors import ServiceUnavailable
from ...services.payments import StripeGateway, gateway_settings


def optional_gateway():
    settings = gateway_settings()
    return StripeGateway(settings) if settings is not None else None


def require_gateway():
    """The gateway, or 503 when no payment credentials are configured."""
    gateway = optional_gateway()
    if gateway is None:
        raise ServiceUnavailable(_("Billing service not configured"))
    return gateway
