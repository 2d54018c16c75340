"""workspaces: projects belong to workspaces that people reach through memberships with a role

Every existing user gets a personal workspace (they are its owner and billing owner) and their projects
move into it, so everything stays reachable as before. A project's and a shared link's user_id become
who created them (SET NULL when that account goes). Plans gain max_members (FREE from
FREE_PLAN_MAX_MEMBERS, unlimited when unset). docs/teams.md.

Revision ID: 0013
Revises: 0012
"""
import uuid
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op
from flask import current_app

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

PERSONAL_NAME = 'Personal'


def upgrade():
    op.create_table('workspaces',
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('billing_owner_id', sa.String(length=36), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['billing_owner_id'], ['users.id'], name=op.f('fk_workspaces_billing_owner_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_workspaces'))
    )
    op.create_index(op.f('ix_workspaces_billing_owner_id'), 'workspaces', ['billing_owner_id'], unique=False)
    op.create_table('workspace_members',
    sa.Column('workspace_id', sa.String(length=36), nullable=False),
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('joined_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_workspace_members_user_id_users'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['workspace_id'], ['workspaces.id'], name=op.f('fk_workspace_members_workspace_id_workspaces'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('workspace_id', 'user_id', name=op.f('pk_workspace_members'))
    )
    op.create_index(op.f('ix_workspace_members_user_id'), 'workspace_members', ['user_id'], unique=False)
    op.create_table('workspace_invitations',
    sa.Column('workspace_id', sa.String(length=36), nullable=False),
    sa.Column('email', sa.String(length=320), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('token_digest', sa.String(length=64), nullable=False),
    sa.Column('invited_by', sa.String(length=36), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.ForeignKeyConstraint(['invited_by'], ['users.id'], name=op.f('fk_workspace_invitations_invited_by_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['workspace_id'], ['workspaces.id'], name=op.f('fk_workspace_invitations_workspace_id_workspaces'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_workspace_invitations')),
    sa.UniqueConstraint('token_digest', name=op.f('uq_workspace_invitations_token_digest'))
    )
    op.create_index('uq_workspace_invitations_workspace_id_email', 'workspace_invitations', ['workspace_id', 'email'], unique=True)
    op.create_table('workspace_invite_links',
    sa.Column('workspace_id', sa.String(length=36), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('token_digest', sa.String(length=64), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('max_uses', sa.Integer(), nullable=True),
    sa.Column('uses', sa.Integer(), server_default='0', nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_workspace_invite_links_created_by_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['workspace_id'], ['workspaces.id'], name=op.f('fk_workspace_invite_links_workspace_id_workspaces'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_workspace_invite_links')),
    sa.UniqueConstraint('token_digest', name=op.f('uq_workspace_invite_links_token_digest'))
    )
    op.create_index(op.f('ix_workspace_invite_links_workspace_id'), 'workspace_invite_links', ['workspace_id'], unique=False)
    op.create_table('workspace_events',
    sa.Column('workspace_id', sa.String(length=36), nullable=False),
    sa.Column('actor_id', sa.String(length=36), nullable=True),
    sa.Column('event', sa.String(length=48), nullable=False),
    sa.Column('details', sa.JSON(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.ForeignKeyConstraint(['actor_id'], ['users.id'], name=op.f('fk_workspace_events_actor_id_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['workspace_id'], ['workspaces.id'], name=op.f('fk_workspace_events_workspace_id_workspaces'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_workspace_events'))
    )
    op.create_index('ix_workspace_events_workspace_id_created_at', 'workspace_events', ['workspace_id', 'created_at'], unique=False)

    _personal_workspaces()

    with op.batch_alter_table('projects') as batch:
        batch.add_column(sa.Column('workspace_id', sa.String(length=36), nullable=True))
    op.execute("UPDATE projects SET workspace_id = (SELECT w.id FROM workspaces w WHERE w.kind = 'personal'"
               " AND w.billing_owner_id = projects.user_id)")
    with op.batch_alter_table('projects') as batch:
        batch.alter_column('workspace_id', existing_type=sa.String(length=36), nullable=False)
        batch.create_foreign_key(op.f('fk_projects_workspace_id_workspaces'), 'workspaces', ['workspace_id'], ['id'],
                                 ondelete='CASCADE')
        batch.drop_index('ix_projects_user_id_created_at')
        batch.create_index('ix_projects_workspace_id_created_at', ['workspace_id', 'created_at'], unique=False)
        batch.create_index(op.f('ix_projects_user_id'), ['user_id'], unique=False)
        batch.drop_constraint('fk_projects_user_id_users', type_='foreignkey')
        batch.create_foreign_key(op.f('fk_projects_user_id_users'), 'users', ['user_id'], ['id'], ondelete='SET NULL')
        batch.alter_column('user_id', existing_type=sa.String(length=36), nullable=True)
    with op.batch_alter_table('shared_links') as batch:
        batch.drop_constraint('fk_shared_links_user_id_users', type_='foreignkey')
        batch.create_foreign_key(op.f('fk_shared_links_user_id_users'), 'users', ['user_id'], ['id'], ondelete='SET NULL')
        batch.alter_column('user_id', existing_type=sa.String(length=36), nullable=True)

    op.add_column('plans', sa.Column('max_members', sa.Integer(), nullable=True))
    free_members = current_app.config.get('FREE_PLAN_MAX_MEMBERS')
    if free_members is not None and free_members >= 0:
        op.execute(sa.text("UPDATE plans SET max_members = :cap WHERE code = 'FREE'").bindparams(cap=free_members))


def _personal_workspaces():
    """One personal workspace per user, its owner and billing owner (inserted in chunks)."""
    connection = op.get_bind()
    workspaces = sa.table('workspaces', sa.column('id'), sa.column('name'), sa.column('kind'),
                          sa.column('billing_owner_id'), sa.column('created_at', sa.DateTime(timezone=True)),
                          sa.column('updated_at', sa.DateTime(timezone=True)))
    members = sa.table('workspace_members', sa.column('workspace_id'), sa.column('user_id'), sa.column('role'),
                       sa.column('joined_at', sa.DateTime(timezone=True)))
    # Typed, so SQLite's stored text comes back as a datetime the typed insert below accepts.
    users = connection.execute(sa.text('SELECT id, created_at FROM users ORDER BY id')
                               .columns(id=sa.String(), created_at=sa.DateTime(timezone=True))).all()
    now = datetime.now(UTC)
    for start in range(0, len(users), 1000):
        chunk = [(str(uuid.uuid4()), user_id, created_at or now) for user_id, created_at in users[start:start + 1000]]
        op.bulk_insert(workspaces, [{'id': workspace_id, 'name': PERSONAL_NAME, 'kind': 'personal',
                                     'billing_owner_id': user_id, 'created_at': created, 'updated_at': created}
                                    for workspace_id, user_id, created in chunk])
        op.bulk_insert(members, [{'workspace_id': workspace_id, 'user_id': user_id, 'role': 'owner',
                                  'joined_at': created} for workspace_id, user_id, created in chunk])


def downgrade():
    op.drop_column('plans', 'max_members')
    # Team workspaces' projects go back to their creator, or are dropped when nobody created them any more.
    op.execute("UPDATE projects SET user_id = (SELECT w.billing_owner_id FROM workspaces w"
               " WHERE w.id = projects.workspace_id) WHERE user_id IS NULL")
    op.execute("DELETE FROM projects WHERE user_id IS NULL")
    op.execute("DELETE FROM shared_links WHERE user_id IS NULL")
    with op.batch_alter_table('shared_links') as batch:
        batch.drop_constraint('fk_shared_links_user_id_users', type_='foreignkey')
        batch.create_foreign_key(op.f('fk_shared_links_user_id_users'), 'users', ['user_id'], ['id'], ondelete='CASCADE')
        batch.alter_column('user_id', existing_type=sa.String(length=36), nullable=False)
    with op.batch_alter_table('projects') as batch:
        batch.drop_constraint('fk_projects_user_id_users', type_='foreignkey')
        batch.create_foreign_key(op.f('fk_projects_user_id_users'), 'users', ['user_id'], ['id'], ondelete='CASCADE')
        batch.alter_column('user_id', existing_type=sa.String(length=36), nullable=False)
        batch.drop_index(op.f('ix_projects_user_id'))
        batch.drop_index('ix_projects_workspace_id_created_at')
        batch.create_index('ix_projects_user_id_created_at', ['user_id', 'created_at'], unique=False)
        batch.drop_constraint('fk_projects_workspace_id_workspaces', type_='foreignkey')
        batch.drop_column('workspace_id')
    op.drop_index('ix_workspace_events_workspace_id_created_at', table_name='workspace_events')
    op.drop_table('workspace_events')
    op.drop_index(op.f('ix_workspace_invite_links_workspace_id'), table_name='workspace_invite_links')
    op.drop_table('workspace_invite_links')
    op.drop_index('uq_workspace_invitations_workspace_id_email', table_name='workspace_invitations')
    op.drop_table('workspace_invitations')
    op.drop_index(op.f('ix_workspace_members_user_id'), table_name='workspace_members')
    op.drop_table('workspace_members')
    op.drop_index(op.f('ix_workspaces_billing_owner_id'), table_name='workspaces')
    op.drop_table('workspaces')
