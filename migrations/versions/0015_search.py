"""search: an index of every diagram's title, description, content and comments, kept by the database

PostgreSQL: the unaccent extension, functions that fold and split text, tsvectors in search_documents
under a GIN index, written by triggers on diagrams and comments. SQLite: an FTS5 table written by triggers
that call the tokenizer the application registers on each connection. The diagrams already there are
indexed here. The objects beyond the table are made by trazo/models/search_ddl.py, which the tests' schema
(create_all) uses too. docs/search.md.

Revision ID: 0015
Revises: 0014
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from trazo.models import search_ddl

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade():
    vector = postgresql.TSVECTOR().with_variant(sa.Text(), 'sqlite')
    op.create_table('search_documents',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('diagram_id', sa.String(length=36), nullable=False),
    sa.Column('project_id', sa.String(length=36), nullable=False),
    sa.Column('diagram_type', sa.String(length=32), nullable=False),
    sa.Column('title_vector', vector, nullable=True),
    sa.Column('comments_vector', vector, nullable=True),
    sa.Column('document', vector, nullable=True),
    sa.ForeignKeyConstraint(['diagram_id'], ['diagrams.id'], name=op.f('fk_search_documents_diagram_id_diagrams'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_search_documents')),
    sa.UniqueConstraint('diagram_id', name=op.f('uq_search_documents_diagram_id'))
    )
    bind = op.get_bind()
    if bind.dialect.name == 'postgresql':
        op.create_index('ix_search_documents_document', 'search_documents', ['document'], unique=False,
                        postgresql_using='gin')
    search_ddl.install(bind)
    search_ddl.fill(bind)


def downgrade():
    bind = op.get_bind()
    search_ddl.uninstall(bind)
    if bind.dialect.name == 'postgresql':
        op.drop_index('ix_search_documents_document', table_name='search_documents', postgresql_using='gin')
    op.drop_table('search_documents')
