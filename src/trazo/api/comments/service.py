"""Comment threads (core/comments/threads.py) in their transactions, answered in the comment shape
(core/comments/answers.py); each write is published on the diagram's feed as `comment.<action>` with the
comment (docs/events.md)."""
from ...core.comments import threads
from ...core.comments.answers import published, shown
from ...extensions import db
from ..common import page_envelope


def _committed(user, action, comment):
    answer = shown(comment, threads.names_of(comment))
    published(user, action, comment, answer)
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
    published(user, "deleted", comment, {"id": comment.id, "diagram_id": comment.diagram_id,
                                         "parent_id": comment.parent_id})
    db.session.commit()


def set_resolved(user, comment_id, resolved):
    return _committed(user, "resolved" if resolved else "reopened", threads.set_resolved(user, comment_id, resolved))
