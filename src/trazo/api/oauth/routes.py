"""OAuth sign-in routes (token rules: docs/api.md)."""
from ...errors import ErrorSchema
from ...extensions import limiter
from ...ratelimit import limit
from ..blueprint import PUBLIC, Blueprint
from ..common import LoginResultSchema
from . import service
from .schemas import AuthorizationSchema, CallbackSchema, ProviderSchema

blp = Blueprint("oauth", __name__, description="OAuth sign-in")


@blp.route("/providers", auth=PUBLIC)
@blp.response(200, ProviderSchema(many=True))
def providers():
    """List the OAuth providers one can sign in with"""
    return service.providers()


@blp.route("/authorize/<provider>", auth=PUBLIC, not_found="Provider not configured",
           transaction=True)  # stores the state
@limiter.limit(limit("OAUTH_CALLBACK"))
@blp.response(200, AuthorizationSchema)
def authorize(provider):
    """Start a sign-in: the provider URL to send the browser to"""
    return service.authorize(provider)


@blp.route("/callback", methods=["POST"], auth=PUBLIC)
@limiter.limit(limit("OAUTH_CALLBACK"))
@blp.arguments(CallbackSchema)
@blp.response(200, LoginResultSchema)
@blp.alt_response(400, schema=ErrorSchema, description="Invalid, reused or expired state")
@blp.alt_response(401, schema=ErrorSchema, description="The provider refused the code")
@blp.alt_response(403, schema=ErrorSchema, description="E-mail not verified, or inactive account")
@blp.alt_response(502, schema=ErrorSchema, description="The provider failed")
def callback(data):
    """Finish a sign-in with the provider's code (an access token or an MFA challenge)"""
    return service.callback(data["code"], data["state"], data["provider"])
