"""Trazo as an OAuth 2.1 authorization server for its MCP endpoint (docs/oauth-server.md): the clients that may
ask, the grants users gave them (a connected app: one family of tokens), the one-use authorization codes and the
tokens. Codes and tokens are kept as SHA-256 digests only."""
from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, IdMixin, UTCDateTime, utcnow


class OAuth2Client(IdMixin, Base):
    """A client: registered dynamically (RFC 7591) or described by its Client ID Metadata Document (the client_id
    is then the document's https URL, `metadata_document`, refreshed once its copy is older than the cache time)."""

    __tablename__ = "oauth2_clients"

    client_id: Mapped[str] = mapped_column(String(2048), nullable=False, unique=True)
    client_name: Mapped[str] = mapped_column(String(200), nullable=False)
    client_uri: Mapped[str | None] = mapped_column(String(2048))
    redirect_uris: Mapped[list] = mapped_column(JSON, nullable=False)
    metadata_document: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    registered_address: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
    fetched_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class OAuth2Grant(IdMixin, Base):
    """What a user allowed a client (a connected app): its scope for one resource. Every token issued under it is
    of its family; revoking it (disconnect, a reused code or refresh token, a password change) ends them all."""

    __tablename__ = "oauth2_grants"

    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"), nullable=False,
                                         index=True)
    client_id: Mapped[str] = mapped_column(String(36), ForeignKey("oauth2_clients.id", ondelete="CASCADE"),
                                           nullable=False, index=True)
    scope: Mapped[str] = mapped_column(String(64), nullable=False)
    resource: Mapped[str] = mapped_column(String(2048), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class OAuth2Code(IdMixin, Base):
    """An authorization code: single use, short-lived, bound to its client, redirect URI, PKCE challenge and
    resource. A used code stays (used_at) so that its reuse revokes the grant."""

    __tablename__ = "oauth2_codes"

    code_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    grant_id: Mapped[str] = mapped_column(String(36), ForeignKey("oauth2_grants.id", ondelete="CASCADE"),
                                          nullable=False, index=True)
    redirect_uri: Mapped[str] = mapped_column(Text, nullable=False)
    scope: Mapped[str] = mapped_column(String(64), nullable=False)
    code_challenge: Mapped[str] = mapped_column(String(128), nullable=False)
    code_challenge_method: Mapped[str] = mapped_column(String(16), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class OAuth2Token(IdMixin, Base):
    """An access token and its refresh token (digests). A refresh token is used once: the next pair replaces it
    (rotated_at); presenting it again revokes the grant."""

    __tablename__ = "oauth2_tokens"

    grant_id: Mapped[str] = mapped_column(String(36), ForeignKey("oauth2_grants.id", ondelete="CASCADE"),
                                          nullable=False, index=True)
    access_token_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    refresh_token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    scope: Mapped[str] = mapped_column(String(64), nullable=False)
    issued_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
    access_expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    refresh_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    rotated_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
