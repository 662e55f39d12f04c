"""retired_token: the player tokens that stopped working and why, "taken_over" (a rejoin on another phone) or
"player_removed" (docs/rules.md §6.16), so the old phone is told which instead of "join the game again"

Revision ID: 0024_retired_tokens
Revises: 0023_game_room_name
Create Date: 2026-11-28

"""

import sqlalchemy as sa
from alembic import op

import trainer.core.database

revision = "0024_retired_tokens"
down_revision = "0023_game_room_name"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "retired_token",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("game_id", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name=op.f("fk_retired_token_game_id_game")),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_retired_token")),
    )
    with op.batch_alter_table("retired_token", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_retired_token_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    op.drop_table("retired_token")
