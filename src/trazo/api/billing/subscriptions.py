"""The caller's subscription: what it is, how much of the plan is used, cancelling it, and the
rule that an account with a running paid subscription cannot be deleted."""
from flask_babel import gettext as _

from ...core.money import from_unix
from ...core.plans import current_subscription, free_plan, plan_for
from ...core.quotas import count_resources
from ...errors import BadRequest
from ...extensions import db
from ...models.base import utcnow
from ...models.billing import ACTIVE, CANCELLED, RESOURCE_TYPES, Subscription
from .gateway import release_connection, require_gateway
from .plans import plan_view

ADMIN_PLAN_CODE = "ADMIN"


def subscription_view(subscription):
    return {"id": subscription.id, "user_id": subscription.user_id, "plan": plan_view(subscription.plan),
            "status": subscription.status, "payment_provider": subscription.payment_provider,
            "stripe_customer_id": subscription.stripe_customer_id,
            "stripe_subscription_id": subscription.stripe_subscription_id,
            "started_at": subscription.started_at, "current_period_start": subscription.current_period_start,
            "current_period_end": subscription.current_period_end,
            "cancel_at_period_end": subscription.cancel_at_period_end,
            "cancelled_at": subscription.cancelled_at, "created_at": subscription.created_at,
            "updated_at": subscription.updated_at}


def _implicit_view(user_id, plan):
    """A plan the user has without a subscription record (FREE, or unlimited for administrators)."""
    return {"id": None, "user_id": user_id, "plan": plan, "status": ACTIVE, "payment_provider": None,
            "stripe_customer_id": None, "stripe_subscription_id": None, "started_at": None,
            "current_period_start": None, "current_period_end": None, "cancel_at_period_end": False,
            "cancelled_at": None, "created_at": None, "updated_at": None}


def _admin_plan():
    return {"id": None, "name": _("Administrator"), "code": ADMIN_PLAN_CODE,
            "description": _("Full access without limits"), "price_usd": 0.0, "max_projects": None,
            "max_diagrams": None, "max_storage_mb": None, "is_active": True, "is_free": False, "prices": {},
            "created_at": None, "updated_at": None}


def my_subscription(user):
    if user.is_admin:
        return _implicit_view(user.id, _admin_plan())
    subscription = current_subscription(user.id)
    if subscription is not None:
        return subscription_view(subscription)
    view = _implicit_view(user.id, plan_view(free_plan()))
    db.session.commit()
    return view


def _percentage(current, limit):
    if limit is None:
        return 0.0
    if limit <= 0:
        return 100.0
    return round(current * 100 / limit, 1)


def usage(user):
    """Live counts against the plan's limits (a null limit is unlimited)."""
    counts = {resource: count_resources(user.id, resource) for resource in RESOURCE_TYPES}
    if user.is_admin:
        name, limits = _("Administrator"), dict.fromkeys(RESOURCE_TYPES)
    else:
        plan = plan_for(user)
        name, limits = plan.name, {resource: plan.limit_for(resource) for resource in RESOURCE_TYPES}
        db.session.commit()
    result = {resource: {"current": counts[resource], "limit": limits[resource]} for resource in RESOURCE_TYPES}
    return {"plan_name": name, **result,
            "usage_percentage": {resource: _percentage(counts[resource], limits[resource])
                                 for resource in RESOURCE_TYPES}}


def cancel(user, immediate):
    """Cancel the paid subscription now, or at the end of the period already paid for (the gateway
    is called with no database connection held)."""
    gateway = require_gateway()
    subscription = current_subscription(user.id)
    if subscription is None or not subscription.stripe_subscription_id:
        raise BadRequest(_("Cannot cancel free subscription"))
    subscription_id, remote_id = subscription.id, subscription.stripe_subscription_id
    release_connection()
    if immediate:
        gateway.cancel_subscription(remote_id)
        now = utcnow()
        subscription = db.session.get(Subscription, subscription_id)
        subscription.status, subscription.cancelled_at = CANCELLED, now
        subscription.cancel_at_period_end = False
        # Gateway events older than this cancellation must not bring the subscription back.
        subscription.gateway_event_at = now.replace(microsecond=0)
        db.session.commit()
        return {"message": _("Subscription cancelled immediately"), "cancel_at": now, "access_until": now,
                "immediate": True}
    remote = gateway.cancel_at_period_end(remote_id)
    now = utcnow()
    subscription = db.session.get(Subscription, subscription_id)
    ends = from_unix(remote.get("cancel_at")) or subscription.current_period_end or now
    subscription.cancel_at_period_end, subscription.cancelled_at = True, now
    subscription.current_period_end = ends
    db.session.commit()
    return {"message": _("Subscription cancelled successfully"), "cancel_at": ends, "access_until": ends,
            "immediate": False}
