"""Invitations by e-mail and invite links to team workspaces: admins manage them under
/workspaces/{workspace_id}; a signed-in user reads and accepts an invitation, or joins with a link, by its
token (docs/teams.md). Token routes are rate-limited per address (RATE_LIMIT_INVITE_TOKENS: guessing),
invitation and link creation per user (RATE_LIMIT_INVITATIONS)."""
from flask.views import MethodView

from ...auth import current_user, user_or_address
from ...errors import PLAN_LIMIT_DOC, CodedErrorSchema, ErrorSchema, ObjectErrorSchema, error_doc
from ...extensions import limiter
from ...ratelimit import client_address, limit
from ..blueprint import Blueprint
from . import service
from .schemas import (
    CreatedInviteLinkSchema,
    InvitationCreateSchema,
    InvitationPreviewSchema,
    InvitationSchema,
    InviteLinkCreateSchema,
    InviteLinkSchema,
    JoinedWorkspaceSchema,
)

workspace_blp = Blueprint("workspace_invitations", __name__, description="Workspace invitations and invite links")
invitations_blp = Blueprint("invitations", __name__, description="Invitations (the invitee's side)")
links_blp = Blueprint("invite_links", __name__, description="Invite links (joining)")

NOT_FOUND = "Workspace not found (or not a member)"
PERSONAL = "A personal workspace has no other members; or the pending/active cap is reached"
INVITING = {"key_func": user_or_address, "scope": "invitations"}


def _token_limit():
    """The token routes share one budget per address."""
    return limiter.shared_limit(limit("INVITE_TOKENS"), scope="invite-tokens", key_func=client_address)


@workspace_blp.route("/<workspace_id>/invitations", not_found=NOT_FOUND, role="admin")
class InvitationsView(MethodView):
    @limiter.shared_limit(limit("INVITATIONS"), **INVITING)
    @workspace_blp.arguments(InvitationCreateSchema)
    @workspace_blp.response(201, InvitationSchema)
    @workspace_blp.alt_response(409, schema=ErrorSchema,
                                description="Already a member or already invited; " + PERSONAL)
    def post(self, data, workspace_id):
        """Invite an e-mail address with a role up to the caller's own (e-mails the link)"""
        return service.invite(current_user, workspace_id, data)

    @workspace_blp.response(200, InvitationSchema(many=True))
    def get(self, workspace_id):
        """List the workspace's pending invitations"""
        return service.pending_invitations(current_user, workspace_id)


@workspace_blp.route("/<workspace_id>/invitations/<invitation_id>", methods=["DELETE"],
                     not_found="Workspace or invitation not found", role="admin")
@workspace_blp.response(204)
def revoke_invitation(workspace_id, invitation_id):
    """Revoke a pending invitation (its link stops working)"""
    service.revoke_invitation(current_user, workspace_id, invitation_id)


@workspace_blp.route("/<workspace_id>/invite-links", not_found=NOT_FOUND, role="admin")
class InviteLinksView(MethodView):
    @limiter.shared_limit(limit("INVITATIONS"), **INVITING)
    @workspace_blp.arguments(InviteLinkCreateSchema)
    @workspace_blp.response(201, CreatedInviteLinkSchema)
    @workspace_blp.alt_response(409, schema=ErrorSchema, description=PERSONAL)
    def post(self, data, workspace_id):
        """Create a join link for a role up to editor (its token is shown this once)"""
        return service.create_link(current_user, workspace_id, data)

    @workspace_blp.response(200, InviteLinkSchema(many=True))
    def get(self, workspace_id):
        """List the workspace's active invite links (without their tokens)"""
        return service.active_links(current_user, workspace_id)


@workspace_blp.route("/<workspace_id>/invite-links/<link_id>", methods=["DELETE"],
                     not_found="Workspace or invite link not found", role="admin")
@workspace_blp.response(204)
def revoke_link(workspace_id, link_id):
    """Revoke an invite link"""
    service.revoke_link(current_user, workspace_id, link_id)


@invitations_blp.route("/<token>", not_found="Unknown, used or revoked invitation")
@_token_limit()
@invitations_blp.response(200, InvitationPreviewSchema)
@invitations_blp.alt_response(410, schema=ErrorSchema, description="The invitation has expired")
def describe_invitation(token):
    """Read an invitation for its accept page: workspace, inviter, role, expiry"""
    return service.describe_invitation(current_user, token)


@invitations_blp.route("/<token>/accept", methods=["POST"], not_found="Unknown, used or revoked invitation")
@_token_limit()
@invitations_blp.response(200, JoinedWorkspaceSchema)
@invitations_blp.alt_response(403, schema=error_doc(CodedErrorSchema, ObjectErrorSchema),
                              description="invitation_email_mismatch: sent to another address; or " + PLAN_LIMIT_DOC)
@invitations_blp.alt_response(409, schema=ErrorSchema, description="Already a member")
@invitations_blp.alt_response(410, schema=ErrorSchema, description="The invitation has expired")
def accept_invitation(token):
    """Accept an invitation sent to the caller's e-mail address: join the workspace"""
    return service.accept_invitation(current_user, token)


@links_blp.route("/<token>/join", methods=["POST"], not_found="Unknown or revoked invite link")
@_token_limit()
@links_blp.response(200, JoinedWorkspaceSchema)
@links_blp.alt_response(403, schema=ObjectErrorSchema, description=PLAN_LIMIT_DOC)
@links_blp.alt_response(409, schema=ErrorSchema, description="Already a member")
@links_blp.alt_response(410, schema=ErrorSchema, description="The link has expired or is used up")
def join_with_link(token):
    """Join a workspace with an invite link (counts a use)"""
    return service.join(current_user, token)
