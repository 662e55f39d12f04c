"""game ids up to 2**53 and seeds of up to 40 digits (issue 14: draws that cannot be reached sideways)

New games get random ids (trainer.games.models.new_game_id) and 128-bit seeds, kept as their digits.
Games made before keep their counted ids and their seeds (as digits now): nothing else changes for them.

Revision ID: 0007_random_game_ids_and_seeds
Revises: 0006_health_check
Create Date: 2026-11-23

"""

import sqlalchemy as sa
from alembic import op

revision = "0007_random_game_ids_and_seeds"
down_revision = "0006_health_check"
branch_labels = None
depends_on = None

GAME_ID_COLUMNS = (("game", "id"), ("player", "game_id"), ("round", "game_id"), ("event", "game_id"))


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":  # SQLite's integers have 64 bits already
        for table, column in GAME_ID_COLUMNS:
            op.alter_column(table, column, type_=sa.BigInteger(), existing_type=sa.Integer())
        op.execute("ALTER TABLE game ALTER COLUMN id DROP DEFAULT")  # ids are drawn, no longer counted
        op.execute("DROP SEQUENCE IF EXISTS game_id_seq")
    # A new column, not a changed type: SQLite would read 39 digits into a float in the old integer column,
    # and changing the type there means copying the table that every other table points to.
    op.execute("ALTER TABLE game RENAME COLUMN seed TO seed_number")
    op.add_column("game", sa.Column("seed", sa.String(length=40), nullable=True))
    op.execute("UPDATE game SET seed = CAST(seed_number AS VARCHAR(40))")
    op.drop_column("game", "seed_number")
    op.create_index(op.f("ix_game_seed"), "game", ["seed"])


def downgrade() -> None:
    op.drop_index(op.f("ix_game_seed"), table_name="game")
    op.execute("ALTER TABLE game RENAME COLUMN seed TO seed_digits")
    op.add_column("game", sa.Column("seed", sa.BigInteger(), nullable=True))
    op.execute("UPDATE game SET seed = CAST(seed_digits AS BIGINT)")  # a seed past 2**63 does not go back
    op.drop_column("game", "seed_digits")
    if op.get_bind().dialect.name != "sqlite":  # fails if a game has a drawn id: those do not go back
        for table, column in GAME_ID_COLUMNS:
            op.alter_column(table, column, type_=sa.Integer(), existing_type=sa.BigInteger())
        op.execute("CREATE SEQUENCE game_id_seq OWNED BY game.id")
        op.execute("SELECT setval('game_id_seq', coalesce(max(id), 0) + 1, false) FROM game")
        op.execute("ALTER TABLE game ALTER COLUMN id SET DEFAULT nextval('game_id_seq')")
