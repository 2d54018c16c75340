"""Mentions in comment bodies and the e-mails they and replies send (docs/comments.md, "Mentions").

Interface used by core/comments/threads.py:
- `mentioned_members(workspace_id, body)`: [{"user_id", "full_name"}] of the workspace's members whose
  e-mail follows an `@` in `body` (non-members stay plain text), in order of first appearance;
- `notify(comment, diagram, author, root=None)`: queue, through the outbox, one e-mail per mentioned member
  and (on a reply, `root` the thread's root comment) per other participant of the thread, each in the
  recipient's language and honouring their notification choices; never the author. Called in the
  comment's transaction (the outbox sends after the commit).
"""
import re

from flask import current_app
from flask_babel import force_locale, lazy_gettext
from sqlalchemy import func, select

from ...extensions import db
from ...models import User
from ...models.comments import Comment
from ...models.content import Project
from ...models.workspaces import Membership
from ..mail.compose import send_template

# `@` (not inside a word or an address) then an address; every quantifier is bounded and no two overlap, so a
# hostile body costs linear time.
MENTION = re.compile(r"(?<![\w@])@([^\s@]{1,64}@[^\s@]{1,255})")
TRAILING = ".,;:!?)]}>'\"»…"
MAX_MENTIONS = 50


def mentioned_addresses(body):
    """The distinct addresses (lower case) after an `@` in `body`, in order of first appearance, at most
    MAX_MENTIONS."""
    found = {}
    for match in MENTION.finditer(body or ""):
        address = match.group(1).rstrip(TRAILING).lower()
        if "@" in address and not address.endswith("@"):
            found.setdefault(address, None)
            if len(found) >= MAX_MENTIONS:
                break
    return list(found)


def mentioned_members(workspace_id, body):
    """[{"user_id", "full_name"}] of the members of `workspace_id` mentioned in `body` (one query)."""
    addresses = mentioned_addresses(body)
    if not addresses:
        return []
    rows = db.session.execute(select(User.id, User.full_name, func.lower(User.email))
                              .join(Membership, Membership.user_id == User.id)
                              .where(Membership.workspace_id == workspace_id,
                                     func.lower(User.email).in_(addresses))).all()
    by_address = {address: (user_id, full_name) for user_id, full_name, address in rows}
    return [{"user_id": by_address[address][0], "full_name": by_address[address][1]}
            for address in addresses if address in by_address]


def _mentioned_ids(comment):
    return [item["user_id"] if isinstance(item, dict) else item for item in (comment.mentions or [])]


def _participant_ids(root):
    """The root's author and the authors of its replies."""
    repliers = db.session.scalars(select(Comment.author_id).where(Comment.parent_id == root.id,
                                                                  Comment.author_id.is_not(None))).all()
    return [root.author_id, *repliers]


def recipients(comment, diagram, author, root=None):
    """[(user, template)]: each member to e-mail once, a mention before a reply, never the author."""
    mentioned = _mentioned_ids(comment)
    participants = _participant_ids(root) if root is not None else []
    candidates = {user_id for user_id in (*mentioned, *participants) if user_id and user_id != author.id}
    if not candidates:
        return []
    workspace_id = select(Project.workspace_id).where(Project.id == diagram.project_id).scalar_subquery()
    users = {user.id: user for user in db.session.scalars(
        select(User).join(Membership, Membership.user_id == User.id)
        .where(Membership.workspace_id == workspace_id, User.id.in_(candidates)))}
    chosen, answer = set(), []
    for user_id, template, wanted in ([(user_id, "comment_mention", "notify_comment_mentions") for user_id in mentioned]
                                      + [(user_id, "comment_reply", "notify_comment_replies")
                                         for user_id in participants]):
        user = users.get(user_id)
        if user is None or user_id in chosen or not getattr(user, wanted):
            continue
        chosen.add(user_id)
        answer.append((user, template))
    return answer


SUBJECTS = {
    "comment_mention": lazy_gettext("%(author)s mentioned you on \"%(diagram)s\""),
    "comment_reply": lazy_gettext("%(author)s replied on \"%(diagram)s\""),
}


def notify(comment, diagram, author, root=None):
    """Queue the e-mails of a new comment (see the module's docstring); answers how many were queued."""
    if comment.id is None:
        db.session.flush()
    config = current_app.config
    link = f"{config['FRONTEND_URL']}/diagrams/{diagram.id}#comment-{comment.id}"
    author_name = author.full_name or author.email
    queued = 0
    for user, template in recipients(comment, diagram, author, root):
        language = user.language if user.language in config["LANGUAGES"] else config["DEFAULT_LANGUAGE"]
        with force_locale(language):
            subject = str(SUBJECTS[template] % {"author": author_name, "diagram": diagram.title})
            send_template(user.email, template, subject, language=language, author=author_name,
                          diagram=diagram.title, body=comment.body, link=link)
        queued += 1
    return queued
