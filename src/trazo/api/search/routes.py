"""Search route (docs/search.md): the diagrams of every workspace of the caller that match a search, a page
at a time. Signed-in users and personal access tokens with the read scope; rate-limited per user
(RATE_LIMIT_SEARCH)."""
from ...auth import current_user, user_or_address
from ...errors import ErrorSchema
from ...extensions import limiter
from ...ratelimit import limit
from ..blueprint import Blueprint
from . import service
from .schemas import SearchPageSchema, SearchQuerySchema

blp = Blueprint("search", __name__, description="Search the diagrams of the caller's workspaces", personal_tokens=True)


@blp.route("")
@limiter.limit(limit("SEARCH"), key_func=user_or_address, scope="search")
@blp.arguments(SearchQuerySchema, location="query")
@blp.response(200, SearchPageSchema)
@blp.alt_response(404, schema=ErrorSchema, description="workspace_id or project_id names none of the caller's")
def search(arguments):
    """Search the titles, descriptions, contents and comments of my diagrams"""
    return service.search(current_user, arguments)
