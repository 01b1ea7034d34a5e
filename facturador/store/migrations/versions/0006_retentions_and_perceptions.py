"""retentions, perceptions and their reversions

Revision ID: 0006
Revises: 0003
Create Date: 2026-11-24

Retentions (20) and perceptions (40) get their own table (their parties, regime, totals in soles and
related payments differ from sales documents), and a link table puts them in reversions (RR), which are
rows of ``summaries`` like voided communications. Every existing company gets the series R001 and P001
on its first establishment, as new companies do.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_NEW_SERIES = (("20", "R001"), ("40", "P001"))


def upgrade() -> None:
    op.create_table(
        "other_documents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=36), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("document_type_id", sa.String(length=2), nullable=False),
        sa.Column("series", sa.String(length=4), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("filename", sa.String(length=64), nullable=False),
        sa.Column("date_of_issue", sa.Date(), nullable=False),
        sa.Column("time_of_issue", sa.Time(), nullable=False),
        sa.Column("party_identity_type", sa.String(length=1), nullable=False),
        sa.Column("party_number", sa.String(length=15), nullable=False),
        sa.Column("party_name", sa.String(length=1500), nullable=False),
        sa.Column("regime", sa.String(length=2), nullable=False),
        sa.Column("percent", sa.Numeric(precision=6, scale=3), nullable=False),
        sa.Column("total", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_net", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("state_type_id", sa.String(length=2), nullable=False),
        sa.Column("hash", sa.String(length=100), nullable=False),
        sa.Column("response", sa.JSON(), nullable=True),
        sa.Column("data", sa.JSON(), nullable=False),
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
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("external_id"),
        sa.UniqueConstraint(
            "tenant_id", "document_type_id", "series", "number", name="uq_other_document_number"
        ),
    )
    op.create_index(
        "ix_other_documents_tenant_date",
        "other_documents",
        ["tenant_id", "document_type_id", "date_of_issue"],
        unique=False,
    )
    op.create_table(
        "other_document_reversals",
        sa.Column("summary_id", sa.Integer(), nullable=False),
        sa.Column("other_document_id", sa.Integer(), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("previous_state", sa.String(length=2), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.ForeignKeyConstraint(["summary_id"], ["summaries.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["other_document_id"], ["other_documents.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("summary_id", "other_document_id"),
    )
    op.create_index(
        "ix_other_document_reversals_other_document_id",
        "other_document_reversals",
        ["other_document_id"],
        unique=False,
    )
    connection = op.get_bind()
    first_establishments = connection.execute(
        sa.text("SELECT tenant_id, MIN(id) AS establishment_id FROM establishments GROUP BY tenant_id")
    ).all()
    for tenant_id, establishment_id in first_establishments:
        for doc_type, series in _NEW_SERIES:
            exists = connection.execute(
                sa.text(
                    "SELECT 1 FROM series WHERE tenant_id = :t AND document_type_id = :d AND number = :n"
                ),
                {"t": tenant_id, "d": doc_type, "n": series},
            ).first()
            if exists is None:
                connection.execute(
                    sa.text(
                        "INSERT INTO series (tenant_id, establishment_id, document_type_id, number, "
                        "contingency, last_number) VALUES (:t, :e, :d, :n, :c, 0)"
                    ),
                    {"t": tenant_id, "e": establishment_id, "d": doc_type, "n": series, "c": False},
                )


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM series WHERE document_type_id IN ('20', '40')"))
    op.drop_index("ix_other_document_reversals_other_document_id", table_name="other_document_reversals")
    op.drop_table("other_document_reversals")
    op.drop_index("ix_other_documents_tenant_date", table_name="other_documents")
    op.drop_table("other_documents")
