"""Where the payment credentials come from: an active admin-configured vendor, else the settings."""
import logging
from dataclasses import dataclass

from flask import current_app

from ...core.vendors import active_vendor_config
from ...models.billing import PROVIDER_STRIPE

log = logging.getLogger(__name__)

READ_TIMEOUT = 30  # seconds, the total deadline of one call; STRIPE_TIMEOUT overrides it


@dataclass(frozen=True)
class GatewaySettings:
    provider: str
    secret_key: str
    webhook_secret: str
    publishable_key: str
    api_base: str
    read_timeout: float = READ_TIMEOUT


def _admin_vendor():
    """(vendor_type, config) of the active payment vendor, or None."""
    return active_vendor_config("payment")


def gateway_settings(require_api_key=True):
    """The payment credentials in force for this request, or None when billing is not configured.

    The webhook only needs its signing secret (require_api_key=False): events are verified and
    recorded even where the API key is not configured on this instance."""
    vendor = _admin_vendor()
    if vendor is not None:
        vendor_type, config = vendor
        if vendor_type != PROVIDER_STRIPE:
            log.warning("the active payment vendor %r is not supported; billing is disabled", vendor_type)
            return None
    else:
        config = {"secret_key": current_app.config["STRIPE_SECRET_KEY"],
                  "webhook_secret": current_app.config["STRIPE_WEBHOOK_SECRET"],
                  "publishable_key": current_app.config["STRIPE_PUBLISHABLE_KEY"]}
    if not config.get("secret_key") and (require_api_key or not config.get("webhook_secret")):
        return None
    return GatewaySettings(provider=PROVIDER_STRIPE, secret_key=config.get("secret_key") or "",
                           webhook_secret=config.get("webhook_secret") or "",
                           publishable_key=config.get("publishable_key") or "",
                           api_base=(config.get("api_base") or current_app.config["STRIPE_API_BASE"]).rstrip("/"),
                           read_timeout=current_app.config.get("STRIPE_TIMEOUT") or READ_TIMEOUT)
