"""quotations take their correlative from a counter row, as every other numbered family does

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-05

A quotation was numbered with the highest number stored plus one: two concurrent quotations read the
same highest number and, on PostgreSQL, the second failed on ``uq_quotation_number``. The counter row of
``(tenant, establishment, prefix)`` is advanced as a series' counter is, so concurrent quotations queue on
it. Each counter starts at the highest number its prefix already used.
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "quotation_counters",
        sa.Column("tenant_id", sa.Integer(), sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
        sa.Column("establishment_id", sa.Integer(), sa.ForeignKey("establishments.id"), nullable=False),
        sa.Column("prefix", sa.String(length=10), nullable=False),
        sa.Column("last_number", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "establishment_id", "prefix"),
    )
    op.execute(
        "INSERT INTO quotation_counters (tenant_id, establishment_id, prefix, last_number) "
        "SELECT tenant_id, establishment_id, prefix, max(number) FROM quotations "
        "GROUP BY tenant_id, establishment_id, prefix"
    )


def downgrade() -> None:
    op.drop_table("quotation_counters")
