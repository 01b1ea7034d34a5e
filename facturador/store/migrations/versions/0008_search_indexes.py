"""accent- and case-insensitive search of products and persons, with trigram indexes on PostgreSQL

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24

Items and persons get ``search_text``: their searched fields folded by facturador.store.search (accents
dropped, case folded), filled here for the stored rows and kept by the service afterwards. On PostgreSQL
the column gets a ``pg_trgm`` GIN index, which serves ``LIKE '%text%'``; the extension is created when the
server has it and the migrating role may create it, and a server without either still migrates: the index
is then a plain hash index of the same name (the search scans as it did before this revision). The items'
ordered index holds ``search_text`` instead of the internal code (which search_text holds), so that walking
it filters without reading rows; on PostgreSQL it and the persons' ordered index carry the id so that a
page's ids come from the index alone.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.exc import DBAPIError

from facturador.store.search import search_text

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

#: (table, searched fields in the order of search_text)
_SEARCHED = (("items", ("description", "internal_id")), ("persons", ("number", "name")))
_BATCH = 2000


def _has_trigrams(bind: sa.Connection) -> bool:
    """Create ``pg_trgm`` if it is missing and allowed; whether it is there (never fails the migration)."""
    installed = "SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'"
    if bind.scalar(sa.text(installed)):
        return True
    try:
        with bind.begin_nested():  # a refused CREATE EXTENSION rolls back only this savepoint
            bind.execute(sa.text("CREATE EXTENSION IF NOT EXISTS pg_trgm"))
    except DBAPIError:
        return False
    return bool(bind.scalar(sa.text(installed)))


def _fill(bind: sa.Connection, name: str, fields: tuple[str, ...]) -> None:
    table = sa.table(
        name, sa.column("id", sa.Integer), sa.column("search_text", sa.Text), *map(sa.column, fields)
    )
    last = 0
    while True:
        rows = bind.execute(
            sa.select(table.c.id, *(table.c[field] for field in fields))
            .where(table.c.id > last)
            .order_by(table.c.id)
            .limit(_BATCH)
        ).all()
        if not rows:
            return
        bind.execute(
            sa.update(table).where(table.c.id == sa.bindparam("row_id")),
            [{"row_id": row[0], "search_text": search_text(*row[1:])} for row in rows],
        )
        last = rows[-1][0]


def upgrade() -> None:
    bind = op.get_bind()
    postgresql = bind.dialect.name == "postgresql"
    trigrams = postgresql and _has_trigrams(bind)
    for name, fields in _SEARCHED:
        op.add_column(name, sa.Column("search_text", sa.Text(), server_default="", nullable=False))
        _fill(bind, name, fields)
        index = f"ix_{name}_search_text"
        if trigrams:
            op.create_index(
                index,
                name,
                ["search_text"],
                postgresql_using="gin",
                postgresql_ops={"search_text": "gin_trgm_ops"},
            )
        elif postgresql:  # a btree key cannot hold a 1,500-character name; a hash index always can
            op.create_index(index, name, ["search_text"], postgresql_using="hash")
        else:
            op.create_index(index, name, ["search_text"])
    # search-items walks its ordered index reading the folded text there (SQLite: without reading rows)
    op.drop_index("ix_items_search", table_name="items")
    op.create_index(
        "ix_items_search",
        "items",
        ["tenant_id", "active", "description", "search_text"],
        postgresql_include=["id"],
    )
    if postgresql:
        op.drop_index("ix_persons_tenant_type_name", table_name="persons")
        op.create_index(
            "ix_persons_tenant_type_name",
            "persons",
            ["tenant_id", "type", "name", "number"],
            postgresql_include=["id"],
        )


def downgrade() -> None:
    op.drop_index("ix_items_search", table_name="items")
    op.create_index("ix_items_search", "items", ["tenant_id", "active", "description", "internal_id"])
    if op.get_bind().dialect.name == "postgresql":
        op.drop_index("ix_persons_tenant_type_name", table_name="persons")
        op.create_index("ix_persons_tenant_type_name", "persons", ["tenant_id", "type", "name", "number"])
    for name, _fields in _SEARCHED:
        op.drop_index(f"ix_{name}_search_text", table_name=name)
        with op.batch_alter_table(name) as batch:
            batch.drop_column("search_text")
