"""initial schema: tenants, series, documents, artifacts

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "authority_records",
        sa.Column("issuer_ruc", sa.String(length=11), nullable=False),
        sa.Column("document_type_id", sa.String(length=2), nullable=False),
        sa.Column("series", sa.String(length=4), nullable=False),
        sa.Column("number", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("digest", sa.String(length=100), nullable=False),
        sa.Column("code", sa.String(length=8), nullable=False),
        sa.Column("cdr_zip", sa.LargeBinary(), nullable=True),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("issuer_ruc", "document_type_id", "series", "number"),
    )
    op.create_table(
        "tenants",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(length=64), nullable=False),
        sa.Column("ruc", sa.String(length=11), nullable=False),
        sa.Column("name", sa.String(length=500), nullable=False),
        sa.Column("trade_name", sa.String(length=500), nullable=False),
        sa.Column("address", sa.String(length=500), nullable=False),
        sa.Column("ubigeo", sa.String(length=6), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("host"),
        sa.UniqueConstraint("slug"),
    )
    op.create_table(
        "establishments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=4), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("address", sa.String(length=500), nullable=False),
        sa.Column("ubigeo", sa.String(length=6), nullable=False),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tenant_id", "code"),
    )
    op.create_table(
        "series",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("establishment_id", sa.Integer(), nullable=False),
        sa.Column("document_type_id", sa.String(length=2), nullable=False),
        sa.Column("number", sa.String(length=4), nullable=False),
        sa.Column("contingency", sa.Boolean(), nullable=False),
        sa.Column("last_number", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["establishment_id"],
            ["establishments.id"],
        ),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tenant_id", "document_type_id", "number"),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("establishment_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["establishment_id"],
            ["establishments.id"],
        ),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_users_tenant_id"), ["tenant_id"], unique=False)

    op.create_table(
        "documents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=36), nullable=False),
        sa.Column("establishment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.String(length=2), nullable=False),
        sa.Column("document_type_id", sa.String(length=2), nullable=False),
        sa.Column("series", sa.String(length=4), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("filename", sa.String(length=64), nullable=False),
        sa.Column("date_of_issue", sa.Date(), nullable=False),
        sa.Column("time_of_issue", sa.Time(), nullable=False),
        sa.Column("date_of_due", sa.Date(), nullable=True),
        sa.Column("operation_type_id", sa.String(length=4), nullable=True),
        sa.Column("currency_type_id", sa.String(length=3), nullable=False),
        sa.Column("exchange_rate_sale", sa.Numeric(precision=12, scale=6), nullable=False),
        sa.Column("purchase_order", sa.String(length=100), nullable=False),
        sa.Column("customer_identity_type", sa.String(length=2), nullable=False),
        sa.Column("customer_number", sa.String(length=20), nullable=False),
        sa.Column("customer_name", sa.String(length=1500), nullable=False),
        sa.Column("customer", sa.JSON(), nullable=False),
        sa.Column("total_exportation", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_free", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_unaffected", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_exonerated", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_taxed", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_igv", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_igv_free", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_plastic_bag_taxes", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_taxes", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_value", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("state_type_id", sa.String(length=2), nullable=False),
        sa.Column("hash", sa.String(length=100), nullable=False),
        sa.Column("qr_text", sa.Text(), nullable=False),
        sa.Column("number_to_letter", sa.String(length=500), nullable=False),
        sa.Column("format_pdf", sa.String(length=16), nullable=False),
        sa.Column("send_xml_signed", sa.Boolean(), nullable=False),
        sa.Column("response", sa.JSON(), nullable=True),
        sa.Column("regularize_shipping", sa.Boolean(), nullable=False),
        sa.Column("note_type_id", sa.String(length=2), nullable=True),
        sa.Column("note_description", sa.String(length=500), nullable=True),
        sa.Column("affected_document_id", sa.Integer(), nullable=True),
        sa.Column("affected_document", sa.JSON(), nullable=True),
        sa.Column("data_json", sa.JSON(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["affected_document_id"],
            ["documents.id"],
        ),
        sa.ForeignKeyConstraint(
            ["establishment_id"],
            ["establishments.id"],
        ),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("external_id"),
        sa.UniqueConstraint("tenant_id", "document_type_id", "series", "number", name="uq_document_number"),
    )
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.create_index("ix_documents_tenant_date", ["tenant_id", "date_of_issue"], unique=False)

    op.create_table(
        "artifacts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(["document_id"], ["documents.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("document_id", "kind"),
    )


def downgrade() -> None:
    op.drop_table("artifacts")
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.drop_index("ix_documents_tenant_date")

    op.drop_table("documents")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_users_tenant_id"))

    op.drop_table("users")
    op.drop_table("series")
    op.drop_table("establishments")
    op.drop_table("tenants")
    op.drop_table("authority_records")
