"""health_check: the row each health check writes (a write that commits proves the database takes writes)

Revision ID: 0006_health_check
Revises: 0005_game_mode
Create Date: 2026-11-23

"""

import sqlalchemy as sa
from alembic import op

import trainer.core.database

revision = "0006_health_check"
down_revision = "0005_game_mode"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "health_check",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("checked_at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_health_check")),
    )


def downgrade() -> None:
    op.drop_table("health_check")
