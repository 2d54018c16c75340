"""Invitations and invite links: each call is one rule of core/invitations (invitations.py, links.py)
and this layer owns the transaction."""
from ...core.invitations import invitations
from ...core.invitations import links as invite_links
from ...extensions import db


def _committed(answer):
    db.session.commit()
    return answer


def invite(user, workspace_id, data):
    return _committed(invitations.create(user, workspace_id, data["email"], data["role"]))


def pending_invitations(user, workspace_id):
    return invitations.pending(user, workspace_id)


def revoke_invitation(user, workspace_id, invitation_id):
    invitations.revoke(user, workspace_id, invitation_id)
    db.session.commit()


def describe_invitation(user, token):
    return invitations.describe(user, token)


def accept_invitation(user, token):
    return _committed(invitations.accept(user, token))


def create_link(user, workspace_id, data):
    return _committed(invite_links.create(user, workspace_id, data["role"], data["expires_in_days"],
                                          data["max_uses"]))


def active_links(user, workspace_id):
    return invite_links.active_links(user, workspace_id)


def revoke_link(user, workspace_id, link_id):
    invite_links.revoke(user, workspace_id, link_id)
    db.session.commit()


def join(user, token):
    return _committed(invite_links.join(user, token))
