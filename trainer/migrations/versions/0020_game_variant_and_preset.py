"""game.variant (classic or joker, docs/rules.md §6.24) and game.preset (the pace its round and reveal times are,
§6.14): the games made before are classic games, and each takes the preset its times match (NULL when none)

Revision ID: 0020_game_variant_and_preset
Revises: 0019_player_history
Create Date: 2026-12-09

"""

import sqlalchemy as sa
from alembic import op

revision = "0020_game_variant_and_preset"
down_revision = "0019_player_history"
branch_labels = None
depends_on = None

# The presets as this migration knows them (trainer.duplicate.settings.PRESETS may change after it).
PRESETS = (("classic", 180, 30), ("semi-rapid", 120, 20), ("blitz", 60, 15))


def upgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("variant", sa.String(length=16), nullable=False, server_default="classic"))
        batch_op.add_column(sa.Column("preset", sa.String(length=16), nullable=True))
    game = sa.table("game", sa.column("preset", sa.String), sa.column("round_seconds"), sa.column("reveal_seconds"))
    for name, round_seconds, reveal_seconds in PRESETS:
        op.execute(
            game.update()
            .where(game.c.round_seconds == round_seconds, game.c.reveal_seconds == reveal_seconds)
            .values(preset=name)
        )


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN (PostgreSQL, SQLite 3.35 and later), not a batch copy of the table: SQLite would
    # refuse to drop the old game table while players, rounds and events reference its rows.
    op.drop_column("game", "preset")
    op.drop_column("game", "variant")
