"""practice_session, practice_round and practice_attempt: a learner's solo duplicate practice and topping
(docs/rules.md §6.26, §6.27), each round kept so that a session is resumed where it was left

Revision ID: 0021_practice
Revises: 0020_game_variant_and_preset
Create Date: 2026-11-26

"""

import sqlalchemy as sa
from alembic import op

import trainer.core.database

revision = "0021_practice"
down_revision = "0020_game_variant_and_preset"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "practice_session",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("source_game_id", sa.BigInteger(), nullable=True),
        sa.Column("seed", sa.String(length=40), nullable=True),
        sa.Column("rules", sa.String(length=16), nullable=False),
        sa.Column("lexicon", sa.String(length=40), nullable=False),
        sa.Column("lexicon_edition", sa.String(length=80), nullable=True),
        sa.Column("lexicon_sha256", sa.String(length=64), nullable=True),
        sa.Column("notation", sa.String(length=16), nullable=False),
        sa.Column("variant", sa.String(length=16), nullable=False),
        sa.Column("draw_rule", sa.JSON(), nullable=False),
        sa.Column("first_play_across", sa.Boolean(), nullable=False),
        sa.Column("first_play_best_placement", sa.Boolean(), nullable=False),
        sa.Column("max_rounds", sa.Integer(), nullable=True),
        sa.Column("round_seconds", sa.Integer(), nullable=True),
        sa.Column("costs", sa.JSON(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("rounds_total", sa.Integer(), nullable=True),
        sa.Column("end_reason", sa.String(length=40), nullable=True),
        sa.Column("created_at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", trainer.core.database.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["learner_id"], ["learner.id"], name=op.f("fk_practice_session_learner_id_learner")),
        sa.ForeignKeyConstraint(["source_game_id"], ["game.id"], name=op.f("fk_practice_session_source_game_id_game")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_practice_session")),
    )
    op.create_index(op.f("ix_practice_session_learner_id"), "practice_session", ["learner_id"], unique=False)
    op.create_index(op.f("ix_practice_session_source_game_id"), "practice_session", ["source_game_id"], unique=False)
    op.create_table(
        "practice_round",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.BigInteger(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("rack", sa.String(length=16), nullable=False),
        sa.Column("draw_record", sa.Text(), nullable=False),
        sa.Column("board_before", sa.Text(), nullable=False),
        sa.Column("top_score", sa.Integer(), nullable=False),
        sa.Column("tops", sa.JSON(), nullable=False),
        sa.Column("placed_move", sa.String(length=40), nullable=False),
        sa.Column("legal_scores", sa.JSON(), nullable=True),
        sa.Column("best_plays", sa.JSON(), nullable=True),
        sa.Column("shown_at", trainer.core.database.UTCDateTime(timezone=True), nullable=True),
        sa.Column("deadline", trainer.core.database.UTCDateTime(timezone=True), nullable=True),
        sa.Column("answered_at", trainer.core.database.UTCDateTime(timezone=True), nullable=True),
        sa.Column("move", sa.String(length=40), nullable=True),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("valid", sa.Boolean(), nullable=True),
        sa.Column("invalid_words", sa.JSON(), nullable=True),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("late", sa.Boolean(), nullable=False),
        sa.Column("seconds", sa.Double(), nullable=True),
        sa.Column("found", sa.Boolean(), nullable=True),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["practice_session.id"],
            name=op.f("fk_practice_round_session_id_practice_session"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_practice_round")),
        sa.UniqueConstraint("session_id", "number", name=op.f("uq_practice_round_session_id")),
    )
    op.create_table(
        "practice_attempt",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("move", sa.String(length=40), nullable=True),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("hint", sa.String(length=16), nullable=True),
        sa.Column("cost_seconds", sa.Double(), nullable=False),
        sa.Column("at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["practice_round.id"],
            name=op.f("fk_practice_attempt_round_id_practice_round"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_practice_attempt")),
    )
    op.create_index(op.f("ix_practice_attempt_round_id"), "practice_attempt", ["round_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_practice_attempt_round_id"), table_name="practice_attempt")
    op.drop_table("practice_attempt")
    op.drop_table("practice_round")
    op.drop_index(op.f("ix_practice_session_source_game_id"), table_name="practice_session")
    op.drop_index(op.f("ix_practice_session_learner_id"), table_name="practice_session")
    op.drop_table("practice_session")
