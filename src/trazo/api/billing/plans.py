"""Plans as the API shows them, each user's plan, and the FREE plan every user without a
subscription is on (created on first use with the limits of the settings)."""
from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import exists, func, select
from sqlalchemy.exc import IntegrityError

from ...cli import seeder
from ...extensions import db
from ...models import User
from ...models.billing import CURRENT_STATUSES, FREE_PLAN_CODE, Plan, PlanPrice, Subscription
from ...models.user import ROLE_ADMIN
from ..common import found_or_404
from .money import to_major

FREE_PLAN_NAME = "Free"
FREE_PLAN_DESCRIPTION = "Free plan with basic limits"


def _find_free_plan():
    return db.session.scalar(select(Plan).where(Plan.code == FREE_PLAN_CODE))


def _free_plan_defaults():
    return {"code": FREE_PLAN_CODE, "name": FREE_PLAN_NAME, "description": FREE_PLAN_DESCRIPTION,
            "max_projects": current_app.config["FREE_PLAN_MAX_PROJECTS"],
            "max_diagrams": current_app.config["FREE_PLAN_MAX_DIAGRAMS"],
            "max_storage_mb": _unlimited_when_negative(current_app.config["FREE_PLAN_MAX_STORAGE_MB"])}


def _unlimited_when_negative(limit):
    return None if limit is None or limit < 0 else limit


def free_plan():
    """The FREE plan, created when missing (in a savepoint, so the caller's transaction survives
    a concurrent creation). The caller commits."""
    plan = _find_free_plan()
    if plan is not None:
        return plan
    try:
        with db.session.begin_nested():
            plan = Plan(**_free_plan_defaults(), prices=[PlanPrice(currency="usd", amount_minor=0)])
            db.session.add(plan)
    except IntegrityError:
        plan = _find_free_plan()
    return plan


@seeder
def seed_free_plan():
    """Make sure the FREE plan exists (flask seed)."""
    existed = _find_free_plan() is not None
    plan = free_plan()
    db.session.commit()
    state = "already present" if existed else "created"
    return (f"FREE plan {state} (max_projects={_limit_text(plan.max_projects)}, "
            f"max_diagrams={_limit_text(plan.max_diagrams)})")


def _limit_text(limit):
    return "unlimited" if limit is None else str(limit)


# -- each user's plan -------------------------------------------------------------------

def current_subscription(user_id):
    """The subscription that gives the user its plan, or None (the FREE plan)."""
    return db.session.scalar(select(Subscription).where(Subscription.user_id == user_id,
                                                        Subscription.status.in_(CURRENT_STATUSES)))


def plan_for(user):
    subscription = current_subscription(user.id)
    return subscription.plan if subscription is not None else free_plan()


def plan_summary(user):
    """{"plan": {name, price_usd, max_projects, max_diagrams}} for the profile; None for administrators.
    Read-only: a FREE plan not created yet is described from the settings."""
    if user.is_admin:
        return None
    subscription = current_subscription(user.id)
    plan = subscription.plan if subscription is not None else _find_free_plan()
    if plan is None:
        defaults = _free_plan_defaults()
        return {"plan": {"name": defaults["name"], "price_usd": 0.0, "max_projects": defaults["max_projects"],
                         "max_diagrams": defaults["max_diagrams"]}}
    return {"plan": {"name": plan.name, "price_usd": to_major(plan.base_amount), "max_projects": plan.max_projects,
                     "max_diagrams": plan.max_diagrams}}


# -- the catalog ------------------------------------------------------------------------

def plan_view(plan, subscribers=None):
    """A plan as the API shows it; administrators also see its subscribers and gateway ids."""
    view = {"id": plan.id, "name": plan.name, "code": plan.code, "description": plan.description,
            "price_usd": to_major(plan.base_amount), "max_projects": plan.max_projects,
            "max_diagrams": plan.max_diagrams, "max_storage_mb": plan.max_storage_mb, "is_active": plan.is_active,
            "is_free": plan.is_free,
            "prices": {currency: to_major(amount, currency) for currency, amount in plan.amounts.items()},
            "created_at": plan.created_at, "updated_at": plan.updated_at}
    if subscribers is not None:
        view["active_subscriptions"] = subscribers
        view["gateway_config"] = {"provider": plan.gateway_provider,
                                  "external_product_id": plan.gateway_product_id,
                                  "external_price_id": plan.gateway_price_id}
    return view


def _catalog_order(plans):
    return sorted(plans, key=lambda plan: (plan.base_amount, plan.name.lower()))


def subscriber_counts():
    """Current subscribers per plan id; the FREE plan counts the users without a subscription."""
    counts = dict(db.session.execute(
        select(Subscription.plan_id, func.count(Subscription.id))
        .where(Subscription.status.in_(CURRENT_STATUSES)).group_by(Subscription.plan_id)).all())
    free = _find_free_plan()
    if free is not None:
        subscribed = exists().where(Subscription.user_id == User.id, Subscription.status.in_(CURRENT_STATUSES))
        counts[free.id] = counts.get(free.id, 0) + db.session.scalar(
            select(func.count(User.id)).where(User.role != ROLE_ADMIN, ~subscribed))
    return counts


def list_active_plans():
    free_plan()
    db.session.commit()
    plans = db.session.scalars(select(Plan).where(Plan.is_active.is_(True))).all()
    return [plan_view(plan) for plan in _catalog_order(plans)]


def list_all_plans():
    free_plan()
    db.session.commit()
    counts = subscriber_counts()
    return [plan_view(plan, counts.get(plan.id, 0)) for plan in _catalog_order(db.session.scalars(select(Plan)))]


def plan_or_404(plan_id):
    return found_or_404(db.session.get(Plan, str(plan_id)), _("Plan not found"))


def get_plan(plan_id):
    return plan_view(plan_or_404(plan_id))
