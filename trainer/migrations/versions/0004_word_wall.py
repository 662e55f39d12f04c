"""word wall: walls of alphagrams for the club's screen, their players and the words found

Revision ID: 0004_word_wall
Revises: 0003_word_study
Create Date: 2026-11-22

"""

import sqlalchemy as sa
from alembic import op

import trainer.core.database

revision = "0004_word_wall"
down_revision = "0003_word_study"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "wall",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("director_id", sa.Integer(), nullable=False),
        sa.Column("join_code", sa.String(length=12), nullable=False),
        sa.Column("lexicon", sa.String(length=40), nullable=False),
        sa.Column("alphagrams", sa.JSON(), nullable=False),
        sa.Column("answers", sa.JSON(), nullable=False),
        sa.Column("seconds", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("started_at", trainer.core.database.UTCDateTime(timezone=True), nullable=True),
        sa.Column("deadline", trainer.core.database.UTCDateTime(timezone=True), nullable=True),
        sa.Column("created_at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["director_id"], ["director.id"], name=op.f("fk_wall_director_id_director")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_wall")),
        sa.UniqueConstraint("join_code", name=op.f("uq_wall_join_code")),
    )
    op.create_table(
        "wall_player",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("wall_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("joined_at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["wall_id"], ["wall.id"], name=op.f("fk_wall_player_wall_id_wall")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_wall_player")),
        sa.UniqueConstraint("wall_id", "name", name=op.f("uq_wall_player_wall_id")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_wall_player_token_hash")),
    )
    op.create_table(
        "wall_find",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("wall_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("word", sa.String(length=15), nullable=False),
        sa.Column("alphagram", sa.String(length=15), nullable=False),
        sa.Column("found_at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["wall_player.id"], name=op.f("fk_wall_find_player_id_wall_player")),
        sa.ForeignKeyConstraint(["wall_id"], ["wall.id"], name=op.f("fk_wall_find_wall_id_wall")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_wall_find")),
        sa.UniqueConstraint("wall_id", "word", name=op.f("uq_wall_find_wall_id")),
    )


def downgrade() -> None:
    op.drop_table("wall_find")
    op.drop_table("wall_player")
    op.drop_table("wall")
