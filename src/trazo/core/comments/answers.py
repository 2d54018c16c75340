"""A comment as it is answered and published (docs/comments.md, docs/events.md): its authors, resolver and
mentioned members with their names, and the `comment.<action>` event on the diagram's feed once the caller's
transaction commits. Shared by the comment routes (api/comments) and the MCP tools (api/mcp)."""
from ..content.access import workspace_of_diagram
from ..events.publish import COMMENT, record


def _person(user_id, names):
    return None if user_id is None or user_id not in names else {"id": user_id, "full_name": names[user_id]}


def shown(comment, names):
    """The comment's answer: authors, resolver and mentioned members with their names (`names`: {user id: full
    name}, core/comments/threads.names_of)."""
    return {"id": comment.id, "diagram_id": comment.diagram_id, "parent_id": comment.parent_id,
            "author": _person(comment.author_id, names), "body": comment.body, "anchor": comment.anchor,
            "mentions": [{"user_id": user_id, "full_name": names[user_id]}
                         for user_id in comment.mentions if user_id in names],
            "created_at": comment.created_at, "updated_at": comment.updated_at, "resolved": comment.resolved,
            "resolved_by": _person(comment.resolved_by, names), "resolved_at": comment.resolved_at}


def published(user, action, comment, answer):
    """Publish `comment.<action>` with `answer` (its times written in ISO 8601) once the caller commits."""
    record(f"{COMMENT}.{action}", workspace_of_diagram(comment.diagram_id), {"comment": answer}, comment.diagram_id,
           user)
