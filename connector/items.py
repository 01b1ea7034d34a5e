"""``client.items``: products and services (``POST /api/item``, ``POST /api/items/{id}/update``,
``GET /api/document/search-items``).

:meth:`ItemsResource.create` registers one through the family's plugin pipeline (``facturador_issued``
gets the :class:`Product`); :meth:`~ItemsResource.search` finds the first few, :meth:`~ItemsResource.list`
every one, both as a :class:`~connector.lists.RecordList` (``.to_dataframe()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar
from urllib.parse import urlencode

from connector.http import Connection
from connector.lists import RecordList
from connector.parsing import data_of, parse_bool, parse_decimal, text
from connector.resources import Resource

__all__ = ["PRODUCT_COLUMNS", "ItemsResource", "Product", "WarehouseStock"]

#: The most products a search page answers (this service's ``limit``).
PAGE_SIZE = 100


@dataclass(frozen=True)
class WarehouseStock:
    """A product's stock in one warehouse."""

    warehouse_id: int
    description: str
    stock: Decimal


@dataclass(frozen=True)
class Product:
    """A product as the service answers it; ``id`` is its ``item_id``."""

    id: int
    code: str
    description: str
    unit: str
    currency: str
    sale_price: Decimal
    affectation: str
    stock: Decimal
    warehouses: tuple[WarehouseStock, ...] = ()
    price_list: tuple[dict[str, Any], ...] = ()
    has_igv: bool = True
    #: The purchase (cost) price, ``0`` when the service does not say.
    purchase_price: Decimal = Decimal(0)
    #: The row as the service answered it (real tenants' ``search-items`` row: what a sale note's line
    #: carries as its ``item``).
    row: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Product:
        """Build from an answer's ``data`` or a search's item."""
        warehouses = tuple(
            WarehouseStock(
                warehouse_id=int(w["warehouse_id"]),
                description=text(w.get("warehouse_description")),
                stock=parse_decimal(w.get("stock")),
            )
            for w in row.get("warehouses") or []
            if isinstance(w, Mapping)
        )
        return cls(
            id=int(row["id"]),
            code=text(row.get("internal_id")),
            description=text(row.get("description")),
            unit=text(row.get("unit_type_id")),
            currency=text(row.get("currency_type_id")),
            sale_price=parse_decimal(row.get("sale_unit_price")),
            affectation=text(row.get("sale_affectation_igv_type_id")),
            stock=parse_decimal(row.get("stock")),
            warehouses=warehouses,
            price_list=tuple(dict(p) for p in row.get("item_unit_types") or [] if isinstance(p, Mapping)),
            has_igv=parse_bool(row.get("has_igv", True)),
            purchase_price=parse_decimal(row.get("purchase_unit_price")),
            row=dict(row),
        )


#: The columns of a list of products as a DataFrame.
PRODUCT_COLUMNS = ("id", "code", "description", "unit", "currency", "sale_price", "affectation", "stock")


class ItemsResource(Resource):
    """Products: :meth:`create`, :meth:`update`, :meth:`search` (with stock per warehouse), :meth:`list`."""

    family: ClassVar[str] = "items"

    def create(
        self,
        *,
        code: str,
        description: str,
        sale_price: Decimal | float | int | str,
        unit: str = "NIU",
        currency: str = "PEN",
        affectation: str = "10",
        stock: Decimal | float | int | str = 0,
        form_values: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> Product:
        """Register a product with its initial ``stock`` in the user's warehouse; ``fields`` are other keys
        of the service's item (``purchase_unit_price``, ``stock_min``, ``barcode``, ``item_unit_types`` ...).

        :raises ValidationError: a duplicate code, a price not above 0, or plugins found problems.
        """
        payload = {
            "internal_id": code,
            "description": description,
            "unit_type_id": unit,
            "currency_type_id": currency,
            "sale_unit_price": str(sale_price),
            "sale_affectation_igv_type_id": affectation,
            "purchase_affectation_igv_type_id": affectation,
            "stock": str(stock),
            **fields,
        }
        return self._submit(
            "/api/item",
            payload,
            lambda reply: Product.from_row(data_of(reply.body, reply.url)),
            form_values=form_values,
            changes=(self.lists_tag,),
        )

    def update(
        self,
        item_id: int,
        *,
        code: str,
        description: str,
        sale_price: Decimal | float | int | str,
        stock_min: Decimal | float | int | str = 0,
        **fields: Any,
    ) -> Product:
        """Edit a product (only what real tenants let an edit write: code, description, price, minimum
        stock, ``barcode``, ``model``, ``has_igv``, ``item_code``); runs no hook.

        :raises NotFoundError: no product ``item_id`` in this tenant.
        """
        payload = {
            "internal_id": code,
            "description": description,
            "sale_unit_price": str(sale_price),
            "stock_min": str(stock_min),
            **fields,
        }
        response = self._http.post(f"/api/items/{int(item_id)}/update", payload)
        self._http.invalidate(self.lists_tag)
        return Product.from_row(data_of(Connection.json(response), response.url))

    def search(self, search: str = "", *, limit: int = 20, fresh: bool = False) -> RecordList[Product]:
        """Products whose description or code contains ``search`` (at most ``limit``, by description)."""
        return self._page(search, limit=limit, fresh=fresh)

    def list(self, search: str = "", *, fresh: bool = False) -> RecordList[Product]:
        """Every product whose description or code contains ``search``, a page of 100 at a time (this
        service's ``page``); ``complete`` is False when the tenant ignored ``page`` (real tenants answer
        the first 100 to every page) and may hold more."""
        products: RecordList[Product] = RecordList(columns=PRODUCT_COLUMNS)
        seen: set[int] = set()
        for page in range(1, 100_001):
            found = self._page(search, limit=PAGE_SIZE, fresh=fresh, page=page)
            if found and found[0].id in seen:  # the same page again: the tenant does not page
                products.complete = False
                products.note = f"La empresa devolvió solo sus primeros {PAGE_SIZE} productos."
                break
            products.extend(found)
            seen.update(product.id for product in found)
            if len(found) < PAGE_SIZE:
                break
        return products

    def _page(self, search: str, *, limit: int, fresh: bool, page: int | None = None) -> RecordList[Product]:
        query = {"input": search, "limit": int(limit), **({"page": page} if page is not None else {})}
        response = self._http.get(
            f"/api/document/search-items?{urlencode(query)}", fresh=fresh, tag=self.lists_tag
        )
        data = data_of(Connection.json(response), response.url)
        found = (Product.from_row(row) for row in data.get("items") or [] if isinstance(row, Mapping))
        return RecordList(found, columns=PRODUCT_COLUMNS)
