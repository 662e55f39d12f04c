"""game.mode: the kind of duplicate game (trainer.duplicate.modes); every game so far is classic

Revision ID: 0005_game_mode
Revises: 0004_word_wall
Create Date: 2026-11-23

"""

import sqlalchemy as sa
from alembic import op

revision = "0005_game_mode"
down_revision = "0004_word_wall"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("mode", sa.String(length=16), nullable=False, server_default="classic"))


def downgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("mode")
