"""Invite links to a team workspace (docs/teams.md, "Invitations and invite links").

An admin makes a join link for a role up to editor, valid 1 to 30 days, for 1 to 1000 uses or, with
`max_uses` null, any number until it expires (the members limit still holds). Anyone signed in who has
the link joins with it: each join counts a use in the statement that checks the link still has one
(`UPDATE ... SET uses = uses + 1 WHERE uses < max_uses`, checked by its row count), under the workspace
lock `members.add_member` holds, in the membership's transaction, so concurrent joins pass neither
`max_uses` nor `max_members`. Only a digest of the token is kept; the token is shown once, at creation.
Revoking deletes the link. The caller (the API service) commits.
"""
from datetime import timedelta

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import func, or_, select, update

from ...errors import Conflict, NotFound, found_or_404
from ...extensions import db
from ...models.base import new_id, utcnow
from ...models.workspaces import COMMENTER, EDITOR, VIEWER, InviteLink, Workspace
from ..hashing import digest
from ..workspaces.members import add_member, lock_workspace, record_event
from .invitations import Gone, administered_workspace, listed, new_token, revoked, workspace_answer

LINK_ROLES = (VIEWER, COMMENTER, EDITOR)
MAX_EXPIRY_DAYS = 30
MAX_USES = 1000
# Active (unexpired, not used up) links one workspace may hold.
MAX_ACTIVE_LINKS = 100


def url(token):
    return f"{current_app.config['FRONTEND_URL']}/invite-links/{token}"


def _active(now):
    return (InviteLink.expires_at > now, or_(InviteLink.max_uses.is_(None), InviteLink.uses < InviteLink.max_uses))


def _answer(link, created_by):
    return {"id": link.id, "role": link.role, "created_at": link.created_at, "expires_at": link.expires_at,
            "max_uses": link.max_uses, "uses": link.uses, "created_by": created_by}


def create(user, workspace_id, role, expires_in_days, max_uses):
    """A join link to the team `workspace_id` for `role` (schema-checked: up to editor): its answer, with the
    token and its URL (shown this once)."""
    workspace, _role = administered_workspace(user, workspace_id)
    lock_workspace(workspace.id)
    now = utcnow()
    active = db.session.scalar(select(func.count()).select_from(InviteLink)
                               .where(InviteLink.workspace_id == workspace.id, *_active(now)))
    if active >= MAX_ACTIVE_LINKS:
        raise Conflict(_("This workspace already has %(count)s active invite links: revoke some first",
                         count=MAX_ACTIVE_LINKS))
    token, token_digest = new_token()
    link = InviteLink(id=new_id(), workspace_id=workspace.id, role=role, token_digest=token_digest, created_by=user.id,
                      created_at=now, expires_at=now + timedelta(days=expires_in_days), max_uses=max_uses, uses=0)
    db.session.add(link)
    record_event(workspace.id, user.id, "invite_link_created", invite_link_id=link.id, role=role,
                 max_uses=max_uses, expires_at=link.expires_at.isoformat())
    return {**_answer(link, {"id": user.id, "full_name": user.full_name}), "token": token, "url": url(token)}


def active_links(user, workspace_id):
    """The workspace's active links (unexpired, not used up), newest first, without their tokens (admins)."""
    return [_answer(link, created_by) for link, created_by
            in listed(user, workspace_id, InviteLink, InviteLink.created_by, *_active(utcnow()))]


def revoke(user, workspace_id, link_id):
    """Delete the link `link_id` of the workspace (admins): joining with it answers 404 from then on."""
    workspace, link = revoked(user, workspace_id, InviteLink, link_id, _("Invite link not found"))
    record_event(workspace.id, user.id, "invite_link_revoked", invite_link_id=link.id, role=link.role, uses=link.uses)


def join(user, token):
    """Join the link's workspace with its role, counting a use: the workspace's answer. 404 unknown or
    revoked, 410 expired or used up, 409 already a member, 403 members limit."""
    link = found_or_404(db.session.scalar(select(InviteLink).where(InviteLink.token_digest == digest(token))),
                        _("Invite link not found"))
    link_id, role, workspace_id = link.id, link.role, link.workspace_id
    lock_workspace(workspace_id)
    now = utcnow()
    counted = db.session.execute(update(InviteLink).where(InviteLink.id == link_id, *_active(now))
                                 .values(uses=InviteLink.uses + 1).execution_options(synchronize_session=False))
    if counted.rowcount != 1:
        db.session.expire(link)
        still = db.session.scalar(select(InviteLink.id).where(InviteLink.id == link_id))
        if still is None:
            raise NotFound(_("Invite link not found"))
        if link.expires_at <= now:
            raise Gone(_("This invite link has expired"))
        raise Gone(_("This invite link has been used up"))
    workspace = db.session.get(Workspace, workspace_id)
    add_member(workspace, user, role, user, "member_joined", invite_link_id=link_id)
    return workspace_answer(workspace, role)
