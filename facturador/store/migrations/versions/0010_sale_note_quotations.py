"""a sale note remembers the quotation it came from (``quotation_id``, at most one note per quotation) and
a quotation whether it was converted (``changed``, the real services' flag)

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("sale_notes") as batch:
        batch.add_column(sa.Column("quotation_id", sa.Integer(), nullable=True))
        batch.create_unique_constraint("uq_sale_note_quotation", ["quotation_id"])
        batch.create_foreign_key("fk_sale_notes_quotation", "quotations", ["quotation_id"], ["id"])
    with op.batch_alter_table("quotations") as batch:
        batch.add_column(sa.Column("changed", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("quotations") as batch:
        batch.drop_column("changed")
    with op.batch_alter_table("sale_notes") as batch:
        batch.drop_constraint("fk_sale_notes_quotation", type_="foreignkey")
        batch.drop_constraint("uq_sale_note_quotation", type_="unique")
        batch.drop_column("quotation_id")
