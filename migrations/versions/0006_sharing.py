"""sharing: shared links, their access log, prompt history

Revision ID: 0006
Revises: 0005
"""
from alembic import op
import sqlalchemy as sa

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('shared_links',
    sa.Column('diagram_id', sa.String(length=36), nullable=False),
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('token', sa.String(length=64), nullable=False),
    sa.Column('access_type', sa.String(length=16), nullable=False),
    sa.Column('access_code_hash', sa.String(length=255), nullable=True),
    sa.Column('allow_copy_code', sa.Boolean(), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('is_active', sa.Boolean(), nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['diagram_id'], ['diagrams.id'], name=op.f('fk_shared_links_diagram_id_diagrams'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_shared_links_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_shared_links')),
    sa.UniqueConstraint('token', name=op.f('uq_shared_links_token'))
    )
    op.create_index(op.f('ix_shared_links_diagram_id'), 'shared_links', ['diagram_id'], unique=False)
    op.create_index(op.f('ix_shared_links_user_id'), 'shared_links', ['user_id'], unique=False)
    op.create_index('uq_shared_links_active_diagram_id', 'shared_links', ['diagram_id'], unique=True,
                    sqlite_where=sa.text('is_active'), postgresql_where=sa.text('is_active'))

    op.create_table('shared_link_access_logs',
    sa.Column('link_id', sa.String(length=36), nullable=True),
    sa.Column('ip_hash', sa.String(length=64), nullable=False),
    sa.Column('result', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.ForeignKeyConstraint(['link_id'], ['shared_links.id'], name=op.f('fk_shared_link_access_logs_link_id_shared_links'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_shared_link_access_logs'))
    )
    op.create_index(op.f('ix_shared_link_access_logs_created_at'), 'shared_link_access_logs', ['created_at'], unique=False)
    op.create_index(op.f('ix_shared_link_access_logs_link_id'), 'shared_link_access_logs', ['link_id'], unique=False)

    op.create_table('prompt_history',
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('diagram_id', sa.String(length=36), nullable=True),
    sa.Column('prompt_text', sa.Text(), nullable=False),
    sa.Column('prompt_hash', sa.String(length=64), nullable=False),
    sa.Column('operation_type', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('used_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.ForeignKeyConstraint(['diagram_id'], ['diagrams.id'], name=op.f('fk_prompt_history_diagram_id_diagrams'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_prompt_history_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_prompt_history'))
    )
    op.create_index('ix_prompt_history_diagram_id_used_at', 'prompt_history', ['diagram_id', 'used_at'], unique=False)
    op.create_index('ix_prompt_history_user_id_prompt_hash', 'prompt_history', ['user_id', 'prompt_hash'], unique=False)
    op.create_index('ix_prompt_history_user_id_used_at', 'prompt_history', ['user_id', 'used_at'], unique=False)


def downgrade():
    op.drop_index('ix_prompt_history_user_id_used_at', table_name='prompt_history')
    op.drop_index('ix_prompt_history_user_id_prompt_hash', table_name='prompt_history')
    op.drop_index('ix_prompt_history_diagram_id_used_at', table_name='prompt_history')
    op.drop_table('prompt_history')
    op.drop_index(op.f('ix_shared_link_access_logs_link_id'), table_name='shared_link_access_logs')
    op.drop_index(op.f('ix_shared_link_access_logs_created_at'), table_name='shared_link_access_logs')
    op.drop_table('shared_link_access_logs')
    op.drop_index('uq_shared_links_active_diagram_id', table_name='shared_links',
                  sqlite_where=sa.text('is_active'), postgresql_where=sa.text('is_active'))
    op.drop_index(op.f('ix_shared_links_user_id'), table_name='shared_links')
    op.drop_index(op.f('ix_shared_links_diagram_id'), table_name='shared_links')
    op.drop_table('shared_links')
