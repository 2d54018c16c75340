"""sharing area tables (filled in by the sharing work)

Revision ID: 0006
Revises: 0005
"""
from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
