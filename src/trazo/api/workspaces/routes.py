"""Workspaces routes: team workspaces, their members, billing owner and audit log (docs/teams.md).

Invitations and invite links are routes of their own area under the same prefix.
"""
from flask.views import MethodView

from ...auth import current_user
from ...errors import ErrorSchema
from ..blueprint import Blueprint
from ..common import MessageSchema
from . import service
from .schemas import (
    AuditLogPageSchema,
    AuditLogQuerySchema,
    BillingOwnerSchema,
    MemberSchema,
    RoleChangeSchema,
    WorkspaceCreateSchema,
    WorkspaceDeleteSchema,
    WorkspaceSchema,
    WorkspaceUpdateSchema,
)

blp = Blueprint("workspaces", __name__, description="Workspaces, members and their audit log")
NOT_FOUND = "Workspace not found"
MEMBER_NOT_FOUND = "Workspace or member not found"
LAST_OWNER = "A personal workspace, or the change would leave no owner"


@blp.route("")
class Workspaces(MethodView):
    @blp.response(200, WorkspaceSchema(many=True))
    def get(self):
        """List my workspaces (personal first, then by name) with my role"""
        return service.list_workspaces(current_user)

    @blp.arguments(WorkspaceCreateSchema)
    @blp.response(201, WorkspaceSchema)
    @blp.alt_response(409, schema=ErrorSchema, description="Billing owner of the most team workspaces allowed")
    def post(self, data):
        """Create a team workspace (I am its owner and billing owner)"""
        return service.create_workspace(current_user, data["name"])


@blp.route("/<workspace_id>", not_found=NOT_FOUND, role={"GET": "viewer", "PUT": "admin"})
class WorkspaceItem(MethodView):
    @blp.response(200, WorkspaceSchema)
    def get(self, workspace_id):
        """Read a workspace"""
        return service.get_workspace(current_user, workspace_id)

    @blp.arguments(WorkspaceUpdateSchema)
    @blp.response(200, WorkspaceSchema)
    def put(self, data, workspace_id):
        """Rename a workspace"""
        return service.rename_workspace(current_user, workspace_id, data["name"])


@blp.route("/<workspace_id>", methods=["DELETE"], endpoint="delete_workspace", not_found=NOT_FOUND,
           role="owner", recent_sign_in=True)
@blp.arguments(WorkspaceDeleteSchema)
@blp.response(200, MessageSchema)
@blp.alt_response(400, schema=ErrorSchema, description="The confirmation is not the workspace's exact name")
@blp.alt_response(409, schema=ErrorSchema, description="A personal workspace (deleted with its account)")
def delete_workspace(data, workspace_id):
    """Delete a team workspace with its projects (confirm with its exact name)"""
    return service.delete_workspace(current_user, workspace_id, data["confirmation"])


@blp.route("/<workspace_id>/members", methods=["GET"], not_found=NOT_FOUND, role="viewer")
@blp.response(200, MemberSchema(many=True))
def members(workspace_id):
    """List the members of a workspace"""
    return service.list_members(current_user, workspace_id)


@blp.route("/<workspace_id>/members/<member_id>", not_found=MEMBER_NOT_FOUND, role="admin")
class Member(MethodView):
    @blp.arguments(RoleChangeSchema)
    @blp.response(200, MemberSchema)
    @blp.alt_response(409, schema=ErrorSchema, description=LAST_OWNER)
    def put(self, data, workspace_id, member_id):
        """Change a member's role (admins up to admin; only owners grant or take owner)"""
        return service.change_role(current_user, workspace_id, member_id, data["role"])

    @blp.response(200, MessageSchema)
    @blp.alt_response(409, schema=ErrorSchema, description=LAST_OWNER)
    def delete(self, workspace_id, member_id):
        """Remove a member (admins remove non-owners; owners anyone); content stays"""
        return service.remove_member(current_user, workspace_id, member_id)


@blp.route("/<workspace_id>/leave", methods=["POST"], not_found=NOT_FOUND, role="viewer")
@blp.response(200, MessageSchema)
@blp.alt_response(409, schema=ErrorSchema, description="A personal workspace, or its last owner")
def leave(workspace_id):
    """Leave a team workspace; content stays"""
    return service.leave(current_user, workspace_id)


@blp.route("/<workspace_id>/billing-owner", methods=["PUT"], not_found=NOT_FOUND, role="owner")
@blp.arguments(BillingOwnerSchema)
@blp.response(200, WorkspaceSchema)
@blp.alt_response(409, schema=ErrorSchema, description="A personal workspace, or the person is not an owner")
def billing_owner(data, workspace_id):
    """Make another owner the billing owner (their plan then sets the workspace's limits)"""
    return service.set_billing_owner(current_user, workspace_id, data["user_id"])


@blp.route("/<workspace_id>/audit-log", methods=["GET"], not_found=NOT_FOUND, role="admin")
@blp.arguments(AuditLogQuerySchema, location="query")
@blp.response(200, AuditLogPageSchema)
def audit_log(query, workspace_id):
    """Read the workspace's log of membership, role, invitation, transfer and deletion events, newest first"""
    return service.audit_log(current_user, workspace_id, query["page"], query["page_size"])
