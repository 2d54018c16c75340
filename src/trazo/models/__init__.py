"""Every model, imported in one place for Alembic autogenerate and the shell."""
from .base import Base
from .user import InstallationClaim, User

__all__ = ["Base", "InstallationClaim", "User"]
