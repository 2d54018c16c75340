"""AI repair and conversion of diagrams (/api/v1/diagrams/{id}/fix, /api/v1/diagrams/convert)."""
from flask_smorest import Blueprint

from ...auth import current_user, login_required
from ...extensions import limiter
from ...i18n import language_from_body
from ...ratelimit import limit
from . import diagram_service
from .diagram_schemas import ConvertRequestSchema, ConvertResultSchema, FixRequestSchema, FixResultSchema
from .routes import AI_LIMIT, provider_failures

blp = Blueprint("diagram_ai", __name__, description="AI repair and conversion of diagrams")


@blp.route("/<diagram_id>/fix", methods=["POST"])
@language_from_body
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(FixRequestSchema)
@blp.response(200, FixResultSchema)
@provider_failures(code_result=True)
def fix_diagram(data, diagram_id):
    """Repair the syntax of a diagram with AI (nothing is saved)"""
    return diagram_service.fix_diagram(current_user, diagram_id, data)


@blp.route("/convert", methods=["POST"])
@language_from_body
@login_required
@limiter.limit(limit("AI"), **AI_LIMIT)
@blp.arguments(ConvertRequestSchema)
@blp.response(200, ConvertResultSchema)
@provider_failures(code_result=True)
def convert_diagram(data):
    """Convert diagram code to another diagram language (a preview, nothing is saved)"""
    return diagram_service.convert_diagram(current_user, data)
