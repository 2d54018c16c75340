"""outbox: the e-mail outbox table; the request id on audit entries

Messages are written in the transaction of the action that sends them and delivered after the commit
(docs/operations.md, "E-mail outbox"). Audit entries keep the X-Request-ID of the request that made them.

Revision ID: 0009
Revises: 0008
"""
from alembic import op
import sqlalchemy as sa

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('outbox_messages',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('recipient', sa.String(length=320), nullable=False),
    sa.Column('subject', sa.String(length=255), nullable=False),
    sa.Column('text_body', sa.Text(), nullable=True),
    sa.Column('html_body', sa.Text(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('locked_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_error', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('sent_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_outbox_messages'))
    )
    op.create_index('ix_outbox_messages_status_next_attempt_at', 'outbox_messages', ['status', 'next_attempt_at'],
                    unique=False)
    # Plain ALTER TABLE (no batch copy): SQLite adds a nullable column in place.
    op.add_column('audit_log', sa.Column('request_id', sa.String(length=64), nullable=True))


def downgrade():
    op.drop_column('audit_log', 'request_id')
    op.drop_index('ix_outbox_messages_status_next_attempt_at', table_name='outbox_messages')
    op.drop_table('outbox_messages')
