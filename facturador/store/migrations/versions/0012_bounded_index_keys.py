"""ordered indexes hold the first 200 characters of names and descriptions, never the whole text

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24

A PostgreSQL btree entry cannot exceed 2,704 bytes. ``ix_persons_tenant_type_name`` held the whole name (up
to 1,500 characters) and ``ix_items_search`` the whole description (500) and ``search_text`` (longer still:
NFKD expands some characters to 18), so a name or description of CJK or emoji characters (3 and 4 bytes)
failed its insert or update. Both now hold the first 200 characters (at most 800 bytes), and the lists
order by that prefix and then a unique column (facturador.store.models.KEY_CHARACTERS).

Persons get ``name_key``, a column the database computes (``substr(name, 1, 200)``; STORED on PostgreSQL,
VIRTUAL on SQLite, which cannot add a stored one), indexed in place of the name: a column, so that
PostgreSQL still pages from the index alone (it never reads an expression index's values without the rows).
Items' ordered index holds the expression ``substr(description, 1, 200)`` (search-items reads 20 rows): on
PostgreSQL it ends with the id (``ix_items_order``; matches are gathered through the trigram index of
``search_text``); SQLite, without the size limit, keeps ``search_text`` in ``ix_items_search`` so that
walking it filters without reading rows.
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

_DESCRIPTION_KEY = sa.text("substr(description, 1, 200)")


def upgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    key = sa.Computed("substr(name, 1, 200)", persisted=postgresql)
    op.add_column("persons", sa.Column("name_key", sa.String(200), key))
    op.drop_index("ix_persons_tenant_type_name", table_name="persons")
    op.create_index(
        "ix_persons_tenant_type_name",
        "persons",
        ["tenant_id", "type", "name_key", "number"],
        postgresql_include=["id"],
    )
    op.drop_index("ix_items_search", table_name="items")
    if postgresql:
        op.create_index("ix_items_order", "items", ["tenant_id", "active", _DESCRIPTION_KEY, "id"])
    else:
        op.create_index("ix_items_search", "items", ["tenant_id", "active", _DESCRIPTION_KEY, "search_text"])


def downgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    op.drop_index("ix_persons_tenant_type_name", table_name="persons")
    op.create_index(
        "ix_persons_tenant_type_name",
        "persons",
        ["tenant_id", "type", "name", "number"],
        postgresql_include=["id"],
    )
    with op.batch_alter_table("persons") as batch:
        batch.drop_column("name_key")
    op.drop_index("ix_items_order" if postgresql else "ix_items_search", table_name="items")
    op.create_index(
        "ix_items_search",
        "items",
        ["tenant_id", "active", "description", "search_text"],
        postgresql_include=["id"],
    )
