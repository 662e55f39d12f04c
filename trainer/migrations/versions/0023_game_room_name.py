"""game.room_name: the name a room of a simultaneous game goes by on the event's public ranking (docs/rules.md §6.22),
set by its director (their club's name); NULL is the default name, "Room n" by the room's place in the event, so a
join code is never shown there

Revision ID: 0023_game_room_name
Revises: 0022_practice_cards
Create Date: 2026-12-20

"""

import sqlalchemy as sa
from alembic import op

revision = "0023_game_room_name"
down_revision = "0022_practice_cards"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("room_name", sa.String(length=80), nullable=True))


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN, not a batch copy of the game table (which rows of other tables reference).
    op.drop_column("game", "room_name")
