"""dispatch guides (09, 31) and the simulated GRE API's tickets

Revision ID: 0007
Revises: 0003
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def _timestamp(name: str) -> sa.Column:
    return sa.Column(
        name, sa.DateTime(timezone=True), server_default=sa.text("(CURRENT_TIMESTAMP)"), nullable=False
    )


def upgrade() -> None:
    op.create_table(
        "dispatches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=36), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("establishment_id", sa.Integer(), nullable=False),
        sa.Column("document_type_id", sa.String(length=2), nullable=False),
        sa.Column("series", sa.String(length=4), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("filename", sa.String(length=64), nullable=False),
        sa.Column("date_of_issue", sa.Date(), nullable=False),
        sa.Column("time_of_issue", sa.Time(), nullable=False),
        sa.Column("date_of_shipping", sa.Date(), nullable=False),
        sa.Column("transfer_reason", sa.String(length=2), nullable=False),
        sa.Column("transport_mode", sa.String(length=2), nullable=False),
        sa.Column("customer_number", sa.String(length=20), nullable=False),
        sa.Column("customer_name", sa.String(length=1500), nullable=False),
        sa.Column("total_weight", sa.Numeric(15, 3), nullable=False),
        sa.Column("weight_unit", sa.String(length=3), nullable=False),
        sa.Column("state_type_id", sa.String(length=2), nullable=False),
        sa.Column("hash", sa.String(length=100), nullable=False),
        sa.Column("ticket", sa.String(length=64), nullable=True),
        sa.Column("qr_url", sa.Text(), nullable=False),
        sa.Column("response", sa.JSON(), nullable=True),
        sa.Column("data_json", sa.JSON(), nullable=False),
        sa.Column("xml", sa.LargeBinary(), nullable=False),
        sa.Column("pdf", sa.LargeBinary(), nullable=False),
        sa.Column("cdr_zip", sa.LargeBinary(), nullable=True),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.ForeignKeyConstraint(["establishment_id"], ["establishments.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("external_id"),
        sa.UniqueConstraint("tenant_id", "document_type_id", "series", "number", name="uq_dispatch_number"),
    )
    op.create_index("ix_dispatches_tenant_date", "dispatches", ["tenant_id", "date_of_issue"], unique=False)
    op.create_table(
        "gre_tickets",
        sa.Column("ticket", sa.String(length=64), nullable=False),
        sa.Column("issuer_ruc", sa.String(length=11), nullable=False),
        sa.Column("filename", sa.String(length=64), nullable=False),
        sa.Column("received_at", sa.DateTime(), nullable=False),
        sa.Column("ready_at", sa.DateTime(), nullable=False),
        sa.Column("zip_content", sa.LargeBinary(), nullable=False),
        sa.Column("status_code", sa.String(length=4), nullable=False),
        sa.Column("cdr_zip", sa.LargeBinary(), nullable=True),
        _timestamp("updated_at"),
        sa.PrimaryKeyConstraint("ticket"),
    )
    op.create_index("ix_gre_tickets_file", "gre_tickets", ["issuer_ruc", "filename"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_gre_tickets_file", table_name="gre_tickets")
    op.drop_table("gre_tickets")
    op.drop_index("ix_dispatches_tenant_date", table_name="dispatches")
    op.drop_table("dispatches")
