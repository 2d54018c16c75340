"""Shared links, managed by the owner of the diagram: one active link per diagram."""
from datetime import timedelta

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import select, update

from ...core.ownership import owned_diagram
from ...errors import found_or_404
from ...extensions import db
from ...models.base import utcnow
from ...models.content import Diagram
from ...models.sharing import ACCESS_PROTECTED, SharedLink
from ...services.passwords import hash_password
from .share_tokens import new_access_code, new_link_token


def link_payload(link, access_code=None):
    """The owner's view of a link; the plain code only when this very call set or generated it."""
    return {
        "id": link.id, "diagram_id": link.diagram_id, "token": link.token,
        "share_url": f"{current_app.config['FRONTEND_URL']}/shared/{link.token}",
        "access_type": link.access_type, "access_code": access_code, "allow_copy_code": link.allow_copy_code,
        "expires_at": link.expires_at, "is_active": link.is_active,
        "created_at": link.created_at, "updated_at": link.updated_at,
    }


def _expiry(days):
    return None if days is None else utcnow() + timedelta(days=days)


def _owned_link(user, link_id):
    return found_or_404(db.session.scalar(select(SharedLink).where(SharedLink.id == str(link_id),
                                                                   SharedLink.user_id == user.id)),
                        _("Shared link not found"))


def create_link(user, data):
    """Share a diagram under a new token, revoking the link it had; protected links get a code."""
    diagram_id = owned_diagram(user, data["diagram_id"]).id
    code = code_hash = None
    if data["access_type"] == ACCESS_PROTECTED:
        code = data["access_code"] or new_access_code()
        code_hash = hash_password(code)
    # Creations for one diagram take turns on its row, so each one revokes the link the previous made.
    db.session.execute(select(Diagram.id).where(Diagram.id == diagram_id).with_for_update())
    db.session.execute(update(SharedLink).where(SharedLink.diagram_id == diagram_id, SharedLink.is_active)
                       .values(is_active=False, updated_at=utcnow()))
    link = SharedLink(diagram_id=diagram_id, user_id=user.id, token=new_link_token(),
                      access_type=data["access_type"], access_code_hash=code_hash,
                      allow_copy_code=data["allow_copy_code"], expires_at=_expiry(data["expiration_days"]))
    db.session.add(link)
    db.session.commit()
    return link_payload(link, code)


def active_link(user, diagram_id):
    """The diagram's active link (expired ones included, so the owner sees them), or None."""
    diagram = owned_diagram(user, diagram_id)
    link = db.session.scalar(select(SharedLink).where(SharedLink.diagram_id == diagram.id,
                                                      SharedLink.is_active))
    return link_payload(link) if link else None


def update_link(user, link_id, data):
    """Change expiry, access type, code or copy permission; the token stays the same."""
    link = _owned_link(user, link_id)
    new_code = None
    if "expiration_days" in data:
        link.expires_at = _expiry(data["expiration_days"])
    if "allow_copy_code" in data:
        link.allow_copy_code = data["allow_copy_code"]
    link.access_type = data.get("access_type", link.access_type)
    if link.access_type != ACCESS_PROTECTED:
        link.access_code_hash = None
    elif data.get("access_code") or not link.access_code_hash:
        new_code = data.get("access_code") or new_access_code()
        link.access_code_hash = hash_password(new_code)
    link.updated_at = utcnow()
    db.session.commit()
    return link_payload(link, new_code)


def revoke_link(user, link_id):
    """Stop the link from answering; revoking twice is not an error."""
    link = _owned_link(user, link_id)
    link.is_active = False
    link.updated_at = utcnow()
    db.session.commit()
    return {"message": _("Shared link revoked successfully")}
