"""Every model, imported in one place for Alembic autogenerate and the shell."""
from . import (  # noqa: F401  (each module registers its tables)
    ai, billing, chat, comments, content, history, oauth_server, outbox, search, security, sharing, workspaces)
from .base import Base
from .user import InstallationClaim, User

__all__ = ["Base", "InstallationClaim", "User"]
