"""deck.status, .progress, .problem, .skipped: decks built in the background, with a progress bar

Revision ID: 0010_deck_build_status
Revises: 0009_name_key_room_lock
Create Date: 2026-11-23

"""

import sqlalchemy as sa
from alembic import op

revision = "0010_deck_build_status"
down_revision = "0009_name_key_room_lock"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("deck") as batch_op:
        batch_op.add_column(sa.Column("status", sa.String(length=16), nullable=False, server_default="ready"))
        batch_op.add_column(sa.Column("progress", sa.Integer(), nullable=False, server_default="100"))
        batch_op.add_column(sa.Column("problem", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("skipped", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("deck") as batch_op:
        batch_op.drop_column("skipped")
        batch_op.drop_column("problem")
        batch_op.drop_column("progress")
        batch_op.drop_column("status")
