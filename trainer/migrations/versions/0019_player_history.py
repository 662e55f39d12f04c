"""A player's history and the "From my games" deck (docs/rules.md §6.25, §7.12): player.learner_id (a player's
plays linked to a learner account), learner.from_games (which missed tops become cards), player_record (a linked
player's figures in a finished game, kept) and game_card (the round a card of that deck came from)

Revision ID: 0019_player_history
Revises: 0018_game_lexicon_edition
Create Date: 2026-11-26

"""

from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op

import trainer.core.database

revision = "0019_player_history"
down_revision = "0018_game_lexicon_edition"
branch_labels = None
depends_on = None


@contextmanager
def _player_copied_safely() -> Iterator[None]:
    """SQLite adds or drops a column with a foreign key only by copying the table, and refuses to drop the old
    player table while results and submissions reference its rows: the check is off for the copy (outside the
    transaction, where SQLite takes the pragma), then on again. Other databases alter the table in place."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        with op.get_context().autocommit_block():
            op.execute("PRAGMA foreign_keys=OFF")
    try:
        yield
    finally:
        if sqlite:
            with op.get_context().autocommit_block():
                op.execute("PRAGMA foreign_keys=ON")


def upgrade() -> None:
    with _player_copied_safely(), op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(sa.Column("learner_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_player_learner_id"), ["learner_id"], unique=False)
        batch_op.create_foreign_key(batch_op.f("fk_player_learner_id_learner"), "learner", ["learner_id"], ["id"])
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.add_column(sa.Column("from_games", sa.String(length=8), server_default="tops", nullable=False))
    op.create_table(
        "player_record",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("played_at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("top_total", sa.Integer(), nullable=False),
        sa.Column("percentage", sa.String(length=12), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("losses", sa.JSON(), nullable=False),
        sa.Column("carded", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name=op.f("fk_player_record_game_id_game")),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"], name=op.f("fk_player_record_learner_id_learner")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["player.id"], name=op.f("fk_player_record_player_id_player"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_record")),
        sa.UniqueConstraint("player_id", name=op.f("uq_player_record_player_id")),
    )
    op.create_index(op.f("ix_player_record_learner_id"), "player_record", ["learner_id"], unique=False)
    op.create_table(
        "game_card",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("deck_card_id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("cause", sa.String(length=16), nullable=False),
        sa.Column("created_at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["deck_card_id"], ["deck_card.id"], name=op.f("fk_game_card_deck_card_id_deck_card"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["round_id"], ["round.id"], name=op.f("fk_game_card_round_id_round")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_card")),
        sa.UniqueConstraint("deck_card_id", "round_id", name=op.f("uq_game_card_deck_card_id")),
    )
    op.create_index(op.f("ix_game_card_deck_card_id"), "game_card", ["deck_card_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_game_card_deck_card_id"), table_name="game_card")
    op.drop_table("game_card")
    op.drop_index(op.f("ix_player_record_learner_id"), table_name="player_record")
    op.drop_table("player_record")
    with op.batch_alter_table("learner", schema=None) as batch_op:
        batch_op.drop_column("from_games")
    with _player_copied_safely(), op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_player_learner_id_learner"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_player_learner_id"))
        batch_op.drop_column("learner_id")
