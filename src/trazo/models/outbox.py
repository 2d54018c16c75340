"""The e-mail outbox: each message is written in the transaction of the action that causes it and sent
after the commit (core/mail/compose.py, core/mail/outbox.py; docs/operations.md, "E-mail outbox")."""
from datetime import datetime

from sqlalchemy import BigInteger, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UTCDateTime, utcnow

PENDING, SENDING, SENT, FAILED = "pending", "sending", "sent", "failed"
STATUSES = (PENDING, SENDING, SENT, FAILED)


class OutboxMessage(Base):
    """One e-mail. The bodies hold reset links and sign-in codes: they are stored encrypted (core/crypto)
    and cleared once the message is sent. `locked_until` is the lease of the sender that claimed it."""

    __tablename__ = "outbox_messages"
    # Serves the claim (status in pending/sending, due) and the counts by status.
    __table_args__ = (Index("ix_outbox_messages_status_next_attempt_at", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"), primary_key=True,
                                    autoincrement=True)
    recipient: Mapped[str] = mapped_column(String(320), nullable=False)
    subject: Mapped[str] = mapped_column(String(255), nullable=False)
    text_body: Mapped[str | None] = mapped_column(Text)
    html_body: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default=PENDING)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=utcnow)
    locked_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_error: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
