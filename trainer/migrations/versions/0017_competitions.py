"""competition (simultaneous games and tournaments, docs/rules.md §6.22–6.23) and game.competition_id

Revision ID: 0017_competitions
Revises: 0016_paper_bulletins
Create Date: 2026-11-25

"""

import sqlalchemy as sa
from alembic import op

import trainer.core.database

revision = "0017_competitions"
down_revision = "0016_paper_bulletins"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "competition",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=12), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("director_id", sa.Integer(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=True),
        sa.Column("created_at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["director_id"], ["director.id"], name=op.f("fk_competition_director_id_director")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_competition")),
        sa.UniqueConstraint("code", name=op.f("uq_competition_code")),
    )
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("competition_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_game_competition_id"), ["competition_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_game_competition_id_competition"), "competition", ["competition_id"], ["id"]
        )


def downgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_game_competition_id_competition"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_game_competition_id"))
        batch_op.drop_column("competition_id")
    op.drop_table("competition")
