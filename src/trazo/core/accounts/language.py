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


def remember_language(user):
    """Keep the request's language on `user` when it changed: no statement when it did not. On a read the
    UPDATE commits at once (reads run in autocommit, transactions.py); on a write, with the request."""
    language = named_language()
    if language is None or user.language == language:
        return
    db.session.execute(update(User).where(User.id == user.id).values(language=language))
    set_committed_value(user, "language", language)
