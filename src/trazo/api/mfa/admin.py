"""Administrators: the users with their MFA state and usage (a page or an XLSX export), MFA reset.

The usage figures (plan, content, AI models) are read for many users at once: a fixed number of grouped
queries, whatever the number of users. `user_ids` is a list of ids or a SELECT of ids (the whole export).
"""
from dataclasses import dataclass, field

from flask_babel import gettext as _
from sqlalchemy import func, or_, select

from ...core.accounts import audit, factors
from ...core.billing.plans import FREE_PLAN_NAME
from ...errors import N_, found_or_404
from ...extensions import db
from ...models import User
from ...models.ai import AIProvider
from ...models.billing import CURRENT_STATUSES, FREE_PLAN_CODE, Plan, Subscription
from ...models.content import Diagram, Project
from ...models.workspaces import Workspace
from ..common import page_envelope
from .service import send_disabled_notice


@dataclass(frozen=True)
class ListedUser:
    """A user as the administrators' list and export show it: the row (AdminUserSchema reads its
    columns) and its figures."""

    user: User
    recovery_codes_remaining: int
    plan_name: str | None
    project_count: int = 0
    diagram_count: int = 0
    diagram_type_counts: dict = field(default_factory=dict)
    connected_ai_models: list = field(default_factory=list)

    def __getattr__(self, name):
        return getattr(self.user, name)


def _matching_users(search):
    query = select(User)
    term = (search or "").strip().lower()
    if term:
        query = query.where(or_(func.lower(User.email).contains(term, autoescape=True),
                                func.lower(func.coalesce(User.full_name, "")).contains(term, autoescape=True)))
    return query


def _content_counts(user_ids):
    """{user_id: (projects, diagrams, {type: count})}."""
    payer = Workspace.billing_owner_id  # content counts for whoever's plan it is under (docs/teams.md)
    projects = dict(db.session.execute(select(payer, func.count()).select_from(Project)
                                       .join(Workspace, Workspace.id == Project.workspace_id)
                                       .where(payer.in_(user_ids)).group_by(payer)).all())
    diagram_type = func.lower(Diagram.diagram_type)
    types = {}
    rows = db.session.execute(select(payer, diagram_type, func.count()).select_from(Diagram)
                              .join(Project, Diagram.project_id == Project.id)
                              .join(Workspace, Workspace.id == Project.workspace_id)
                              .where(payer.in_(user_ids))
                              .group_by(payer, diagram_type))
    for user_id, kind, count in rows:
        types.setdefault(user_id, {})[kind] = count
    return {user_id: (projects.get(user_id, 0), sum(types.get(user_id, {}).values()), types.get(user_id, {}))
            for user_id in set(projects) | set(types)}


def _plan_names(users, user_ids):
    """{user_id: plan name} as the profile shows it: none for administrators, FREE without a subscription."""
    current = dict(db.session.execute(
        select(Subscription.user_id, Plan.name).join(Plan, Subscription.plan_id == Plan.id)
        .where(Subscription.user_id.in_(user_ids), Subscription.status.in_(CURRENT_STATUSES))).all())
    free = db.session.scalar(select(Plan.name).where(Plan.code == FREE_PLAN_CODE)) or FREE_PLAN_NAME
    return {user.id: None if user.is_admin else current.get(user.id, free) for user in users}


def _ai_models(user_ids):
    """{user_id: [active AI providers]}."""
    models = {}
    rows = db.session.scalars(select(AIProvider).where(AIProvider.user_id.in_(user_ids),
                                                       AIProvider.is_active.is_(True))
                              .order_by(AIProvider.user_id, AIProvider.position))
    for row in rows:
        models.setdefault(row.user_id, []).append(row)
    return models


def listed_users(search, limit=None, offset=0):
    """The matching users, newest first, with everything the list and the export show."""
    query = _matching_users(search).order_by(User.created_at.desc(), User.id.desc()).offset(offset)
    users = db.session.scalars(query.limit(limit) if limit else query).all()
    ids = [user.id for user in users] if limit else _matching_users(search).with_only_columns(User.id)
    content = _content_counts(ids)
    plans = _plan_names(users, ids)
    models = _ai_models(ids)
    codes = factors.unused_recovery_codes_by_user(ids)
    return [ListedUser(user, codes.get(user.id, 0), plans[user.id], *content.get(user.id, (0, 0, {})),
                       models.get(user.id, []))
            for user in users]


def list_users(page, page_size, search):
    total = db.session.scalar(select(func.count()).select_from(_matching_users(search).subquery()))
    return page_envelope(listed_users(search, limit=page_size, offset=(page - 1) * page_size), total, page,
                         page_size)


def reset_mfa(admin, user_id):
    """Turn every factor of a user off (lost phone and recovery codes)."""
    target = found_or_404(db.session.get(User, user_id), N_("User not found"))
    if not target.mfa_enabled and not target.mfa_methods:
        return {"message": _("The user does not have MFA enabled")}
    factors.forget_everything(target)
    target.mfa_enabled, target.mfa_methods, target.mfa_default_method = False, [], None
    send_disabled_notice(target, by_admin=True)
    db.session.commit()
    audit.record("admin_mfa_reset", user=target, details={"reset_by": admin.email, "admin_id": admin.id})
    return {"message": _("MFA disabled for %(email)s", email=target.email)}
