"""game.first_play_across, .first_play_best_placement: the federation's first-move rules

Games made before keep the rules they were played with (false); a new game takes the settings' defaults
(true, trainer.duplicate.settings).

Revision ID: 0013_first_play_rules
Revises: 0012_player_rejoin
Create Date: 2026-11-25

"""

import sqlalchemy as sa
from alembic import op

revision = "0013_first_play_rules"
down_revision = "0012_player_rejoin"
branch_labels = None
depends_on = None

COLUMNS = ("first_play_across", "first_play_best_placement")


def upgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        for name in COLUMNS:
            batch_op.add_column(sa.Column(name, sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        for name in reversed(COLUMNS):
            batch_op.drop_column(name)
