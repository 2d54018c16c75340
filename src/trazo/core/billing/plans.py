"""Each user's plan: the FREE plan every user without a subscription is on (created on first use with
the limits of the settings), the subscription that gives a paid plan, and the rule that an account with a
running paid subscription cannot be deleted."""
from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import and_, bindparam, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import lazyload

from ...errors import Forbidden
from ...extensions import db
from ...models.billing import BASE_CURRENCY, CURRENT_STATUSES, FREE_PLAN_CODE, Plan, PlanPrice, Subscription
from .money import to_major

FREE_PLAN_NAME = "Free"
FREE_PLAN_DESCRIPTION = "Free plan with basic limits"


def find_free_plan():
    return db.session.scalar(select(Plan).where(Plan.code == FREE_PLAN_CODE))


def _free_plan_defaults():
    return {"code": FREE_PLAN_CODE, "name": FREE_PLAN_NAME, "description": FREE_PLAN_DESCRIPTION,
            "max_projects": current_app.config["FREE_PLAN_MAX_PROJECTS"],
            "max_diagrams": current_app.config["FREE_PLAN_MAX_DIAGRAMS"],
            "max_storage_mb": _unlimited_when_negative(current_app.config["FREE_PLAN_MAX_STORAGE_MB"]),
            "max_revisions_per_diagram": _unlimited_when_negative(
                current_app.config["FREE_PLAN_MAX_REVISIONS_PER_DIAGRAM"]),
            "max_labelled_revisions_per_diagram": _unlimited_when_negative(
                current_app.config["FREE_PLAN_MAX_LABELLED_REVISIONS_PER_DIAGRAM"]),
            "max_members": _unlimited_when_negative(current_app.config["FREE_PLAN_MAX_MEMBERS"])}


def _unlimited_when_negative(limit):
    return None if limit is None or limit < 0 else limit


def free_plan():
    """The FREE plan, created when missing (in a savepoint, so the caller's transaction survives
    a concurrent creation). The caller commits."""
    plan = find_free_plan()
    if plan is not None:
        return plan
    try:
        with db.session.begin_nested():
            plan = Plan(**_free_plan_defaults(), prices=[PlanPrice(currency="usd", amount_minor=0)])
            db.session.add(plan)
    except IntegrityError:
        plan = find_free_plan()
    return plan


def seed_free_plan():
    """Make sure the FREE plan exists (flask seed)."""
    existed = find_free_plan() is not None
    plan = free_plan()
    db.session.commit()
    state = "already present" if existed else "created"
    return (f"FREE plan {state} (max_projects={_limit_text(plan.max_projects)}, "
            f"max_diagrams={_limit_text(plan.max_diagrams)})")


def _limit_text(limit):
    return "unlimited" if limit is None else str(limit)


def current_subscription(user_id):
    """The subscription that gives the user its plan, or None (the FREE plan)."""
    return db.session.scalar(select(Subscription).where(Subscription.user_id == user_id,
                                                        Subscription.status.in_(CURRENT_STATUSES)))


# The plan of the user `user_id` names, built once: the plan of its current subscription, else the FREE plan.
SUBSCRIBED_PLAN_ID = (select(Subscription.plan_id)
                      .where(Subscription.user_id == bindparam("user_id"), Subscription.status.in_(CURRENT_STATUSES))
                      .limit(1).scalar_subquery())
USERS_PLAN = or_(Plan.id == SUBSCRIBED_PLAN_ID, and_(Plan.code == FREE_PLAN_CODE, SUBSCRIBED_PLAN_ID.is_(None)))
PLAN_OF_USER = select(Plan).where(USERS_PLAN).limit(1).options(lazyload(Plan.prices))


def plan_for(user):
    """The plan that limits `user`, in one statement (its prices are read only when asked for); the FREE plan
    is created when missing."""
    return db.session.scalar(PLAN_OF_USER, {"user_id": user.id}) or free_plan()


def labelled_revision_limit(user):
    """The named revisions one diagram of `user` may hold (None: unlimited; administrators always)."""
    return None if user.is_admin else plan_for(user).max_labelled_revisions_per_diagram


def plan_summary(user):
    """{"plan": {name, price_usd, max_projects, max_diagrams}} for the profile; None for administrators.
    Read-only, in one query (the subscribed plan, else the FREE plan, with its base price): a FREE plan
    not created yet is described from the settings."""
    if user.is_admin:
        return None
    row = db.session.execute(
        select(Plan.name, Plan.max_projects, Plan.max_diagrams, PlanPrice.amount_minor)
        .outerjoin(PlanPrice, and_(PlanPrice.plan_id == Plan.id, PlanPrice.currency == BASE_CURRENCY))
        .where(USERS_PLAN).limit(1), {"user_id": user.id}).first()
    if row is None:
        defaults = _free_plan_defaults()
        return {"plan": {"name": defaults["name"], "price_usd": 0.0, "max_projects": defaults["max_projects"],
                         "max_diagrams": defaults["max_diagrams"]}}
    return {"plan": {"name": row.name, "price_usd": to_major(row.amount_minor or 0), "max_projects": row.max_projects,
                     "max_diagrams": row.max_diagrams}}


def ensure_account_deletable(user):
    """Refuse to delete an account whose paid subscription would keep being charged."""
    subscription = current_subscription(user.id)
    if subscription is not None and subscription.plan.base_amount > 0 and not subscription.cancel_at_period_end:
        raise Forbidden(_("Cannot delete account with active paid subscription. "
                          "Please switch to the free plan first."))
