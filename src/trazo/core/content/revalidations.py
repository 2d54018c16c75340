"""Revalidations of public image links answered below Flask, and their end (docs/image-links.md, "Revalidation
below Flask").

A worker that checked a public link's ETag against the database remembers it for REVALIDATION_SECONDS, and
web.answer_image_revalidations answers that link's `If-None-Match` with 304 meanwhile, without Flask or the
database. Every path that ends a link (re-share, revoke, protect, deletion of its diagram, folder, project
or account, files API and sync deletes) names the links it ends with `ending_links` or `ending_tokens`
before its statement; once the transaction commits, this worker drops their entries, and each token is
marked ended for ENDED_SECONDS in the limiter storage (`ratelimit.Counter`: Redis when several workers share
it). Before answering 304, a worker looks for that mark (one storage read), and a request that finds it
before reading the link remembers nothing. A rolled-back transaction ends nothing.
"""
import logging
import threading
import time
from collections import OrderedDict

from flask import current_app, has_app_context
from sqlalchemy import event, select
from sqlalchemy.orm import Session

from ...extensions import db
from ...models.sharing import SharedLink
from ...ratelimit import Counter

log = logging.getLogger(__name__)

REVALIDATION_SECONDS = 5
REVALIDATION_ENTRIES = 10_000  # links whose ETags a process keeps
# How long a link's end is marked. Longer than an entry lives plus the time between a request's look for the
# mark and its entry, so that no entry remembered before a link ended outlives the mark.
ENDED_SECONDS = 60
EXTENSION = "trazo-recent-etags"
ENDING = "trazo-ending-links"  # session.info: the tokens the open transaction ends


class RecentETags:
    """ETags of public images this process checked lately: {token: {(format, theme): (etag, until)}}."""

    def __init__(self, seconds=REVALIDATION_SECONDS, most=REVALIDATION_ENTRIES):
        self.seconds, self.most = seconds, most
        self.entries = OrderedDict()
        self.lock = threading.Lock()

    def remember(self, key, etag):
        token, variant = key[0], key[1:]
        with self.lock:
            variants = self.entries.pop(token, None) or {}
            variants[variant] = (etag, time.monotonic() + self.seconds)
            self.entries[token] = variants
            while len(self.entries) > self.most:
                self.entries.popitem(last=False)

    def current(self, key):
        """The ETag of (token, format, theme) checked less than `seconds` ago, or None."""
        with self.lock:
            found = self.entries.get(key[0], {}).get(key[1:])
        return found[0] if found is not None and found[1] > time.monotonic() else None

    def forget(self, tokens):
        with self.lock:
            for token in tokens:
                self.entries.pop(token, None)


def recent_etags(app=None):
    """This process's entries for `app` (the current one by default): each worker has its own."""
    extensions = (app or current_app).extensions
    return extensions.get(EXTENSION) or extensions.setdefault(EXTENSION, RecentETags())


def _ended(token):
    return Counter("image-link-ended", token)


def may_remember(token):
    """Whether a request for `token`'s image may remember the ETag it checks: called before the link is read,
    so that a link that ends meanwhile is marked by then, or its mark outlives the entry. The storage
    unreachable: no."""
    try:
        return not _ended(token).value()
    except Exception:  # the storage is away: answer without remembering
        log.warning("could not read an image link's end mark in the limiter storage")
        return False


def still_answerable(app, token):
    """Whether `token`'s remembered ETags may still answer below Flask: not when the link ended (in any
    worker sharing the storage) since; its entries go then. The storage unreachable: no (Flask checks)."""
    try:
        with app.app_context():
            ended = bool(_ended(token).value())
    except Exception:  # the storage is away: Flask checks the link, and answers the storage error its way
        return False
    if ended:
        recent_etags(app).forget([token])
    return not ended


def ending_tokens(tokens):
    """The links of these tokens end with the open transaction: forgotten once it commits."""
    if tokens:
        db.session.info.setdefault(ENDING, set()).update(tokens)


def ending_links(*where):
    """The active links matching `where` (criteria on SharedLink) end with the open transaction; call it
    before the statement that ends them (a cascade takes the rows with it)."""
    ending_tokens(db.session.scalars(select(SharedLink.token).where(SharedLink.is_active, *where)).all())


def _links_ended(session):
    tokens = session.info.pop(ENDING, None)
    if not tokens or not has_app_context():
        return
    recent_etags().forget(tokens)
    try:
        for token in tokens:
            _ended(token).hit(ENDED_SECONDS)
    except Exception:  # committed already; other workers stop within REVALIDATION_SECONDS
        log.warning("could not mark %d ended image link(s) in the limiter storage", len(tokens))


def _transaction_ended(session, transaction):
    if transaction.parent is None:  # rolled back (a commit has already taken the tokens)
        session.info.pop(ENDING, None)


def init_app(_app):
    """Forget the links a transaction ended once it commits (the Session listeners, registered once per
    process)."""
    for name, listener in (("after_commit", _links_ended), ("after_transaction_end", _transaction_ended)):
        if not event.contains(Session, name, listener):
            event.listen(Session, name, listener)
