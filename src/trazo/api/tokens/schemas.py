"""Personal access token schemas, one per direction."""
import marshmallow as ma

from ...core.accounts.personal_tokens import MAX_EXPIRY_DAYS, SCOPES
from ..common import BaseSchema, Timestamp
from ..fields import Name

NAME_MAX = 100


class TokenCreateSchema(BaseSchema):
    name = Name(max_length=NAME_MAX, required=True)
    scopes = ma.fields.List(ma.fields.String(validate=ma.validate.OneOf(SCOPES)), required=True,
                            validate=ma.validate.Length(min=1, max=len(SCOPES)),
                            metadata={"description": '"read", or "write" (which includes read)'})
    expires_in_days = ma.fields.Integer(load_default=None, allow_none=True,
                                        validate=ma.validate.Range(min=1, max=MAX_EXPIRY_DAYS),
                                        metadata={"description": f"1 to {MAX_EXPIRY_DAYS}; null: never expires"})
    password = ma.fields.String(load_default=None, allow_none=True, validate=ma.validate.Length(max=1024),
                                metadata={"description": "the current password, unless the sign-in is recent"})


class TokenSchema(BaseSchema):
    id = ma.fields.String()
    name = ma.fields.String()
    prefix = ma.fields.String(metadata={"description": "the token's first characters, to tell tokens apart"})
    scopes = ma.fields.Function(lambda token: token.scopes.split())
    created_at = Timestamp()
    expires_at = Timestamp(allow_none=True)
    last_used_at = Timestamp(allow_none=True)


class CreatedTokenSchema(TokenSchema):
    token = ma.fields.String(metadata={"description": "the token itself: shown this once, never again"})
