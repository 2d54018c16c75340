"""Comment threads on diagrams (docs/comments.md): list, create, reply, edit, delete, resolve and reopen.

Access goes through the diagram's workspace membership (core/content/access.py): reading needs viewer,
writing commenter; editing is the author's alone, deleting the author's or an admin's. A root comment
(parent_id null) opens a thread; replies go to roots only. Each comment counts its body's UTF-8 bytes plus
a row overhead (COMMENT_OVERHEAD_BYTES, core/billing/quotas.py) in the storage quota of the
workspace's billing owner. Nothing here commits: the API service owns the transaction.
"""
from flask_babel import gettext as _
from sqlalchemy import bindparam, func, select

from ...errors import N_, Conflict, Forbidden, ValidationFailed
from ...extensions import db
from ...models import User
from ...models.base import utcnow
from ...models.comments import Comment
from ...models.content import Diagram, Project, utf8_size
from ...models.workspaces import ADMIN, COMMENTER, RANK, VIEWER, Membership
from ..billing.quotas import comment_overhead, ensure_room
from ..content import access
from ..workspaces.billing import diagram_payer
from . import anchors, mentions

OPEN, RESOLVED, ALL = "open", "resolved", "all"
STATUSES = (OPEN, RESOLVED, ALL)

COMMENT = (select(Comment, Diagram, Project.workspace_id, Membership.role)
           .join(Diagram, Diagram.id == Comment.diagram_id).join(Project, Project.id == Diagram.project_id)
           .join(Membership, access.member_of(Project.workspace_id))
           .where(Comment.id == bindparam("object_id")))


def _reach(user, comment_id, need):
    """(comment, diagram, workspace_id, role): 404 for a non-member, 403 below `need`."""
    return access.reach(COMMENT, user, comment_id, need, N_("Comment not found"))


def _root_only(comment):
    if comment.parent_id is not None:
        raise Conflict(_("Only the first comment of a thread can be replied to, resolved or reopened."))


def list_threads(user, diagram_id, status, page, page_size):
    """(roots of the page, newest first, each with `replies` oldest first, total roots, names by user id)."""
    owned = access.diagram_id(user, diagram_id, VIEWER)
    roots = select(Comment).where(Comment.diagram_id == owned, Comment.parent_id.is_(None))
    if status != ALL:
        roots = roots.where(Comment.resolved.is_(status == RESOLVED))
    total = db.session.scalar(select(func.count()).select_from(roots.subquery()))
    page_roots = db.session.scalars(roots.order_by(Comment.created_at.desc(), Comment.id.desc())
                                    .limit(page_size).offset((page - 1) * page_size)).all()
    replies = {root.id: [] for root in page_roots}
    if page_roots:
        for reply in db.session.scalars(select(Comment).where(Comment.parent_id.in_(list(replies)))
                                        .order_by(Comment.created_at, Comment.id)):
            replies[reply.parent_id].append(reply)
    names = _names([*page_roots, *(reply for listed in replies.values() for reply in listed)])
    return [(root, replies[root.id]) for root in page_roots], total, names


def _names(comments):
    """{user id: full name} of the authors, resolvers and mentioned members of `comments` (one statement)."""
    ids = set()
    for comment in comments:
        ids.update(filter(None, (comment.author_id, comment.resolved_by, *comment.mentions)))
    if not ids:
        return {}
    return dict(db.session.execute(select(User.id, User.full_name).where(User.id.in_(ids))).all())


def names_of(comment):
    return _names([comment])


def _charge(user, diagram_id, growth):
    ensure_room(diagram_payer(user, diagram_id), {"storage": growth})


def _write(user, diagram, workspace_id, body, anchor, parent=None):
    _charge(user, diagram.id, utf8_size(body) + comment_overhead(1))
    members = mentions.mentioned_members(workspace_id, body)
    comment = Comment(diagram_id=diagram.id, parent_id=parent.id if parent else None, author_id=user.id, body=body,
                      anchor=anchor, mentions=[member["user_id"] for member in members])
    db.session.add(comment)
    db.session.flush()
    mentions.notify(comment, diagram, user, root=parent)
    return comment


def create(user, diagram_id, body, anchor):
    """A new thread on the diagram; 422 when the anchor does not fit its current content."""
    diagram = access.diagram(user, diagram_id, COMMENTER)
    try:
        stored = anchors.made(diagram, anchor)
    except anchors.AnchorError:
        raise ValidationFailed("anchor", _("The anchored lines are outside the diagram's content.")) from None
    workspace_id = access.project_of(diagram).workspace_id
    return _write(user, diagram, workspace_id, body, stored)


def reply(user, comment_id, body):
    root, diagram, workspace_id, _role = _reach(user, comment_id, COMMENTER)
    _root_only(root)
    return _write(user, diagram, workspace_id, body, {"type": "diagram"}, parent=root)


def edit(user, comment_id, body):
    comment = _reach(user, comment_id, COMMENTER)[0]
    if comment.author_id != user.id:
        raise Forbidden(_("Only its author can edit a comment."), error_code="not_comment_author")
    _charge(user, comment.diagram_id, utf8_size(body) - comment.body_size)
    comment.body = body  # its body_size follows (models/comments.py)
    comment.updated_at = utcnow()
    return comment


def delete(user, comment_id):
    """Delete the comment (a root takes its replies): its author's, or any comment for an admin."""
    comment, _diagram, _workspace_id, role = _reach(user, comment_id, COMMENTER)
    if comment.author_id != user.id and RANK[role] < RANK[ADMIN]:
        raise Forbidden(_("Only its author or a workspace admin can delete a comment."),
                        error_code=access.INSUFFICIENT_ROLE)
    db.session.delete(comment)  # a root's replies go with it (the parent_id foreign key cascades)
    return comment


def set_resolved(user, comment_id, resolved):
    comment = _reach(user, comment_id, COMMENTER)[0]
    _root_only(comment)
    if comment.resolved != resolved:
        comment.resolved = resolved
        comment.resolved_by = user.id if resolved else None
        comment.resolved_at = utcnow() if resolved else None
    return comment
