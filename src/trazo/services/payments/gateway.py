"""The payment gateway in force for the current request, if billing is configured."""
from flask_babel import gettext as _

from ...errors import ServiceUnavailable
from ...extensions import db
from .settings import gateway_settings
from .stripe_gateway import StripeGateway


def optional_gateway():
    settings = gateway_settings()
    return StripeGateway(settings) if settings is not None else None


def require_gateway():
    """The gateway, or 503 when no payment credentials are configured."""
    gateway = optional_gateway()
    if gateway is None:
        raise ServiceUnavailable(_("Billing service not configured"))
    return gateway


def release_connection():
    """Give the pooled database connection back before a gateway call, so a slow gateway never
    holds the pool. Nothing may be pending (commit first); loaded rows stay readable but detached:
    load a row again to change it after the call."""
    db.session.close()
