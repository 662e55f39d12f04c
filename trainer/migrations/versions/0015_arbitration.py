"""game.warning_penalty, .warnings_before_penalty and the ruling table: warnings, penalties, solos granted
or withdrawn (docs/rules.md §6.19)

Revision ID: 0015_arbitration
Revises: 0014_imposed_draws
Create Date: 2026-11-25

"""

import sqlalchemy as sa
from alembic import op

import trainer.core.database

revision = "0015_arbitration"
down_revision = "0014_imposed_draws"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("warning_penalty", sa.Integer(), nullable=False, server_default="5"))
        batch_op.add_column(sa.Column("warnings_before_penalty", sa.Integer(), nullable=False, server_default="3"))
    op.create_table(
        "ruling",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("cancels", sa.Integer(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("author", sa.String(length=80), nullable=False),
        sa.Column("created_at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["cancels"], ["ruling.id"], name=op.f("fk_ruling_cancels_ruling")),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"], name=op.f("fk_ruling_player_id_player")),
        sa.ForeignKeyConstraint(["round_id"], ["round.id"], name=op.f("fk_ruling_round_id_round")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ruling")),
    )
    op.create_index(op.f("ix_ruling_round_id"), "ruling", ["round_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_ruling_round_id"), table_name="ruling")
    op.drop_table("ruling")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("warnings_before_penalty")
        batch_op.drop_column("warning_penalty")
