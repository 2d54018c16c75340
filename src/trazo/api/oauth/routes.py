"""OAuth sign-in routes (token rules: docs/api.md)."""
from flask_smorest import Blueprint

from ...extensions import limiter
from ...ratelimit import limit
from ..users.schemas import LoginResultSchema
from . import service
from .schemas import AuthorizationSchema, CallbackSchema, ProviderSchema

blp = Blueprint("oauth", __name__, description="OAuth sign-in")
PUBLIC = {"security": []}


@blp.route("/providers")
@blp.doc(**PUBLIC)
@blp.response(200, ProviderSchema(many=True))
def providers():
    """List the OAuth providers one can sign in with"""
    return service.providers()


@blp.route("/authorize/<provider>")
@blp.doc(**PUBLIC)
@limiter.limit(limit("OAUTH_CALLBACK"))
@blp.response(200, AuthorizationSchema)
@blp.alt_response(404, "DEFAULT_ERROR", description="Provider not configured")
@blp.alt_response(429, "DEFAULT_ERROR", description="Too many attempts from this address")
def authorize(provider):
    """Start a sign-in: the provider URL to send the browser to"""
    return service.authorize(provider)


@blp.route("/callback", methods=["POST"])
@blp.doc(**PUBLIC)
@limiter.limit(limit("OAUTH_CALLBACK"))
@blp.arguments(CallbackSchema)
@blp.response(200, LoginResultSchema)
@blp.alt_response(400, "DEFAULT_ERROR", description="Invalid, reused or expired state")
@blp.alt_response(401, "DEFAULT_ERROR", description="The provider refused the code")
@blp.alt_response(403, "DEFAULT_ERROR", description="E-mail not verified, or inactive account")
@blp.alt_response(429, "DEFAULT_ERROR", description="Too many attempts from this address")
@blp.alt_response(502, "DEFAULT_ERROR", description="The provider failed")
def callback(data):
    """Finish a sign-in with the provider's code (an access token or an MFA challenge)"""
    return service.callback(data["code"], data["state"], data["provider"])
