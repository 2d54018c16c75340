"""Audit log (administrators) routes."""
from ..blueprint import ADMIN, Blueprint
from . import service
from .schemas import AuditPageSchema, AuditQuerySchema

blp = Blueprint("audit", __name__, description="Audit log (administrators)")


@blp.route("", auth=ADMIN)
@blp.arguments(AuditQuerySchema, location="query")
@blp.response(200, AuditPageSchema)
def audit_log(query):
    """List security events, newest first"""
    return service.list_entries(query["page"], query["page_size"], query.get("event"), query.get("user_id"),
                                query.get("email"))
