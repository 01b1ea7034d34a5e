"""document_state_changes: the audit record of a document's state set by hand

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-05

``POST /api/documents/updatedocumentstatus`` changes a document's state only in the service (nothing
goes to SUNAT); each change is kept here with who made it, when (naive UTC), from which state to which,
and the reason given, so the accountant sees which documents were settled by hand and why. Nothing to
copy: changes made before this revision left no record.
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "document_state_changes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "document_id", sa.Integer, sa.ForeignKey("documents.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("user_name", sa.String(255), nullable=False),
        sa.Column("from_state", sa.String(2), nullable=False),
        sa.Column("to_state", sa.String(2), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("changed_at", sa.DateTime, nullable=False),
    )
    op.create_index("ix_document_state_changes_document", "document_state_changes", ["document_id"])


def downgrade() -> None:
    op.drop_index("ix_document_state_changes_document", table_name="document_state_changes")
    op.drop_table("document_state_changes")
