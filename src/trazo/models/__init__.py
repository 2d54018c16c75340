"""Every model, imported in one place for Alembic autogenerate and the shell."""
from . import ai, billing, chat, comments, content, history, oauth_server, outbox, search, security, sharing, workspaces  # noqa: F401  (each module registers its tables)
from .base import Base
from .user import InstallationClaim, User

__all__ = ["Base", "InstallationClaim", "User"]
