"""The caller's subscription: what it is, how much of the plan is used, choosing a plan (a gateway checkout
for a paid plan, an immediate switch for a free one), cancelling it, and the gateway's billing portal for
changing the payment method. Gateway calls run with no database connection held."""
from dataclasses import dataclass
from types import MappingProxyType

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import select

from ...core.billing.money import from_unix
from ...core.billing.payments import release_connection, require_gateway
from ...core.billing.plans import current_subscription, free_plan, plan_for
from ...core.billing.quotas import count_all
from ...errors import BadRequest
from ...extensions import db
from ...models.base import utcnow
from ...models.billing import ACTIVE, CANCELLED, RESOURCE_TYPES, Plan, Subscription
from ...services.payments.catalog_sync import catalog_entry, gateway_changes
from .plans import plan_or_404

ADMIN_PLAN_CODE = "ADMIN"


@dataclass(frozen=True)
class AdministratorPlan:
    """The unlimited plan administrators have without a subscription (shown, never stored)."""

    name: str
    description: str
    id = created_at = updated_at = max_projects = max_diagrams = max_storage_mb = max_revisions_per_diagram = None
    max_labelled_revisions_per_diagram = max_members = None
    code = ADMIN_PLAN_CODE
    base_amount = 0
    amounts = MappingProxyType({})
    is_active = True
    is_free = False

    def limit_for(self, resource_type):
        return None


def administrator_plan():
    return AdministratorPlan(_("Administrator"), _("Full access without limits"))


@dataclass(frozen=True)
class ImplicitSubscription:
    """A plan the user has without a subscription record: FREE, or the administrators' plan."""

    user_id: str
    plan: Plan | AdministratorPlan
    id = payment_provider = stripe_customer_id = stripe_subscription_id = None
    started_at = current_period_start = current_period_end = cancelled_at = created_at = updated_at = None
    status = ACTIVE
    cancel_at_period_end = False


@dataclass(frozen=True)
class Counter:
    """Live usage of one resource against the plan's limit (None = unlimited)."""

    current: int
    limit: int | None

    @property
    def percentage(self):
        if self.limit is None:
            return 0.0
        if self.limit <= 0:
            return 100.0
        return round(self.current * 100 / self.limit, 1)


@dataclass(frozen=True)
class Usage:
    """Live counts against the caller's plan (UsageSchema)."""

    plan_name: str
    projects: Counter
    diagrams: Counter
    storage: Counter
    storage_breakdown: dict

    @property
    def usage_percentage(self):
        return {resource: getattr(self, resource).percentage for resource in RESOURCE_TYPES}


def my_subscription(user):
    """The current subscription, else the FREE plan (or the administrators' plan) as one."""
    if user.is_admin:
        return ImplicitSubscription(user.id, administrator_plan())
    subscription = current_subscription(user.id)
    if subscription is not None:
        return subscription
    plan = free_plan()
    db.session.commit()  # the FREE plan, when this request created it
    return ImplicitSubscription(user.id, plan)


def usage(user):
    """Live counts against the plan's limits (a null limit is unlimited)."""
    counts = count_all(user.id)
    plan = administrator_plan() if user.is_admin else plan_for(user)
    current = {"projects": counts.projects, "diagrams": counts.diagrams, "storage": counts.storage}
    breakdown = {"content_bytes": counts.content_bytes, "history_bytes": counts.history_bytes,
                 "overhead_bytes": counts.overhead_bytes, "folders": counts.folders, "revisions": counts.revisions}
    result = Usage(plan.name, **{resource: Counter(current[resource], plan.limit_for(resource))
                                 for resource in RESOURCE_TYPES}, storage_breakdown=breakdown)
    db.session.commit()  # the FREE plan, when this request created it
    return result


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


def _profile_url(extra=""):
    return f"{current_app.config['FRONTEND_URL']}/profile?tab=subscription{extra}"


def start_checkout(user, plan_id):
    """A checkout session URL for a paid plan (nothing changes here until the gateway's webhook).
    The gateway is called with no database connection held."""
    gateway = require_gateway()
    plan = plan_or_404(plan_id)
    if user.is_admin:
        raise BadRequest(_("Administrators have no plan limits and need no subscription"))
    if not plan.is_active:
        raise BadRequest(_("This plan is no longer available"))
    current = current_subscription(user.id)
    if (current.plan_id if current is not None else free_plan().id) == plan.id:
        raise BadRequest(_("You are already subscribed to this plan"))
    if plan.base_amount == 0:
        return _switch_to_free_plan(user.id, plan, current, gateway)
    if current is not None and current.stripe_subscription_id and not current.cancel_at_period_end:
        raise BadRequest(_("You already have a paid subscription. Cancel it before subscribing to another plan."))
    entry = catalog_entry(plan) if plan.gateway_price_id is None else None
    price_id, customer_id = plan.gateway_price_id, _customer_id(user.id, current)
    metadata, email = {"user_id": user.id, "plan_id": plan.id}, user.email
    db.session.commit()  # the FREE plan, when this request created it
    release_connection()
    changes = gateway_changes(entry, gateway, prices_changed=True) if entry is not None else {}
    session = gateway.create_checkout_session(
        changes.get("gateway_price_id", price_id), customer_id, email, metadata,
        success_url=_profile_url("&success=true&session_id={CHECKOUT_SESSION_ID}"), cancel_url=_profile_url())
    if changes:
        _store_catalog_ids(entry.plan_id, changes)
    return {"session_id": session["id"], "session_url": session["url"], "message": None}


def _store_catalog_ids(plan_id, changes):
    plan = db.session.get(Plan, plan_id)
    if plan is not None:
        for column, value in changes.items():
            setattr(plan, column, value)
        db.session.commit()


def _customer_id(user_id, current):
    """Reuse the user's gateway customer, so invoices and payment methods stay in one place."""
    if current is not None and current.stripe_customer_id:
        return current.stripe_customer_id
    return db.session.scalar(
        select(Subscription.stripe_customer_id)
        .where(Subscription.user_id == user_id, Subscription.stripe_customer_id.is_not(None))
        .order_by(Subscription.created_at.desc()).limit(1))


def _switch_to_free_plan(user_id, plan, current, gateway):
    """End the current subscription (at the gateway first, with no connection held) and, for a free
    plan other than FREE, start one on it."""
    plan_id, plan_name, plan_is_free = plan.id, plan.name, plan.is_free
    current_id = current.id if current is not None else None
    remote_id = current.stripe_subscription_id if current is not None and not current.cancel_at_period_end else None
    db.session.commit()  # the FREE plan, when this request created it
    if remote_id:
        release_connection()
        gateway.cancel_subscription(remote_id)
    now = utcnow()
    if current_id is not None:
        ended = db.session.get(Subscription, current_id)
        ended.status, ended.cancelled_at, ended.cancel_at_period_end = CANCELLED, now, False
        db.session.flush()
    if not plan_is_free:
        db.session.add(Subscription(user_id=user_id, plan_id=plan_id, status=ACTIVE, started_at=now))
    db.session.commit()
    return {"session_id": None, "session_url": None,
            "message": _("Plan changed immediately to %(plan)s", plan=plan_name)}


def payment_method_portal(user):
    """A billing portal session where the user changes the card of the paid subscription."""
    gateway = require_gateway()
    subscription = current_subscription(user.id)
    if subscription is None or not subscription.stripe_customer_id:
        raise BadRequest(_("No payment method to update on free plan"))
    customer_id = subscription.stripe_customer_id
    release_connection()
    session = gateway.create_portal_session(customer_id, _profile_url("&payment_updated=true"))
    return {"session_id": session["id"], "session_url": session["url"]}
