"""The account's language: the one its last signed-in request named (a marked route's body `language`, else
a supported Accept-Language), kept in `users.language` for the e-mails it did not ask for (mentions and
replies, docs/comments.md). A request that names no supported language changes nothing."""
from flask import current_app, has_request_context, request
from sqlalchemy import update
from sqlalchemy.orm.attributes import set_committed_value

from ...extensions import db
from ...i18n import body_language, negotiate
from ...models import User


def named_language():
    """The supported language the request names, or None (no Accept-Language, or none supported)."""
    if not has_request_context():
        return None
    supported = current_app.config["LANGUAGES"]
    return body_language(supported) or negotiate(request.accept_languages, supported, None)


def kept_language(user_id, known):
    """The account's language once the request's is kept: the supported language the request names when it
    differs from `known` (one UPDATE; on a read it commits at once, reads running in autocommit,
    transactions.py; on a write, with the request), else `known`, with no statement."""
    language = named_language()
    if language is None or language == known:
        return known
    db.session.execute(update(User).where(User.id == user_id).values(language=language))
    return language


def remember_language(user):
    """Keep the request's language on the ORM `user` when it changed (kept_language)."""
    language = kept_language(user.id, user.language)
    if language != user.language:
        set_committed_value(user, "language", language)
