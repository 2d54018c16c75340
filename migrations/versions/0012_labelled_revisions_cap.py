"""labelled revisions cap: plans may bound the named revisions of a diagram

Named revisions are never pruned, so without a cap a restore and a label a few hundred times keep
gigabytes of history within a small quota. The FREE plan gets the cap of
FREE_PLAN_MAX_LABELLED_REVISIONS_PER_DIAGRAM (default 20), as a FREE plan created from now on would;
other plans stay unlimited until an administrator sets one. Diagrams already past the cap keep their
labels: only new ones are refused (docs/history.md).

Revision ID: 0012
Revises: 0011
"""
from alembic import op
import sqlalchemy as sa
from flask import current_app

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('plans', sa.Column('max_labelled_revisions_per_diagram', sa.Integer(), nullable=True))
    free_cap = current_app.config.get('FREE_PLAN_MAX_LABELLED_REVISIONS_PER_DIAGRAM', 20)
    if free_cap is not None and free_cap >= 0:
        op.execute(sa.text("UPDATE plans SET max_labelled_revisions_per_diagram = :cap WHERE code = 'FREE'")
                   .bindparams(cap=free_cap))


def downgrade():
    op.drop_column('plans', 'max_labelled_revisions_per_diagram')
