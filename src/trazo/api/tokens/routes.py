"""Personal access tokens routes: credentials for scripts and CI, managed with a signed-in session only
(a personal access token is refused here, whatever its scopes)."""
from ...auth import current_user, user_or_address
from ...extensions import limiter
from ...ratelimit import limit
from ..blueprint import Blueprint
from . import service
from .schemas import CreatedTokenSchema, TokenCreateSchema, TokenSchema

blp = Blueprint("personal_tokens", __name__, description="Personal access tokens")


@blp.route("", methods=["POST"], recent_sign_in=True)
@limiter.limit(limit("PERSONAL_TOKEN_CREATE"), key_func=user_or_address)
@blp.arguments(TokenCreateSchema)
@blp.response(201, CreatedTokenSchema)
def create_token(data):
    """Create a personal access token (shown once); needs the password or a recent sign-in"""
    return service.create_token(current_user, data)


@blp.route("")
@blp.response(200, TokenSchema(many=True))
def list_tokens():
    """List the caller's personal access tokens (never the tokens themselves)"""
    return service.list_tokens(current_user)


@blp.route("/<token_id>", methods=["DELETE"], not_found="Token not found")
@blp.response(204)
def revoke_token(token_id):
    """Revoke a personal access token, effective on its next request"""
    service.revoke_token(current_user, token_id)
