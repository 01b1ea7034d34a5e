"""summaries, voided communications and authority tickets

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "authority_tickets",
        sa.Column("ticket", sa.String(length=32), nullable=False),
        sa.Column("issuer_ruc", sa.String(length=11), nullable=False),
        sa.Column("filename", sa.String(length=64), nullable=False),
        sa.Column("received_at", sa.DateTime(), nullable=False),
        sa.Column("ready_at", sa.DateTime(), nullable=False),
        sa.Column("zip_content", sa.LargeBinary(), nullable=False),
        sa.Column("status_code", sa.String(length=4), nullable=False),
        sa.Column("cdr_zip", sa.LargeBinary(), nullable=True),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("ticket"),
        sa.UniqueConstraint("issuer_ruc", "filename", name="uq_authority_ticket_file"),
    )
    op.create_table(
        "summaries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=36), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("summary_type", sa.String(length=2), nullable=False),
        sa.Column("process_type", sa.String(length=1), nullable=False),
        sa.Column("identifier", sa.String(length=32), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("filename", sa.String(length=64), nullable=False),
        sa.Column("date_of_issue", sa.Date(), nullable=False),
        sa.Column("date_of_reference", sa.Date(), nullable=False),
        sa.Column("state_type_id", sa.String(length=2), nullable=False),
        sa.Column("ticket", sa.String(length=32), nullable=False),
        sa.Column("hash", sa.String(length=100), nullable=False),
        sa.Column("response", sa.JSON(), nullable=True),
        sa.Column("xml", sa.LargeBinary(), nullable=False),
        sa.Column("cdr_zip", sa.LargeBinary(), nullable=True),
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
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("external_id"),
        sa.UniqueConstraint(
            "tenant_id", "summary_type", "date_of_issue", "sequence", name="uq_summary_identifier"
        ),
    )
    with op.batch_alter_table("summaries", schema=None) as batch_op:
        batch_op.create_index("ix_summaries_tenant_ticket", ["tenant_id", "ticket"], unique=False)

    op.create_table(
        "summary_documents",
        sa.Column("summary_id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("previous_state", sa.String(length=2), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.ForeignKeyConstraint(["document_id"], ["documents.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["summary_id"], ["summaries.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("summary_id", "document_id"),
    )
    with op.batch_alter_table("summary_documents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_summary_documents_document_id"), ["document_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("summary_documents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_summary_documents_document_id"))

    op.drop_table("summary_documents")
    with op.batch_alter_table("summaries", schema=None) as batch_op:
        batch_op.drop_index("ix_summaries_tenant_ticket")

    op.drop_table("summaries")
    op.drop_table("authority_tickets")
