"""Invitation and invite-link schemas, one per direction."""
import marshmallow as ma

from ...core.invitations.links import LINK_ROLES, MAX_EXPIRY_DAYS, MAX_USES
from ...models.workspaces import KINDS, ROLES
from ..common import BaseSchema, NormalizedEmail, Timestamp

DEFAULT_LINK_DAYS = 7


class PersonSchema(BaseSchema):
    id = ma.fields.String()
    full_name = ma.fields.String(allow_none=True)


class InvitationCreateSchema(BaseSchema):
    email = NormalizedEmail(required=True, validate=ma.validate.Length(max=320))
    role = ma.fields.String(required=True, validate=ma.validate.OneOf(ROLES),
                            metadata={"description": "up to the caller's own role"})


class InvitationSchema(BaseSchema):
    id = ma.fields.String()
    email = ma.fields.String()
    role = ma.fields.String()
    created_at = Timestamp()
    expires_at = Timestamp()
    invited_by = ma.fields.Nested(PersonSchema, allow_none=True, metadata={"description": "null: account deleted"})


class InvitationPreviewSchema(BaseSchema):
    workspace_name = ma.fields.String()
    inviter_name = ma.fields.String(allow_none=True)
    role = ma.fields.String()
    expires_at = Timestamp()
    email = ma.fields.String(metadata={"description": "the invited address: only when it is the caller's"})


class InviteLinkCreateSchema(BaseSchema):
    role = ma.fields.String(required=True, validate=ma.validate.OneOf(LINK_ROLES),
                            metadata={"description": "viewer, commenter or editor"})
    expires_in_days = ma.fields.Integer(load_default=DEFAULT_LINK_DAYS,
                                        validate=ma.validate.Range(min=1, max=MAX_EXPIRY_DAYS),
                                        metadata={"description": f"1 to {MAX_EXPIRY_DAYS} (default "
                                                                 f"{DEFAULT_LINK_DAYS})"})
    max_uses = ma.fields.Integer(load_default=None, allow_none=True, validate=ma.validate.Range(min=1, max=MAX_USES),
                                 metadata={"description": f"1 to {MAX_USES}; null (default): any number until it "
                                                          "expires, within the members limit"})


class InviteLinkSchema(BaseSchema):
    id = ma.fields.String()
    role = ma.fields.String()
    created_at = Timestamp()
    expires_at = Timestamp()
    max_uses = ma.fields.Integer(allow_none=True)
    uses = ma.fields.Integer()
    created_by = ma.fields.Nested(PersonSchema, allow_none=True, metadata={"description": "null: account deleted"})


class CreatedInviteLinkSchema(InviteLinkSchema):
    token = ma.fields.String(metadata={"description": "the link's token: shown this once, never again"})
    url = ma.fields.String(metadata={"description": "FRONTEND_URL/invite-links/<token>, to hand out"})


class JoinedWorkspaceSchema(BaseSchema):
    """The workspace joined, as GET /workspaces lists it."""

    id = ma.fields.String()
    name = ma.fields.String()
    kind = ma.fields.String(metadata={"enum": list(KINDS)})
    role = ma.fields.String(metadata={"enum": list(ROLES)})
    member_count = ma.fields.Integer()
    billing_owner_id = ma.fields.String(allow_none=True)
    created_at = Timestamp()
