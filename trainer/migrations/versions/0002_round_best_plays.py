"""round.best_plays: the best plays of a round, kept for its reveal

Revision ID: 0002_round_best_plays
Revises: 20e096e9ac2a
Create Date: 2026-11-22

"""

import sqlalchemy as sa
from alembic import op

revision = "0002_round_best_plays"
down_revision = "20e096e9ac2a"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.add_column(sa.Column("best_plays", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.drop_column("best_plays")
