"""What each gateway event does to the local subscriptions and invoices.

Every handler gets the verified event and a `FollowUp` and answers an outcome word. It works
from the event alone and never commits (the webhook service does, together with the event's
idempotency record); the gateway calls an event calls for are noted on the `FollowUp` and made
after the commit. Events can arrive late or out of order: a subscription remembers the creation
time of the newest event applied to it and ignores older ones.
"""
import logging
from dataclasses import dataclass, field

from sqlalchemy import select

from ...core.billing.money import from_unix
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
    PROVIDER_STRIPE,
    Plan,
    Subscription,
)
from .invoices import invoice_subscription_id, object_id, record_invoice

log = logging.getLogger(__name__)

# The gateway's subscription statuses in ours. A failed payment keeps the plan while the gateway
# retries (past_due); once the gateway gives up (unpaid) the user is back on the free plan.
GATEWAY_STATUSES = {"active": ACTIVE, "trialing": ACTIVE, "past_due": PAYMENT_FAILED, "unpaid": EXPIRED,
                    "canceled": CANCELLED, "incomplete": PENDING, "incomplete_expired": EXPIRED,
                    "paused": EXPIRED}

APPLIED, IGNORED, STALE = "applied", "ignored", "stale"

# A completed checkout whose payment went through (or needed none, as with a trial).
SETTLED_PAYMENTS = ("paid", "no_payment_required")


@dataclass
class FollowUp:
    """Gateway calls an event leaves for after its commit (none may run inside the transaction)."""

    replaced: list = field(default_factory=list)  # gateway subscriptions to cancel there
    unknown_periods: list = field(default_factory=list)  # gateway subscriptions to read the period of


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


def _retire_others(user_id, follow_up, keep_id=None):
    """A subscription becomes the user's current one: end any other (the database allows one), and
    at the gateway too unless it already stops there by itself."""
    statement = select(Subscription).where(Subscription.user_id == user_id,
                                           Subscription.status.in_(CURRENT_STATUSES))
    if keep_id is not None:
        statement = statement.where(Subscription.id != keep_id)
    now = utcnow()
    for other in db.session.scalars(statement).all():
        log.info("subscription %s of user %s replaced by a newer one", other.id, user_id)
        if other.stripe_subscription_id and not other.cancel_at_period_end:
            follow_up.replaced.append(other.stripe_subscription_id)
        other.status, other.cancelled_at, other.cancel_at_period_end = CANCELLED, now, False
    db.session.flush()


def _period(remote):
    """(start, end) of a gateway subscription: on the object in older API versions, on its item now."""
    item = _first_item(remote)
    start = remote.get("current_period_start") or item.get("current_period_start")
    end = remote.get("current_period_end") or item.get("current_period_end")
    return from_unix(start), from_unix(end)


def _apply(subscription, remote, at):
    start, end = _period(remote)
    subscription.stripe_customer_id = object_id(remote.get("customer")) or subscription.stripe_customer_id
    subscription.current_period_start = start or subscription.current_period_start
    subscription.current_period_end = end or subscription.current_period_end
    if "cancel_at_period_end" in remote or "cancel_at" in remote:
        subscription.cancel_at_period_end = bool(remote.get("cancel_at_period_end") or remote.get("cancel_at"))
    if subscription.status == CANCELLED:
        subscription.cancelled_at = subscription.cancelled_at or from_unix(remote.get("canceled_at")) or utcnow()
    subscription.gateway_event_at = at


def _adopt(remote, status, metadata, at, follow_up):
    """Create or update the local copy of a gateway subscription; a None status keeps the stored one
    (a new copy starts pending)."""
    subscription = _by_gateway_id(remote.get("id"))
    if subscription is None:
        user = db.session.get(User, str(metadata.get("user_id") or ""))
        plan = _plan_of(remote, metadata.get("plan_id"))
        if user is None or plan is None:
            log.warning("gateway subscription %s names no known user and plan; ignored", remote.get("id"))
            return IGNORED
        if status in CURRENT_STATUSES:
            _retire_others(user.id, follow_up)
        subscription = Subscription(user_id=user.id, plan_id=plan.id, status=status or PENDING,
                                    payment_provider=PROVIDER_STRIPE, stripe_subscription_id=remote["id"],
                                    started_at=from_unix(remote.get("start_date")) or utcnow())
        db.session.add(subscription)
    elif _is_stale(subscription, at):
        return STALE
    else:
        plan = _plan_of(remote)
        if plan is not None:
            subscription.plan_id = plan.id
        if status in CURRENT_STATUSES and not subscription.is_current:
            _retire_others(subscription.user_id, follow_up, subscription.id)
        subscription.status = status or subscription.status
    _apply(subscription, remote, at)
    return APPLIED


def on_checkout_completed(event, follow_up):
    """The session names the user, the plan, the subscription and the customer. A settled payment
    makes the subscription active; otherwise the subscription events decide. The billing period
    comes with those events (or is read from the gateway after the commit)."""
    session = event["data"]["object"]
    remote_id = object_id(session.get("subscription"))
    if session.get("mode") != "subscription" or not remote_id:
        return IGNORED
    status = ACTIVE if session.get("payment_status") in SETTLED_PAYMENTS else None
    outcome = _adopt({"id": remote_id, "customer": session.get("customer")}, status,
                     session.get("metadata") or {}, event_time(event), follow_up)
    if outcome == APPLIED and _by_gateway_id(remote_id).current_period_end is None:
        follow_up.unknown_periods.append(remote_id)
    return outcome


def on_subscription_changed(event, follow_up):
    remote = event["data"]["object"]
    return _adopt(remote, GATEWAY_STATUSES.get(remote.get("status")), remote.get("metadata") or {},
                  event_time(event), follow_up)


def fill_period(remote):
    """Give the local copy of a gateway subscription read after its events the period it lacks (or
    a later one). Only the period: status and event order stay with the events. The caller commits."""
    subscription = _by_gateway_id(remote.get("id"))
    start, end = _period(remote)
    if subscription is None or end is None:
        return
    if subscription.current_period_end is None or end > subscription.current_period_end:
        subscription.current_period_start = start or subscription.current_period_start
        subscription.current_period_end = end


def on_subscription_deleted(event, follow_up):
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


def on_invoice_paid(event, follow_up):
    return _on_invoice(event, PAYMENT_FAILED, ACTIVE)


def on_invoice_failed(event, follow_up):
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
