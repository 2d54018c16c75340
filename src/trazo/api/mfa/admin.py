"""Administrators: the users with their MFA state and usage (a page or an XLSX export), MFA reset."""
from flask_babel import gettext as _
from sqlalchemy import func, or_, select

from ...errors import found_or_404
from ...extensions import db
from ...models import User
from ...services import audit
from ..common import page_envelope
from . import factors, usage
from .mail import send_disabled_notice


def _matching_users(search):
    query = select(User)
    term = (search or "").strip().lower()
    if term:
        query = query.where(or_(func.lower(User.email).contains(term, autoescape=True),
                                func.lower(func.coalesce(User.full_name, "")).contains(term, autoescape=True)))
    return query


def user_rows(search, limit=None, offset=0):
    """The matching users, newest first, with everything the list and the export show."""
    query = _matching_users(search).order_by(User.created_at.desc(), User.id.desc()).offset(offset)
    users = db.session.scalars(query.limit(limit) if limit else query).all()
    ids = [user.id for user in users] if limit else _matching_users(search).with_only_columns(User.id)
    content = usage.content_counts(ids)
    plans = usage.plan_names(users, ids)
    models = usage.ai_models(ids)
    codes = factors.unused_recovery_codes_by_user(ids)
    rows = []
    for user in users:
        projects, diagrams, types = content.get(user.id, (0, 0, {}))
        rows.append({
            "id": user.id, "email": user.email, "full_name": user.full_name, "role": user.role,
            "is_active": user.is_active, "mfa_enabled": user.mfa_enabled, "mfa_methods": list(user.mfa_methods),
            "mfa_default_method": user.mfa_default_method, "recovery_codes_remaining": codes.get(user.id, 0),
            "created_at": user.created_at, "last_login_at": user.last_login_at, "plan_name": plans[user.id],
            "project_count": projects, "diagram_count": diagrams, "diagram_type_counts": types,
            "connected_ai_models": models.get(user.id, []),
        })
    return rows


def list_users(page, page_size, search):
    total = db.session.scalar(select(func.count()).select_from(_matching_users(search).subquery()))
    return page_envelope(user_rows(search, limit=page_size, offset=(page - 1) * page_size), total, page, page_size)


def reset_mfa(admin, user_id):
    """Turn every factor of a user off (lost phone and recovery codes)."""
    target = found_or_404(db.session.get(User, user_id), _("User not found"))
    if not target.mfa_enabled and not target.mfa_methods:
        return {"message": _("The user does not have MFA enabled")}
    factors.forget_everything(target)
    target.mfa_enabled, target.mfa_methods, target.mfa_default_method = False, [], None
    db.session.commit()
    audit.record("admin_mfa_reset", user=target, details={"reset_by": admin.email, "admin_id": admin.id})
    send_disabled_notice(target, by_admin=True)
    return {"message": _("MFA disabled for %(email)s", email=target.email)}
