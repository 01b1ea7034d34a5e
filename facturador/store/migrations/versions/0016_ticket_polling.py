"""summaries, voided communications and reversions: when their ticket is asked about next

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-27

The background poller of ``facturador serve`` (and ``facturador send-pending``) asks SUNAT about tickets
still in process with doubling waits, and sends again a summary whose answer was lost.
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("summaries") as table:
        table.add_column(sa.Column("next_poll_at", sa.DateTime, nullable=True))
        table.add_column(sa.Column("poll_attempts", sa.Integer, nullable=False, server_default="0"))
        table.add_column(sa.Column("poll_error", sa.String(500), nullable=True))
        table.create_index("ix_summaries_next_poll_at", ["next_poll_at"])


def downgrade() -> None:
    with op.batch_alter_table("summaries") as table:
        table.drop_index("ix_summaries_next_poll_at")
        table.drop_column("poll_error")
        table.drop_column("poll_attempts")
        table.drop_column("next_poll_at")
