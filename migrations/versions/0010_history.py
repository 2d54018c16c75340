"""history: diagram revisions, a version on diagrams, a revision limit on plans

Existing diagrams start at version 1 with no revisions: their current state is recorded as revision 1
by the first change that follows (core/history/revisions.py). The FREE plan gets the limit of
FREE_PLAN_MAX_REVISIONS_PER_DIAGRAM, as a FREE plan created from now on would; other plans stay
unlimited until an administrator sets one.

Revision ID: 0010
Revises: 0009
"""
from alembic import op
import sqlalchemy as sa
from flask import current_app

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('diagram_revisions',
    sa.Column('diagram_id', sa.String(length=36), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('diagram_type', sa.String(length=32), nullable=False),
    sa.Column('content', sa.LargeBinary(), nullable=False),
    sa.Column('content_size', sa.Integer(), nullable=False),
    sa.Column('stored_size', sa.Integer(), nullable=False),
    sa.Column('content_hash', sa.String(length=64), nullable=False),
    sa.Column('lines_added', sa.Integer(), nullable=False),
    sa.Column('lines_removed', sa.Integer(), nullable=False),
    sa.Column('author_id', sa.String(length=36), nullable=True),
    sa.Column('source', sa.String(length=16), nullable=False),
    sa.Column('label', sa.String(length=100), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.ForeignKeyConstraint(['author_id'], ['users.id'], name=op.f('fk_diagram_revisions_author_id_users'),
                            ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['diagram_id'], ['diagrams.id'], name=op.f('fk_diagram_revisions_diagram_id_diagrams'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_diagram_revisions')),
    sa.UniqueConstraint('diagram_id', 'number', name='uq_diagram_revisions_diagram_id_number')
    )
    op.create_index(op.f('ix_diagram_revisions_author_id'), 'diagram_revisions', ['author_id'], unique=False)
    # Plain ALTER TABLE (no batch copy, which would cascade-delete what hangs off diagrams on SQLite).
    op.add_column('diagrams', sa.Column('version', sa.Integer(), server_default='1', nullable=False))
    op.add_column('diagrams', sa.Column('history_size', sa.Integer(), server_default='0', nullable=False))
    op.add_column('plans', sa.Column('max_revisions_per_diagram', sa.Integer(), nullable=True))
    free_limit = current_app.config.get('FREE_PLAN_MAX_REVISIONS_PER_DIAGRAM', 50)
    if free_limit is not None and free_limit >= 0:
        op.execute(sa.text("UPDATE plans SET max_revisions_per_diagram = :limit WHERE code = 'FREE'")
                   .bindparams(limit=free_limit))


def downgrade():
    op.drop_column('plans', 'max_revisions_per_diagram')
    op.drop_column('diagrams', 'history_size')
    op.drop_column('diagrams', 'version')
    op.drop_index(op.f('ix_diagram_revisions_author_id'), table_name='diagram_revisions')
    op.drop_table('diagram_revisions')
