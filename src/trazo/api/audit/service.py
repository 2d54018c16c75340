"""Reading the security audit log (administrators)."""
from sqlalchemy import func, select

from ...extensions import db
from ...models.security import AuditEntry
from ..common import page_envelope


def list_entries(page, page_size, event=None, user_id=None, email=None):
    """A page of entries (rows), newest first, filtered by event and/or user (id or e-mail)."""
    query = select(AuditEntry)
    if event:
        query = query.where(AuditEntry.event == event)
    if user_id:
        query = query.where(AuditEntry.user_id == user_id)
    if email:
        query = query.where(AuditEntry.email == email)
    total = db.session.scalar(select(func.count()).select_from(query.subquery()))
    entries = db.session.scalars(query.order_by(AuditEntry.created_at.desc(), AuditEntry.id)
                                 .limit(page_size).offset((page - 1) * page_size)).all()
    return page_envelope(entries, total, page, page_size)
