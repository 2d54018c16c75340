"""Comment threads (core/comments/threads.py) in their transactions, answered in the comment shape; each
write is published on the diagram's feed as `comment.<action>` with the comment (docs/events.md)."""
from ...core.comments import threads
from ...core.content.access import workspace_of_diagram
from ...core.events.publish import COMMENT, record
from ...extensions import db
from ..common import page_envelope
from .schemas import CommentSchema


def _person(user_id, names):
    return None if user_id is None or user_id not in names else {"id": user_id, "full_name": names[user_id]}


def shown(comment, names):
    """The comment's answer: authors, resolver and mentioned members with their names."""
    return {"id": comment.id, "diagram_id": comment.diagram_id, "parent_id": comment.parent_id,
            "author": _person(comment.author_id, names), "body": comment.body, "anchor": comment.anchor,
            "mentions": [{"user_id": user_id, "full_name": names[user_id]}
                         for user_id in comment.mentions if user_id in names],
            "created_at": comment.created_at, "updated_at": comment.updated_at, "resolved": comment.resolved,
            "resolved_by": _person(comment.resolved_by, names), "resolved_at": comment.resolved_at}


def _published(user, action, comment, answer):
    record(f"{COMMENT}.{action}", workspace_of_diagram(comment.diagram_id), {"comment": CommentSchema().dump(answer)},
           comment.diagram_id, user)


def _committed(user, action, comment):
    answer = shown(comment, threads.names_of(comment))
    _published(user, action, comment, answer)
    db.session.commit()
    return answer


def list_threads(user, diagram_id, status, page, page_size):
    listed, total, names = threads.list_threads(user, diagram_id, status, page, page_size)
    items = [{**shown(root, names), "replies": [shown(reply, names) for reply in replies]}
             for root, replies in listed]
    return page_envelope(items, total, page, page_size)


def create(user, diagram_id, data):
    return _committed(user, "created", threads.create(user, diagram_id, data["body"], data["anchor"]))


def reply(user, comment_id, data):
    return _committed(user, "created", threads.reply(user, comment_id, data["body"]))


def edit(user, comment_id, data):
    return _committed(user, "updated", threads.edit(user, comment_id, data["body"]))


def delete(user, comment_id):
    comment = threads.delete(user, comment_id)
    _published(user, "deleted", comment, {"id": comment.id, "diagram_id": comment.diagram_id,
                                          "parent_id": comment.parent_id})
    db.session.commit()


def set_resolved(user, comment_id, resolved):
    return _committed(user, "resolved" if resolved else "reopened", threads.set_resolved(user, comment_id, resolved))
