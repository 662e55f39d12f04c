"""login_session: one row per login of the pages, so that logout and a password change end it everywhere

Logins made before this version (cookies without a key) have ended: their users log in again.

Revision ID: 0008_login_session
Revises: 0007_random_game_ids_and_seeds
Create Date: 2026-11-23

"""

import sqlalchemy as sa
from alembic import op

import trainer.core.database

revision = "0008_login_session"
down_revision = "0007_random_game_ids_and_seeds"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("account_kind", sa.String(length=16), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("created_at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", trainer.core.database.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_session")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_login_session_key_hash")),
    )
    op.create_index("ix_login_session_account", "login_session", ["account_kind", "account_id"])


def downgrade() -> None:
    op.drop_index("ix_login_session_account", table_name="login_session")
    op.drop_table("login_session")
