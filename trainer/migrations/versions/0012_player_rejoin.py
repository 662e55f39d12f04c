"""player.rejoin_hash, .rejoin_expires_at: a player whose phone died rejoins as themselves with a one-time code

Revision ID: 0012_player_rejoin
Revises: 0011_projector_cues
Create Date: 2026-11-25

"""

import sqlalchemy as sa
from alembic import op

revision = "0012_player_rejoin"
down_revision = "0011_projector_cues"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch_op:
        batch_op.add_column(sa.Column("rejoin_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("rejoin_expires_at", sa.DateTime(), nullable=True))
        batch_op.create_index("ix_player_rejoin_hash", ["rejoin_hash"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("player") as batch_op:
        batch_op.drop_index("ix_player_rejoin_hash")
        batch_op.drop_column("rejoin_expires_at")
        batch_op.drop_column("rejoin_hash")
