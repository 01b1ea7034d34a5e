"""an index on the documents' last change, for the list's "changed since" extension

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-01

``GET /api/documents/lists/{start}/{end}?changed_since=...`` (docs/local_store.md) answers the
documents of a range changed at or after a moment: a local store's refresh asks it every time, so it
reads the tenant's recent changes through this index instead of the whole range.
"""

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_documents_tenant_updated", "documents", ["tenant_id", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_documents_tenant_updated", table_name="documents")
