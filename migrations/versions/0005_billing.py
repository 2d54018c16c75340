"""billing area tables (filled in by the billing issue)

Revision ID: 0005
Revises: 0004
"""
from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
