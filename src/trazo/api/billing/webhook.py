"""The payment webhook: signature, idempotency by event id, the event's effect, then the gateway.

The idempotency record is inserted first, in the same transaction as the effect: a second
delivery of the same event (also a concurrent one, which waits on the unique index until the
first commits) fails that insert and is answered 200 without effect. A failed effect rolls the
record back too, and the non-2xx answer makes the gateway deliver the event again later.

The effect is worked out from the event alone, so only the signing secret is needed. The gateway
calls it leaves (cancelling a replaced subscription, reading a missing billing period) run after
the commit with the database connection given back, each under the gateway's deadline; they are
best effort: a failure is logged and the event stays recorded and answered.
"""
import logging

from flask_babel import gettext as _
from sqlalchemy.exc import IntegrityError

from ...core.billing.payments import gateway_for, gateway_settings, release_connection, verify_event
from ...errors import AppError, Conflict, NotFound, ServiceUnavailable
from ...extensions import db
from ...models.billing import PROVIDER_STRIPE, WebhookEvent
from .webhook_handlers import HANDLERS, FollowUp, fill_period

log = logging.getLogger(__name__)

PROVIDER_ALIAS = "payment"
KNOWN_PROVIDERS = (PROVIDER_STRIPE, PROVIDER_ALIAS)
NO_API = "the payment API is not configured"


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
    follow_up = _apply_once(settings.provider, event, handler)
    if follow_up is None:
        return {"status": "duplicate"}
    release_connection()
    _call_gateway(settings, follow_up)
    return {"status": "processed"}


def _apply_once(provider, event, handler):
    """Record the event and its effect in one transaction; None when it was handled before."""
    record = WebhookEvent(event_id=event["id"], provider=provider, event_type=event["type"], outcome="received")
    db.session.add(record)
    try:
        db.session.flush()
    except IntegrityError:
        db.session.rollback()
        log.info("webhook event %s already handled", event["id"])
        return None
    follow_up = FollowUp()
    try:
        outcome = record.outcome = handler(event, follow_up)
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise Conflict(_("The event conflicts with a concurrent update; deliver it again")) from None
    except Exception:
        db.session.rollback()
        raise
    log.info("webhook event %s (%s): %s", event["id"], event["type"], outcome)
    return follow_up


def _call_gateway(settings, follow_up):
    """The gateway calls the recorded event left, with no database connection held."""
    if not follow_up.replaced and not follow_up.unknown_periods:
        return
    if not settings.secret_key:
        for remote_id in follow_up.replaced:
            log.warning("gateway subscription %s was replaced but not cancelled there: %s", remote_id, NO_API)
        return
    gateway = gateway_for(settings)
    for remote_id in follow_up.replaced:
        _best_effort("gateway subscription %s was replaced but not cancelled there: %s", remote_id,
                     gateway.cancel_subscription, remote_id)
    for remote_id in follow_up.unknown_periods:
        _best_effort("the period of gateway subscription %s was not read: %s", remote_id, _read_period,
                     gateway, remote_id)


def _read_period(gateway, remote_id):
    remote = gateway.retrieve_subscription(remote_id)
    fill_period(remote)
    db.session.commit()


def _best_effort(message, remote_id, call, *args):
    """Run a call the recorded event does not depend on: a failure is logged, never raised."""
    try:
        call(*args)
    except AppError as exc:
        log.warning(message, remote_id, exc.detail)
    except Exception:  # the event is committed and will be answered 200 whatever happens here
        log.exception(message, remote_id, "unexpected error")
    finally:
        release_connection()
