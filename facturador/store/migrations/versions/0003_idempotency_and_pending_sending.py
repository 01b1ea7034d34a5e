"""idempotency keys and the pending sending of documents

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

Documents get the client's idempotency key (unique per tenant where present) with the digest of the body
it came with, and what the pending sender needs: the number of authority answers so far and, while the
service owes the sending, when to try next. Existing documents the service owes (facturas and their
notes in state 01, sent automatically) become due at once.
"""

import datetime

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_TENANTS = sa.table("tenants", sa.column("id", sa.Integer), sa.column("settings", sa.JSON))
_DOCUMENTS = sa.table(
    "documents",
    sa.column("tenant_id", sa.Integer),
    sa.column("group_id", sa.String),
    sa.column("state_type_id", sa.String),
    sa.column("send_xml_signed", sa.Boolean),
    sa.column("next_send_at", sa.DateTime),
)
_HAS_KEY = sa.text("idempotency_key IS NOT NULL")
_HAS_NEXT_SEND = sa.text("next_send_at IS NOT NULL")


def upgrade() -> None:
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.add_column(sa.Column("idempotency_key", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("idempotency_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("send_attempts", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("next_send_at", sa.DateTime(), nullable=True))
    op.create_index(
        "uq_documents_idempotency_key",
        "documents",
        ["tenant_id", "idempotency_key"],
        unique=True,
        sqlite_where=_HAS_KEY,
        postgresql_where=_HAS_KEY,
    )
    op.create_index(
        "ix_documents_next_send",
        "documents",
        ["next_send_at"],
        unique=False,
        sqlite_where=_HAS_NEXT_SEND,
        postgresql_where=_HAS_NEXT_SEND,
    )
    # what an outage or a crash left registered before this revision is owed now, by tenants sending
    # automatically (the send_auto setting, on unless set to false)
    connection = op.get_bind()
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    for tenant_id, settings in connection.execute(sa.select(_TENANTS.c.id, _TENANTS.c.settings)):
        if (settings or {}).get("send_auto", True) is False:
            continue
        connection.execute(
            _DOCUMENTS.update()
            .where(
                _DOCUMENTS.c.tenant_id == tenant_id,
                _DOCUMENTS.c.group_id == "01",
                _DOCUMENTS.c.state_type_id == "01",
                _DOCUMENTS.c.send_xml_signed.is_(True),
            )
            .values(next_send_at=now)
        )


def downgrade() -> None:
    op.drop_index("ix_documents_next_send", table_name="documents")
    op.drop_index("uq_documents_idempotency_key", table_name="documents")
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.drop_column("next_send_at")
        batch_op.drop_column("send_attempts")
        batch_op.drop_column("idempotency_hash")
        batch_op.drop_column("idempotency_key")
