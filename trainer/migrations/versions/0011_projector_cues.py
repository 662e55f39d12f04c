"""game.thirty_seconds_cue, .end_beeps, .spoken_announcements: the projector's optional cues (all off so far)

Revision ID: 0011_projector_cues
Revises: 0010_deck_build_status
Create Date: 2026-11-24

"""

import sqlalchemy as sa
from alembic import op

revision = "0011_projector_cues"
down_revision = "0010_deck_build_status"
branch_labels = None
depends_on = None

COLUMNS = ("thirty_seconds_cue", "end_beeps", "spoken_announcements")


def upgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        for name in COLUMNS:
            batch_op.add_column(sa.Column(name, sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        for name in reversed(COLUMNS):
            batch_op.drop_column(name)
