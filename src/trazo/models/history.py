"""Diagram history: one row per recorded state of a diagram's title, type and content (docs/history.md).

The content is kept compressed (zlib); `stored_size` is what the row weighs toward the storage quota,
`content_size` the UTF-8 size of the text it decompresses to. The newest revision of a diagram always
holds the diagram's current title, type and content. Deleting a diagram deletes its history (cascade).
"""
from datetime import datetime

from sqlalchemy import ForeignKey, Integer, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, IdMixin, UTCDateTime, utcnow

# How a revision came to be.
SOURCE_CREATE = "create"
SOURCE_EDIT = "edit"
SOURCE_RESTORE = "restore"
SOURCE_IMPORT = "import"
SOURCE_DUPLICATE = "duplicate"
SOURCE_API = "api"
SOURCE_MCP = "mcp"
SOURCES = (SOURCE_CREATE, SOURCE_EDIT, SOURCE_RESTORE, SOURCE_IMPORT, SOURCE_DUPLICATE, SOURCE_API, SOURCE_MCP)
LABEL_MAX = 100


class DiagramRevision(IdMixin, Base):
    __tablename__ = "diagram_revisions"
    __table_args__ = (UniqueConstraint("diagram_id", "number", name="uq_diagram_revisions_diagram_id_number"),)

    diagram_id: Mapped[str] = mapped_column(String(36), ForeignKey("diagrams.id", ondelete="CASCADE"),
                                            nullable=False)
    number: Mapped[int] = mapped_column(Integer, nullable=False)
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    diagram_type: Mapped[str] = mapped_column(String(32), nullable=False)
    content: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    content_size: Mapped[int] = mapped_column(Integer, nullable=False)
    stored_size: Mapped[int] = mapped_column(Integer, nullable=False)
    content_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    lines_added: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    lines_removed: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    author_id: Mapped[str | None] = mapped_column(String(36), ForeignKey("users.id", ondelete="SET NULL"),
                                                  index=True)
    source: Mapped[str] = mapped_column(String(16), nullable=False)
    label: Mapped[str | None] = mapped_column(String(LABEL_MAX))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
