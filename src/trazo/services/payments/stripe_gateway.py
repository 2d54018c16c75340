"""Stripe through the `stripe` package: one requests.Session, a total deadline per call
(STRIPE_TIMEOUT), failures as the neutral exceptions of services/payments/errors.py (core/billing/payments.py words
them for the API).

Every method answers plain dicts, so the billing services never touch Stripe's object types.
Callers give the database connection back before calling (a slow gateway must not hold the pool).

The `stripe` package (with aiohttp, which it imports: some 17 MiB a worker) is imported where Stripe is
first needed, a gateway built or a webhook verified, not when a worker starts.
"""
import json
import logging
from dataclasses import dataclass

import requests

from ...models.billing import PROVIDER_STRIPE
from .. import outbound
from .errors import (
    GatewayDeadlinePassed,
    GatewayFailed,
    GatewayObjectMissing,
    WebhookPayloadInvalid,
    WebhookSignatureInvalid,
    WebhookSignatureMissing,
)

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 5
SIGNATURE_TOLERANCE = 300
MAX_REASON_CHARS = 300
_SESSION = outbound.session()
READ_TIMEOUT = 30  # seconds, the total deadline of one call; STRIPE_TIMEOUT overrides it


@dataclass(frozen=True)
class GatewaySettings:
    """The credentials and endpoint a StripeGateway calls with (core/billing/payments.py chooses them)."""

    provider: str
    secret_key: str
    webhook_secret: str
    publishable_key: str
    api_base: str
    read_timeout: float = READ_TIMEOUT


def _is_timeout(exc):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (requests.exceptions.Timeout, TimeoutError)):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _translate(exc):
    import stripe

    if isinstance(exc, stripe.APIConnectionError) and _is_timeout(exc):
        return GatewayDeadlinePassed(PROVIDER_STRIPE)
    reason = " ".join(str(getattr(exc, "user_message", None) or exc).split())[:MAX_REASON_CHARS]
    if isinstance(exc, stripe.InvalidRequestError) and (exc.code == "resource_missing" or exc.http_status == 404):
        return GatewayObjectMissing(PROVIDER_STRIPE, reason)
    return GatewayFailed(PROVIDER_STRIPE, reason)


def verify_event(payload, signature_header, secret):
    """The event of a signed webhook delivery, as a dict. WebhookSignatureMissing or WebhookSignatureInvalid
    for a missing or wrong signature (or one older than the tolerance), WebhookPayloadInvalid for a
    payload that is not a JSON event."""
    if not signature_header:
        raise WebhookSignatureMissing()
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise WebhookPayloadInvalid() from None
    import stripe

    try:
        stripe.WebhookSignature.verify_header(text, signature_header, secret, SIGNATURE_TOLERANCE)
    except stripe.SignatureVerificationError:
        raise WebhookSignatureInvalid() from None
    try:
        event = json.loads(text)
    except ValueError:
        event = None
    if not _is_event(event):
        raise WebhookPayloadInvalid()
    return event


def _is_event(event):
    if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
        return False
    return (isinstance(event.get("id"), str) and bool(event["id"]) and isinstance(event.get("type"), str)
            and isinstance(event["data"].get("object"), dict))


class StripeGateway:
    """The Stripe calls billing needs; a failure raises GatewayFailed (GatewayObjectMissing for an unknown
    object) or GatewayDeadlinePassed."""

    name = PROVIDER_STRIPE

    def __init__(self, settings):
        self.settings = settings
        import stripe

        self._client = stripe.StripeClient(
            settings.secret_key, base_addresses={"api": settings.api_base}, max_network_retries=0,
            http_client=stripe.RequestsClient(timeout=(CONNECT_TIMEOUT, settings.read_timeout), session=_SESSION))

    def _call(self, method, *args, **params):
        import stripe

        try:
            with outbound.deadline(self.settings.read_timeout, integration="payments"):
                result = method(*args, params=params) if params else method(*args)
        except outbound.DeadlineExceeded as exc:
            log.warning("stripe call passed its deadline of %s s", self.settings.read_timeout)
            raise GatewayDeadlinePassed(PROVIDER_STRIPE) from exc
        except stripe.StripeError as exc:
            log.warning("stripe call failed: %s", exc)
            raise _translate(exc) from exc
        return result.to_dict()

    # -- catalog ---------------------------------------------------------------------------

    def create_product(self, plan_id, name, description, active):
        params = {"name": name, "active": active, "metadata": {"plan_id": plan_id, "created_by": "trazo"}}
        if description:
            params["description"] = description
        return self._call(self._client.v1.products.create, **params)["id"]

    def update_product(self, product_id, name, description, active):
        self._call(self._client.v1.products.update, product_id, name=name, description=description or "",
                   active=active)

    def create_price(self, product_id, plan_id, amounts, base_currency):
        """One monthly price in the base currency with the other currencies as currency options."""
        options = {currency: {"unit_amount": amount} for currency, amount in amounts.items()
                   if currency != base_currency}
        params = {"product": product_id, "currency": base_currency, "unit_amount": amounts[base_currency],
                  "recurring": {"interval": "month"}, "metadata": {"plan_id": plan_id}}
        if options:
            params["currency_options"] = options
        return self._call(self._client.v1.prices.create, **params)["id"]

    def set_price_active(self, price_id, active):
        self._call(self._client.v1.prices.update, price_id, active=active)

    # -- customers' sessions ---------------------------------------------------------------

    def create_checkout_session(self, price_id, customer_id, email, metadata, success_url, cancel_url):
        params = {"mode": "subscription", "line_items": [{"price": price_id, "quantity": 1}],
                  "client_reference_id": metadata["user_id"], "metadata": metadata,
                  "subscription_data": {"metadata": metadata}, "success_url": success_url,
                  "cancel_url": cancel_url, "locale": "auto", "payment_method_collection": "always"}
        if customer_id:
            params["customer"] = customer_id
        else:
            params["customer_email"] = email
        return self._call(self._client.v1.checkout.sessions.create, **params)

    def create_portal_session(self, customer_id, return_url):
        return self._call(self._client.v1.billing_portal.sessions.create, customer=customer_id,
                          return_url=return_url)

    # -- subscriptions and invoices --------------------------------------------------------

    def retrieve_subscription(self, subscription_id):
        return self._call(self._client.v1.subscriptions.retrieve, subscription_id)

    def cancel_subscription(self, subscription_id):
        """Cancel now; an already deleted subscription counts as cancelled."""
        try:
            return self._call(self._client.v1.subscriptions.cancel, subscription_id)
        except GatewayObjectMissing:
            return None

    def cancel_at_period_end(self, subscription_id):
        return self._call(self._client.v1.subscriptions.update, subscription_id, cancel_at_period_end=True)

    def list_invoices(self, customer_id, limit):
        return self._call(self._client.v1.invoices.list, customer=customer_id, limit=limit)["data"]

    def retrieve_invoice(self, invoice_id):
        return self._call(self._client.v1.invoices.retrieve, invoice_id)
