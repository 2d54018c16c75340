"""The payment webhook: signature, idempotency by event id, then the event's effect.

The idempotency record is inserted first, in the same transaction as the effect: a second
delivery of the same event (also a concurrent one, which waits on the unique index until the
first commits) fails that insert and is answered 200 without effect. A failed effect rolls the
record back too, and the non-2xx answer makes the gateway deliver the event again later.
"""
import logging

from flask_babel import gettext as _
from sqlalchemy.exc import IntegrityError

from ...errors import Conflict, NotFound, ServiceUnavailable
from ...extensions import db
from ...models.billing import PROVIDER_STRIPE, WebhookEvent
from ...services.payments import StripeGateway, gateway_settings, verify_event
from .webhook_handlers import HANDLERS

log = logging.getLogger(__name__)

PROVIDER_ALIAS = "payment"
KNOWN_PROVIDERS = (PROVIDER_STRIPE, PROVIDER_ALIAS)


def receive(provider, payload, signature_header):
    if provider not in KNOWN_PROVIDERS:
        raise NotFound(_("Unknown payment provider"))
    settings = gateway_settings(require_api_key=False)
    if settings is None or provider not in (settings.provider, PROVIDER_ALIAS) or not settings.webhook_secret:
        raise ServiceUnavailable(_("Billing service not configured"))
    event = verify_event(payload, signature_header, settings.webhook_secret)
    handler = HANDLERS.get(event["type"])
    if handler is None:
        return {"status": "ignored"}
    return _apply_once(StripeGateway(settings), event, handler)


def _apply_once(gateway, event, handler):
    record = WebhookEvent(event_id=event["id"], provider=gateway.name, event_type=event["type"], outcome="received")
    db.session.add(record)
    try:
        db.session.flush()
    except IntegrityError:
        db.session.rollback()
        log.info("webhook event %s already handled", event["id"])
        return {"status": "duplicate"}
    try:
        outcome = record.outcome = handler(gateway, event)
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise Conflict(_("The event conflicts with a concurrent update; deliver it again")) from None
    except Exception:
        db.session.rollback()
        raise
    log.info("webhook event %s (%s): %s", event["id"], event["type"], outcome)
    return {"status": "processed"}
