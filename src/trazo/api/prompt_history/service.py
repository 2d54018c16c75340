"""Prompt history: the prompts a user sent to the AI, once per normalized text, newest use first."""
import hashlib

from flask_babel import gettext as _
from sqlalchemy import func, select

from ...core.content import access
from ...errors import N_, found_or_404
from ...extensions import db
from ...models.ai import PromptHistory
from ...models.base import utcnow
from ...models.workspaces import VIEWER
from ..common import page_envelope

LIKE_ESCAPE = "\\"


def prompt_hash(text):
    """Texts that differ only in case or surrounding spaces count as the same prompt."""
    return hashlib.sha256(text.strip().lower().encode("utf-8")).hexdigest()


def _escape_like(text):
    return (text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", LIKE_ESCAPE + "%")
            .replace("_", LIKE_ESCAPE + "_"))


def list_prompts(user, page=1, page_size=20, search=None, diagram_id=None):
    """A page of the caller's prompts, most recently used first; `search` is a plain substring."""
    query = select(PromptHistory).where(PromptHistory.user_id == user.id)
    if search and search.strip():
        pattern = f"%{_escape_like(search.strip())}%"
        query = query.where(PromptHistory.prompt_text.ilike(pattern, escape=LIKE_ESCAPE))
    if diagram_id:
        query = query.where(PromptHistory.diagram_id == diagram_id)
    total = db.session.scalar(select(func.count()).select_from(query.subquery()))
    items = db.session.scalars(query.order_by(PromptHistory.used_at.desc(), PromptHistory.id)
                               .offset((page - 1) * page_size).limit(page_size)).all()
    return page_envelope(items, total, page, page_size)


def save_prompt(user, prompt_text, operation_type, diagram_id=None):
    """Record a prompt, or mark the same prompt (for the same diagram) as used now.
    Returns the entry and whether it was created."""
    if diagram_id is not None:
        diagram_id = access.diagram(user, diagram_id, VIEWER).id
    digest = prompt_hash(prompt_text)
    entry = db.session.scalar(
        select(PromptHistory)
        .where(PromptHistory.user_id == user.id, PromptHistory.prompt_hash == digest,
               PromptHistory.diagram_id.is_(None) if diagram_id is None
               else PromptHistory.diagram_id == diagram_id)
        .order_by(PromptHistory.used_at.desc()).limit(1))
    created, now = entry is None, utcnow()
    if created:
        entry = PromptHistory(user_id=user.id, diagram_id=diagram_id, prompt_text=prompt_text.strip(),
                              prompt_hash=digest, operation_type=operation_type, created_at=now, used_at=now)
        db.session.add(entry)
    else:
        entry.used_at = now
    db.session.commit()
    return entry, created


def delete_prompt(user, entry_id):
    entry = found_or_404(db.session.scalar(select(PromptHistory).where(PromptHistory.id == str(entry_id),
                                                                       PromptHistory.user_id == user.id)),
                         N_("Prompt history entry not found"))
    db.session.delete(entry)
    db.session.commit()
    return {"message": _("Prompt history entry deleted successfully")}
