"""OAuth schemas, one per direction."""
import marshmallow as ma

from ...services.oauth.providers import SUPPORTED
from ..common import BaseSchema


class ProviderSchema(BaseSchema):
    provider = ma.fields.String(required=True)
    display_name = ma.fields.String()
    authorization_url = ma.fields.String(metadata={"description": "The route that answers the provider URL"})


class AuthorizationSchema(BaseSchema):
    authorization_url = ma.fields.String(required=True)
    state = ma.fields.String(required=True)


class CallbackSchema(BaseSchema):
    code = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=2048))
    state = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=128))
    provider = ma.fields.String(required=True, validate=ma.validate.OneOf(SUPPORTED))
