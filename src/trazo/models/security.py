"""MFA secrets, OAuth identities and states, integration vendors, audit log, personal access tokens."""
from datetime import datetime

from sqlalchemy import JSON, BigInteger, Boolean, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, IdMixin, TimestampMixin, UTCDateTime, utcnow


class MfaSecret(TimestampMixin, Base):
    """A user's second-factor secrets, one row per user (the summary lives on the user)."""

    __tablename__ = "mfa_secrets"

    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    # Fernet tokens; the pending secret becomes the active one only when a code confirms it.
    totp_secret: Mapped[str | None] = mapped_column(Text)
    totp_pending_secret: Mapped[str | None] = mapped_column(Text)
    # The last accepted TOTP time step: a code of this step or an older one is a replay.
    totp_last_step: Mapped[int | None] = mapped_column(BigInteger)
    email_code_hash: Mapped[str | None] = mapped_column(String(64))
    # "activation", or the login id (`lid`) the code was sent for: a code only works there.
    email_code_purpose: Mapped[str | None] = mapped_column(String(64))
    email_code_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class RecoveryCode(IdMixin, Base):
    __tablename__ = "mfa_recovery_codes"
    __table_args__ = (Index("ix_mfa_recovery_codes_user_id_code_hash", "user_id", "code_hash"),)

    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    code_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)


class OAuthIdentity(IdMixin, Base):
    """An account at an OAuth provider, linked to one of our users."""

    __tablename__ = "oauth_identities"
    __table_args__ = (UniqueConstraint("provider", "provider_user_id"),)

    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"), nullable=False,
                                         index=True)
    provider: Mapped[str] = mapped_column(String(32), nullable=False)
    provider_user_id: Mapped[str] = mapped_column(String(255), nullable=False)
    email: Mapped[str | None] = mapped_column(String(320))
    linked_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)


class OAuthState(Base):
    """One authorization request in flight: single use, bound to its provider, short-lived."""

    __tablename__ = "oauth_states"

    state: Mapped[str] = mapped_column(String(128), primary_key=True)
    provider: Mapped[str] = mapped_column(String(32), nullable=False)
    code_verifier: Mapped[str] = mapped_column(String(128), nullable=False)
    nonce: Mapped[str | None] = mapped_column(String(64))
    redirect_uri: Mapped[str] = mapped_column(String(2048), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, index=True)


class IntegrationVendor(IdMixin, TimestampMixin, Base):
    """An outside service configured by an administrator (e-mail, payment or OAuth)."""

    __tablename__ = "integration_vendors"

    vendor_type: Mapped[str] = mapped_column(String(32), nullable=False)
    category: Mapped[str] = mapped_column(String(16), nullable=False, index=True)
    display_name: Mapped[str] = mapped_column(String(200), nullable=False)
    encrypted_config: Mapped[str] = mapped_column(Text, nullable=False)
    # The slot this vendor is the default of ("email", "payment", "oauth:google"), else NULL;
    # the unique constraint keeps one default per slot even under concurrent requests.
    default_slot: Mapped[str | None] = mapped_column(String(64), unique=True)
    connection_tested: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    last_test_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_test_success: Mapped[bool | None] = mapped_column(Boolean)
    created_by: Mapped[str | None] = mapped_column(String(36), ForeignKey("users.id", ondelete="SET NULL"))


class AuditEntry(IdMixin, Base):
    """A security event. `user_id` has no foreign key on purpose: the record outlives the account."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_event_created_at", "event", "created_at"),
                      Index("ix_audit_log_user_id_created_at", "user_id", "created_at"))

    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False, index=True)
    event: Mapped[str] = mapped_column(String(64), nullable=False)
    user_id: Mapped[str | None] = mapped_column(String(36))
    email: Mapped[str | None] = mapped_column(String(320), index=True)
    ip_address: Mapped[str | None] = mapped_column(String(64))
    details: Mapped[dict | None] = mapped_column(JSON)
    # The X-Request-ID of the request that wrote the entry: the same id is on its log lines.
    request_id: Mapped[str | None] = mapped_column(String(64))


class PersonalAccessToken(IdMixin, Base):
    """A credential for scripts, CI jobs and editor plugins (docs/automation.md): only the SHA-256 of the
    token is kept; `prefix` is what the owner sees to tell tokens apart."""

    __tablename__ = "personal_access_tokens"

    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"), nullable=False,
                                         index=True)
    name: Mapped[str] = mapped_column(String(100), nullable=False)
    token_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    prefix: Mapped[str] = mapped_column(String(16), nullable=False)
    scopes: Mapped[str] = mapped_column(String(32), nullable=False)  # "read" or "read write"
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_used_address: Mapped[str | None] = mapped_column(String(64))
    seen_addresses: Mapped[list] = mapped_column(JSON, default=list, nullable=False)  # the last few
