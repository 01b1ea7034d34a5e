"""email_deliveries: documents and sale notes e-mailed to customers, with their state and attempts

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-05

``acciones.enviar_email``, ``POST /api/document/email`` and ``POST /api/sale-note/email`` queue a
delivery here; the background worker sends it through the tenant's SMTP server and records each attempt
(state queued, sent or failed, attempts, last error, times in naive UTC). Nothing to copy.
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "email_deliveries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("tenant_id", sa.Integer, sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("target_id", sa.Integer, nullable=False),
        sa.Column("address", sa.String(1000), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_error", sa.String(500), nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sa.Column("sent_at", sa.DateTime, nullable=True),
        sa.Column("next_attempt_at", sa.DateTime, nullable=True),
    )
    op.create_index("ix_email_deliveries_target", "email_deliveries", ["kind", "target_id"])
    op.create_index("ix_email_deliveries_due", "email_deliveries", ["state", "next_attempt_at"])


def downgrade() -> None:
    op.drop_index("ix_email_deliveries_due", table_name="email_deliveries")
    op.drop_index("ix_email_deliveries_target", table_name="email_deliveries")
    op.drop_table("email_deliveries")
