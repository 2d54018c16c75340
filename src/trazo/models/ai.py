"""Per-user AI settings, the user's AI providers (addressed by their position in the list) and the
history of the prompts the user sent to the AI."""
from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, IdMixin, TimestampMixin, UTCDateTime, utcnow

OPERATION_TYPES = ("creation", "improvement")


class AISettings(IdMixin, TimestampMixin, Base):
    """One row per user; write paths lock it, so index-addressed edits of providers never interleave."""

    __tablename__ = "ai_settings"

    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"),
                                         nullable=False, unique=True)
    auto_fix_generated: Mapped[bool] = mapped_column(Boolean, default=True, nullable=False)
    auto_generate_on_save: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)


class AIProvider(IdMixin, TimestampMixin, Base):
    """A provider entry; its API key is stored encrypted, with a mask computed from the plaintext."""

    __tablename__ = "ai_providers"
    __table_args__ = (Index("ix_ai_providers_user_id_position", "user_id", "position"),)

    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    position: Mapped[int] = mapped_column(Integer, nullable=False)
    provider: Mapped[str] = mapped_column(String(32), nullable=False)
    api_key_encrypted: Mapped[str] = mapped_column(Text, nullable=False)
    api_key_mask: Mapped[str] = mapped_column(String(32), default="", nullable=False)
    model: Mapped[str] = mapped_column(String(200), nullable=False)
    base_url: Mapped[str | None] = mapped_column(String(500))
    display_name: Mapped[str | None] = mapped_column(String(100))
    parameters: Mapped[dict] = mapped_column(JSON, default=dict, nullable=False)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True, nullable=False)
    is_default: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)


class PromptHistory(IdMixin, Base):
    """A prompt a user sent to the AI, kept once per normalized text (and diagram) and bumped on reuse."""

    __tablename__ = "prompt_history"
    __table_args__ = (
        Index("ix_prompt_history_user_id_used_at", "user_id", "used_at"),
        Index("ix_prompt_history_user_id_prompt_hash", "user_id", "prompt_hash"),
        Index("ix_prompt_history_diagram_id_used_at", "diagram_id", "used_at"),
    )

    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    # The prompt outlives its diagram: deleting the diagram only detaches it.
    diagram_id: Mapped[str | None] = mapped_column(String(36), ForeignKey("diagrams.id", ondelete="SET NULL"))
    prompt_text: Mapped[str] = mapped_column(Text, nullable=False)
    prompt_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    operation_type: Mapped[str] = mapped_column(String(16), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
    used_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
