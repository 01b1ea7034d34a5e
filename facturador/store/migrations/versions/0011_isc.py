"""ISC and other taxes of a sales document

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24

A factura, boleta or note may carry ISC (scheme 2000) and other taxes (scheme 9999) on its lines; their
header totals are kept with the document, as the IGV and the bag tax are, so that a boleta's line of
the daily summary carries them (SUNAT's summary stylesheet sums them into the total, observation 4027).
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("documents", schema=None) as batch_op:
        for name in ("total_isc", "total_other_taxes"):
            batch_op.add_column(
                sa.Column(name, sa.Numeric(precision=14, scale=2), nullable=False, server_default="0")
            )


def downgrade() -> None:
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.drop_column("total_other_taxes")
        batch_op.drop_column("total_isc")
