"""The encrypted vendor store: the configuration an administrator made active, decrypted for its users."""
from sqlalchemy import select

from ..extensions import db
from ..models.security import IntegrationVendor
from . import crypto

EMAIL, PAYMENT, OAUTH = "email", "payment", "oauth"
CATEGORIES = (EMAIL, PAYMENT, OAUTH)


def decrypted_config(vendor):
    """The vendor's settings as a dict."""
    return crypto.decrypt_json(vendor.encrypted_config)


def active_vendor_config(category):
    """(vendor_type, config dict) of the default vendor of `category` ("email" or "payment"), or None.

    Stable interface: core/billing/payments.py reads Stripe's secret_key, publishable_key and webhook_secret here.
    """
    if category not in CATEGORIES:
        return None
    vendor = db.session.scalar(select(IntegrationVendor).where(IntegrationVendor.default_slot == category))
    return (vendor.vendor_type, decrypted_config(vendor)) if vendor is not None else None


def active_oauth_configs():
    """{provider: config} of the active OAuth vendors."""
    vendors = db.session.scalars(select(IntegrationVendor).where(IntegrationVendor.category == OAUTH,
                                                                 IntegrationVendor.default_slot.is_not(None)))
    return {vendor.vendor_type: decrypted_config(vendor) for vendor in vendors}
