"""tenant_certificates: the tenants' signing certificates and keys, in the database every node reads;
job_lease_expiries: jobs taken again after their worker's lease ran out

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-05

Certificates and signing keys were kept in the data directory of the host where ``facturador tenant``
ran (``tenants/<slug>/certificate.pem``, ``signing-key.pem`` or ``signing-key.enc``), so nodes on other
hosts never saw a renewal. Each row holds a certificate (PEM) and its key, encrypted with the service's
secret key as ``tenant_secrets`` are; a tenant signs with its newest row. The files of an earlier release
are copied in by the service when it opens the database (:func:`facturador.store.identities.import_files`),
not here: this revision has no secret key to encrypt them with.

``jobs.retaken`` says whether a job's last take found it held past its lease; each such take adds one to
``job_lease_expiries`` (per kind), which outlives the jobs, for ``/metrics``. Nothing to copy: expiries
before this revision were not counted.
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
    with op.batch_alter_table("jobs") as jobs:
        jobs.add_column(sa.Column("retaken", sa.Boolean, server_default=sa.false(), nullable=False))
    op.create_table(
        "job_lease_expiries",
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("count", sa.Integer, server_default="0", nullable=False),
    )


def downgrade() -> None:
    op.drop_table("job_lease_expiries")
    with op.batch_alter_table("jobs") as jobs:
        jobs.drop_column("retaken")
    op.drop_index("ix_tenant_certificates_tenant_id", table_name="tenant_certificates")
    op.drop_table("tenant_certificates")
