"""Delivering e-mail: what is due in the outbox (core/mail/outbox.py) is sent with the backend in force
(core/mail/compose.py), holding no database connection meanwhile; docs/operations.md ("E-mail outbox").

OUTBOX_DELIVERY decides who sends after the commit:
  thread    a daemon sender thread per process, started by the first commit that writes a message (and by
            gunicorn when a worker starts), woken by each such commit, and polling every
            OUTBOX_POLL_SECONDS for retries and messages a dead process had claimed;
  inline    the request that wrote the message, as it ends (tests read the mailbox right after a request);
  external  only `flask mail deliver` (a process of its own).
"""
import functools
import logging
import os
import threading
from dataclasses import dataclass

from flask import current_app, g, has_app_context, has_request_context
from sqlalchemy import event
from sqlalchemy.orm import Session

from ...extensions import db
from ...services.email.backends import EmailDeliveryError
from . import outbox
from .compose import backend

log = logging.getLogger("trazo.email")
THREAD, INLINE = "thread", "inline"  # OUTBOX_DELIVERY (settings.py); "external" leaves it to the CLI
PASS_LIMIT = 100  # claims per pass; the next pass follows at once when a wake-up is pending
SENDER_EXTENSION = "trazo.outbox_sender"


@dataclass
class Summary:
    sent: int = 0
    retrying: int = 0
    failed: int = 0


def deliver_due(stop=None, limit=PASS_LIMIT):
    """Send what is due, one message at a time, until nothing is (or `stop` is set, or `limit` claims).
    No database connection is held while a message is on its way."""
    summary, chosen = Summary(), None
    for _claim in range(limit):
        if stop is not None and stop.is_set():
            break
        claimed = outbox.claim_next()
        if claimed is None:
            break
        if chosen is None:
            chosen = backend()
            db.session.rollback()  # ends the read of the vendor settings: its connection goes back to the pool
        try:
            chosen.send(claimed.message)
        except Exception as exc:  # a bug must not stop the sender either: the message waits its turn
            _failed(claimed, exc, summary)
        else:
            outbox.record_sent(claimed)
            summary.sent += 1
    return summary


def _failed(claimed, exc, summary):
    error = str(exc) if isinstance(exc, EmailDeliveryError) else f"{exc.__class__.__name__} while sending"
    outcome = outbox.record_failure(claimed, error)
    limit = current_app.config["OUTBOX_MAX_ATTEMPTS"]
    recipient = outbox.mask_address(claimed.message.to)
    if outcome.gave_up:
        summary.failed += 1
        log.error("e-mail %s to %s was not delivered (attempt %s of %s), giving up: %s", claimed.id, recipient,
                  claimed.attempts, limit, error)
    else:
        summary.retrying += 1
        log.warning("e-mail %s to %s was not delivered (attempt %s of %s), next attempt in %s s: %s",
                    claimed.id, recipient, claimed.attempts, limit, outcome.retry_in, error)
    if not isinstance(exc, EmailDeliveryError):
        log.error("unexpected error sending e-mail %s", claimed.id, exc_info=exc)


class _Sender:
    """This process's sender thread (OUTBOX_DELIVERY=thread). Forked processes start their own."""

    def __init__(self):
        self.lock = threading.Lock()
        self.wakeup = threading.Event()
        self.thread = None
        self.pid = None

    def start(self, app):
        with self.lock:
            if self.thread is not None and self.thread.is_alive() and self.pid == os.getpid():
                return
            self.pid, self.wakeup = os.getpid(), threading.Event()
            self.thread = threading.Thread(target=self._run, args=(app,), name="outbox-sender", daemon=True)
            self.thread.start()

    def wake(self):
        self.wakeup.set()

    def _run(self, app):
        while app.config["OUTBOX_DELIVERY"] == THREAD:
            try:
                with app.app_context():
                    deliver_due()
            except Exception:  # the database is away, say: the next pass retries
                log.exception("the e-mail sender's pass failed")
            self.wakeup.wait(app.config["OUTBOX_POLL_SECONDS"])
            self.wakeup.clear()


_sender = _Sender()


def init_app(app):
    """Deliver after each commit that wrote a message (the Session listeners, registered once per process),
    after the request when OUTBOX_DELIVERY is inline, and let gunicorn start a worker's sender
    (gunicorn.conf.py). The outbox settings are checked with the others (config.py)."""
    for name, listener in (("after_commit", _message_committed), ("after_transaction_end", _transaction_ended)):
        if not event.contains(Session, name, listener):
            event.listen(Session, name, listener)
    app.extensions[SENDER_EXTENSION] = functools.partial(start_sender, app)
    app.teardown_request(_deliver_inline)


def start_sender(app):
    """Start this process's sender thread when OUTBOX_DELIVERY is `thread` (idempotent)."""
    if app.config["OUTBOX_DELIVERY"] == THREAD:
        _sender.start(app)


def _message_committed(session):
    if not session.info.pop(outbox.NEW_MESSAGES, False) or not has_request_context():
        return  # outside a request (the CLI) the workers' senders find the message when they poll
    mode = current_app.config["OUTBOX_DELIVERY"]
    if mode == INLINE:
        g.outbox_due = True
    elif mode == THREAD:
        current_app.extensions[SENDER_EXTENSION]()  # start_sender(app), bound in init_app
        _sender.wake()


def _transaction_ended(session, transaction):
    if transaction.parent is None:  # rolled back (a commit has already taken the mark)
        session.info.pop(outbox.NEW_MESSAGES, None)


def _deliver_inline(_error):
    """OUTBOX_DELIVERY=inline: the request committed a message; send it now, in a context of its own."""
    if not has_app_context() or not g.pop("outbox_due", False):
        return
    try:
        with current_app.app_context():
            deliver_due()
    except Exception:  # the caller has its answer; the message waits for `flask mail deliver`
        log.exception("inline e-mail delivery failed")
