"""Invitations by e-mail to a team workspace (docs/teams.md, "Invitations and invite links").

An admin invites an address with a role up to their own; the address receives a link
`FRONTEND_URL/invitations/<token>` in the inviter's request language. The token is 256 random bits, shown
only in that e-mail: the database keeps its SHA-256 (core/hashing.digest). An invitation lives
INVITATION_EXPIRY_DAYS; accepting it (only by the account whose e-mail is the invited one) joins through
`members.add_member` (the workspace lock, the members limit) and deletes it in the same transaction, so
two accepts of one invitation make one membership. Revoking deletes it too. The caller (the API service)
commits.
"""
import secrets
from datetime import timedelta

from flask import current_app
from flask_babel import gettext as _
from flask_babel import lazy_gettext
from sqlalchemy import delete, func, select

from ...errors import AppError, Conflict, Forbidden, NotFound, found_or_404
from ...extensions import db
from ...models import User
from ...models.base import new_id, utcnow
from ...models.workspaces import (
    ADMIN,
    COMMENTER,
    EDITOR,
    OWNER,
    PERSONAL,
    VIEWER,
    Invitation,
    Membership,
    Workspace,
)
from ..content import access
from ..hashing import digest
from ..mail.compose import send_template
from ..workspaces.members import add_member, lock_workspace, member_count, record_event
from ..workspaces.roles import ensure_may_grant

TOKEN_BYTES = 32
# Pending (unexpired) invitations one workspace may hold: one admin cannot fill the table.
MAX_PENDING_INVITATIONS = 500
# Expired invitations stay this long (GET and accept answer 410 for them), then a new invitation to the
# workspace deletes them.
EXPIRED_KEPT_DAYS = 30
EMAIL_MISMATCH = "invitation_email_mismatch"
ROLE_NAMES = {VIEWER: lazy_gettext("viewer"), COMMENTER: lazy_gettext("commenter"), EDITOR: lazy_gettext("editor"),
              ADMIN: lazy_gettext("admin"), OWNER: lazy_gettext("owner")}


class Gone(AppError):
    """410: the invitation or invite link existed but has expired (or, for a link, is used up)."""

    status = 410


def new_token():
    """(the token, its digest): the token leaves once, the digest is stored."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, digest(token)


def administered_workspace(user, workspace_id, team_only=True):
    """(the workspace `workspace_id`, the caller's role) when the caller is one of its admins: 404 for a
    non-member, 403 insufficient_role below admin, 409 for a personal workspace when `team_only`."""
    workspace, role = access.workspace(user, workspace_id, ADMIN)
    if team_only and workspace.kind == PERSONAL:
        raise Conflict(_("A personal workspace has no other members"))
    return workspace, role


def person(user_id):
    """{id, full_name} of `user_id`, or None (the account was deleted)."""
    found = db.session.get(User, user_id) if user_id else None
    return {"id": found.id, "full_name": found.full_name} if found else None


def workspace_answer(workspace, role):
    """A workspace as GET /workspaces lists it."""
    return {"id": workspace.id, "name": workspace.name, "kind": workspace.kind, "role": role,
            "member_count": member_count(workspace.id), "billing_owner_id": workspace.billing_owner_id,
            "created_at": workspace.created_at}


def create(user, workspace_id, email, role):
    """Invite `email` (already lower case) to the team `workspace_id` with `role`, e-mail the link: the
    invitation's answer."""
    workspace, own_role = administered_workspace(user, workspace_id)
    ensure_may_grant(own_role, role)
    lock_workspace(workspace.id)  # the duplicate and pending checks below hold until the commit
    now = utcnow()
    db.session.execute(delete(Invitation).where(Invitation.workspace_id == workspace.id,
                                                Invitation.expires_at <= now - timedelta(days=EXPIRED_KEPT_DAYS)))
    if db.session.scalar(select(Membership.user_id).join(User, User.id == Membership.user_id)
                         .where(Membership.workspace_id == workspace.id, func.lower(User.email) == email)):
        raise Conflict(_("This person is already a member of this workspace"))
    previous = db.session.scalar(select(Invitation).where(Invitation.workspace_id == workspace.id,
                                                          Invitation.email == email))
    if previous is not None and previous.expires_at > now:
        raise Conflict(_("This address is already invited to this workspace"))
    if previous is not None:
        db.session.delete(previous)
        db.session.flush()
    pending = db.session.scalar(select(func.count()).select_from(Invitation)
                                .where(Invitation.workspace_id == workspace.id, Invitation.expires_at > now))
    if pending >= MAX_PENDING_INVITATIONS:
        raise Conflict(_("This workspace already has %(count)s pending invitations: revoke some first",
                         count=MAX_PENDING_INVITATIONS))
    token, token_digest = new_token()
    invitation = Invitation(id=new_id(), workspace_id=workspace.id, email=email, role=role, token_digest=token_digest,
                            invited_by=user.id, created_at=now,
                            expires_at=now + timedelta(days=current_app.config["INVITATION_EXPIRY_DAYS"]))
    db.session.add(invitation)
    record_event(workspace.id, user.id, "invitation_created", invitation_id=invitation.id, email=email, role=role)
    send_template(email, "workspace_invitation", lazy_gettext("You are invited to a team workspace on Trazo"),
                  workspace=workspace.name, inviter=user.full_name or user.email, role=ROLE_NAMES[role],
                  expires_at=invitation.expires_at, link=f"{current_app.config['FRONTEND_URL']}/invitations/{token}")
    return _answer(invitation, {"id": user.id, "full_name": user.full_name})


def _answer(invitation, invited_by):
    return {"id": invitation.id, "email": invitation.email, "role": invitation.role,
            "created_at": invitation.created_at, "expires_at": invitation.expires_at, "invited_by": invited_by}


def listed(user, workspace_id, model, maker, *conditions):
    """(row, its maker as {id, full_name} or None) for the rows of `model` (invitations or invite links) of the
    workspace that meet `conditions`, newest first, in one statement (admins)."""
    workspace, _role = administered_workspace(user, workspace_id, team_only=False)
    rows = db.session.execute(select(model, maker, User.full_name).outerjoin(User, User.id == maker)
                              .where(model.workspace_id == workspace.id, *conditions)
                              .order_by(model.created_at.desc(), model.id)).all()
    return [(row, {"id": maker_id, "full_name": name} if maker_id else None) for row, maker_id, name in rows]


def revoked(user, workspace_id, model, object_id, missing):
    """Delete the row `object_id` of `model` of the workspace (admins; `missing` is the 404's text): the
    workspace and the deleted row, for its log entry. The caller commits."""
    workspace, _role = administered_workspace(user, workspace_id, team_only=False)
    row = found_or_404(db.session.scalar(select(model).where(model.id == str(object_id),
                                                             model.workspace_id == workspace.id)), missing)
    db.session.delete(row)
    return workspace, row


def pending(user, workspace_id):
    """The workspace's pending (unexpired) invitations, newest first (admins)."""
    return [_answer(invitation, invited_by) for invitation, invited_by
            in listed(user, workspace_id, Invitation, Invitation.invited_by, Invitation.expires_at > utcnow())]


def revoke(user, workspace_id, invitation_id):
    """Delete the invitation `invitation_id` of the workspace (admins): its link stops working."""
    workspace, invitation = revoked(user, workspace_id, Invitation, invitation_id, _("Invitation not found"))
    record_event(workspace.id, user.id, "invitation_revoked", invitation_id=invitation.id, email=invitation.email,
                 role=invitation.role)


def _by_token(token):
    """The invitation whose token is `token`: 404 when unknown, used or revoked, 410 when expired."""
    invitation = found_or_404(db.session.scalar(select(Invitation).where(Invitation.token_digest == digest(token))),
                              _("Invitation not found"))
    if invitation.expires_at <= utcnow():
        raise Gone(_("This invitation has expired"))
    return invitation


def _is_invited(user, invitation):
    return (user.email or "").lower() == invitation.email


def describe(user, token):
    """What the accept page shows: the workspace's name, the inviter's name, the role and the expiry; the
    invited address only to its owner."""
    invitation = _by_token(token)
    workspace = db.session.get(Workspace, invitation.workspace_id)
    inviter = person(invitation.invited_by)
    answer = {"workspace_name": workspace.name, "inviter_name": inviter["full_name"] if inviter else None,
              "role": invitation.role, "expires_at": invitation.expires_at}
    if _is_invited(user, invitation):
        answer["email"] = invitation.email
    return answer


def accept(user, token):
    """Join the invitation's workspace with its role (only the invited address): the workspace's answer."""
    invitation = _by_token(token)
    if not _is_invited(user, invitation):
        raise Forbidden(_("This invitation was sent to another e-mail address"), error_code=EMAIL_MISMATCH)
    workspace = db.session.get(Workspace, invitation.workspace_id)
    lock_workspace(workspace.id)
    # Under the lock: a concurrent accept that committed first has deleted it.
    if db.session.execute(delete(Invitation).where(Invitation.id == invitation.id)).rowcount != 1:
        raise NotFound(_("Invitation not found"))
    add_member(workspace, user, invitation.role, user, "invitation_accepted", invitation_id=invitation.id,
               invited_by=invitation.invited_by)
    return workspace_answer(workspace, invitation.role)
