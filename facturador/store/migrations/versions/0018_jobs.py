"""jobs: the queue of background work (pending sends, ticket polls) shared by every node

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01

Workers of any number of ``facturador serve`` processes (or ``facturador worker``) on one database take
the work the service owes from this table: a job per document to send or summary to ask about, held by
one worker at a time under a lease that expires, so a killed worker's job is taken again. On PostgreSQL
workers take jobs with ``FOR UPDATE SKIP LOCKED``; on SQLite under the database's write lock. Documents
already owed are enqueued by the first worker pass (nothing to copy here).
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("target_id", sa.Integer, nullable=False),
        sa.Column("run_at", sa.DateTime, nullable=False),
        sa.Column("lease_owner", sa.String(100), nullable=True),
        sa.Column("lease_until", sa.DateTime, nullable=True),
        sa.Column("taken", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_error", sa.String(500), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.UniqueConstraint("kind", "target_id", name="uq_jobs_kind_target"),
    )
    op.create_index("ix_jobs_run_at", "jobs", ["run_at"])


def downgrade() -> None:
    op.drop_index("ix_jobs_run_at", table_name="jobs")
    op.drop_table("jobs")
