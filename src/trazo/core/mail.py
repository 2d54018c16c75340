"""Sending e-mail: localized templates written to the outbox in the caller's transaction (core/outbox.py),
the backend in force (an admin-configured vendor, else the settings), and the delivery of what is due.
The transports themselves are in services/email; docs/operations.md ("E-mail outbox") tells the story.

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
import signal
import threading
from dataclasses import dataclass

import click
from flask import current_app, g, has_app_context, has_request_context, render_template
from flask.cli import AppGroup
from flask_babel import force_locale, get_locale
from sqlalchemy import event
from sqlalchemy.orm import Session

from ..config import ConfigError
from ..extensions import db
from ..services.email.backends import EmailDeliveryError, EmailMessage, SmtpBackend, configured_backend
from ..services.email.resend import ResendBackend
from . import outbox
from .crypto import DecryptionError
from .vendors import EMAIL, active_vendor_config

log = logging.getLogger("trazo.email")
THREAD, INLINE = "thread", "inline"  # OUTBOX_DELIVERY (config.py); "external" leaves it to the CLI
PASS_LIMIT = 100  # claims per pass; the next pass follows at once when a wake-up is pending
SENDER_EXTENSION = "trazo.outbox_sender"


def active_email_backend():
    """The backend of the default e-mail vendor, or None (then the settings decide)."""
    try:
        active = active_vendor_config(EMAIL)
    except DecryptionError:
        log.exception("the default e-mail vendor cannot be decrypted with ENCRYPTION_KEYS; using the settings")
        return None
    if active is None:
        return None
    vendor_type, config = active
    deadline = current_app.config["EMAIL_TIMEOUT"]
    if vendor_type == "resend":
        return ResendBackend(config["from_email"], config["api_key"], config.get("api_base"), deadline)
    return SmtpBackend(config["from_email"], config["host"], config.get("port", 25), config.get("username", ""),
                       config.get("password", ""), config.get("starttls", False), current_app.config["SMTP_TIMEOUT"],
                       deadline)


def backend():
    """The active backend: an admin-configured vendor when one is active, else the settings."""
    return active_email_backend() or configured_backend(current_app.config)


def send_template(to, template, subject, language=None, **context):
    """Render templates/email/<template>.txt and .html in the caller's (or the given) language into the
    outbox, in the caller's transaction: the message leaves after the caller commits, never if it rolls
    back. Call it before the commit of the action it reports."""
    language = language or str(get_locale() or current_app.config["DEFAULT_LANGUAGE"])
    with force_locale(language):
        text = render_template(f"email/{template}.txt", **context)
        html = render_template(f"email/{template}.html", **context)
    outbox.enqueue(EmailMessage(to=to, subject=str(subject), text=text, html=html))


# -- delivery ------------------------------------------------------------------------------

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
    """Check the outbox settings and let gunicorn start a worker's sender (gunicorn.conf.py)."""
    config = app.config
    if config["OUTBOX_LEASE_SECONDS"] <= config["EMAIL_TIMEOUT"]:
        raise ConfigError("OUTBOX_LEASE_SECONDS must be greater than EMAIL_TIMEOUT: a sender must finish (or "
                          "give up) before another may take its message")
    if config["OUTBOX_RETRY_BASE_SECONDS"] < 1 or config["OUTBOX_MAX_ATTEMPTS"] < 1:
        raise ConfigError("OUTBOX_RETRY_BASE_SECONDS and OUTBOX_MAX_ATTEMPTS must be at least 1")
    app.extensions[SENDER_EXTENSION] = functools.partial(start_sender, app)
    app.teardown_request(_deliver_inline)


def start_sender(app):
    """Start this process's sender thread when OUTBOX_DELIVERY is `thread` (idempotent)."""
    if app.config["OUTBOX_DELIVERY"] == THREAD:
        _sender.start(app)


@event.listens_for(Session, "after_commit")
def _message_committed(session):
    if not session.info.pop(outbox.NEW_MESSAGES, False) or not has_request_context():
        return  # outside a request (the CLI) the workers' senders find the message when they poll
    mode = current_app.config["OUTBOX_DELIVERY"]
    if mode == INLINE:
        g.outbox_due = True
    elif mode == THREAD:
        current_app.extensions[SENDER_EXTENSION]()  # start_sender(app), bound in init_app
        _sender.wake()


@event.listens_for(Session, "after_transaction_end")
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


# -- flask mail ----------------------------------------------------------------------------

mail_cli = AppGroup("mail", help="The e-mail outbox (docs/operations.md).")


@mail_cli.command("deliver")
@click.option("--once", is_flag=True, help="Send what is due now, print a summary and exit.")
def deliver_command(once):
    """Send due e-mail in the foreground: until SIGTERM (or Ctrl-C), or once."""
    if once:
        summary = deliver_due(limit=10_000)
        click.echo(f"{summary.sent} sent, {summary.retrying} to retry, {summary.failed} given up.")
        return
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_args: stop.set())
    click.echo(f"Sending e-mail every {current_app.config['OUTBOX_POLL_SECONDS']} s until SIGTERM.")
    while not stop.is_set():
        try:
            deliver_due(stop)
        except Exception:  # the database is away, say: try again at the next poll
            log.exception("the e-mail sender's pass failed")
        db.session.remove()
        stop.wait(current_app.config["OUTBOX_POLL_SECONDS"])
    click.echo("Stopped.")


@mail_cli.command("status")
def status_command():
    """Counts by status, then the messages waiting or given up (recipients masked, never a body)."""
    counts = outbox.counts()
    click.echo(", ".join(f"{status} {count}" for status, count in counts.items()))
    for row in outbox.waiting_or_failed():
        click.echo(f"#{row.id} {row.status} to {row.recipient} \"{row.subject}\" attempts {row.attempts} "
                   f"next {row.next_attempt_at:%Y-%m-%d %H:%M:%S}Z"
                   + (f" last error: {row.last_error}" if row.last_error else ""))


@mail_cli.command("retry")
@click.argument("message_id", type=int, required=False)
@click.option("--failed", "all_failed", is_flag=True, help="Every message that was given up.")
def retry_command(message_id, all_failed):
    """Make a message (or every failed one) due now, with its attempts counted afresh."""
    if (message_id is None) == (not all_failed):
        raise click.UsageError("give a message id or --failed")
    click.echo(f"Requeued {outbox.requeue(message_id)} message(s).")
