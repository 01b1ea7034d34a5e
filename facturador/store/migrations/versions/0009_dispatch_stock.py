"""kardex lines made by dispatch guides (reasons 01 venta, 02 compra)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("inventory_moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("dispatch_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            "fk_inventory_moves_dispatch", "dispatches", ["dispatch_id"], ["id"], ondelete="SET NULL"
        )
    op.create_index("ix_inventory_moves_dispatch", "inventory_moves", ["dispatch_id"])


def downgrade() -> None:
    op.drop_index("ix_inventory_moves_dispatch", table_name="inventory_moves")
    with op.batch_alter_table("inventory_moves", schema=None) as batch_op:
        batch_op.drop_constraint("fk_inventory_moves_dispatch", type_="foreignkey")
        batch_op.drop_column("dispatch_id")
