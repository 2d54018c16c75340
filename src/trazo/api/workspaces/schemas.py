"""Workspace schemas, one per direction (docs/teams.md)."""
import marshmallow as ma

from ...models.workspaces import KINDS, ROLES
from ..common import BaseSchema, PageQuerySchema, PageSchema, Timestamp
from ..fields import Name

PASSWORD_DOC = {"description": "The current password; not needed within a few minutes of signing in"}


class WorkspaceCreateSchema(BaseSchema):
    name = Name(required=True)


class WorkspaceUpdateSchema(BaseSchema):
    name = Name(required=True)


class WorkspaceDeleteSchema(BaseSchema):
    confirmation = ma.fields.String(required=True, validate=ma.validate.Length(max=1024), metadata={
        "description": "The workspace's exact name"})
    password = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=1024),
                                metadata=PASSWORD_DOC)


class WorkspaceSchema(BaseSchema):
    """Dumps a ListedWorkspace (service.py)."""

    id = ma.fields.String()
    name = ma.fields.String()
    kind = ma.fields.String(metadata={"enum": list(KINDS)})
    role = ma.fields.String(metadata={"description": "The caller's role", "enum": list(ROLES)})
    member_count = ma.fields.Integer()
    billing_owner_id = ma.fields.String(allow_none=True, metadata={
        "description": "The owner whose plan sets the workspace's limits"})
    created_at = Timestamp()


class MemberSchema(BaseSchema):
    user_id = ma.fields.String()
    email = ma.fields.String()
    full_name = ma.fields.String(allow_none=True)
    role = ma.fields.String(metadata={"enum": list(ROLES)})
    joined_at = Timestamp()


class RoleChangeSchema(BaseSchema):
    role = ma.fields.String(required=True, validate=ma.validate.OneOf(ROLES))


class BillingOwnerSchema(BaseSchema):
    user_id = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=36))


class ActorSchema(BaseSchema):
    id = ma.fields.String()
    full_name = ma.fields.String(allow_none=True)


class WorkspaceEventSchema(BaseSchema):
    id = ma.fields.String()
    event = ma.fields.String(metadata={"description": "workspace_created, workspace_renamed, member_role_changed, "
                                                      "member_removed, member_left, billing_owner_changed, and "
                                                      "the invitation and transfer events"})
    actor = ma.fields.Nested(ActorSchema, allow_none=True, metadata={"description": "null once the account is gone"})
    details = ma.fields.Dict(allow_none=True)
    created_at = Timestamp()


class AuditLogQuerySchema(PageQuerySchema):
    pass


class AuditLogPageSchema(PageSchema):
    items = ma.fields.List(ma.fields.Nested(WorkspaceEventSchema), required=True)
