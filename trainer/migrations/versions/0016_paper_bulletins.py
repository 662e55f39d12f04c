"""Paper bulletins (docs/rules.md §6.21): player.paper, .table_number; submission.entered_by, .declared;
director.lead_id (an assistant arbiter's account belongs to a director)

Revision ID: 0016_paper_bulletins
Revises: 0015_arbitration
Create Date: 2026-11-25

"""

import sqlalchemy as sa
from alembic import op

revision = "0016_paper_bulletins"
down_revision = "0015_arbitration"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(sa.Column("paper", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("table_number", sa.Integer(), nullable=True))
        batch_op.create_index("ix_player_game_id_table_number", ["game_id", "table_number"], unique=True)
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.add_column(sa.Column("entered_by", sa.String(length=80), nullable=True))
        batch_op.add_column(sa.Column("declared", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("director", schema=None) as batch_op:
        batch_op.add_column(sa.Column("lead_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_director_lead_id"), ["lead_id"], unique=False)
        batch_op.create_foreign_key(batch_op.f("fk_director_lead_id_director"), "director", ["lead_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("director", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_director_lead_id_director"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_director_lead_id"))
        batch_op.drop_column("lead_id")
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.drop_column("declared")
        batch_op.drop_column("entered_by")
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_index("ix_player_game_id_table_number")
        batch_op.drop_column("table_number")
        batch_op.drop_column("paper")
