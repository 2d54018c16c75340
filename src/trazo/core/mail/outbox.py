"""The e-mail outbox table (docs/operations.md, "E-mail outbox"): a message is added to the caller's
session and leaves only after the caller commits; a sender claims one due message at a time under a
lease (a short transaction), sends it holding no database connection, then records the outcome (another
short transaction). A sender that dies leaves its claim behind; the message is due again when the lease
ends, so delivery is at least once.

On PostgreSQL the claim skips rows another sender has locked (FOR UPDATE SKIP LOCKED); SQLite serializes
writers, and the claiming UPDATE re-checks that the row is still due before it takes it.
"""
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import and_, func, or_, select, update

from ...extensions import db
from ...models.base import utcnow
from ...models.outbox import FAILED, PENDING, SENDING, SENT, STATUSES, OutboxMessage
from ...services.email.backends import EmailMessage
from .. import crypto
from ..crypto import DecryptionError

# A key of the session's `info`: the transaction wrote a message (core/mail/compose.py wakes the sender on commit).
NEW_MESSAGES = "trazo.outbox.new_messages"
MAX_RETRY_SECONDS = 3600
ERROR_CHARS = 255
LISTED_ROWS = 50


@dataclass(frozen=True)
class Claimed:
    """A message this sender holds until `locked_until`; `attempts` counts this one."""

    id: int
    attempts: int
    message: EmailMessage


@dataclass(frozen=True)
class Outcome:
    """What recording a failed attempt decided: retried after `retry_in` seconds, or given up."""

    gave_up: bool
    retry_in: int | None


def enqueue(message):
    """Add `message` to the caller's session; it is sent once the caller commits, never if it rolls back."""
    db.session.add(OutboxMessage(recipient=message.to, subject=message.subject[:255],
                                 text_body=crypto.encrypt(message.text),
                                 html_body=crypto.encrypt(message.html) if message.html else None,
                                 status=PENDING, attempts=0, next_attempt_at=utcnow()))
    db.session.info[NEW_MESSAGES] = True


def _due(now):
    return and_(OutboxMessage.status.in_((PENDING, SENDING)), OutboxMessage.next_attempt_at <= now,
                or_(OutboxMessage.locked_until.is_(None), OutboxMessage.locked_until < now))


def claim_next():
    """Take the oldest due message for OUTBOX_LEASE_SECONDS and commit; None when nothing is due."""
    while True:
        now = utcnow()
        lease = timedelta(seconds=current_app.config["OUTBOX_LEASE_SECONDS"])
        # A scalar subquery runs once (PostgreSQL may run an IN (... LIMIT 1) subquery once per row).
        oldest = (select(OutboxMessage.id).where(_due(now)).order_by(OutboxMessage.id).limit(1)
                  .with_for_update(skip_locked=True))
        row = db.session.execute(
            update(OutboxMessage).where(OutboxMessage.id == oldest.scalar_subquery(), _due(now))
            .values(status=SENDING, locked_until=now + lease, attempts=OutboxMessage.attempts + 1)
            .returning(OutboxMessage.id, OutboxMessage.attempts, OutboxMessage.recipient, OutboxMessage.subject,
                       OutboxMessage.text_body, OutboxMessage.html_body)
            .execution_options(synchronize_session=False)).first()
        db.session.commit()
        if row is None:
            return None
        try:
            message = EmailMessage(to=row.recipient, subject=row.subject, text=crypto.decrypt(row.text_body),
                                   html=crypto.decrypt(row.html_body) if row.html_body else None)
        except DecryptionError:  # written under a key no longer in ENCRYPTION_KEYS: it can never be sent
            _finish(row.id, row.attempts, status=FAILED, locked_until=None,
                    last_error="the body cannot be decrypted with ENCRYPTION_KEYS")
            continue
        return Claimed(row.id, row.attempts, message)


def retry_delay(attempts):
    """Seconds before the next attempt: doubling from OUTBOX_RETRY_BASE_SECONDS, capped at an hour, and
    between half and all of that (jitter), so messages that failed together do not retry together."""
    ceiling = min(current_app.config["OUTBOX_RETRY_BASE_SECONDS"] * 2 ** (attempts - 1), MAX_RETRY_SECONDS)
    return max(1, round(ceiling * random.uniform(0.5, 1.0)))


def record_sent(claimed):
    """Sent: keep the metadata, drop the bodies (they hold links and codes)."""
    db.session.execute(update(OutboxMessage).where(OutboxMessage.id == claimed.id)
                       .values(status=SENT, sent_at=utcnow(), text_body=None, html_body=None, locked_until=None,
                               last_error=None)
                       .execution_options(synchronize_session=False))
    db.session.commit()


def record_failure(claimed, error):
    """Not sent: retry later, or give up after OUTBOX_MAX_ATTEMPTS attempts. Nothing changes when another
    sender took the message over meanwhile (this sender's lease ended)."""
    gave_up = claimed.attempts >= current_app.config["OUTBOX_MAX_ATTEMPTS"]
    retry_in = None if gave_up else retry_delay(claimed.attempts)
    values = {"status": FAILED} if gave_up else {
        "status": PENDING, "next_attempt_at": utcnow() + timedelta(seconds=retry_in)}
    _finish(claimed.id, claimed.attempts, locked_until=None, last_error=error[:ERROR_CHARS], **values)
    return Outcome(gave_up, retry_in)


def _finish(message_id, attempts, **values):
    db.session.execute(update(OutboxMessage)
                       .where(OutboxMessage.id == message_id, OutboxMessage.status == SENDING,
                              OutboxMessage.attempts == attempts)
                       .values(**values).execution_options(synchronize_session=False))
    db.session.commit()


# -- what operators see and do (flask mail status / retry) --------------------------------

@dataclass(frozen=True)
class Listed:
    id: int
    status: str
    recipient: str
    subject: str
    attempts: int
    next_attempt_at: datetime
    last_error: str | None


def counts():
    """{status: messages} for every status."""
    found = dict(db.session.execute(select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status)).all())
    return {status: found.get(status, 0) for status in STATUSES}


def waiting_or_failed(limit=LISTED_ROWS):
    """The oldest messages not sent yet or given up, recipients masked, bodies never read."""
    rows = db.session.execute(
        select(OutboxMessage.id, OutboxMessage.status, OutboxMessage.recipient, OutboxMessage.subject,
               OutboxMessage.attempts, OutboxMessage.next_attempt_at, OutboxMessage.last_error)
        .where(OutboxMessage.status != SENT).order_by(OutboxMessage.id).limit(limit)).all()
    return [Listed(row.id, row.status, mask_address(row.recipient), row.subject, row.attempts,
                   row.next_attempt_at, row.last_error) for row in rows]


def requeue(message_id=None):
    """Make a failed or waiting message (or, without an id, every failed one) due now with a fresh count of
    attempts; returns how many. Sent messages have no body left to send."""
    condition = (OutboxMessage.status.in_((FAILED, PENDING)) if message_id is not None
                 else OutboxMessage.status == FAILED)
    statement = update(OutboxMessage).where(condition)
    if message_id is not None:
        statement = statement.where(OutboxMessage.id == message_id)
    result = db.session.execute(statement.values(status=PENDING, attempts=0, next_attempt_at=utcnow(),
                                                 locked_until=None)
                                .execution_options(synchronize_session=False))
    db.session.commit()
    return result.rowcount


def mask_address(address):
    """`a***@example.com`: enough to tell messages apart, not to read the address."""
    local, _at, domain = address.partition("@")
    return f"{local[:1]}***@{domain}" if domain else "***"
