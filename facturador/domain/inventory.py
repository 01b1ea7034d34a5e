"""Stock and its kardex (``docs/facturador_pro_api.md``, stock): ``POST /api/inventory/transaction`` and the
moves of sales.

Each establishment has one warehouse (created on first use). An inventory transaction puts stock in or
takes it out with an operation type of its direction (``sunat.catalogs.INVENTORY_INPUT_TYPES`` /
``INVENTORY_OUTPUT_TYPES``); an output never takes more than the warehouse holds (checked and applied
by one conditional ``UPDATE``, so two concurrent outputs cannot both pass). Sales move stock too, inside
their own issuing transaction (:func:`record_lines`): a factura, boleta or sale note takes out the
quantity of each line with a ``codigo_interno`` (creating the product when new, as the real services
do), and a credit note that cancels or returns (catalog 09: 01, 06, 07) puts it back; a remitente guide
with reason 01 or 02 moves it too (:func:`record_guide_lines`, see
:mod:`facturador.domain.dispatch_links`). Every move is a kardex line with the balance after it.

Stock never goes below zero, whatever takes it out (:func:`move_products`): a product has a stock once
something put it in its warehouse (the initial stock of ``POST /api/item``, an input, a purchase guide),
and from then on a sale, sale note or guide that asks for more than there is is refused with 422 naming
the line's quantity, and nothing of it is written. A product never stocked (created by a document's
``codigo_interno``, or a service) has no stock to take: its sales, and their returns, move nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from facturador.context import Caller, ServiceContext, TenantInfo
from facturador.domain.fields import MAX_RECORD_ID, Code, Number, Object, Text
from facturador.domain.persons import Page
from facturador.errors import field_error, not_found
from facturador.issued import DispatchLine, Line
from facturador.store.backoffice import (
    add_stock,
    add_stocks,
    record_move,
    record_moves,
    stocks_held,
    take_stock,
    upsert_items,
    warehouse_of,
)
from facturador.store.models import INVENTORY_MOVES, ITEMS, WAREHOUSES
from facturador.store.search import search_text
from sunat import catalogs
from sunat.calendar import lima_moment

DIRECTIONS = {"input": catalogs.INVENTORY_INPUT_TYPES, "output": catalogs.INVENTORY_OUTPUT_TYPES}
MESSAGES = {"input": "Ingreso registrado correctamente", "output": "Salida registrada correctamente"}
NOT_ENOUGH = "La cantidad no puede ser mayor a la que se tiene en el almacén."
UNKNOWN_ITEM = "No se encontró un producto con el codigo ingresado"
SALE_TRANSACTION, RETURN_TRANSACTION = "01", "24"
GUIDE_SALE, GUIDE_PURCHASE = "01", "02"  # catalog 12 for the guide reasons 01 venta and 02 compra
KARDEX_PER_PAGE = 20
MINIMUM_QUANTITY = Decimal("0.01")

TRANSACTION_BODY = Object(
    name="InventoryTransactionBody",
    description="Un ingreso o salida de stock.",
    required=True,
    fields={
        "type": Code(
            "input (ingreso) u output (salida).",
            required=True,
            codes=DIRECTIONS,
            message="El campo {path} debe ser input u output.",
        ),
        "inventory_transaction_id": Code(
            "Tipo de operación (de ingreso para input, de salida para output).",
            required=True,
            codes=catalogs.INVENTORY_OPERATION_TYPES,
            catalog="tabla 12 de tipos de operación",
            digits=2,
        ),
        "item_code": Text("El código interno (internal_id) del producto.", required=True, max_length=30),
        "quantity": Number("Cantidad (al menos 0.01).", required=True, decimals=4, minimum="positive"),
        "warehouse_id": Number(
            "El almacén; si se omite, el del establecimiento del usuario.",
            integer_digits=10,
            decimals=0,
            maximum=MAX_RECORD_ID,
            absent=None,
        ),
    },
)


def kardex_row(row: Any) -> dict[str, Any]:
    transaction = row.inventory_transaction_id
    return {
        "id": row.id,
        "date": lima_moment(row.created_at).isoformat() if row.created_at else None,
        "type": row.type,
        "inventory_transaction_id": transaction,
        "inventory_transaction_description": catalogs.INVENTORY_OPERATION_TYPES.get(transaction or "", ""),
        "warehouse_id": row.warehouse_id,
        "quantity": f"{Decimal(row.quantity):.4f}",
        "balance": f"{Decimal(row.balance):.4f}",
        "description": row.description,
        "document_id": row.document_id,
        "sale_note_id": row.sale_note_id,
        "dispatch_id": row.dispatch_id,
    }


class InventoryService:
    """Stock inputs and outputs of a tenant's warehouses, and the kardex of each product."""

    def __init__(self, context: ServiceContext):
        self.context = context

    def transaction(self, tenant: TenantInfo, caller: Caller, body: Any) -> str:
        """``POST /api/inventory/transaction``: move the stock; the answer's message."""
        values = TRANSACTION_BODY.read_body(body)
        direction, transaction = values["type"], values["inventory_transaction_id"]
        if transaction not in DIRECTIONS[direction]:
            kind = "ingreso" if direction == "input" else "salida"
            raise field_error(
                "inventory_transaction_id",
                f"El tipo de operación {transaction} no es de {kind}.",
                "INVALID_TRANSACTION_TYPE",
            )
        quantity: Decimal = values["quantity"]
        if quantity < MINIMUM_QUANTITY:
            raise field_error("quantity", "El campo quantity debe ser al menos 0.01.", "INVALID_FIELDS")
        with self.context.writing() as connection:
            item = connection.execute(
                select(ITEMS.c.id, ITEMS.c.description).where(
                    ITEMS.c.tenant_id == tenant.id, ITEMS.c.internal_id == values["item_code"]
                )
            ).one_or_none()
            if item is None:
                raise not_found(UNKNOWN_ITEM, "ITEM_NOT_FOUND", "item_code")
            warehouse_id = self._warehouse(connection, tenant, caller, values["warehouse_id"])
            if direction == "input":
                balance = add_stock(connection, item.id, warehouse_id, quantity)
            else:
                taken = take_stock(connection, item.id, warehouse_id, quantity)
                if taken is None:
                    raise field_error("quantity", NOT_ENOUGH, "INSUFFICIENT_STOCK")
                balance = taken
            record_move(
                connection,
                tenant_id=tenant.id,
                item_id=item.id,
                warehouse_id=warehouse_id,
                quantity=quantity if direction == "input" else -quantity,
                balance=balance,
                description=DIRECTIONS[direction][transaction],
                transaction_id=transaction,
            )
        return MESSAGES[direction]

    @staticmethod
    def _warehouse(connection: Connection, tenant: TenantInfo, caller: Caller, given: Decimal | None) -> int:
        if given is None:
            return warehouse_of(connection, tenant.id, caller.establishment_id)
        found = connection.scalar(
            select(WAREHOUSES.c.id).where(WAREHOUSES.c.tenant_id == tenant.id, WAREHOUSES.c.id == int(given))
        )
        if found is None:
            raise not_found(f"No existe el almacén {given}.", "WAREHOUSE_NOT_FOUND", "warehouse_id")
        return int(found)

    def kardex(self, tenant: TenantInfo, item_id: int, page: int) -> Page:
        """The moves of one product, oldest first, 20 per page; 404 for another tenant's product."""
        condition = (INVENTORY_MOVES.c.tenant_id == tenant.id) & (INVENTORY_MOVES.c.item_id == item_id)
        with self.context.engine.connect() as connection:
            owned = connection.scalar(
                select(ITEMS.c.id).where(ITEMS.c.tenant_id == tenant.id, ITEMS.c.id == item_id)
            )
            if owned is None:
                raise not_found(f"No existe el producto con id {item_id}.", "ITEM_NOT_FOUND", "id")
            total = int(
                connection.scalar(select(func.count()).select_from(INVENTORY_MOVES).where(condition)) or 0
            )
            rows = connection.execute(
                select(INVENTORY_MOVES)
                .where(condition)
                .order_by(INVENTORY_MOVES.c.id)
                .limit(KARDEX_PER_PAGE)
                .offset((page - 1) * KARDEX_PER_PAGE)
            ).all()
        return Page(
            [kardex_row(row) for row in rows], page, max(1, math.ceil(total / KARDEX_PER_PAGE)), total
        )


def sale_products(
    lines: Iterable[Line],
    currency: str,
    rewrites: Iterable[bool],
    quantity_field: str = "items.{index}.cantidad",
) -> list[ProductLine]:
    """The products of a sale's lines with a ``codigo_interno`` (``rewrites``: whether each line rewrites
    its product's description; ``quantity_field``: the body field of a line's quantity), for
    :func:`record_lines`; made before the issuing transaction, which then only writes them."""
    return [
        ProductLine.of(
            {
                "internal_id": line.internal_code,
                "description": line.description,
                "unit_type_id": line.unit,
                "currency_type_id": currency,
                "sale_unit_price": line.unit_price,
                "sale_affectation_igv_type_id": line.affectation,
                "item_code": line.sunat_code,
            },
            rewrite,
            line.quantity,
            quantity_field.format(index=index),
        )
        for index, (line, rewrite) in enumerate(zip(lines, rewrites, strict=True))
        if line.internal_code
    ]


def guide_products(lines: Iterable[DispatchLine]) -> list[ProductLine]:
    """The products of a guide's lines with a ``codigo_interno`` (their description never rewritten),
    for :func:`record_guide_lines`."""
    return [
        ProductLine.of(
            {
                "internal_id": line.code,
                "description": line.description,
                "unit_type_id": line.unit,
                "item_code": line.sunat_code,
            },
            False,
            line.quantity,
            f"items.{index}.cantidad",
        )
        for index, line in enumerate(lines)
        if line.code
    ]


def record_lines(
    connection: Connection,
    *,
    tenant_id: int,
    establishment_id: int,
    products: list[ProductLine],
    direction: int,
    label: str,
    document_id: int | None = None,
    sale_note_id: int | None = None,
) -> None:
    """The products of a sale (:func:`sale_products`), created when new and, when ``direction`` is -1
    (a sale, refused beyond the stock) or +1 (a return, of stocked products only), their stock moved
    with a kardex line each."""
    move_products(
        connection,
        tenant_id=tenant_id,
        establishment_id=establishment_id,
        products=products,
        direction=direction,
        stocks_new_products=False,
        kardex=sale_kardex(direction, label, document_id=document_id, sale_note_id=sale_note_id),
    )


def sale_kardex(
    direction: int, label: str, *, document_id: int | None = None, sale_note_id: int | None = None
) -> dict[str, Any]:
    """The kardex fields of a sale's lines (:func:`record_lines`): its label, the sale or return
    transaction, and the document or sale note."""
    return {
        "description": label,
        "transaction_id": SALE_TRANSACTION if direction < 0 else RETURN_TRANSACTION,
        "document_id": document_id,
        "sale_note_id": sale_note_id,
    }


def record_guide_lines(
    connection: Connection,
    *,
    tenant_id: int,
    establishment_id: int,
    products: list[ProductLine],
    direction: int,
    label: str,
    dispatch_id: int,
) -> None:
    """The products of a guide (:func:`guide_products`), created when new and, when ``direction`` is -1
    (reason 01, venta: refused beyond the stock) or +1 (02, compra), their stock moved with a kardex line
    naming the guide."""
    move_products(
        connection,
        tenant_id=tenant_id,
        establishment_id=establishment_id,
        products=products,
        direction=direction,
        stocks_new_products=True,
        kardex={
            "description": label,
            "transaction_id": GUIDE_SALE if direction < 0 else GUIDE_PURCHASE,
            "dispatch_id": dispatch_id,
        },
    )


@dataclass(frozen=True)
class ProductLine:
    """What one line of a sale or guide does to a product: the values it is created with (its code is
    ``internal_id``), whether the line rewrites its description, the quantity the line moves and the
    body field that gives it (named when there is not that much in stock)."""

    values: dict[str, Any]
    rewrite: bool
    quantity: Decimal
    field: str

    @classmethod
    def of(cls, values: dict[str, Any], rewrite: bool, quantity: Decimal, field: str) -> ProductLine:
        """The line with its product's ``search_text`` computed (what the column's default would do
        inside the transaction)."""
        folded = search_text(values["description"], values["internal_id"])
        return cls({**values, "search_text": folded}, rewrite, quantity, field)

    @property
    def code(self) -> str:
        return str(self.values["internal_id"])


def move_products(
    connection: Connection,
    *,
    tenant_id: int,
    establishment_id: int,
    products: list[ProductLine],
    direction: int,
    stocks_new_products: bool,
    kardex: dict[str, Any],
) -> None:
    """:func:`plan_moves` and, at once, :meth:`StockMoves.write` with ``kardex``."""
    plan_moves(
        connection,
        tenant_id=tenant_id,
        establishment_id=establishment_id,
        products=products,
        direction=direction,
        stocks_new_products=stocks_new_products,
    ).write(connection, kardex)


@dataclass(frozen=True)
class StockMoves:
    """Stock changes and kardex lines worked out by :func:`plan_moves` (their rows locked), written by
    :meth:`write` in the same transaction once what they belong to is known (a document's id and
    number)."""

    warehouse_id: int | None
    changes: dict[int, Decimal]
    moves: list[dict[str, Any]]

    def write(self, connection: Connection, kardex: dict[str, Any]) -> None:
        """Move the stocks and write the kardex lines with ``kardex`` (their other fields)."""
        if self.warehouse_id is None:
            return
        add_stocks(
            connection, self.warehouse_id, {item: change for item, change in self.changes.items() if change}
        )
        record_moves(connection, [{**move, **kardex} for move in self.moves])


def plan_moves(
    connection: Connection,
    *,
    tenant_id: int,
    establishment_id: int,
    products: list[ProductLine],
    direction: int,
    stocks_new_products: bool,
) -> StockMoves:
    """Create or update the products of ``products`` and, when ``direction`` is -1 or +1, move their
    stock by each line's quantity in that direction with a kardex line each (``kardex``: the other
    fields of those lines), as line after line would, in a few statements whatever the number of lines.

    A product named by several lines is created with its first line's values and keeps the description
    of the last line that rewrites it; its kardex lines follow the document's order with the balance
    after each. A line that takes more than the stock left is refused (422 naming its quantity,
    ``INSUFFICIENT_STOCK``: the caller's transaction writes nothing). A product never stocked moves
    nothing, unless ``stocks_new_products`` (a purchase guide puts its goods in).

    Rows are locked in one order, the warehouse first (its first sale creates it), then the products in
    the order of their codes, then their stocks: two sales taking them in another order would each hold
    a row the other waits for (a deadlock on PostgreSQL)."""
    ordered = sorted(products, key=lambda product: product.code)  # stable: a product's lines keep order
    warehouse_id = warehouse_of(connection, tenant_id, establishment_id) if ordered and direction else None
    changes: dict[str, tuple[dict[str, Any], bool]] = {}
    for product in ordered:
        first = changes.get(product.code)
        if first is None:
            changes[product.code] = (product.values, product.rewrite)
        elif product.rewrite:
            rewritten = {key: product.values[key] for key in ("description", "search_text")}
            changes[product.code] = ({**first[0], **rewritten}, True)
    ids = upsert_items(connection, tenant_id, list(changes.values()))
    if warehouse_id is None:
        return StockMoves(None, {}, [])
    held = stocks_held(connection, warehouse_id, list(dict.fromkeys(ids[p.code] for p in ordered)))
    stocks = dict(held)
    moves = []
    for product in ordered:
        item_id = ids[product.code]
        stock = stocks.get(item_id)
        if stock is None:
            if not (stocks_new_products and direction > 0):
                continue  # never stocked: nothing to take, and a return brings nothing back
            stock = Decimal(0)
        if direction < 0 and stock < product.quantity:
            raise field_error(
                product.field,
                f"No hay stock suficiente del producto {product.code}: hay {stock.normalize():f} en el "
                f"almacén y se piden {product.quantity.normalize():f}. {NOT_ENOUGH}",
                "INSUFFICIENT_STOCK",
            )
        quantity = product.quantity * direction
        stocks[item_id] = stock + quantity
        moves.append(
            {
                "tenant_id": tenant_id,
                "item_id": item_id,
                "warehouse_id": warehouse_id,
                "quantity": quantity,
                "balance": stocks[item_id],
            }
        )
    changed = {item_id: stock - held.get(item_id, Decimal(0)) for item_id, stock in stocks.items()}
    return StockMoves(warehouse_id, changed, moves)
