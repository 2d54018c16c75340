"""The payment gateway in force for the current request: the credentials of an active admin-configured
vendor, else the settings; None (or a 503) when billing is not configured. The Stripe client itself is
in services/payments; its neutral failures become the API's statuses and localized texts here
(`payment_failures`), so every gateway handed out answers the API's errors."""
import functools
import logging
from contextlib import contextmanager

from flask import current_app
from flask_babel import gettext as _

from ...errors import AppError, BadRequest, GatewayTimeout, ServiceUnavailable, UpstreamError
from ...extensions import db
from ...models.billing import PROVIDER_STRIPE
from ...services import payments
from ...services.payments.stripe_gateway import READ_TIMEOUT, GatewaySettings, StripeGateway
from ..vendors import PAYMENT, active_vendor_config

log = logging.getLogger(__name__)


def gateway_settings(require_api_key=True):
    """The payment credentials in force for this request, or None when billing is not configured.

    The webhook only needs its signing secret (require_api_key=False): events are verified and
    recorded even where the API key is not configured on this instance."""
    vendor = active_vendor_config(PAYMENT)
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


class PaymentGatewayError(UpstreamError):
    """The gateway refused or failed a call (502)."""


class GatewayObjectMissing(PaymentGatewayError):
    """The gateway does not know the object asked for (a 502 unless the caller expects it)."""


@contextmanager
def payment_failures():
    """A gateway's (or a webhook delivery's) failures as the statuses and localized messages of the API."""
    try:
        yield
    except payments.GatewayDeadlinePassed as exc:
        raise GatewayTimeout(_("The payment provider did not answer in time")) from exc
    except payments.GatewayFailed as exc:
        error = GatewayObjectMissing if isinstance(exc, payments.GatewayObjectMissing) else PaymentGatewayError
        raise error(_("Payment provider (%(provider)s) error: %(reason)s", provider=exc.provider,
                      reason=exc.reason)) from exc
    except payments.WebhookSignatureMissing as exc:
        raise AppError(_("Missing webhook signature"), status=401) from exc
    except payments.WebhookSignatureInvalid as exc:
        raise AppError(_("Invalid webhook signature"), status=401) from exc
    except payments.WebhookPayloadInvalid as exc:
        raise BadRequest(_("Invalid webhook payload")) from exc


class Gateway:
    """A gateway as billing calls it: the gateway's own methods, each failure answered as the API's error."""

    def __init__(self, gateway):
        self._gateway = gateway
        self.name = gateway.name

    def __getattr__(self, name):
        method = getattr(self._gateway, name)
        if not callable(method):
            return method

        @functools.wraps(method)
        def call(*args, **kwargs):
            with payment_failures():
                return method(*args, **kwargs)

        return call


def gateway_for(settings):
    """The gateway called with `settings`."""
    return Gateway(StripeGateway(settings))


def verify_event(payload, signature_header, secret):
    """The event of a signed webhook delivery (services/payments verify_event): 401 for a missing or wrong
    signature, 400 for a payload that is not a JSON event."""
    with payment_failures():
        return payments.verify_event(payload, signature_header, secret)


def optional_gateway():
    settings = gateway_settings()
    return gateway_for(settings) if settings is not None else None


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
