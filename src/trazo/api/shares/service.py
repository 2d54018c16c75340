"""Shared links, managed by the editors of the diagram's workspace: one active link per diagram."""
from dataclasses import dataclass
from datetime import timedelta

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import select, update

from ...core.accounts.passwords import hash_password
from ...core.content import access
from ...core.content.revalidations import ending_links, ending_tokens
from ...extensions import db
from ...models.base import utcnow
from ...models.content import Diagram
from ...models.sharing import ACCESS_PROTECTED, SharedLink
from ...models.workspaces import EDITOR
from .share_secrets import new_access_code, new_link_token


@dataclass(frozen=True)
class ManagedLink:
    """A link as its owner sees it (SharedLinkSchema): the row's attributes, its address and, only in the
    answer of the call that set or generated it, the plain access code (the row keeps a hash)."""

    link: SharedLink
    access_code: str | None = None

    def __getattr__(self, name):
        return getattr(self.link, name)

    @property
    def share_url(self):
        return f"{current_app.config['FRONTEND_URL']}/shared/{self.link.token}"


def _expiry(days):
    return None if days is None else utcnow() + timedelta(days=days)


def create_link(user, data):
    """Share a diagram under a new token, revoking the link it had; protected links get a code."""
    diagram_id = access.diagram(user, data["diagram_id"], EDITOR).id
    code = code_hash = None
    if data["access_type"] == ACCESS_PROTECTED:
        code = data["access_code"] or new_access_code()
        code_hash = hash_password(code)
    # Creations for one diagram take turns on its row, so each one revokes the link the previous made.
    db.session.execute(select(Diagram.id).where(Diagram.id == diagram_id).with_for_update())
    ending_links(SharedLink.diagram_id == diagram_id)  # the revoked link's image stops answering too
    db.session.execute(update(SharedLink).where(SharedLink.diagram_id == diagram_id, SharedLink.is_active)
                       .values(is_active=False, updated_at=utcnow()))
    link = SharedLink(diagram_id=diagram_id, user_id=user.id, token=new_link_token(),
                      access_type=data["access_type"], access_code_hash=code_hash,
                      allow_copy_code=data["allow_copy_code"], expires_at=_expiry(data["expiration_days"]))
    db.session.add(link)
    db.session.commit()
    return ManagedLink(link, code)


def active_link(user, diagram_id):
    """The diagram's active link (expired ones included, so the owner sees them), or None."""
    diagram = access.diagram(user, diagram_id, EDITOR)
    link = db.session.scalar(select(SharedLink).where(SharedLink.diagram_id == diagram.id,
                                                      SharedLink.is_active))
    return ManagedLink(link) if link else None


def update_link(user, link_id, data):
    """Change expiry, access type, code or copy permission; the token stays the same."""
    link = access.shared_link(user, link_id, EDITOR)
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
    ending_tokens([link.token])  # a link that became protected stops answering its image's revalidations
    db.session.commit()
    return ManagedLink(link, new_code)


def revoke_link(user, link_id):
    """Stop the link from answering; revoking twice is not an error."""
    link = access.shared_link(user, link_id, EDITOR)
    link.is_active = False
    link.updated_at = utcnow()
    ending_tokens([link.token])
    db.session.commit()
    return {"message": _("Shared link revoked successfully")}
