"""Plans: the catalog (active plans for everyone, every plan with its subscribers for administrators) and
its administration (create, edit, delete or deactivate, prices per currency).

The gateway is synchronised before the local commit, so a gateway failure (502) changes nothing
here; without payment credentials plans are kept locally and synchronised at their first checkout.
Gateway calls run with the database connection given back: the plan is read and checked, the gateway
is told what the plan will be, then the plan is loaded again and changed in a short transaction.
"""
from dataclasses import dataclass, replace

from flask_babel import gettext as _
from sqlalchemy import exists, func, or_, select
from sqlalchemy.exc import IntegrityError

from ...core.billing.money import to_minor
from ...core.billing.payments import optional_gateway, release_connection
from ...core.billing.plans import find_free_plan, free_plan
from ...errors import N_, BadRequest, Conflict, NotFound, found_or_404
from ...extensions import db
from ...models import User
from ...models.base import new_id, utcnow
from ...models.billing import (
    BASE_CURRENCY,
    CURRENT_STATUSES,
    FREE_PLAN_CODE,
    SUPPORTED_CURRENCIES,
    Plan,
    PlanPrice,
    Subscription,
)
from ...models.user import ROLE_ADMIN
from ...services.payments.catalog_sync import CatalogEntry, archive_product, catalog_entry, gateway_changes


@dataclass(frozen=True)
class AdminPlan:
    """A plan as administrators see it (AdminPlanSchema): the row's fields, its current subscribers, and
    the row itself for its gateway ids."""

    plan: Plan
    active_subscriptions: int

    def __getattr__(self, name):
        """The plan's own fields (asked only for names the dataclass does not have)."""
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.plan, name)


# -- the catalog ------------------------------------------------------------------------

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
    return _catalog_order(db.session.scalars(select(Plan).where(Plan.is_active.is_(True))))


def list_all_plans():
    free_plan()
    db.session.commit()
    counts = subscriber_counts()
    return [AdminPlan(plan, counts.get(plan.id, 0)) for plan in _catalog_order(db.session.scalars(select(Plan)))]


def plan_or_404(plan_id):
    return found_or_404(db.session.get(Plan, str(plan_id)), N_("Plan not found"))


# -- administration ---------------------------------------------------------------------

def _supported(currency):
    if currency not in SUPPORTED_CURRENCIES:
        raise BadRequest(_("Unsupported currency: %(currency)s. Supported currencies: %(supported)s",
                           currency=currency.upper(), supported=", ".join(c.upper() for c in SUPPORTED_CURRENCIES)))


def _ensure_unique(name, code, plan_id=None):
    conditions = [or_(func.lower(Plan.name) == name.lower(), Plan.code == code)]
    if plan_id is not None:
        conditions.append(Plan.id != plan_id)
    clash = db.session.scalar(select(Plan).where(*conditions).limit(1))
    if clash is not None and clash.code == code:
        raise BadRequest(_("Plan with code '%(code)s' already exists", code=code))
    if clash is not None:
        raise BadRequest(_("Plan with name '%(name)s' already exists", name=name))


def _limit(value):
    """-1 and null both mean unlimited; stored as null."""
    return None if value is None or value < 0 else value


def _other_amounts(prices):
    """The non-USD prices of a request, in minor units (the USD price is price_usd)."""
    amounts = {}
    for currency, amount in (prices or {}).items():
        currency = currency.lower()
        if currency != BASE_CURRENCY:
            _supported(currency)
            amounts[currency] = to_minor(amount)
    return amounts


def _check_amounts(amounts):
    if amounts.get(BASE_CURRENCY, 0) == 0 and len(amounts) > 1:
        raise BadRequest(_("Set a USD price on the plan before adding other currencies"))


def _set_amounts(plan, amounts):
    existing = {price.currency: price for price in plan.prices}
    for currency, price in existing.items():
        if currency not in amounts:
            plan.prices.remove(price)
    for currency, amount in amounts.items():
        if currency in existing:
            existing[currency].amount_minor = amount
        else:
            plan.prices.append(PlanPrice(currency=currency, amount_minor=amount))


def _gateway_sync(entry, prices_changed):
    """Bring the gateway in step with `entry` with no database connection held; the plan columns to
    store afterwards (none without payment credentials: the first checkout synchronises the plan)."""
    gateway = optional_gateway()
    if gateway is None:
        return {}
    release_connection()
    return gateway_changes(entry, gateway, prices_changed)


def _store(plan, changes):
    for column, value in changes.items():
        setattr(plan, column, value)


def _commit():
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise Conflict(_("The plan was changed at the same time; try again")) from None


def create_plan(data):
    free_plan()
    code, name = data["code"], data["name"].strip()
    if code == FREE_PLAN_CODE:
        raise BadRequest(_("The FREE code is reserved for the free plan"))
    _ensure_unique(name, code)
    amounts = {BASE_CURRENCY: to_minor(data["price_usd"]), **_other_amounts(data.get("prices"))}
    _check_amounts(amounts)
    plan_id, is_active = new_id(), data.get("is_active", True)
    changes = _gateway_sync(CatalogEntry(plan_id, name, data.get("description"), is_active, amounts, None, None),
                            prices_changed=True)
    plan = Plan(id=plan_id, code=code, name=name, description=data.get("description"),
                max_projects=_limit(data.get("max_projects")), max_diagrams=_limit(data.get("max_diagrams")),
                max_storage_mb=_limit(data.get("max_storage_mb")),
                max_revisions_per_diagram=_limit(data.get("max_revisions_per_diagram")),
                max_labelled_revisions_per_diagram=_limit(data.get("max_labelled_revisions_per_diagram")),
                max_members=_limit(data.get("max_members")), is_active=is_active)
    _set_amounts(plan, amounts)
    _store(plan, changes)
    db.session.add(plan)
    _commit()
    return AdminPlan(plan, 0)


def _check_free_plan_change(plan, data, amounts):
    if not plan.is_free:
        if data.get("code") == FREE_PLAN_CODE:
            raise BadRequest(_("The FREE code is reserved for the free plan"))
        return
    if data.get("code", FREE_PLAN_CODE) != FREE_PLAN_CODE:
        raise BadRequest(_("The code of the FREE plan cannot be changed"))
    if data.get("is_active") is False:
        raise BadRequest(_("The FREE plan cannot be deactivated"))
    if any(amounts.values()):
        raise BadRequest(_("The FREE plan must stay free"))


def update_plan(plan_id, data):
    plan = plan_or_404(plan_id)
    amounts = dict(plan.amounts)
    if "price_usd" in data:
        amounts[BASE_CURRENCY] = to_minor(data["price_usd"])
    if "prices" in data:
        amounts = {BASE_CURRENCY: amounts.get(BASE_CURRENCY, 0), **_other_amounts(data["prices"])}
    if "name" in data:
        data["name"] = data["name"].strip()
    _check_free_plan_change(plan, data, amounts)
    _ensure_unique(data.get("name", plan.name), data.get("code", plan.code), plan.id)
    _check_amounts(amounts)
    subscribers = subscriber_counts().get(plan.id, 0)
    if amounts.get(BASE_CURRENCY, 0) != plan.base_amount and subscribers:
        raise BadRequest(_("Cannot change the price of a plan with active subscriptions"))
    catalog_changed = any(field in data and data[field] != getattr(plan, field)
                          for field in ("name", "description", "is_active"))
    prices_changed = amounts != plan.amounts
    changes = {}
    if catalog_changed or prices_changed:
        future = {field: data[field] for field in ("name", "description", "is_active") if field in data}
        changes = _gateway_sync(replace(catalog_entry(plan), amounts=amounts, **future), prices_changed)
        plan = plan_or_404(plan_id)
    for field in ("name", "code", "description", "is_active"):
        if field in data:
            setattr(plan, field, data[field])
    for field in ("max_projects", "max_diagrams", "max_storage_mb", "max_revisions_per_diagram",
                  "max_labelled_revisions_per_diagram", "max_members"):
        if field in data:
            setattr(plan, field, _limit(data[field]))
    _set_amounts(plan, amounts)
    _store(plan, changes)
    plan.updated_at = utcnow()
    _commit()
    return AdminPlan(plan, subscribers)


def delete_plan(plan_id):
    """Delete a plan nobody ever subscribed to; deactivate one with subscriptions (they keep it)."""
    plan = plan_or_404(plan_id)
    if plan.is_free:
        raise BadRequest(_("The FREE plan cannot be deleted"))
    referenced = db.session.scalar(select(func.count(Subscription.id)).where(Subscription.plan_id == plan.id))
    entry, gateway = catalog_entry(plan), optional_gateway()
    if entry.product_id and gateway is not None:
        release_connection()
    archive_product(entry, gateway)
    plan = plan_or_404(plan_id)
    if referenced:
        maintained = subscriber_counts().get(plan.id, 0)
        plan.is_active = False
        _commit()
        return {"message": _("Plan deactivated successfully"), "plan_id": plan.id,
                "active_subscriptions_maintained": maintained}
    db.session.delete(plan)
    _commit()
    return {"message": _("Plan deleted successfully"), "plan_id": plan_id, "deleted": True}


def _save_prices(plan, amounts):
    changes = _gateway_sync(replace(catalog_entry(plan), amounts=amounts), prices_changed=True)
    plan = plan_or_404(plan.id)
    _set_amounts(plan, amounts)
    _store(plan, changes)
    plan.updated_at = utcnow()
    _commit()
    return AdminPlan(plan, subscriber_counts().get(plan.id, 0))


def add_price(plan_id, currency, amount):
    plan = plan_or_404(plan_id)
    currency = currency.lower()
    _supported(currency)
    if currency == BASE_CURRENCY:
        raise BadRequest(_("The USD price is managed through the plan edit flow"))
    if plan.base_amount == 0:
        raise BadRequest(_("Set a USD price on the plan before adding other currencies"))
    if currency in plan.amounts:
        raise BadRequest(_("The plan already has a price in %(currency)s", currency=currency.upper()))
    return _save_prices(plan, {**plan.amounts, currency: to_minor(amount)})


def remove_price(plan_id, currency):
    plan = plan_or_404(plan_id)
    currency = currency.lower()
    if currency == BASE_CURRENCY:
        raise BadRequest(_("The USD price is managed through the plan edit flow"))
    if currency not in plan.amounts:
        raise NotFound(_("The plan has no price in %(currency)s", currency=currency.upper()))
    return _save_prices(plan, {code: amount for code, amount in plan.amounts.items() if code != currency})
