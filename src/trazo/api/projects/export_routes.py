"""Export routes of the projects blueprint."""

from ...auth import current_user, login_required
from ...extensions import limiter
from ...ratelimit import limit, user_or_address
from . import export_service
from .routes import blp
from .schemas import ExportQuerySchema, ExportSummarySchema


def _succeeded(response):
    """Only delivered exports spend the budget (a typo in an id does not)."""
    return response.status_code < 400


@blp.route("/<project_id>/export")
@login_required
@limiter.limit(limit("EXPORT"), key_func=user_or_address, deduct_when=_succeeded)
@blp.arguments(ExportQuerySchema, location="query")
@blp.response(200, description="The ZIP archive or the Markdown document", content_type="application/zip")
@blp.alt_response(404, "DEFAULT_ERROR", description="Project or folder not found")
@blp.alt_response(429, "DEFAULT_ERROR", description="Too many exports")
def export(query, project_id):
    """Download a project or one of its folders as ZIP or Markdown"""
    return export_service.export_response(current_user, project_id, query)


@blp.route("/<project_id>/export/summary")
@login_required
@limiter.limit(limit("EXPORT_SUMMARY"), key_func=user_or_address, deduct_when=_succeeded)
@blp.arguments(ExportQuerySchema, location="query")
@blp.response(200, ExportSummarySchema)
@blp.alt_response(404, "DEFAULT_ERROR", description="Project or folder not found")
@blp.alt_response(429, "DEFAULT_ERROR", description="Too many requests")
def export_summary(query, project_id):
    """Tell what an export would hold and how large it is"""
    return export_service.export_summary(current_user, project_id, query)
