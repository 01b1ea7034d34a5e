"""tenant secrets: SOL password and GRE client secret, encrypted with the service's key

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27

A tenant that sends to SUNAT or an OSE needs its SOL password (and the GRE API's client secret); they are
kept encrypted (facturador.store.secrets), one row per tenant and name, apart from the settings, which
``facturador tenant list`` prints.
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tenant_secrets",
        sa.Column("tenant_id", sa.Integer, sa.ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tenant_secrets")
