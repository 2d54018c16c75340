"""Workspaces own projects; people reach them through memberships with a role (docs/teams.md).

Every user has one personal workspace (kind "personal", no other member); team workspaces have members,
at least one owner, and a billing owner whose plan sets their limits. Invitations (by e-mail) and
invite links (by a shared address) bring people in. The workspace's own event log records membership,
role, invitation, transfer and deletion events.
"""
from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, IdMixin, TimestampMixin, UTCDateTime, utcnow

PERSONAL, TEAM = "personal", "team"
KINDS = (PERSONAL, TEAM)

VIEWER, COMMENTER, EDITOR, ADMIN, OWNER = "viewer", "commenter", "editor", "admin", "owner"
ROLES = (VIEWER, COMMENTER, EDITOR, ADMIN, OWNER)  # each includes the ones before it
RANK = {role: rank for rank, role in enumerate(ROLES, start=1)}


class Workspace(IdMixin, TimestampMixin, Base):
    __tablename__ = "workspaces"

    name: Mapped[str] = mapped_column(String(200), nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    # Whose plan limits the workspace (its creator until an owner hands it to another owner). Account
    # deletion hands it over or deletes the workspace first; SET NULL is the safety net.
    billing_owner_id: Mapped[str | None] = mapped_column(String(36), ForeignKey("users.id", ondelete="SET NULL"),
                                                         index=True)


class Membership(Base):
    __tablename__ = "workspace_members"

    workspace_id: Mapped[str] = mapped_column(String(36), ForeignKey("workspaces.id", ondelete="CASCADE"),
                                              primary_key=True)
    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"),
                                         primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)


class Invitation(IdMixin, Base):
    """An invitation by e-mail; only a digest of its token is kept. Accepted or revoked ones are deleted."""

    __tablename__ = "workspace_invitations"
    __table_args__ = (Index("uq_workspace_invitations_workspace_id_email", "workspace_id", "email", unique=True),)

    workspace_id: Mapped[str] = mapped_column(String(36), ForeignKey("workspaces.id", ondelete="CASCADE"),
                                              nullable=False)
    email: Mapped[str] = mapped_column(String(320), nullable=False)  # lower case
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    token_digest: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    invited_by: Mapped[str | None] = mapped_column(String(36), ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)


class InviteLink(IdMixin, Base):
    """A join link for roles up to editor, with an expiry and a number of uses; only a digest is kept."""

    __tablename__ = "workspace_invite_links"

    workspace_id: Mapped[str] = mapped_column(String(36), ForeignKey("workspaces.id", ondelete="CASCADE"),
                                              nullable=False, index=True)
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    token_digest: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    created_by: Mapped[str | None] = mapped_column(String(36), ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    max_uses: Mapped[int | None] = mapped_column(Integer)
    uses: Mapped[int] = mapped_column(Integer, default=0, server_default="0", nullable=False)


class WorkspaceEvent(IdMixin, Base):
    """The workspace's audit log (GET /workspaces/{id}/audit-log), written in the change's transaction."""

    __tablename__ = "workspace_events"
    __table_args__ = (Index("ix_workspace_events_workspace_id_created_at", "workspace_id", "created_at"),)

    workspace_id: Mapped[str] = mapped_column(String(36), ForeignKey("workspaces.id", ondelete="CASCADE"),
                                              nullable=False)
    actor_id: Mapped[str | None] = mapped_column(String(36), ForeignKey("users.id", ondelete="SET NULL"))
    event: Mapped[str] = mapped_column(String(48), nullable=False)
    details: Mapped[dict | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
