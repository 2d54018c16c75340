"""Public diagram rendering routes."""
from ...errors import ErrorSchema
from ...extensions import limiter
from ...ratelimit import limit
from ...services import render as renderers
from ...services.render import notices
from ..blueprint import PUBLIC, Blueprint
from . import service
from .schemas import EngineSchema, RenderSchema

blp = Blueprint("render", __name__, description="Diagram rendering (public)", personal_tokens=True)

WARNINGS = {notices.HEADER: {
    "description": "What the drawing left out, when it left out anything: a JSON array such as "
                   '[{"icon": "https://...", "reason": "timeout"}] for D2 icons that could not be fetched '
                   "(reason: unreachable, timeout, http_error with its status, too_large, not_an_image, "
                   "too_many_icons)",
    "schema": {"type": "string"}}}

# At start-up (the blueprint registered on an app), one log line per local engine: installed or missing.
blp.record_once(lambda state: renderers.log_engines(state.app.config))


# A 429 also answers renders not served from the cache once the client's render-seconds are spent
# (RATE_LIMIT_RENDER_SECONDS; docs/api.md, "Rate limits").
@blp.route("/render", methods=["POST"], auth=PUBLIC)
@limiter.limit(limit("RENDER"))
@blp.arguments(RenderSchema)
@blp.response(200, {"type": "string"}, content_type="image/svg+xml", description="The diagram as SVG",
              headers=WARNINGS)
@blp.alt_response(400, schema=ErrorSchema, description="Unsupported type (the supported ones are listed), a "
                                                    "type only Kroki draws on the local backend (with the "
                                                    "reason), a syntax error (with its line), or a diagram "
                                                    "too large or complex to draw")
@blp.alt_response(502, schema=ErrorSchema, description="The renderer failed")
@blp.alt_response(503, schema=ErrorSchema, description="No engine here draws the type and no Kroki server is "
                                                    "configured (the types this server draws are listed), "
                                                    "rendering is not configured, the client already holds its "
                                                    "share of the engines, or every slot is busy (with "
                                                    "Retry-After)")
@blp.alt_response(504, schema=ErrorSchema, description="The renderer did not answer in time")
def render(data):
    """Render a diagram source to SVG"""
    return service.render(data["diagram_type"], data["source"])


@blp.route("/render/engines", auth=PUBLIC)
@limiter.limit(limit("RENDER"))
@blp.response(200, EngineSchema(many=True))
def list_engines():
    """List the diagram types this server draws, with the engine and version of each"""
    return service.engines()
