"""payments registered with a document

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24

A factura or boleta may come with the payments received for it (``pagos[]``: method, destination,
reference, amount); they are kept with the document, in one JSON column, and shown in the lists.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.add_column(sa.Column("payments", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.drop_column("payments")
