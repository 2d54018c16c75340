"""User accounts and the installation's one-time claims."""
from datetime import datetime

from sqlalchemy import JSON, Boolean, String, Text, true
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, IdMixin, TimestampMixin, UTCDateTime

ROLE_ADMIN = "admin"
ROLE_USER = "user"


class User(IdMixin, TimestampMixin, Base):
    __tablename__ = "users"

    email: Mapped[str] = mapped_column(String(320), unique=True, nullable=False)
    password_hash: Mapped[str | None] = mapped_column(String(255))
    has_usable_password: Mapped[bool] = mapped_column(Boolean, default=True, nullable=False)
    full_name: Mapped[str | None] = mapped_column(String(200))
    # Up to 3 MiB of base64: loaded only when read, not with every token check.
    profile_picture: Mapped[str | None] = mapped_column(Text, deferred=True)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC", nullable=False)
    role: Mapped[str] = mapped_column(String(16), default=ROLE_USER, nullable=False)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True, nullable=False)
    last_login_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    password_changed_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    reset_token_hash: Mapped[str | None] = mapped_column(String(128))
    reset_token_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # Multi-factor authentication summary; the secrets live in the MFA area's own table.
    mfa_enabled: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    mfa_methods: Mapped[list] = mapped_column(JSON, default=list, nullable=False)
    mfa_default_method: Mapped[str | None] = mapped_column(String(16))
    # E-mails about comments (PUT /users/me/notifications; docs/comments.md).
    notify_comment_mentions: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true(), nullable=False)
    # The language of the account's last request that negotiated one (e-mails it did not ask for use it).
    language: Mapped[str | None] = mapped_column(String(8))
    notify_comment_replies: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true(), nullable=False)

    @property
    def is_admin(self):
        return self.role == ROLE_ADMIN


class InstallationClaim(Base):
    """One row per one-time event of the installation; the primary key makes the claim race-safe."""

    __tablename__ = "installation_claims"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(255), nullable=False)
    claimed_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
