"""game.imposed_draws: a game played from a list of draws (a federation simultaneous, a published game)

The column holds the list as the director gave it, normalised: one round's draw a line (docs/rules.md §6.18).
Null for every game drawn from its seed, which is every game made before.

Revision ID: 0014_imposed_draws
Revises: 0013_first_play_rules
Create Date: 2026-11-26

"""

import sqlalchemy as sa
from alembic import op

revision = "0014_imposed_draws"
down_revision = "0013_first_play_rules"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("imposed_draws", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("imposed_draws")
