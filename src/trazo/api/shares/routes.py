"""Shared links: management by the owner and public access by token."""
from flask.views import MethodView
from flask_smorest import Blueprint

from ...auth import current_user, login_required
from ...extensions import limiter
from ...ratelimit import limit
from ..common import MessageSchema
from . import public, service
from .schemas import (
    OptionalSharedLinkSchema,
    ShareAccessHeaderSchema,
    ShareAccessQuerySchema,
    SharedDiagramSchema,
    SharedLinkCreateSchema,
    SharedLinkInfoSchema,
    SharedLinkSchema,
    SharedLinkUpdateSchema,
    VerifiedDiagramSchema,
    VerifyCodeSchema,
)

blp = Blueprint("shared_links", __name__, description="Shared links (owner)")
public_blp = Blueprint("shared", __name__, description="Shared links (public access)")


def _public_limit():
    """The three public routes share one budget per address."""
    return limiter.shared_limit(limit("SHARED_PUBLIC"), scope="shared-public")


@blp.route("", methods=["POST"])
@login_required
@blp.arguments(SharedLinkCreateSchema)
@blp.response(201, SharedLinkSchema)
@blp.alt_response(404, "DEFAULT_ERROR", description="Diagram not found")
def create_link(data):
    """Share a diagram (revokes its previous link)"""
    return service.create_link(current_user, data)


@blp.route("/diagram/<diagram_id>")
@login_required
@blp.response(200, OptionalSharedLinkSchema, description="The active link, or null")
@blp.alt_response(404, "DEFAULT_ERROR", description="Diagram not found")
def diagram_link(diagram_id):
    """Read the active shared link of a diagram"""
    return service.active_link(current_user, diagram_id)


@blp.route("/<link_id>")
class SharedLinkView(MethodView):
    decorators = [login_required]

    @blp.arguments(SharedLinkUpdateSchema)
    @blp.response(200, SharedLinkSchema)
    @blp.alt_response(404, "DEFAULT_ERROR", description="Shared link not found")
    def put(self, data, link_id):
        """Change a shared link's expiry, access type, code or copy permission"""
        return service.update_link(current_user, link_id, data)

    @blp.response(200, MessageSchema)
    @blp.alt_response(404, "DEFAULT_ERROR", description="Shared link not found")
    def delete(self, link_id):
        """Revoke a shared link"""
        return service.revoke_link(current_user, link_id)


@public_blp.route("/<token>/info")
@public_blp.doc(security=[])
@_public_limit()
@public_blp.response(200, SharedLinkInfoSchema)
@public_blp.alt_response(404, "DEFAULT_ERROR", description="Unknown or revoked link")
@public_blp.alt_response(429, "DEFAULT_ERROR", description="Too many requests from this address")
def link_info(token):
    """Tell whether a shared link needs a code and whether it expired"""
    return public.link_info(token)


@public_blp.route("/<token>/diagram")
@public_blp.doc(security=[])
@_public_limit()
@public_blp.arguments(ShareAccessQuerySchema, location="query")
@public_blp.arguments(ShareAccessHeaderSchema, location="headers")
@public_blp.response(200, SharedDiagramSchema)
@public_blp.alt_response(403, "DEFAULT_ERROR", description="Protected link without a valid access token")
@public_blp.alt_response(404, "DEFAULT_ERROR", description="Unknown or revoked link")
@public_blp.alt_response(410, "DEFAULT_ERROR", description="Expired link")
@public_blp.alt_response(429, "DEFAULT_ERROR", description="Too many requests from this address")
def shared_diagram(query, headers, token):
    """Read a shared diagram"""
    return public.shared_diagram(token, query.get("access_token") or headers.get("access_token"))


@public_blp.route("/<token>/verify", methods=["POST"])
@public_blp.doc(security=[])
@_public_limit()
@public_blp.arguments(VerifyCodeSchema)
@public_blp.response(200, VerifiedDiagramSchema)
@public_blp.alt_response(403, "DEFAULT_ERROR", description="Incorrect code (the attempts left are named)")
@public_blp.alt_response(404, "DEFAULT_ERROR", description="Unknown or revoked link")
@public_blp.alt_response(410, "DEFAULT_ERROR", description="Expired link")
@public_blp.alt_response(429, "DEFAULT_ERROR", description="Too many requests or incorrect codes")
def verify_code(data, token):
    """Unlock a protected shared diagram with its access code"""
    return public.verify_code(token, data["access_code"])
