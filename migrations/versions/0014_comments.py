"""comments: threads on diagrams anchored to the diagram, source lines or an element; notification choices
and the account's language for e-mails it did not ask for

docs/comments.md.

Revision ID: 0014
Revises: 0013
"""
from alembic import op
import sqlalchemy as sa

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('comments',
    sa.Column('diagram_id', sa.String(length=36), nullable=False),
    sa.Column('parent_id', sa.String(length=36), nullable=True),
    sa.Column('author_id', sa.String(length=36), nullable=True),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('body_size', sa.Integer(), nullable=False),
    sa.Column('anchor', sa.JSON(), nullable=False),
    sa.Column('mentions', sa.JSON(), nullable=False),
    sa.Column('resolved', sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.Column('resolved_by', sa.String(length=36), nullable=True),
    sa.Column('resolved_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['author_id'], ['users.id'], name=op.f('fk_comments_author_id_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['diagram_id'], ['diagrams.id'], name=op.f('fk_comments_diagram_id_diagrams'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['parent_id'], ['comments.id'], name=op.f('fk_comments_parent_id_comments'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['resolved_by'], ['users.id'], name=op.f('fk_comments_resolved_by_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_comments'))
    )
    op.create_index(op.f('ix_comments_author_id'), 'comments', ['author_id'], unique=False)
    op.create_index('ix_comments_diagram_id_parent_id_created_at', 'comments', ['diagram_id', 'parent_id', 'created_at'], unique=False)
    op.create_index(op.f('ix_comments_parent_id'), 'comments', ['parent_id'], unique=False)
    op.add_column('users', sa.Column('notify_comment_mentions', sa.Boolean(), server_default=sa.true(), nullable=False))
    op.add_column('users', sa.Column('notify_comment_replies', sa.Boolean(), server_default=sa.true(), nullable=False))
    op.add_column('users', sa.Column('language', sa.String(length=8), nullable=True))


def downgrade():
    with op.batch_alter_table('users') as batch:
        batch.drop_column('language')
        batch.drop_column('notify_comment_replies')
        batch.drop_column('notify_comment_mentions')
    op.drop_index(op.f('ix_comments_parent_id'), table_name='comments')
    op.drop_index('ix_comments_diagram_id_parent_id_created_at', table_name='comments')
    op.drop_index(op.f('ix_comments_author_id'), table_name='comments')
    op.drop_table('comments')
