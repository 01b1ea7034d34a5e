"""What issuing a sale records in the back office, inside the issuing transaction (a failed issue leaves
none of it): the customer upserted by number into the tenant's persons, and the products of lines with a
``codigo_interno`` created when new, with their stock moved and a kardex line each
(:func:`plan_sale`, then :meth:`~facturador.domain.inventory.StockMoves.write`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Connection

from facturador.domain.document_input import DocumentRequest
from facturador.domain.inventory import ProductLine, StockMoves, plan_moves, sale_products
from facturador.domain.inventory import sale_kardex as inventory_kardex
from facturador.domain.persons import upsert_document_customer
from sunat.catalogs import DOCUMENT_TYPES, RETURN_CREDIT_NOTE_TYPES

_NO_REWRITE = (False, 0, "0", "false")


def stock_direction(request: DocumentRequest) -> int:
    """-1: the document takes its goods out (factura, boleta); +1: a credit note brings them back; 0: none."""
    if request.doc_type in ("01", "03"):
        return -1
    if request.doc_type == "07" and request.note_type in RETURN_CREDIT_NOTE_TYPES:
        return 1
    return 0


def rewrites_description(raw_items: Any, count: int) -> list[bool]:
    """Each line's ``actualizar_descripcion`` (true unless the client says false)."""
    items = raw_items if isinstance(raw_items, list) else []
    flags = []
    for index in range(count):
        item = items[index] if index < len(items) and isinstance(items[index], dict) else {}
        flags.append(item.get("actualizar_descripcion", True) not in _NO_REWRITE)
    return flags


def products_of(request: DocumentRequest) -> list[ProductLine]:
    """The products of the document's lines, made before its issuing transaction (:func:`plan_sale`)."""
    rewrites = rewrites_description(request.raw.get("items"), len(request.lines))
    return sale_products(request.lines, request.currency, rewrites)


def plan_sale(
    connection: Connection,
    tenant_id: int,
    establishment_id: int,
    request: DocumentRequest,
    products: list[ProductLine],
    *,
    move_stock: bool = True,
) -> StockMoves:
    """Record the back-office side of a document being issued, before it has its id and number: its
    customer upserted, its ``products`` (:func:`products_of`) created or updated, their stocks locked and
    checked (``INSUFFICIENT_STOCK``) unless ``move_stock`` is false (a document made from a sale note,
    whose stock the note already took). The moves it returns are written
    (:meth:`~facturador.domain.inventory.StockMoves.write` with :func:`sale_kardex`) in the same
    transaction once the document is stored."""
    upsert_document_customer(connection, tenant_id, request.customer)
    return plan_moves(
        connection,
        tenant_id=tenant_id,
        establishment_id=establishment_id,
        products=products,
        direction=stock_direction(request) if move_stock else 0,
        stocks_new_products=False,
    )


def sale_kardex(
    request: DocumentRequest, document_id: int, number: str, *, move_stock: bool = True
) -> dict[str, Any]:
    """The kardex fields of the document's stock moves: ``Factura F001-1``, the sale or return, its id."""
    direction = stock_direction(request) if move_stock else 0
    label = f"{DOCUMENT_TYPES.get(request.doc_type, request.doc_type)} {number}"
    return inventory_kardex(direction, label, document_id=document_id)
