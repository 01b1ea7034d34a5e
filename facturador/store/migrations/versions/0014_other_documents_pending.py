"""retentions and perceptions the authority did not process are sent again, as facturas are

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27

A retention or perception is stored before it is sent (no transaction stays open while SUNAT answers);
one the authority did not process (an exception, or an answer lost on the way) stays registered with the
time of its next sending, which the pending sender reads.
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("other_documents") as table:
        table.add_column(sa.Column("send_attempts", sa.Integer, nullable=False, server_default="0"))
        table.add_column(sa.Column("next_send_at", sa.DateTime, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("other_documents") as table:
        table.drop_column("next_send_at")
        table.drop_column("send_attempts")
