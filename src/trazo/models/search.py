"""The search index (docs/search.md): one row per diagram, written by the database itself whenever a diagram
or a comment is (triggers, models/search_ddl.py), in the transaction of that write.

The row copies its diagram's project and type (what a search filters on before reading any diagram). On
PostgreSQL it holds tsvectors too: the title's (weight A, to rank title hits first), the comments' (D) and
the whole document (title A, description B, content C, comments D) under a GIN index. On SQLite
the vectors stay empty: the row's `id` is the rowid of the diagram's entry in the FTS5 table `search_fts`
(an INTEGER PRIMARY KEY keeps it through VACUUM).
"""
from sqlalchemy import ForeignKey, Index, Integer, String, Text, event
from sqlalchemy.dialects.postgresql import TSVECTOR
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base
from .search_ddl import install, uninstall

VECTOR = TSVECTOR().with_variant(Text(), "sqlite")


class SearchDocument(Base):
    __tablename__ = "search_documents"
    __table_args__ = (
        Index("ix_search_documents_document", "document", postgresql_using="gin").ddl_if(dialect="postgresql"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    diagram_id: Mapped[str] = mapped_column(String(36), ForeignKey("diagrams.id", ondelete="CASCADE"),
                                            unique=True, nullable=False)
    # The diagram's, kept by the triggers: a search filters on them without reading the diagrams.
    project_id: Mapped[str] = mapped_column(String(36), nullable=False)
    diagram_type: Mapped[str] = mapped_column(String(32), nullable=False)
    title_vector = mapped_column(VECTOR)
    comments_vector = mapped_column(VECTOR)
    document = mapped_column(VECTOR)


@event.listens_for(Base.metadata, "after_create")
def _install(_metadata, connection, **_kwargs):
    """create_all (the tests' schema) gets the triggers and FTS table migration 0015 makes."""
    install(connection)


@event.listens_for(Base.metadata, "before_drop")
def _uninstall(_metadata, connection, **_kwargs):
    uninstall(connection)
