"""Statements of the back office that several domain modules share: upserts of customers and products,
the warehouse of an establishment, and stock moves with their kardex line.

Upserts are ``INSERT ... ON CONFLICT`` of the connection's dialect (SQLite and PostgreSQL both have it),
so concurrent writers never fail on the unique keys; every function runs inside the caller's write
transaction (``Database.writing``).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import Table, and_, any_, bindparam, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from facturador.store.direct import direct
from facturador.store.models import INVENTORY_MOVES, ITEM_STOCKS, ITEMS, PERSONS, WAREHOUSES

#: The person fields a document's customer writes when it gives them (an empty value keeps the stored one).
CUSTOMER_FIELDS = ("trade_name", "country_id", "department_id", "province_id", "district_id", "address")
CUSTOMER_CONTACT = ("email", "telephone")


def _insert(connection: Connection, table: Table) -> Any:
    return _dialect(connection.dialect.name).insert(table)


def _dialect(name: str) -> Any:
    return postgresql if name == "postgresql" else sqlite


# The upserts are built once per dialect and variant and executed with parameters: building
# ``INSERT ... ON CONFLICT`` with its ``excluded`` alias on every call cost more than the rest of a sale.


@functools.cache
def _customer_upsert(dialect: str, given: frozenset[str]) -> Any:
    statement = _dialect(dialect).insert(PERSONS)
    excluded = statement.excluded
    changes: dict[str, Any] = {
        "identity_document_type_id": excluded.identity_document_type_id,
        "name": excluded.name,
        "search_text": excluded.search_text,  # the insert's default folds the given number and name
        "updated_at": func.now(),
    }
    for key in (*CUSTOMER_FIELDS, *CUSTOMER_CONTACT):
        if key in given:
            changes[key] = excluded[key]
    return statement.on_conflict_do_update(
        index_elements=["tenant_id", "type", "number"], set_=changes
    ).returning(PERSONS.c.id)


#: The columns of :data:`_CUSTOMER_AS_STORED`, in order.
_CUSTOMER_STORED = ("id", "identity_document_type_id", "name", *CUSTOMER_FIELDS, *CUSTOMER_CONTACT)
#: The stored customer a document names, with the fields its upsert may write (read without a lock; run
#: on the DB-API cursor, :mod:`facturador.store.direct`, as the warehouse's: every sale reads both).
_CUSTOMER_AS_STORED = select(*(PERSONS.c[key] for key in _CUSTOMER_STORED)).where(
    PERSONS.c.tenant_id == bindparam("tenant_id"),
    PERSONS.c.type == "customers",
    PERSONS.c.number == bindparam("number"),
)


def upsert_customer(connection: Connection, tenant_id: int, values: dict[str, Any]) -> int:
    """The id of the tenant's customer with ``values["number"]``, created or updated with ``values``
    (identity type and name always; the other fields only when given).

    A customer stored with these very values is only read: an upsert locks its row until the
    transaction ends even when it changes nothing, and every sale to a regular customer would wait on
    the one before it (on PostgreSQL; SQLite's writers are serialized anyway)."""
    given = frozenset(key for key in (*CUSTOMER_FIELDS, *CUSTOMER_CONTACT) if values.get(key))
    found = direct(_CUSTOMER_AS_STORED, connection.dialect).first(
        connection, {"tenant_id": tenant_id, "number": values["number"]}
    )
    if found is not None:
        stored = dict(zip(_CUSTOMER_STORED, found, strict=True))
        if all(stored[key] == values[key] for key in ("identity_document_type_id", "name", *given)):
            return int(stored["id"])
    row = {"tenant_id": tenant_id, "type": "customers", **values}
    statement = _customer_upsert(connection.dialect.name, given)
    return int(connection.execute(statement, row).scalar_one())


@functools.cache
def _item_upsert(dialect: str, update_description: bool) -> Any:
    statement = _dialect(dialect).insert(ITEMS)
    keys = ["tenant_id", "internal_id"]
    if update_description:
        statement = statement.on_conflict_do_update(
            index_elements=keys,
            set_={
                "description": statement.excluded.description,
                "search_text": statement.excluded.search_text,  # folded by the insert's default
                "updated_at": func.now(),
            },
        )
    else:  # a no-op update still returns the row's id (DO NOTHING returns nothing for existing rows)
        statement = statement.on_conflict_do_update(
            index_elements=keys, set_={"internal_id": statement.excluded.internal_id}
        )
    return statement.returning(ITEMS.c.id, ITEMS.c.internal_id)


def upsert_items(
    connection: Connection, tenant_id: int, products: Sequence[tuple[dict[str, Any], bool]]
) -> dict[str, int]:
    """The ids by code of the tenant's products of ``products`` (values with ``internal_id``, whether
    the description is rewritten; each code once): created with the values (stock 0) when missing, else
    their description rewritten where asked (the real services' default).

    One statement for each run of products with the same choice, in the order given: a sale's rows are
    locked in the order of their codes (see :func:`facturador.domain.inventory.move_products`), and a big
    sale costs a few statements instead of one per line.

    Products already stored as they would be written (every one not rewritten, or rewritten with the
    description it has) are only read, as customers are in :func:`upsert_customer`: their rows are not
    locked, so sales of the same products do not wait on each other."""
    ids = _unchanged_items(connection, tenant_id, products)
    products = [product for product in products if product[0]["internal_id"] not in ids]
    for rewrite, run in itertools.groupby(products, key=lambda product: product[1]):
        rows = [{"tenant_id": tenant_id, **values} for values, _rewrite in run]
        upserted = connection.execute(_item_upsert(connection.dialect.name, rewrite), rows)
        ids.update((code, int(item_id)) for item_id, code in upserted)
    return ids


def _among(column: Any, name: str, dialect: str) -> Any:
    """``column`` is one of the list bound as ``name``: on PostgreSQL one array parameter (``= ANY``), a
    statement whose SQL is the same whatever the list's length, run on the DB-API cursor
    (:func:`_rows`); on SQLite an expanding ``IN``, through SQLAlchemy's execute."""
    if dialect == "postgresql":
        return column == any_(bindparam(name, type_=postgresql.ARRAY(column.type)))
    return column.in_(bindparam(name, expanding=True))


def _rows(connection: Connection, statements: dict[str, Any], values: dict[str, Any]) -> list[Any]:
    """The rows of the dialect's statement of ``statements`` (written with :func:`_among`)."""
    statement = statements[connection.dialect.name]
    if connection.dialect.name == "postgresql":
        return direct(statement, connection.dialect).all(connection, values)
    return list(connection.execute(statement, values))


#: The stored products of some codes, read without a lock.
_ITEMS_AS_STORED = {
    dialect: select(ITEMS.c.id, ITEMS.c.internal_id, ITEMS.c.description).where(
        ITEMS.c.tenant_id == bindparam("tenant_id"), _among(ITEMS.c.internal_id, "codes", dialect)
    )
    for dialect in ("postgresql", "sqlite")
}


def _unchanged_items(
    connection: Connection, tenant_id: int, products: Sequence[tuple[dict[str, Any], bool]]
) -> dict[str, int]:
    """The ids by code of the products of ``products`` an upsert would not change."""
    if not products:
        return {}
    codes = [values["internal_id"] for values, _rewrite in products]
    stored = {
        code: (int(item_id), description)
        for item_id, code, description in _rows(
            connection, _ITEMS_AS_STORED, {"tenant_id": tenant_id, "codes": codes}
        )
    }
    unchanged = {}
    for values, rewrite in products:
        found = stored.get(values["internal_id"])
        if found is not None and (not rewrite or found[1] == values["description"]):
            unchanged[values["internal_id"]] = found[0]
    return unchanged


#: Statements without per-call parts, built once.
_INSERT_MOVE = INVENTORY_MOVES.insert()
_WAREHOUSE_OF = select(WAREHOUSES.c.id).where(WAREHOUSES.c.establishment_id == bindparam("establishment_id"))


def warehouse_of(connection: Connection, tenant_id: int, establishment_id: int) -> int:
    """The id of the establishment's warehouse, created on first use."""
    found = direct(_WAREHOUSE_OF, connection.dialect).first(
        connection, {"establishment_id": establishment_id}
    )
    if found is not None:
        return int(found[0])
    statement = (
        _insert(connection, WAREHOUSES)
        .values(
            tenant_id=tenant_id, establishment_id=establishment_id, description="Almacén Oficina Principal"
        )
        .on_conflict_do_nothing(index_elements=["establishment_id"])
    )
    connection.execute(statement)
    created = connection.scalar(_WAREHOUSE_OF, {"establishment_id": establishment_id})
    assert created is not None
    return int(created)


@functools.cache
def _stock_add(dialect: str) -> Any:
    statement = _dialect(dialect).insert(ITEM_STOCKS)
    return statement.on_conflict_do_update(
        index_elements=["item_id", "warehouse_id"],
        set_={"stock": ITEM_STOCKS.c.stock + statement.excluded.stock},
    ).returning(ITEM_STOCKS.c.stock, ITEM_STOCKS.c.item_id)


def add_stock(connection: Connection, item_id: int, warehouse_id: int, quantity: Decimal) -> Decimal:
    """Add ``quantity`` (negative: take it, even below zero) to the item's stock; the new stock."""
    row = {"item_id": item_id, "warehouse_id": warehouse_id, "stock": quantity}
    return Decimal(connection.execute(_stock_add(connection.dialect.name), row).scalar_one())


def add_stocks(connection: Connection, warehouse_id: int, quantities: dict[int, Decimal]) -> None:
    """:func:`add_stock` of many items (item id -> quantity) in one statement, in the order given."""
    if quantities:
        rows = [
            {"item_id": item_id, "warehouse_id": warehouse_id, "stock": quantity}
            for item_id, quantity in quantities.items()
        ]
        connection.execute(_stock_add(connection.dialect.name), rows)


def take_stock(connection: Connection, item_id: int, warehouse_id: int, quantity: Decimal) -> Decimal | None:
    """Take ``quantity`` from the item's stock if there is that much; the new stock, else ``None``."""
    statement = (
        update(ITEM_STOCKS)
        .where(
            and_(
                ITEM_STOCKS.c.item_id == item_id,
                ITEM_STOCKS.c.warehouse_id == warehouse_id,
                ITEM_STOCKS.c.stock >= quantity,
            )
        )
        .values(stock=ITEM_STOCKS.c.stock - quantity)
        .returning(ITEM_STOCKS.c.stock)
    )
    found = connection.execute(statement).scalar_one_or_none()
    return None if found is None else Decimal(found)


def stocks_held(connection: Connection, warehouse_id: int, item_ids: Sequence[int]) -> dict[int, Decimal]:
    """The stock of each of ``item_ids`` in the warehouse, their rows locked until the transaction ends
    (``FOR UPDATE``; SQLite's writer lock serializes writers already); an item never stocked (nothing
    was ever put in) is absent."""
    rows = _rows(connection, _STOCKS_HELD, {"warehouse_id": warehouse_id, "item_ids": list(item_ids)})
    return {int(item_id): Decimal(stock) for item_id, stock in rows}


#: Built once with its parameters bound: every sale asks it, and a statement made per call with its
#: values inside was a new cache key for SQLAlchemy each time.
_STOCKS_HELD = {
    dialect: select(ITEM_STOCKS.c.item_id, ITEM_STOCKS.c.stock)
    .where(
        ITEM_STOCKS.c.warehouse_id == bindparam("warehouse_id"),
        _among(ITEM_STOCKS.c.item_id, "item_ids", dialect),
    )
    .order_by(ITEM_STOCKS.c.item_id)
    .with_for_update()
    for dialect in ("postgresql", "sqlite")
}


def record_move(
    connection: Connection,
    *,
    tenant_id: int,
    item_id: int,
    warehouse_id: int,
    quantity: Decimal,
    balance: Decimal,
    description: str,
    transaction_id: str | None = None,
    document_id: int | None = None,
    sale_note_id: int | None = None,
    dispatch_id: int | None = None,
) -> None:
    """One kardex line: ``quantity`` is positive for an input, negative for an output."""
    connection.execute(
        _INSERT_MOVE,
        _move_row(
            tenant_id=tenant_id,
            item_id=item_id,
            warehouse_id=warehouse_id,
            quantity=quantity,
            balance=balance,
            description=description,
            transaction_id=transaction_id,
            document_id=document_id,
            sale_note_id=sale_note_id,
            dispatch_id=dispatch_id,
        ),
    )


def _move_row(
    *,
    tenant_id: int,
    item_id: int,
    warehouse_id: int,
    quantity: Decimal,
    balance: Decimal,
    description: str,
    transaction_id: str | None = None,
    document_id: int | None = None,
    sale_note_id: int | None = None,
    dispatch_id: int | None = None,
) -> dict[str, Any]:
    return {
        "tenant_id": tenant_id,
        "item_id": item_id,
        "warehouse_id": warehouse_id,
        "type": "input" if quantity > 0 else "output",
        "inventory_transaction_id": transaction_id,
        "quantity": quantity,
        "balance": balance,
        "description": description[:255],
        "document_id": document_id,
        "sale_note_id": sale_note_id,
        "dispatch_id": dispatch_id,
    }


def record_moves(connection: Connection, moves: list[dict[str, Any]]) -> None:
    """Many kardex lines in one statement: each has the keys of :func:`record_move`'s keywords
    (``description`` and ``quantity`` required)."""
    if moves:
        connection.execute(_INSERT_MOVE, [_move_row(**move) for move in moves])


def move_stock(
    connection: Connection,
    *,
    tenant_id: int,
    item_id: int,
    warehouse_id: int,
    quantity: Decimal,
    description: str,
    transaction_id: str,
    document_id: int | None = None,
    sale_note_id: int | None = None,
    dispatch_id: int | None = None,
) -> Decimal:
    """Add ``quantity`` to the item's stock and write its kardex line (:func:`add_stock` then
    :func:`record_move`); the new stock. Outputs go through :func:`take_stock` instead, which never takes
    the stock below zero."""
    balance = add_stock(connection, item_id, warehouse_id, quantity)
    record_move(
        connection,
        tenant_id=tenant_id,
        item_id=item_id,
        warehouse_id=warehouse_id,
        quantity=quantity,
        balance=balance,
        description=description,
        transaction_id=transaction_id,
        document_id=document_id,
        sale_note_id=sale_note_id,
        dispatch_id=dispatch_id,
    )
    return balance
