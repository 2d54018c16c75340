"""Comments on diagrams, anchored to the whole diagram, to source lines or to an element (docs/comments.md).

A root comment (parent_id null) opens a thread; replies point at it and go with it. A lines anchor keeps the
range as made (start_line, end_line, the revision number it was made on and the quoted lines) and where it
stands now (current_start_line, current_end_line), moved by every save of the diagram; `outdated` is set when
the anchored lines change or vanish, or an element anchor's element is gone.
"""
from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column, validates

from .base import Base, IdMixin, TimestampMixin, UTCDateTime
from .content import utf8_size

ANCHOR_DIAGRAM, ANCHOR_LINES, ANCHOR_ELEMENT = "diagram", "lines", "element"
BODY_MAX = 10_000


class Comment(IdMixin, TimestampMixin, Base):
    __tablename__ = "comments"
    __table_args__ = (Index("ix_comments_diagram_id_parent_id_created_at", "diagram_id", "parent_id", "created_at"),)

    diagram_id: Mapped[str] = mapped_column(String(36), ForeignKey("diagrams.id", ondelete="CASCADE"),
                                            nullable=False)
    parent_id: Mapped[str | None] = mapped_column(String(36), ForeignKey("comments.id", ondelete="CASCADE"),
                                                  index=True)
    author_id: Mapped[str | None] = mapped_column(String(36), ForeignKey("users.id", ondelete="SET NULL"),
                                                  index=True)
    body: Mapped[str] = mapped_column(Text, nullable=False)
    # UTF-8 bytes of the body, kept by the validator below for the storage quota.
    body_size: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    # {"type": diagram|lines|element, lines: start_line, end_line, revision, quote, current_start_line,
    #  current_end_line; element: element_id; both: outdated}
    anchor: Mapped[dict] = mapped_column(JSON, nullable=False)
    mentions: Mapped[list] = mapped_column(JSON, default=list, nullable=False)  # user ids
    resolved: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false(), nullable=False)
    resolved_by: Mapped[str | None] = mapped_column(String(36), ForeignKey("users.id", ondelete="SET NULL"))
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    @validates("body")
    def _measure(self, key, value):
        self.body_size = utf8_size(value)
        return value
