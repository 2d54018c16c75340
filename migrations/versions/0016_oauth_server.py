"""oauth server: clients, grants (connected apps), authorization codes and tokens, kept as digests

Revision ID: 0016_oauth
Revises: 0014
"""
from alembic import op
import sqlalchemy as sa

revision = '0016_oauth'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('oauth2_clients',
    sa.Column('client_id', sa.String(length=2048), nullable=False),
    sa.Column('client_name', sa.String(length=200), nullable=False),
    sa.Column('client_uri', sa.String(length=2048), nullable=True),
    sa.Column('redirect_uris', sa.JSON(), nullable=False),
    sa.Column('metadata_document', sa.Boolean(), nullable=False),
    sa.Column('registered_address', sa.String(length=64), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('fetched_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_oauth2_clients')),
    sa.UniqueConstraint('client_id', name=op.f('uq_oauth2_clients_client_id'))
    )
    op.create_table('oauth2_grants',
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('client_id', sa.String(length=36), nullable=False),
    sa.Column('scope', sa.String(length=64), nullable=False),
    sa.Column('resource', sa.String(length=2048), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.ForeignKeyConstraint(['client_id'], ['oauth2_clients.id'], name=op.f('fk_oauth2_grants_client_id_oauth2_clients'),
                            ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_oauth2_grants_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_oauth2_grants'))
    )
    op.create_index(op.f('ix_oauth2_grants_client_id'), 'oauth2_grants', ['client_id'], unique=False)
    op.create_index(op.f('ix_oauth2_grants_user_id'), 'oauth2_grants', ['user_id'], unique=False)
    op.create_table('oauth2_codes',
    sa.Column('code_hash', sa.String(length=64), nullable=False),
    sa.Column('grant_id', sa.String(length=36), nullable=False),
    sa.Column('redirect_uri', sa.Text(), nullable=False),
    sa.Column('scope', sa.String(length=64), nullable=False),
    sa.Column('code_challenge', sa.String(length=128), nullable=False),
    sa.Column('code_challenge_method', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.ForeignKeyConstraint(['grant_id'], ['oauth2_grants.id'], name=op.f('fk_oauth2_codes_grant_id_oauth2_grants'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_oauth2_codes')),
    sa.UniqueConstraint('code_hash', name=op.f('uq_oauth2_codes_code_hash'))
    )
    op.create_index(op.f('ix_oauth2_codes_grant_id'), 'oauth2_codes', ['grant_id'], unique=False)
    op.create_table('oauth2_tokens',
    sa.Column('grant_id', sa.String(length=36), nullable=False),
    sa.Column('access_token_hash', sa.String(length=64), nullable=False),
    sa.Column('refresh_token_hash', sa.String(length=64), nullable=True),
    sa.Column('scope', sa.String(length=64), nullable=False),
    sa.Column('issued_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('access_expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('refresh_expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('rotated_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.ForeignKeyConstraint(['grant_id'], ['oauth2_grants.id'], name=op.f('fk_oauth2_tokens_grant_id_oauth2_grants'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_oauth2_tokens')),
    sa.UniqueConstraint('access_token_hash', name=op.f('uq_oauth2_tokens_access_token_hash')),
    sa.UniqueConstraint('refresh_token_hash', name=op.f('uq_oauth2_tokens_refresh_token_hash'))
    )
    op.create_index(op.f('ix_oauth2_tokens_grant_id'), 'oauth2_tokens', ['grant_id'], unique=False)


def downgrade():
    op.drop_index(op.f('ix_oauth2_tokens_grant_id'), table_name='oauth2_tokens')
    op.drop_table('oauth2_tokens')
    op.drop_index(op.f('ix_oauth2_codes_grant_id'), table_name='oauth2_codes')
    op.drop_table('oauth2_codes')
    op.drop_index(op.f('ix_oauth2_grants_user_id'), table_name='oauth2_grants')
    op.drop_index(op.f('ix_oauth2_grants_client_id'), table_name='oauth2_grants')
    op.drop_table('oauth2_grants')
    op.drop_table('oauth2_clients')
