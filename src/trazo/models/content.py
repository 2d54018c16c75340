"""Projects, the folders inside them and their diagrams.

A project belongs to a workspace (models/workspaces.py), and a folder or a diagram to its project: who may
read or change them is decided by the caller's role in that workspace (core/content/access.py). Deleting a
workspace or a project removes everything below it through database cascades.
"""
from datetime import datetime

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, validates

from .base import Base, IdMixin, TimestampMixin, UTCDateTime, utcnow

DEFAULT_PROJECT_EMOJI = "📊"
DEFAULT_FOLDER_COLOR = "#3B82F6"
DEFAULT_DIAGRAM_TYPE = "flowchart"


def utf8_size(text):
    """Bytes of `text` in UTF-8, the unit of the content caps and of the storage quota."""
    return len((text or "").encode("utf-8", "surrogatepass"))


def default_diagram_config():
    return {"background_color": "#ffffff", "background_pattern": "plain"}


def default_user_preferences():
    return {"description_pinned": False, "description_font_size": None, "description_panel_width": None,
            "chat_panel_width": None, "preferred_provider": None, "preferred_model": None}


class Project(IdMixin, TimestampMixin, Base):
    __tablename__ = "projects"
    __table_args__ = (Index("ix_projects_workspace_id_created_at", "workspace_id", "created_at"),)

    workspace_id: Mapped[str] = mapped_column(String(36), ForeignKey("workspaces.id", ondelete="CASCADE"),
                                              nullable=False)
    # Who created it; the project stays when they leave or delete their account.
    user_id: Mapped[str | None] = mapped_column(String(36), ForeignKey("users.id", ondelete="SET NULL"),
                                                index=True)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    emoji: Mapped[str] = mapped_column(String(32), default=DEFAULT_PROJECT_EMOJI, nullable=False)


class Folder(IdMixin, TimestampMixin, Base):
    __tablename__ = "folders"

    project_id: Mapped[str] = mapped_column(String(36), ForeignKey("projects.id", ondelete="CASCADE"),
                                            nullable=False, index=True)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    color: Mapped[str] = mapped_column(String(32), default=DEFAULT_FOLDER_COLOR, nullable=False)


class Diagram(IdMixin, TimestampMixin, Base):
    __tablename__ = "diagrams"
    __table_args__ = (Index("ix_diagrams_project_id_updated_at", "project_id", "updated_at"),)

    project_id: Mapped[str] = mapped_column(String(36), ForeignKey("projects.id", ondelete="CASCADE"),
                                            nullable=False)
    # Folder deletion moves or deletes the diagrams itself; SET NULL is the safety net.
    folder_id: Mapped[str | None] = mapped_column(String(36), ForeignKey("folders.id", ondelete="SET NULL"),
                                                  index=True)
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    content: Mapped[str] = mapped_column(Text, default="", nullable=False)
    description: Mapped[str | None] = mapped_column(Text, default="")
    diagram_type: Mapped[str] = mapped_column(String(32), default=DEFAULT_DIAGRAM_TYPE, nullable=False)
    config: Mapped[dict] = mapped_column(JSON, default=default_diagram_config, nullable=False)
    user_preferences: Mapped[dict] = mapped_column(JSON, default=default_user_preferences, nullable=False)
    viewport_zoom: Mapped[float] = mapped_column(Float, default=1.0, nullable=False)
    viewport_x: Mapped[float] = mapped_column(Float, default=0.0, nullable=False)
    viewport_y: Mapped[float] = mapped_column(Float, default=0.0, nullable=False)
    # Kept by the validator below, so quotas and export sizes are summed in SQL without reading the texts.
    content_size: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    description_size: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    # Bumped by every save that changes more than the presentation (the ETag; docs/history.md). Every
    # UPDATE of a loaded row names the version it read (the mapper argument below): a save that another
    # one overtook fails with StaleDataError instead of overwriting it (core/history/revisions.py, retrying).
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1", nullable=False)
    # Stored (compressed) bytes of the diagram's revisions, kept by core/history/revisions.py for the storage quota.
    history_size: Mapped[int] = mapped_column(Integer, default=0, server_default="0", nullable=False)
    # Set by the services: presentation-only saves (viewport, preferences) keep the old value.
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)

    __mapper_args__ = {"version_id_col": version, "version_id_generator": False}

    @validates("content", "description")
    def _measure(self, key, value):
        setattr(self, f"{key}_size", utf8_size(value))
        return value
