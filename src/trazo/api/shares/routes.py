"""Shared links: management by the owner and public access by token."""
from flask.views import MethodView

from ...auth import current_user
from ...errors import ErrorSchema
from ...extensions import limiter
from ...models.workspaces import EDITOR
from ...ratelimit import limit
from ..blueprint import PUBLIC, Blueprint
from ..common import ConditionalHeadersSchema, ImageQuerySchema, MessageSchema
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


@blp.route("", methods=["POST"], not_found="Diagram not found", role=EDITOR)
@blp.arguments(SharedLinkCreateSchema)
@blp.response(201, SharedLinkSchema)
def create_link(data):
    """Share a diagram (revokes its previous link)"""
    return service.create_link(current_user, data)


@blp.route("/diagram/<diagram_id>", not_found="Diagram not found", role=EDITOR)
@blp.response(200, OptionalSharedLinkSchema, description="The active link, or null")
def diagram_link(diagram_id):
    """Read the active shared link of a diagram"""
    return service.active_link(current_user, diagram_id)


@blp.route("/<link_id>", not_found="Shared link not found", role=EDITOR)
class SharedLinkView(MethodView):
    @blp.arguments(SharedLinkUpdateSchema)
    @blp.response(200, SharedLinkSchema)
    def put(self, data, link_id):
        """Change a shared link's expiry, access type, code or copy permission"""
        return service.update_link(current_user, link_id, data)

    @blp.response(200, MessageSchema)
    def delete(self, link_id):
        """Revoke a shared link"""
        return service.revoke_link(current_user, link_id)


@public_blp.route("/<token>/info", auth=PUBLIC, not_found="Unknown or revoked link")
@_public_limit()
@public_blp.response(200, SharedLinkInfoSchema)
def link_info(token):
    """Tell whether a shared link needs a code and whether it expired"""
    return public.link_info(token)


# The visit's log line is one insert, committed on its own in autocommit like the read before it: no BEGIN or
# COMMIT round trip (api/blueprint.py).
@public_blp.route("/<token>/diagram", auth=PUBLIC, not_found="Unknown or revoked link")
@_public_limit()
@public_blp.arguments(ShareAccessQuerySchema, location="query")
@public_blp.arguments(ShareAccessHeaderSchema, location="headers")
@public_blp.response(200, SharedDiagramSchema)
@public_blp.alt_response(403, schema=ErrorSchema, description="Protected link without a valid access token")
@public_blp.alt_response(410, schema=ErrorSchema, description="Expired link")
def shared_diagram(query, headers, token):
    """Read a shared diagram"""
    return public.shared_diagram(token, query.get("access_token") or headers.get("access_token"))


# A 429 also answers the sixth incorrect code in 15 minutes (per address and link).
@public_blp.route("/<token>/verify", methods=["POST"], auth=PUBLIC, not_found="Unknown or revoked link")
@_public_limit()
@public_blp.arguments(VerifyCodeSchema)
@public_blp.response(200, VerifiedDiagramSchema)
@public_blp.alt_response(403, schema=ErrorSchema, description="Incorrect code (the attempts left are named)")
@public_blp.alt_response(410, schema=ErrorSchema, description="Expired link")
def verify_code(data, token):
    """Unlock a protected shared diagram with its access code"""
    return public.verify_code(token, data["access_code"])


@public_blp.route("/<token>/image.<any(svg, png):fmt>", auth=PUBLIC,
                  not_found="Unknown or revoked link (410: expired)")
@limiter.limit(limit("SHARED_IMAGE"))
@public_blp.arguments(ImageQuerySchema, location="query")
@public_blp.arguments(ConditionalHeadersSchema, location="headers")
@public_blp.response(200, {"type": "string", "format": "binary"}, content_type="image/svg+xml",
                     description="The diagram as it is now, as SVG or PNG (ETag; 304 on If-None-Match)")
@public_blp.alt_response(304, description="The image named by If-None-Match is still current")
@public_blp.alt_response(403, schema=ErrorSchema, description="The link is protected by an access code")
@public_blp.alt_response(410, schema=ErrorSchema, description="The link has expired")
def shared_image(query, headers, token, fmt):
    """A public link's diagram as an image, for READMEs and wikis"""
    return public.shared_image(token, fmt, query["theme"], headers["if_none_match"])
