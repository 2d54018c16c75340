"""Search (core/search) for the route: its query parameters as `find`'s arguments."""
from ...core.search.find import find


def search(user, arguments):
    return find(user, arguments["q"], workspace_id=arguments["workspace_id"], project_id=arguments["project_id"],
                diagram_type=arguments["diagram_type"], limit=arguments["limit"], cursor=arguments["cursor"])
