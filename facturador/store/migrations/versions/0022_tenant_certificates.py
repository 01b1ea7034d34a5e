"""tenant_certificates: the tenants' signing certificates and keys, in the database every node reads

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-05

Certificates and signing keys were kept in the data directory of the host where ``facturador tenant``
ran (``tenants/<slug>/certificate.pem``, ``signing-key.pem`` or ``signing-key.enc``), so nodes on other
hosts never saw a renewal. Each row holds a certificate (PEM) and its key, encrypted with the service's
secret key as ``tenant_secrets`` are; a tenant signs with its newest row. The files of an earlier release
are moved in by the service when it opens the database (:func:`facturador.store.identities.import_files`),
not here: this revision has no secret key to encrypt them with.
"""

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tenant_certificates",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("tenant_id", sa.Integer, sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
        sa.Column("certificate", sa.Text, nullable=False),
        sa.Column("signing_key", sa.Text, nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    )
    op.create_index("ix_tenant_certificates_tenant_id", "tenant_certificates", ["tenant_id"])


def downgrade() -> None:
    op.drop_index("ix_tenant_certificates_tenant_id", table_name="tenant_certificates")
    op.drop_table("tenant_certificates")
