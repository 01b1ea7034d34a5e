"""sunat_faults: failures the simulator's SOAP endpoint injects, seen by every worker process

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28

``facturador sunat-fault add`` (and the tests) make the SOAP endpoint of the simulator fail on purpose: a
SOAP fault with a code, a 503, a cut connection, a held answer... for the next N requests of a RUC or for
some seconds (facturador.authority.soap.injection). A row per injection, in the database so that every
worker process of ``facturador serve`` applies it.
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sunat_faults",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("ruc", sa.String(11), nullable=True),
        sa.Column("operation", sa.String(32), nullable=False, server_default=""),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("code", sa.String(8), nullable=False, server_default=""),
        sa.Column("seconds", sa.Float, nullable=False, server_default="0"),
        sa.Column("remaining", sa.Integer, nullable=True),
        sa.Column("until", sa.DateTime, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    )
    op.create_index("ix_sunat_faults_ruc", "sunat_faults", ["ruc"])


def downgrade() -> None:
    op.drop_index("ix_sunat_faults_ruc", table_name="sunat_faults")
    op.drop_table("sunat_faults")
