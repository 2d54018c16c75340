"""storage: byte sizes kept on diagrams, a storage quota on plans

The sizes of the diagrams already stored are measured here (UTF-8 bytes). The FREE plan gets the
quota of FREE_PLAN_MAX_STORAGE_MB, as a FREE plan created from now on would; other plans stay
unlimited until an administrator sets one.

Revision ID: 0008
Revises: 0007
"""
from alembic import op
import sqlalchemy as sa
from flask import current_app

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def _byte_length(column, dialect):
    if dialect == 'postgresql':
        return f"octet_length(COALESCE({column}, ''))"
    return f"length(CAST(COALESCE({column}, '') AS BLOB))"


def upgrade():
    op.add_column('diagrams', sa.Column('content_size', sa.Integer(), nullable=False, server_default='0'))
    op.add_column('diagrams', sa.Column('description_size', sa.Integer(), nullable=False, server_default='0'))
    op.add_column('plans', sa.Column('max_storage_mb', sa.Integer(), nullable=True))

    dialect = op.get_bind().dialect.name
    op.execute(f"UPDATE diagrams SET content_size = {_byte_length('content', dialect)}, "
               f"description_size = {_byte_length('description', dialect)}")
    free_quota = current_app.config.get('FREE_PLAN_MAX_STORAGE_MB', 100)
    if free_quota is not None and free_quota >= 0:
        op.execute(sa.text("UPDATE plans SET max_storage_mb = :quota WHERE code = 'FREE'")
                   .bindparams(quota=free_quota))


def downgrade():
    # Plain ALTER TABLE (SQLite 3.35+): a batch copy of diagrams would drop the table and, with foreign
    # keys on, cascade-delete its chat sessions and shared links.
    op.drop_column('plans', 'max_storage_mb')
    op.drop_column('diagrams', 'description_size')
    op.drop_column('diagrams', 'content_size')
