"""player.name_key (no second "Zoe" by case, accent or look-alike letters) and game.locked (a room closed to joins)

Players who joined before keep their names; where two of a game now share a key, the later one's key gets
its id appended, so both stay and no new look-alike can join.

Revision ID: 0009_name_key_room_lock
Revises: 0008_login_session
Create Date: 2026-11-23

"""

import sqlalchemy as sa
from alembic import op

from trainer.core.names import name_key

revision = "0009_name_key_room_lock"
down_revision = "0008_login_session"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("game", sa.Column("locked", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("player", sa.Column("name_key", sa.String(length=160), nullable=True))
    connection = op.get_bind()
    player = sa.table("player", sa.column("id", sa.Integer), sa.column("game_id", sa.BigInteger),
                      sa.column("name", sa.String), sa.column("name_key", sa.String))  # fmt: skip
    seen: set[tuple[int, str]] = set()
    for row in connection.execute(sa.select(player.c.id, player.c.game_id, player.c.name).order_by(player.c.id)):
        key = name_key(row.name)
        if (row.game_id, key) in seen:
            key = f"{key}#{row.id}"
        seen.add((row.game_id, key))
        connection.execute(sa.update(player).where(player.c.id == row.id).values(name_key=key))
    op.create_index("ix_player_game_id_name_key", "player", ["game_id", "name_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_player_game_id_name_key", table_name="player")
    with op.batch_alter_table("player") as batch_op:
        batch_op.drop_column("name_key")
    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_column("locked")
