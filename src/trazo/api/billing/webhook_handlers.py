"""What each gateway event does to the local subscriptions and invoices.

Every handler gets the gateway and the verified event and answers an outcome word; it never
commits (the webhook service does, together with the event's idempotency record). Events can
arrive late or out of order: a subscription remembers the creation time of the newest event
applied to it and ignores older ones.
"""
import logging

from sqlalchemy import select

from ...extensions import db
from ...models import User
from ...models.base import utcnow
from ...models.billing import (
    ACTIVE,
    CANCELLED,
    CURRENT_STATUSES,
    EXPIRED,
    PAYMENT_FAILED,
    PENDING,
    Plan,
    Subscription,
)
from .invoices import invoice_subscription_id, object_id, record_invoice
from .money import from_unix
from .subscriptions import end_subscription

log = logging.getLogger(__name__)

# The gateway's subscription statuses in ours. A failed payment keeps the plan while the gateway
# retries (past_due); once the gateway gives up (unpaid) the user is back on the free plan.
GATEWAY_STATUSES = {"active": ACTIVE, "trialing": ACTIVE, "past_due": PAYMENT_FAILED, "unpaid": EXPIRED,
                    "canceled": CANCELLED, "incomplete": PENDING, "incomplete_expired": EXPIRED,
                    "paused": EXPIRED}

APPLIED, IGNORED, STALE = "applied", "ignored", "stale"


def event_time(event):
    return from_unix(event.get("created")) or utcnow().replace(microsecond=0)


def _by_gateway_id(subscription_id):
    if not subscription_id:
        return None
    return db.session.scalar(select(Subscription).where(Subscription.stripe_subscription_id == subscription_id))


def _is_stale(subscription, at):
    return subscription.gateway_event_at is not None and at < subscription.gateway_event_at


def _first_item(remote):
    items = (remote.get("items") or {}).get("data") or []
    return items[0] if items else {}


def _plan_of(remote, plan_id=None):
    """The plan whose gateway product the subscription pays for, else the plan named in metadata."""
    price = _first_item(remote).get("price")
    product = object_id(price.get("product")) if isinstance(price, dict) else None
    plan = db.session.scalar(select(Plan).where(Plan.gateway_product_id == product)) if product else None
    if plan is None and plan_id:
        plan = db.session.get(Plan, str(plan_id))
    return plan


def _retire_others(gateway, user_id, keep_id=None):
    """A subscription becomes the user's current one: end any other (the database allows one)."""
    statement = select(Subscription).where(Subscription.user_id == user_id,
                                           Subscription.status.in_(CURRENT_STATUSES))
    if keep_id is not None:
        statement = statement.where(Subscription.id != keep_id)
    now = utcnow()
    for other in db.session.scalars(statement).all():
        log.info("subscription %s of user %s replaced by a newer one", other.id, user_id)
        end_subscription(other, gateway, now)
    db.session.flush()


def _apply(subscription, remote, at):
    item = _first_item(remote)
    start = remote.get("current_period_start") or item.get("current_period_start")
    end = remote.get("current_period_end") or item.get("current_period_end")
    subscription.stripe_customer_id = object_id(remote.get("customer")) or subscription.stripe_customer_id
    subscription.current_period_start = from_unix(start) or subscription.current_period_start
    subscription.current_period_end = from_unix(end) or subscription.current_period_end
    subscription.cancel_at_period_end = bool(remote.get("cancel_at_period_end") or remote.get("cancel_at"))
    if subscription.status == CANCELLED:
        subscription.cancelled_at = subscription.cancelled_at or from_unix(remote.get("canceled_at")) or utcnow()
    subscription.gateway_event_at = at


def _adopt(gateway, remote, metadata, at):
    """Create or update the local copy of a gateway subscription."""
    subscription = _by_gateway_id(remote.get("id"))
    status = GATEWAY_STATUSES.get(remote.get("status"))
    if subscription is None:
        user = db.session.get(User, str(metadata.get("user_id") or ""))
        plan = _plan_of(remote, metadata.get("plan_id"))
        if user is None or plan is None:
            log.warning("gateway subscription %s names no known user and plan; ignored", remote.get("id"))
            return IGNORED
        if status in CURRENT_STATUSES:
            _retire_others(gateway, user.id)
        subscription = Subscription(user_id=user.id, plan_id=plan.id, status=status or PENDING,
                                    payment_provider=gateway.name, stripe_subscription_id=remote["id"],
                                    started_at=from_unix(remote.get("start_date")) or utcnow())
        db.session.add(subscription)
    elif _is_stale(subscription, at):
        return STALE
    else:
        plan = _plan_of(remote)
        if plan is not None:
            subscription.plan_id = plan.id
        if status in CURRENT_STATUSES and not subscription.is_current:
            _retire_others(gateway, subscription.user_id, subscription.id)
        subscription.status = status or subscription.status
    _apply(subscription, remote, at)
    return APPLIED


def on_checkout_completed(gateway, event):
    session = event["data"]["object"]
    if session.get("mode") != "subscription" or not session.get("subscription"):
        return IGNORED
    remote = gateway.retrieve_subscription(object_id(session["subscription"]))
    remote.setdefault("customer", session.get("customer"))
    metadata = {**(remote.get("metadata") or {}), **(session.get("metadata") or {})}
    return _adopt(gateway, remote, metadata, event_time(event))


def on_subscription_changed(gateway, event):
    remote = event["data"]["object"]
    return _adopt(gateway, remote, remote.get("metadata") or {}, event_time(event))


def on_subscription_deleted(gateway, event):
    """The end is final, whatever arrived before: the user is back on the free plan."""
    remote = event["data"]["object"]
    subscription = _by_gateway_id(remote.get("id"))
    if subscription is None:
        return IGNORED
    subscription.status, subscription.cancel_at_period_end = CANCELLED, False
    subscription.cancelled_at = (subscription.cancelled_at or from_unix(remote.get("canceled_at"))
                                 or from_unix(remote.get("ended_at")) or utcnow())
    at = event_time(event)
    if subscription.gateway_event_at is None or at > subscription.gateway_event_at:
        subscription.gateway_event_at = at
    return APPLIED


def _invoice_owner(remote):
    """(user id, local subscription) of an invoice, found by its subscription, else its customer."""
    subscription = _by_gateway_id(invoice_subscription_id(remote))
    if subscription is not None:
        return subscription.user_id, subscription
    customer = object_id(remote.get("customer"))
    user_id = db.session.scalar(select(Subscription.user_id).where(Subscription.stripe_customer_id == customer)
                                .limit(1)) if customer else None
    return user_id, None


def _on_invoice(event, from_status, to_status):
    remote = event["data"]["object"]
    user_id, subscription = _invoice_owner(remote)
    if user_id is None:
        return IGNORED
    record_invoice(user_id, remote)
    at = event_time(event)
    if subscription is not None and subscription.status == from_status and not _is_stale(subscription, at):
        subscription.status, subscription.gateway_event_at = to_status, at
    return APPLIED


def on_invoice_paid(gateway, event):
    return _on_invoice(event, PAYMENT_FAILED, ACTIVE)


def on_invoice_failed(gateway, event):
    return _on_invoice(event, ACTIVE, PAYMENT_FAILED)


HANDLERS = {
    "checkout.session.completed": on_checkout_completed,
    "customer.subscription.created": on_subscription_changed,
    "customer.subscription.updated": on_subscription_changed,
    "customer.subscription.deleted": on_subscription_deleted,
    "invoice.paid": on_invoice_paid,
    "invoice.payment_succeeded": on_invoice_paid,
    "invoice.payment_failed": on_invoice_failed,
}
