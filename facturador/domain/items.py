"""Products and services (``docs/facturador_pro_api.md``, products): ``POST /api/item``,
``POST /api/items/{id}/update`` and ``GET /api/document/search-items``.

The internal code (``internal_id``, the documents' ``codigo_interno``) is unique per tenant; a product
issued in a document with a code the tenant never registered is created then (stock 0), so the products
of this module and those of the documents are the same records. Each answer carries the product's stock
in each of the tenant's warehouses (one per establishment) and its price list (``item_unit_types``).
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from facturador.context import Caller, ServiceContext, TenantInfo
from facturador.domain.fields import Boolean, Code, List, Number, Object, Text
from facturador.errors import FieldError, ServiceError, not_found
from facturador.store.backoffice import move_stock, warehouse_of
from facturador.store.models import ITEM_ORDER, ITEM_STOCKS, ITEMS, WAREHOUSES
from facturador.store.search import contains, gather, search_text
from facturador.store.search import escape_like as escape_like  # quotations search with it
from sunat import catalogs
from sunat.money import fmt2, fmt_fixed

CURRENCY_SYMBOLS = {"PEN": "S/", "USD": "$"}
INTERNAL_ID = Text(
    "Código interno del producto (único; el codigo_interno de los comprobantes).",
    required=True,
    max_length=30,
)
DESCRIPTION = Text("Descripción.", required=True, max_length=500)
SALE_PRICE = Number(
    "Precio unitario de venta (con IGV si has_igv).", required=True, decimals=6, minimum="positive"
)
PRICE = Number(decimals=6)
STOCK = Number(integer_digits=12, decimals=4)
UNIT = Code("Unidad de medida.", codes=catalogs.UNITS, catalog="catálogo 03", upper=True)
AFFECTATION = Code("Tipo de afectación del IGV.", codes=catalogs.AFFECTATIONS, catalog="catálogo 07")

PRICE_LIST_ENTRY = Object(
    name="ItemUnitType",
    description="Una presentación del producto con sus precios.",
    fields={
        "description": Text("Descripción de la presentación.", max_length=255),
        "unit_type_id": UNIT.but(required=True),
        "quantity_unit": Number(
            "Unidades del producto en la presentación.", decimals=4, minimum="positive", required=True
        ),
        "price1": PRICE.but(description="Precio 1."),
        "price2": PRICE.but(description="Precio 2."),
        "price3": PRICE.but(description="Precio 3."),
        "price_default": Code("El precio por defecto: 1, 2 o 3.", codes=("1", "2", "3")),
    },
)
ITEM_BODY = Object(
    name="ItemBody",
    description="Un producto (claves internas del servicio real).",
    required=True,
    fields={
        "internal_id": INTERNAL_ID,
        "description": DESCRIPTION,
        "name": Text("Nombre.", max_length=500),
        "second_name": Text("Nombre secundario.", max_length=500),
        "item_code": Text("Código de producto SUNAT (catálogo 25).", max_length=250),
        "item_code_gs1": Text("Código GS1.", max_length=100),
        "barcode": Text("Código de barras.", max_length=150),
        "model": Text("Modelo.", max_length=100),
        "brand": Text("Marca.", max_length=100),
        "category": Text("Categoría.", max_length=100),
        "unit_type_id": UNIT.but(required=True),
        "currency_type_id": Code(
            "Moneda.", required=True, codes=catalogs.CURRENCIES, catalog="ISO 4217", upper=True
        ),
        "sale_unit_price": SALE_PRICE,
        "purchase_unit_price": PRICE.but(description="Precio unitario de compra."),
        "sale_affectation_igv_type_id": AFFECTATION.but(required=True),
        "purchase_affectation_igv_type_id": AFFECTATION,
        "has_igv": Boolean("El precio de venta incluye IGV.", fallback=True),
        "calculate_quantity": Boolean("Calcular la cantidad desde el total."),
        "is_set": Boolean("Es un conjunto de productos."),
        "stock": STOCK.but(description="Stock inicial en el almacén del usuario."),
        "stock_min": STOCK.but(description="Stock mínimo."),
        "item_unit_types": List(item=PRICE_LIST_ENTRY, max_items=50, description="Lista de precios."),
    },
)
#: What ``POST /api/items/{id}/update`` writes (the real services write only these).
ITEM_UPDATE_BODY = Object(
    name="ItemUpdateBody",
    description="Los campos de un producto que se pueden editar.",
    required=True,
    fields={
        "internal_id": INTERNAL_ID,
        "description": DESCRIPTION,
        "sale_unit_price": SALE_PRICE,
        "stock_min": STOCK.but(description="Stock mínimo.", required=True),
        "barcode": Text("Código de barras.", max_length=150),
        "model": Text("Modelo.", max_length=100),
        "has_igv": Boolean("El precio de venta incluye IGV.", fallback=True),
        "item_code": Text("Código de producto SUNAT (catálogo 25).", max_length=250),
    },
)
SEARCH_LIMIT = 20


def item_row(row: Any, warehouses: list[dict[str, Any]]) -> dict[str, Any]:
    """A product as the real services answer it, with its stock per warehouse and price list: every key
    of a real ``search-items`` row (P9 ``MobileController::searchItems``), those this service has no data
    for with the real defaults (``brand_id``, ``category_id``, ``image`` null; no lots, no ISC)."""
    stock = sum((Decimal(w["stock"]) for w in warehouses), Decimal(0))
    return {
        "id": row.id,
        "item_id": row.id,
        "name": row.name or None,
        "full_description": f"{row.internal_id} - {row.description}",
        "description": row.description,
        "currency_type_id": row.currency_type_id,
        "currency_type_symbol": CURRENCY_SYMBOLS.get(row.currency_type_id, row.currency_type_id),
        "internal_id": row.internal_id,
        "item_code": row.item_code or None,
        "barcode": row.barcode,
        "model": row.model,
        # brands and categories are names here; the real rows also carry their ids (null when none)
        "brand_id": None,
        "brand": row.brand,
        "category_id": None,
        "category": row.category,
        "image": None,  # the real rows give the picture's URL; this service keeps no pictures
        "lots": [],
        "has_isc": False,
        "system_isc_type_id": None,
        "percentage_isc": "0.00",
        "favorite": False,
        "sale_unit_price": fmt2(row.sale_unit_price),
        "purchase_unit_price": fmt_fixed(row.purchase_unit_price, 6),
        "unit_type_id": row.unit_type_id,
        "sale_affectation_igv_type_id": row.sale_affectation_igv_type_id,
        "purchase_affectation_igv_type_id": row.purchase_affectation_igv_type_id,
        "calculate_quantity": bool(row.calculate_quantity),
        "has_igv": bool(row.has_igv),
        "is_set": bool(row.is_set),
        "aux_quantity": 1,
        "stock_min": fmt_fixed(row.stock_min, 4),
        "stock": float(stock),
        "warehouses": warehouses,
        "item_unit_types": list(row.item_unit_types or []),
    }


def _price_list(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "id": index,
            "description": entry["description"],
            "unit_type_id": entry["unit_type_id"],
            "quantity_unit": str(entry["quantity_unit"]),
            "price1": fmt2(entry["price1"] or 0),
            "price2": fmt2(entry["price2"] or 0),
            "price3": fmt2(entry["price3"] or 0),
            "price_default": int(entry["price_default"] or 2),
        }
        for index, entry in enumerate(entries, start=1)
    ]


class ItemService:
    """Registers, edits and searches a tenant's products."""

    def __init__(self, context: ServiceContext):
        self.context = context

    def create(self, tenant: TenantInfo, caller: Caller, body: Any) -> dict[str, Any]:
        """``POST /api/item``: a new product; a positive ``stock`` enters the user's warehouse."""
        values = ITEM_BODY.read_body(body)
        initial = values.pop("stock") or Decimal(0)
        values["item_unit_types"] = _price_list(values["item_unit_types"])
        values["purchase_unit_price"] = values["purchase_unit_price"] or Decimal(0)
        values["purchase_affectation_igv_type_id"] = values["purchase_affectation_igv_type_id"] or "10"
        values["stock_min"] = values["stock_min"] or Decimal(0)
        with self.context.writing() as connection:
            self._check_unique(connection, tenant.id, values["internal_id"], None)
            item_id = connection.execute(
                ITEMS.insert().values(tenant_id=tenant.id, item_type_id="01", **values).returning(ITEMS.c.id)
            ).scalar_one()
            warehouse_id = warehouse_of(connection, tenant.id, caller.establishment_id)
            if initial > 0:
                move_stock(
                    connection,
                    tenant_id=tenant.id,
                    item_id=item_id,
                    warehouse_id=warehouse_id,
                    quantity=initial,
                    description="Stock inicial",
                    transaction_id="16",
                )
        return self.get(tenant, item_id)

    def update(self, tenant: TenantInfo, item_id: int, body: Any) -> dict[str, Any]:
        """``POST /api/items/{id}/update``: only the editable fields; 404 for an unknown id."""
        values = ITEM_UPDATE_BODY.read_body(body)
        with self.context.writing() as connection:
            self._require(connection, tenant.id, item_id)
            self._check_unique(connection, tenant.id, values["internal_id"], item_id)
            connection.execute(
                ITEMS.update()
                .where(ITEMS.c.id == item_id)
                .values(
                    **values,
                    search_text=search_text(values["description"], values["internal_id"]),
                    updated_at=func.now(),
                )
            )
        return self.get(tenant, item_id)

    @staticmethod
    def _require(connection: Connection, tenant_id: int, item_id: int) -> None:
        found = connection.scalar(
            select(ITEMS.c.id).where(ITEMS.c.tenant_id == tenant_id, ITEMS.c.id == item_id)
        )
        if found is None:
            raise not_found(f"No existe el producto con id {item_id}.", "ITEM_NOT_FOUND", "id")

    @staticmethod
    def _check_unique(connection: Connection, tenant_id: int, internal_id: str, own_id: int | None) -> None:
        query = select(ITEMS.c.id).where(ITEMS.c.tenant_id == tenant_id, ITEMS.c.internal_id == internal_id)
        if own_id is not None:
            query = query.where(ITEMS.c.id != own_id)
        if connection.scalar(query) is not None:
            message = f"El código interno {internal_id} ya ha sido registrado."
            raise ServiceError(422, message, "DUPLICATE_ITEM", [FieldError("internal_id", message)])

    def get(self, tenant: TenantInfo, item_id: int) -> dict[str, Any]:
        """One product of the tenant with its warehouses; 404 when it is not the tenant's."""
        with self.context.engine.connect() as connection:
            row = connection.execute(
                select(ITEMS).where(ITEMS.c.tenant_id == tenant.id, ITEMS.c.id == item_id)
            ).one_or_none()
            if row is None:
                raise not_found(f"No existe el producto con id {item_id}.", "ITEM_NOT_FOUND", "id")
            stocks = self._warehouses(connection, tenant.id, [item_id])
        return item_row(row, stocks[item_id])

    def search(
        self, tenant: TenantInfo, text: str, limit: int = SEARCH_LIMIT, page: int = 1
    ) -> list[dict[str, Any]]:
        """Active products whose description or internal code contains ``text`` (accents and case aside,
        see facturador.store.search), by description: the ``page``-th ``limit`` of them."""
        order = ITEM_ORDER  # the description's first 200 characters, then the id: a total order
        active = ITEMS.c.active.is_(True)
        offset = (page - 1) * limit
        with self.context.engine.connect() as connection:
            # SQLite's walk reads search_text from ix_items_search, never a row: it needs no gathering
            gathering = text and connection.dialect.name != "sqlite"
            found = (
                gather(connection, ITEMS, tenant.id, active, text, order, limit, offset)
                if gathering
                else None
            )
            if found is not None:  # few matches, gathered and ordered
                ids = found.ids
            else:  # no text, or matches everywhere: the ordered index is walked until a page is full
                condition = (ITEMS.c.tenant_id == tenant.id) & active
                if text:
                    condition &= contains(ITEMS.c.search_text, text)
                ids = list(
                    connection.scalars(
                        select(ITEMS.c.id).where(condition).order_by(*order).limit(limit).offset(offset)
                    )
                )
            rows = connection.execute(select(ITEMS).where(ITEMS.c.id.in_(ids)).order_by(*order)).all()
            stocks = self._warehouses(connection, tenant.id, [row.id for row in rows])
        return [item_row(row, stocks[row.id]) for row in rows]

    @staticmethod
    def _warehouses(
        connection: Connection, tenant_id: int, item_ids: list[int]
    ) -> dict[int, list[dict[str, Any]]]:
        """Each item's stock in each of the tenant's warehouses (0 where it never moved)."""
        warehouses = connection.execute(
            select(WAREHOUSES.c.id, WAREHOUSES.c.description)
            .where(WAREHOUSES.c.tenant_id == tenant_id)
            .order_by(WAREHOUSES.c.id)
        ).all()
        stock: dict[tuple[int, int], Decimal] = {}
        if item_ids:
            for item_id, warehouse_id, amount in connection.execute(
                select(ITEM_STOCKS.c.item_id, ITEM_STOCKS.c.warehouse_id, ITEM_STOCKS.c.stock).where(
                    ITEM_STOCKS.c.item_id.in_(item_ids)
                )
            ):
                stock[(item_id, warehouse_id)] = Decimal(amount)
        found: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for item_id in item_ids:
            found[item_id] = [
                {
                    "warehouse_id": warehouse.id,
                    "warehouse_description": warehouse.description,
                    "stock": f"{stock.get((item_id, warehouse.id), Decimal(0)):.4f}",
                }
                for warehouse in warehouses
            ]
        return found
