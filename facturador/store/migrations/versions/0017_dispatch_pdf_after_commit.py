"""a guide's PDF is rendered after the guide is stored, so it may be missing for a moment

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28

A guide is numbered, signed and stored in one short write transaction; its PDF (which shows the number and
the signature's hash) is rendered after that transaction and stored then, so that no writer waits for a
rendering. A guide whose process stopped in between has no PDF until its first download renders it.
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("dispatches") as table:
        table.alter_column("pdf", existing_type=sa.LargeBinary, nullable=True)


def downgrade() -> None:
    with op.batch_alter_table("dispatches") as table:
        table.alter_column("pdf", existing_type=sa.LargeBinary, nullable=False)
