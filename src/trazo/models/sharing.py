"""Shared links with their access log."""
from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, String, text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, IdMixin, TimestampMixin, UTCDateTime, utcnow

ACCESS_PUBLIC = "public"
ACCESS_PROTECTED = "protected"
ACCESS_RESULTS = ("success", "expired", "invalid_code", "blocked", "not_found")


class SharedLink(IdMixin, TimestampMixin, Base):
    """A diagram's public address. Revoked links stay as history; at most one per diagram is active."""

    __tablename__ = "shared_links"
    __table_args__ = (
        Index("uq_shared_links_active_diagram_id", "diagram_id", unique=True,
              sqlite_where=text("is_active"), postgresql_where=text("is_active")),
    )

    diagram_id: Mapped[str] = mapped_column(String(36), ForeignKey("diagrams.id", ondelete="CASCADE"),
                                            nullable=False, index=True)
    # Who made it; the link stays when they leave the workspace or delete their account.
    user_id: Mapped[str | None] = mapped_column(String(36), ForeignKey("users.id", ondelete="SET NULL"), index=True)
    token: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    access_type: Mapped[str] = mapped_column(String(16), default=ACCESS_PUBLIC, nullable=False)
    access_code_hash: Mapped[str | None] = mapped_column(String(255))
    allow_copy_code: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    is_active: Mapped[bool] = mapped_column(Boolean, default=True, nullable=False)

    @property
    def is_protected(self):
        return self.access_type == ACCESS_PROTECTED

    @property
    def is_expired(self):
        return self.expires_at is not None and self.expires_at <= utcnow()


class AccessLog(IdMixin, Base):
    """One visit of a shared link by token; the address is kept only as a keyed hash."""

    __tablename__ = "shared_link_access_logs"

    link_id: Mapped[str | None] = mapped_column(String(36), ForeignKey("shared_links.id", ondelete="CASCADE"),
                                                index=True)
    ip_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    result: Mapped[str] = mapped_column(String(16), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False, index=True)
