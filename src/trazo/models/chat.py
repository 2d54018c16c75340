"""AI chat sessions and their messages."""
from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, IdMixin, TimestampMixin, UTCDateTime, utcnow

SESSION_ACTIVE = "active"
SESSION_FINALIZED = "finalized"

ROLE_USER = "user"
ROLE_ASSISTANT = "assistant"
ROLE_ERROR = "error"

IMPROVEMENT_STATUSES = ("pending", "accepted", "rejected")


class ChatSession(IdMixin, TimestampMixin, Base):
    """A conversation about one diagram; `summary` is the rolling context, never returned."""

    __tablename__ = "chat_sessions"
    __table_args__ = (Index("ix_chat_sessions_user_diagram_updated", "user_id", "diagram_id", "updated_at"),)

    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    diagram_id: Mapped[str] = mapped_column(String(36), ForeignKey("diagrams.id", ondelete="CASCADE"),
                                            nullable=False, index=True)
    # None until the user or the first message names it; shown as the localized "New session".
    title: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default=SESSION_ACTIVE, nullable=False)
    parent_session_id: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("chat_sessions.id", ondelete="SET NULL"), index=True)
    summary: Mapped[str | None] = mapped_column(Text)
    last_provider: Mapped[str | None] = mapped_column(String(32))
    last_model: Mapped[str | None] = mapped_column(String(200))


class ChatMessage(IdMixin, Base):
    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_session_created", "session_id", "created_at"),)

    session_id: Mapped[str] = mapped_column(String(36), ForeignKey("chat_sessions.id", ondelete="CASCADE"),
                                            nullable=False)
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False, default="")
    improved_code: Mapped[str | None] = mapped_column(Text)
    improvement_status: Mapped[str | None] = mapped_column(String(16))
    provider_used: Mapped[str | None] = mapped_column(String(32))
    model_used: Mapped[str | None] = mapped_column(String(200))
    generation_time: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
