"""Plans as the API shows them: the catalog, with subscriber counts for administrators."""
from flask_babel import gettext as _
from sqlalchemy import exists, func, select

from ...core.money import to_major
from ...core.plans import find_free_plan, free_plan
from ...errors import found_or_404
from ...extensions import db
from ...models import User
from ...models.billing import CURRENT_STATUSES, Plan, Subscription
from ...models.user import ROLE_ADMIN

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
    free = find_free_plan()
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
