"""chat: sessions and messages

Revision ID: 0007
Revises: 0006
"""
from alembic import op
import sqlalchemy as sa

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('chat_sessions',
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('diagram_id', sa.String(length=36), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('parent_session_id', sa.String(length=36), nullable=True),
    sa.Column('summary', sa.Text(), nullable=True),
    sa.Column('last_provider', sa.String(length=32), nullable=True),
    sa.Column('last_model', sa.String(length=200), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['diagram_id'], ['diagrams.id'], name=op.f('fk_chat_sessions_diagram_id_diagrams'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['parent_session_id'], ['chat_sessions.id'], name=op.f('fk_chat_sessions_parent_session_id_chat_sessions'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_chat_sessions_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_chat_sessions'))
    )
    op.create_index(op.f('ix_chat_sessions_diagram_id'), 'chat_sessions', ['diagram_id'], unique=False)
    op.create_index(op.f('ix_chat_sessions_parent_session_id'), 'chat_sessions', ['parent_session_id'], unique=False)
    op.create_index('ix_chat_sessions_user_diagram_updated', 'chat_sessions', ['user_id', 'diagram_id', 'updated_at'], unique=False)

    op.create_table('chat_messages',
    sa.Column('session_id', sa.String(length=36), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('improved_code', sa.Text(), nullable=True),
    sa.Column('improvement_status', sa.String(length=16), nullable=True),
    sa.Column('provider_used', sa.String(length=32), nullable=True),
    sa.Column('model_used', sa.String(length=200), nullable=True),
    sa.Column('generation_time', sa.Float(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['chat_sessions.id'], name=op.f('fk_chat_messages_session_id_chat_sessions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_chat_messages'))
    )
    op.create_index('ix_chat_messages_session_created', 'chat_messages', ['session_id', 'created_at'], unique=False)


def downgrade():
    op.drop_index('ix_chat_messages_session_created', table_name='chat_messages')
    op.drop_table('chat_messages')
    op.drop_index('ix_chat_sessions_user_diagram_updated', table_name='chat_sessions')
    op.drop_index(op.f('ix_chat_sessions_parent_session_id'), table_name='chat_sessions')
    op.drop_index(op.f('ix_chat_sessions_diagram_id'), table_name='chat_sessions')
    op.drop_table('chat_sessions')
