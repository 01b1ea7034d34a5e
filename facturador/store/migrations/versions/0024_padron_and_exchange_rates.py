"""padron_taxpayers, padron_imports and exchange_rates: SUNAT's registers shared by every tenant

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-05

``padron_taxpayers`` holds SUNAT's "padrón reducido" (every RUC with its name, state, condition and address,
imported by ``facturador padron import``); ``row_hash`` is a digest of the register's line, so a re-import
writes only the lines that changed. ``padron_imports`` keeps each import's checkpoint (the byte offset of
the text read and committed) so an interrupted import resumes. ``exchange_rates`` caches SUNAT's published
rate (buy and sell) per day. None of them belongs to a tenant: they are public registers.
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "padron_taxpayers",
        sa.Column("ruc", sa.String(11), primary_key=True),
        sa.Column("name", sa.String(500), nullable=False),
        sa.Column("state", sa.String(40), nullable=False),
        sa.Column("condition", sa.String(40), nullable=False),
        sa.Column("ubigeo", sa.String(6), nullable=False),
        sa.Column("address", sa.String(500), nullable=False),
        sa.Column("row_hash", sa.String(16), nullable=False),
    )
    op.create_table(
        "padron_imports",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("source", sa.String(1000), nullable=False),
        sa.Column("signature", sa.String(64), nullable=False),
        sa.Column("offset", sa.BigInteger, nullable=False),
        sa.Column("lines", sa.BigInteger, nullable=False),
        sa.Column("written", sa.BigInteger, nullable=False),
        sa.Column("started_at", sa.DateTime, nullable=False),
        sa.Column("finished_at", sa.DateTime, nullable=True),
    )
    op.create_index("ix_padron_imports_signature", "padron_imports", ["signature"])
    op.create_table(
        "exchange_rates",
        sa.Column("date", sa.Date, primary_key=True),
        sa.Column("purchase", sa.Numeric(10, 4), nullable=False),
        sa.Column("sale", sa.Numeric(10, 4), nullable=False),
        sa.Column("fetched_at", sa.DateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("exchange_rates")
    op.drop_index("ix_padron_imports_signature", table_name="padron_imports")
    op.drop_table("padron_imports")
    op.drop_table("padron_taxpayers")
