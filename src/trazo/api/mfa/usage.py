"""What the administrators' user list shows besides MFA: plan, content and AI models, for many
users at once (a fixed number of grouped queries, whatever the number of users).

`user_ids` is a list of ids or a SELECT of ids (the whole export).
"""
from sqlalchemy import func, select

from ...core.plans import FREE_PLAN_NAME
from ...extensions import db
from ...models.ai import AIProvider
from ...models.billing import CURRENT_STATUSES, FREE_PLAN_CODE, Plan, Subscription
from ...models.content import Diagram, Project


def content_counts(user_ids):
    """{user_id: (projects, diagrams, {type: count})}."""
    projects = dict(db.session.execute(select(Project.user_id, func.count()).where(Project.user_id.in_(user_ids))
                                       .group_by(Project.user_id)).all())
    diagram_type = func.lower(Diagram.diagram_type)
    types = {}
    rows = db.session.execute(select(Project.user_id, diagram_type, func.count())
                              .join(Project, Diagram.project_id == Project.id)
                              .where(Project.user_id.in_(user_ids))
                              .group_by(Project.user_id, diagram_type))
    for user_id, kind, count in rows:
        types.setdefault(user_id, {})[kind] = count
    return {user_id: (projects.get(user_id, 0), sum(types.get(user_id, {}).values()), types.get(user_id, {}))
            for user_id in set(projects) | set(types)}


def plan_names(users, user_ids):
    """{user_id: plan name} as the profile shows it: none for administrators, FREE without a subscription."""
    current = dict(db.session.execute(
        select(Subscription.user_id, Plan.name).join(Plan, Subscription.plan_id == Plan.id)
        .where(Subscription.user_id.in_(user_ids), Subscription.status.in_(CURRENT_STATUSES))).all())
    free = db.session.scalar(select(Plan.name).where(Plan.code == FREE_PLAN_CODE)) or FREE_PLAN_NAME
    return {user.id: None if user.is_admin else current.get(user.id, free) for user in users}


def ai_models(user_ids):
    """{user_id: [active AI providers]}."""
    models = {}
    rows = db.session.scalars(select(AIProvider).where(AIProvider.user_id.in_(user_ids),
                                                       AIProvider.is_active.is_(True))
                              .order_by(AIProvider.user_id, AIProvider.position))
    for row in rows:
        models.setdefault(row.user_id, []).append({"provider": row.provider, "model": row.model,
                                                   "is_default": row.is_default, "is_active": row.is_active,
                                                   "display_name": row.display_name})
    return models
