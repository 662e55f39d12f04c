"""The "From my games" deck fed by practice sessions too (docs/rules.md §7.12): game_card.practice_round_id (a card
that came from a round of a learner's solo practice or topping session), game_card.round_id nullable (exactly one
of the two is set, a check constraint), and practice_session.carded (a finished session whose missed tops were taken)

Revision ID: 0022_practice_cards
Revises: 0021_practice
Create Date: 2026-11-26

"""

from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op

revision = "0022_practice_cards"
down_revision = "0021_practice"
branch_labels = None
depends_on = None

ONE_ROUND = "(round_id IS NULL) <> (practice_round_id IS NULL)"  # trainer.study.models.ONE_ROUND


@contextmanager
def _copied_safely() -> Iterator[None]:
    """SQLite alters a column or adds a constraint only by copying the table: the foreign-key check is off for the
    copy (outside the transaction, where SQLite takes the pragma), then on again, as 0019 does for the player table.
    Other databases alter the table in place."""
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
    with _copied_safely(), op.batch_alter_table("practice_session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("carded", sa.Boolean(), server_default=sa.false(), nullable=False))
    with _copied_safely(), op.batch_alter_table("game_card", schema=None) as batch_op:
        batch_op.add_column(sa.Column("practice_round_id", sa.Integer(), nullable=True))
        batch_op.alter_column("round_id", existing_type=sa.Integer(), nullable=True)
        batch_op.create_index(batch_op.f("ix_game_card_practice_round_id"), ["practice_round_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_game_card_practice_round_id_practice_round"),
            "practice_round",
            ["practice_round_id"],
            ["id"],
            ondelete="CASCADE",
        )
        batch_op.create_unique_constraint(
            batch_op.f("uq_game_card_deck_card_id_practice_round_id"), ["deck_card_id", "practice_round_id"]
        )
        batch_op.create_check_constraint(batch_op.f("ck_game_card_one_round"), sa.text(ONE_ROUND))


def downgrade() -> None:
    # Where a card came from, when it was a practice round, has no place before this revision: those rows go (the
    # cards stay in the deck).
    op.execute("DELETE FROM game_card WHERE practice_round_id IS NOT NULL")
    with _copied_safely(), op.batch_alter_table("game_card", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_game_card_one_round"), type_="check")
        batch_op.drop_constraint(batch_op.f("uq_game_card_deck_card_id_practice_round_id"), type_="unique")
        batch_op.drop_constraint(batch_op.f("fk_game_card_practice_round_id_practice_round"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_game_card_practice_round_id"))
        batch_op.alter_column("round_id", existing_type=sa.Integer(), nullable=False)
        batch_op.drop_column("practice_round_id")
    with _copied_safely(), op.batch_alter_table("practice_session", schema=None) as batch_op:
        batch_op.drop_column("carded")
