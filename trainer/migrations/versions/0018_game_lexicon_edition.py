"""game.lexicon_edition and game.lexicon_sha256: the edition of the lexicon a game is played with and the SHA-256 of
its words, so that a new edition loaded under the same name never passes for the list a game was played with (NULL for
the games made before)

Revision ID: 0018_game_lexicon_edition
Revises: 0017_competitions
Create Date: 2026-12-02

"""

import sqlalchemy as sa
from alembic import op

revision = "0018_game_lexicon_edition"
down_revision = "0017_competitions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("lexicon_edition", sa.String(length=80), nullable=True))
        batch_op.add_column(sa.Column("lexicon_sha256", sa.String(length=64), nullable=True))


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN (PostgreSQL, SQLite 3.35 and later), not a batch copy of the table: SQLite would
    # refuse to drop the old game table while players, rounds and events reference its rows.
    op.drop_column("game", "lexicon_sha256")
    op.drop_column("game", "lexicon_edition")
