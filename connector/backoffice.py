"""The commercial back office families: ``client.persons``, ``client.items``, ``client.inventory``,
``client.sale_notes`` and ``client.quotations`` (reference §8.4-8.5, §8.14-8.19).

Every method that creates something runs the plugin hooks of its family, as documents do:
``facturador_prepare_payload`` → ``facturador_validate_payload`` (problems: a
:class:`~connector.errors.ValidationError`, nothing sent) → ``POST`` (never retried) →
``facturador_issued`` with the typed answer. Lists are typed records (and DataFrames); paginated lists
follow ``links.next`` until the last page. Sale notes and quotations are built from lines whose amounts
``sunat.totals`` computes (:class:`SaleNote`, :class:`Quotation`), so the service's checks pass.

Sale notes and quotations name customers and products by their ids on the service (``customer_id``,
``item_id``): :meth:`PersonsResource.save` and :meth:`ItemsResource.create` answer them, and
:meth:`PersonsResource.records` / :meth:`ItemsResource.search` find them; or give a
:class:`~connector.builders.Customer` and lines with a ``code`` and the service creates what is new.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self, TypeVar
from urllib.parse import urlencode

from connector.builders import Customer, money, unit
from connector.errors import ConflictError, NotOfferedError, ServerError, ValidationError
from connector.http import DOCUMENT_LISTS_TAG, Connection
from connector.models import IssueResult
from connector.parsing import parse_bool, parse_date, parse_decimal, split_number
from connector.person_types import classify
from connector.resources import (
    InventoryResource as _InventoryFamily,
)
from connector.resources import (
    ItemsResource as _ItemsFamily,
)
from connector.resources import (
    PersonsResource as _PersonsFamily,
)
from connector.resources import (
    QuotationsResource as _QuotationsFamily,
)
from connector.resources import (
    Resource,
    offered,
)
from connector.resources import (
    SaleNotesResource as _SaleNotesFamily,
)
from sunat import catalogs
from sunat.calendar import peru_now, peru_today
from sunat.money import to_decimal
from sunat.rates import IGV_PERCENT, icbper_rate
from sunat.totals import DocumentTotals, LineAmounts, compute_line, compute_totals

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "InventoryResource",
    "ItemsResource",
    "KardexMove",
    "NoteLine",
    "Person",
    "PersonsResource",
    "Product",
    "Quotation",
    "QuotationRecord",
    "QuotationRef",
    "QuotationsResource",
    "SaleNote",
    "SaleNoteRecord",
    "SaleNoteRef",
    "SaleNoteSeries",
    "SaleNotesResource",
    "Listing",
    "WarehouseStock",
]

PersonType = Literal["customers", "suppliers"]
R = TypeVar("R", bound="_Numbered")
#: The most pages a list follows (a safety stop against a service whose ``next`` never ends).
MAX_PAGES = 10_000


def _create(
    resource: Resource,
    path: str,
    payload: Mapping[str, Any],
    form_values: Mapping[str, Any] | None,
    *,
    check: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run the family's hooks, ``POST`` the final payload and return it with the answer's JSON
    (``check``: see :meth:`Connection.post`)."""
    plugins = resource._plugins
    body = plugins.prepare_payload(resource.family, dict(payload), dict(form_values or {}))
    problems = plugins.validate_payload(resource.family, body)
    if problems:
        more = f" (y {len(problems) - 1} problema(s) más)" if len(problems) > 1 else ""
        raise ValidationError(
            f"No se envió la solicitud: {problems[0].message}{more}",
            error_code="PLUGIN_VALIDATION",
            field_errors=problems,
            body=None,
        )
    response = resource._http.post(path, body, check=check)
    return body, Connection.json(response)


def _data(answer: Mapping[str, Any], url: str = "") -> Mapping[str, Any]:
    data = answer.get("data")
    if not isinstance(data, Mapping):
        raise ServerError("La respuesta del servicio no trae 'data'.", body=dict(answer), url=url)
    return data


def _rows_of(body: Any, url: str) -> list[Mapping[str, Any]]:
    """The rows of a list answer: ``{"data": [...]}``, or the bare array some real endpoints return."""
    rows = body.get("data") if isinstance(body, Mapping) else body
    if not isinstance(rows, list):
        raise ServerError("La lista del servicio no trae 'data'.", body=body, url=url)
    return [row for row in rows if isinstance(row, Mapping)]


def _pages(
    transport: Connection, path: str, *, tag: str, fresh: bool, what: str = "la lista"
) -> Iterator[Mapping[str, Any]]:
    """The rows of a paginated list, page after page. The page URLs are built here (``page=N`` added to
    the query of ``path``): real tenants' ``links.next`` drops the query (their controllers never
    ``appends`` it to Laravel's paginator), so following it would walk another list. Stops after
    ``meta.last_page`` (or when ``links.next`` is empty), telling ``progress`` of long walks."""
    joiner = "&" if "?" in path else "?"
    last: int | None = None
    for page in range(1, MAX_PAGES + 1):
        relative = f"{path}{joiner}page={page}"
        if last is not None and last > 2:
            transport.say(f"Leyendo {what}: página {page} de {last}.")
        body = Connection.json(transport.get(relative, fresh=fresh, tag=tag))
        yield from _rows_of(body, transport.url(relative))
        meta, links = body.get("meta"), body.get("links")
        if isinstance(meta, Mapping) and meta.get("last_page") is not None:
            last = int(meta["last_page"])
            if page >= last:
                return
        elif not (isinstance(links, Mapping) and links.get("next")):
            return


def _frame(records: Sequence[Any], columns: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    rows = [{key: value for key, value in asdict(record).items() if key in columns} for record in records]
    return pd.DataFrame(rows, columns=list(columns))


def _text(value: Any) -> str:
    return "" if value is None else str(value)


# -- persons --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Person:
    """A customer or supplier as the service lists it; ``id`` is its ``customer_id``; ``type`` is
    ``customers`` or ``suppliers`` (``""`` when the answer does not say)."""

    id: int
    number: str
    name: str
    identity_type: str
    identity_code: str
    address: str = ""
    email: str = ""
    telephone: str = ""
    country: str = "PE"
    district: str = ""
    enabled: bool = True
    type: str = ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any], *, person_type: str = "") -> Person:
        return cls(
            id=int(row["id"]),
            number=_text(row.get("number")),
            name=_text(row.get("name")),
            identity_type=_text(row.get("identity_document_type_id")),
            identity_code=_text(row.get("identity_document_type_code")),
            address=_text(row.get("address")),
            email=_text(row.get("email")),
            telephone=_text(row.get("telephone")),
            country=_text(row.get("country_id")) or "PE",
            district=_text(row.get("district_id")),
            enabled=parse_bool(row.get("enabled", True)),
            type=person_type or _text(row.get("type")),
        )


PERSON_COLUMNS = ("id", "number", "name", "identity_type", "address", "email", "telephone", "district")


class _PersonSearches:
    """The customers' and suppliers' searches of a real tenant (see :mod:`connector.person_types`),
    each text asked once."""

    def __init__(self, transport: Connection, fresh: bool) -> None:
        self._http, self._fresh = transport, fresh
        self._rows: dict[tuple[str, str], list[Mapping[str, Any]]] = {}

    def rows(self, which: str, text: str) -> list[Mapping[str, Any]]:
        key = (which, text)
        if key not in self._rows:
            path = (
                "/api/document/search-customers"
                if which == "customers"
                else "/api/purchases/search-suppliers"
            )
            relative = f"{path}?{urlencode({'input': text})}"
            body = Connection.parse(self._http.get(relative, fresh=self._fresh, tag="persons.lists"))
            if isinstance(body, Mapping) and isinstance(body.get("data"), Mapping):
                body = body["data"].get("customers")  # {"success", "data": {"customers": [...]}}
            self._rows[key] = _rows_of(body, self._http.url(relative))
        return self._rows[key]

    def customers(self, text: str) -> set[int]:
        return {int(row["id"]) for row in self.rows("customers", text)}

    def suppliers(self, text: str) -> set[int]:
        return {int(row["id"]) for row in self.rows("suppliers", text)}


class PersonsResource(_PersonsFamily):
    """Customers and suppliers: :meth:`save` (create, or edit with ``person_id``), :meth:`records`
    (every page, of the type asked), :meth:`frame`."""

    def save(
        self,
        *,
        number: str,
        name: str,
        identity_type: str,
        person_type: PersonType = "customers",
        country: str = "PE",
        person_id: int | None = None,
        form_values: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> Person:
        """Register a person (or edit person ``person_id``); ``fields`` are other keys of §8.15
        (``address``, ``email``, ``telephone``, ``district_id``, ``trade_name`` ...).

        Real tenants' ``POST /api/person`` always registers a new person (``id`` is not fillable), so
        an edit goes to their ``POST /api/persons/update`` (Pro9, Tukifac); pro5 has none.

        :raises ValidationError: a duplicate number or name of the type, a bad identity number, or
            plugins found problems (nothing sent).
        :raises NotOfferedError: an edit on a tenant without ``/api/persons/update``.
        """
        payload: dict[str, Any] = {
            "type": person_type,
            "identity_document_type_id": identity_type,
            "number": number,
            "name": name,
            "country_id": country,
            **fields,
        }
        if person_id is not None:
            payload["id"] = person_id
        if person_id is not None and self._http.is_laravel():
            with offered("la edición de clientes y proveedores"):
                body, answer = _create(self, "/api/persons/update", payload, form_values)
            result = Person.from_row(payload, person_type=person_type)  # the answer has no data
        else:
            body, answer = _create(self, "/api/person", payload, form_values)
            result = Person.from_row(_data(answer), person_type=person_type)
        self._http.invalidate(f"{self.family}.lists")
        self._plugins.issued(self.family, body, result)
        return result

    def records(
        self, person_type: PersonType = "customers", search: str = "", *, fresh: bool = False
    ) -> list[Person]:
        """Every person of the type whose name or number contains ``search`` (all pages, by name).

        Real tenants answer persons of both types when the name matches, without saying which:
        :mod:`connector.person_types` tells them apart (a few more searches). pro5 has no paginated
        list: its customers' and suppliers' searches give the candidates."""
        query = f"?{urlencode({'input': search})}" if search else ""
        path = f"/api/persons/{person_type}/records{query}"
        label = "la lista de clientes" if person_type == "customers" else "la lista de proveedores"
        if not self._http.is_laravel():  # this service filters by type itself
            rows = _pages(self._http, path, tag=f"{self.family}.lists", fresh=fresh, what=label)
            return [Person.from_row(row, person_type=person_type) for row in rows]
        searches = _PersonSearches(self._http, fresh)
        try:
            with offered(label):
                candidates = list(
                    _pages(self._http, path, tag=f"{self.family}.lists", fresh=fresh, what=label)
                )
        except NotOfferedError:
            candidates = list(
                {
                    int(row["id"]): row
                    for row in (*searches.rows("customers", search), *searches.rows("suppliers", search))
                }.values()
            )
            candidates.sort(key=lambda row: _text(row.get("name")))
        types = classify(candidates, search, searches.customers, searches.suppliers)
        return [
            Person.from_row(row, person_type=person_type)
            for row in candidates
            if types.get(int(row["id"])) == person_type
        ]

    def frame(self, person_type: PersonType = "customers", search: str = "") -> pd.DataFrame:
        """:meth:`records` as a DataFrame (columns :data:`PERSON_COLUMNS`)."""
        return _frame(self.records(person_type, search), PERSON_COLUMNS)


# -- items ----------------------------------------------------------------------------------------


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

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Product:
        warehouses = tuple(
            WarehouseStock(
                warehouse_id=int(w["warehouse_id"]),
                description=_text(w.get("warehouse_description")),
                stock=parse_decimal(w.get("stock")),
            )
            for w in row.get("warehouses") or []
            if isinstance(w, Mapping)
        )
        return cls(
            id=int(row["id"]),
            code=_text(row.get("internal_id")),
            description=_text(row.get("description")),
            unit=_text(row.get("unit_type_id")),
            currency=_text(row.get("currency_type_id")),
            sale_price=parse_decimal(row.get("sale_unit_price")),
            affectation=_text(row.get("sale_affectation_igv_type_id")),
            stock=parse_decimal(row.get("stock")),
            warehouses=warehouses,
            price_list=tuple(dict(p) for p in row.get("item_unit_types") or [] if isinstance(p, Mapping)),
            has_igv=parse_bool(row.get("has_igv", True)),
            purchase_price=parse_decimal(row.get("purchase_unit_price")),
        )


PRODUCT_COLUMNS = ("id", "code", "description", "unit", "currency", "sale_price", "affectation", "stock")


class ItemsResource(_ItemsFamily):
    """Products: :meth:`create`, :meth:`update`, :meth:`search` (with stock per warehouse), :meth:`frame`."""

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
        """Register a product with its initial ``stock`` in the user's warehouse; ``fields`` are other
        keys of §8.18 (``purchase_unit_price``, ``stock_min``, ``barcode``, ``item_unit_types`` ...).

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
        body, answer = _create(self, "/api/item", payload, form_values)
        result = Product.from_row(_data(answer))
        self._http.invalidate(f"{self.family}.lists")
        self._plugins.issued(self.family, body, result)
        return result

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
        """Edit a product (only what §8.18 lets real tenants write: code, description, price, minimum
        stock, ``barcode``, ``model``, ``has_igv``, ``item_code``).

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
        self._http.invalidate(f"{self.family}.lists")
        return Product.from_row(_data(Connection.json(response)))

    def search(self, text: str = "", *, limit: int = 20, fresh: bool = False) -> list[Product]:
        """Products whose description or code contains ``text`` (at most ``limit``, by description)."""
        response = self._http.get(
            f"/api/document/search-items?{urlencode({'input': text, 'limit': int(limit)})}",
            fresh=fresh,
            tag=f"{self.family}.lists",
        )
        data = _data(Connection.json(response), response.url)
        return [Product.from_row(row) for row in data.get("items") or [] if isinstance(row, Mapping)]

    def every(self, text: str = "", *, fresh: bool = False) -> tuple[list[Product], bool]:
        """Every product whose description or code contains ``text``, a page of 100 at a time (this
        service's ``page``), and whether that is all of them: ``False`` when the tenant ignored ``page``
        (real tenants answer the first 100 to every page) and may hold more."""
        products: list[Product] = []
        seen: set[int] = set()
        for page in range(1, 100_001):
            response = self._http.get(
                f"/api/document/search-items?{urlencode({'input': text, 'limit': 100, 'page': page})}",
                fresh=fresh,
                tag=f"{self.family}.lists",
            )
            data = _data(Connection.json(response), response.url)
            found = [Product.from_row(row) for row in data.get("items") or [] if isinstance(row, Mapping)]
            if found and found[0].id in seen:  # the same page again: the tenant does not page
                return products, False
            products.extend(found)
            seen.update(product.id for product in found)
            if len(found) < 100:
                break
        return products, True

    def frame(self, text: str = "", *, limit: int = 100) -> pd.DataFrame:
        """:meth:`search` as a DataFrame (columns :data:`PRODUCT_COLUMNS`)."""
        return _frame(self.search(text, limit=limit), PRODUCT_COLUMNS)


# -- inventory ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KardexMove:
    """One move of a product's kardex: ``quantity`` positive for an input, negative for an output."""

    id: int
    type: str
    transaction: str
    transaction_description: str
    quantity: Decimal
    balance: Decimal
    description: str
    warehouse_id: int
    document_id: int | None = None
    sale_note_id: int | None = None
    date: str = ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> KardexMove:
        return cls(
            id=int(row["id"]),
            type=_text(row.get("type")),
            transaction=_text(row.get("inventory_transaction_id")),
            transaction_description=_text(row.get("inventory_transaction_description")),
            quantity=parse_decimal(row.get("quantity")),
            balance=parse_decimal(row.get("balance")),
            description=_text(row.get("description")),
            warehouse_id=int(row.get("warehouse_id") or 0),
            document_id=row.get("document_id"),
            sale_note_id=row.get("sale_note_id"),
            date=_text(row.get("date")),
        )


KARDEX_COLUMNS = ("id", "date", "type", "transaction", "quantity", "balance", "description")


class InventoryResource(_InventoryFamily):
    """Stock inputs and outputs (:meth:`add`, :meth:`remove`) and the kardex of a product."""

    def _move(
        self,
        kind: str,
        code: str,
        quantity: Decimal | float | int | str,
        transaction: str,
        warehouse_id: int | None,
        form_values: Mapping[str, Any] | None,
    ) -> str:
        payload: dict[str, Any] = {
            "type": kind,
            "inventory_transaction_id": transaction,
            "item_code": code,
            "quantity": str(quantity),
        }
        if warehouse_id is not None:
            payload["warehouse_id"] = warehouse_id
        body, answer = _create(self, "/api/inventory/transaction", payload, form_values)
        if answer.get("success") is False:  # real tenants answer refusals with HTTP 200
            raise ValidationError(_text(answer.get("message")), error_code="INVENTORY_REFUSED", body=answer)
        message = _text(answer.get("message"))
        self._http.invalidate("items.lists")
        self._http.invalidate(f"{self.family}.lists")
        self._plugins.issued(self.family, body, message)
        return message

    def add(
        self,
        code: str,
        quantity: Decimal | float | int | str,
        *,
        transaction: str = "02",
        warehouse_id: int | None = None,
        form_values: Mapping[str, Any] | None = None,
    ) -> str:
        """Put ``quantity`` of product ``code`` into the warehouse (an input type of
        ``sunat.catalogs.INVENTORY_INPUT_TYPES``; ``02`` purchase by default); the service's message."""
        if transaction not in catalogs.INVENTORY_INPUT_TYPES:
            raise ValueError(f"{transaction!r} is not an input operation type")
        return self._move("input", code, quantity, transaction, warehouse_id, form_values)

    def remove(
        self,
        code: str,
        quantity: Decimal | float | int | str,
        *,
        transaction: str = "01",
        warehouse_id: int | None = None,
        form_values: Mapping[str, Any] | None = None,
    ) -> str:
        """Take ``quantity`` out (an output type, ``01`` sale by default).

        :raises ValidationError: more than the warehouse holds (nothing moves).
        """
        if transaction not in catalogs.INVENTORY_OUTPUT_TYPES:
            raise ValueError(f"{transaction!r} is not an output operation type")
        return self._move("output", code, quantity, transaction, warehouse_id, form_values)

    def kardex(self, item_id: int, *, fresh: bool = False) -> list[KardexMove]:
        """Every move of product ``item_id``, oldest first (all pages; this service only: real tenants
        raise :class:`~connector.errors.NotOfferedError`)."""
        with offered("el kárdex de sus productos"):
            rows = list(
                _pages(
                    self._http,
                    f"/api/items/{int(item_id)}/kardex",
                    tag=f"{self.family}.lists",
                    fresh=fresh,
                    what="el kárdex",
                )
            )
        return [KardexMove.from_row(row) for row in rows]

    def kardex_frame(self, item_id: int) -> pd.DataFrame:
        """:meth:`kardex` as a DataFrame (columns :data:`KARDEX_COLUMNS`)."""
        return _frame(self.kardex(item_id, fresh=True), KARDEX_COLUMNS)


# -- builders of sale notes and quotations --------------------------------------------------------


@dataclass(frozen=True)
class NoteLine:
    """A line of a sale note or quotation: a product by ``item_id`` (see :meth:`ItemsResource.search`),
    or by ``code`` and ``description`` (created when new). Give exactly one of ``unit_price`` (with IGV)
    or ``unit_value``; the amounts come from :func:`sunat.totals.compute_line`."""

    quantity: Decimal | float | int | str
    unit_price: Decimal | float | int | str | None = None
    unit_value: Decimal | float | int | str | None = None
    item_id: int | None = None
    code: str = ""
    description: str = ""
    unit: str = "NIU"
    affectation: str = "10"
    bag_tax: bool = False

    def __post_init__(self) -> None:
        if (self.unit_price is None) == (self.unit_value is None):
            raise ValueError("give exactly one of unit_price or unit_value")
        if self.item_id is None and not (self.code and self.description):
            raise ValueError("a line needs an item_id, or a code and a description")

    def amounts(self, on: dt.date) -> LineAmounts:
        return compute_line(
            self.quantity,
            self.affectation,
            unit_value=self.unit_value,
            unit_price=self.unit_price,
            igv_percent=IGV_PERCENT,
            icbper_rate=icbper_rate(on) if self.bag_tax else Decimal("0"),
        )

    def to_payload(self, amounts: LineAmounts) -> dict[str, Any]:
        free = catalogs.is_free(self.affectation)
        line: dict[str, Any] = {
            "quantity": unit(amounts.quantity),
            "unit_value": unit(amounts.unit_price if free else amounts.unit_value),
            "unit_price": 0 if free else unit(amounts.unit_price),
            "price_type_id": amounts.price_type,
            "affectation_igv_type_id": self.affectation,
            "total_base_igv": money(amounts.igv_base),
            "percentage_igv": unit(amounts.igv_percent),
            "total_igv": money(amounts.igv),
            "total_taxes": money(amounts.taxes),
            "total_value": money(amounts.value),
            "total": money(amounts.total),
            "total_plastic_bag_taxes": money(amounts.icbper),
        }
        # the embedded product goes always: real tenants store it with the line (sale_note_items.item is
        # NOT NULL) and print the note from it; this service reads it only to create a product
        item: dict[str, Any] = {"unit_type_id": self.unit}
        if self.code:
            item["internal_id"] = self.code
        if self.description:
            item["description"] = self.description
        if self.item_id is not None:
            line["item_id"] = self.item_id
        line["item"] = item
        return line


def _now() -> dt.time:
    return peru_now().time().replace(microsecond=0, tzinfo=None)


@dataclass(frozen=True, kw_only=True)
class _Sheet:
    """What sale notes and quotations share: customer (an id, or a :class:`Customer` created when
    new), lines, currency, date and time (today and now in Lima)."""

    lines: Sequence[NoteLine]
    customer_id: int | None = None
    customer: Customer | None = None
    currency: str = "PEN"
    #: Soles per unit of ``currency``; 1 in soles (real tenants' tables require a rate).
    exchange_rate: Decimal | float | int | str | None = None
    issue_date: dt.date = field(default_factory=peru_today)
    issue_time: dt.time = field(default_factory=_now)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if (self.customer_id is None) == (self.customer is None):
            raise ValueError("give exactly one of customer_id or customer")
        if not self.lines:
            raise ValueError("at least one line is needed")

    @property
    def by_ids(self) -> bool:
        """Whether the customer and every product are named by their ids on the service."""
        return self.customer is None and all(line.item_id is not None for line in self.lines)

    def with_ids(self, customer_id: int, item_ids: Sequence[int]) -> Self:
        """The same sheet naming its customer and products by these ids (see :attr:`by_ids`)."""
        lines = [replace(line, item_id=item_id) for line, item_id in zip(self.lines, item_ids, strict=True)]
        return replace(self, customer=None, customer_id=customer_id, lines=lines)

    def line_amounts(self) -> list[LineAmounts]:
        return [line.amounts(self.issue_date) for line in self.lines]

    def totals(self) -> DocumentTotals:
        """Header totals (:func:`sunat.totals.compute_totals`)."""
        return compute_totals(self.line_amounts())

    def to_payload(self) -> dict[str, Any]:
        """The wire payload (internal English keys; a new dict each call)."""
        amounts = self.line_amounts()
        totals = compute_totals(amounts)
        forced = self.customer is not None or any(line.item_id is None for line in self.lines)
        payload: dict[str, Any] = {
            "date_of_issue": self.issue_date.isoformat(),
            "time_of_issue": self.issue_time.strftime("%H:%M:%S"),
            "currency_type_id": self.currency,
            "exchange_rate_sale": unit(to_decimal(self.exchange_rate))
            if self.exchange_rate is not None
            else 1,
            "payments": [],
            "items": [line.to_payload(a) for line, a in zip(self.lines, amounts, strict=True)],
            "total_exportation": money(totals.export),
            "total_taxed": money(totals.taxed),
            "total_unaffected": money(totals.unaffected),
            "total_exonerated": money(totals.exonerated),
            "total_free": money(totals.free),
            "total_igv": money(totals.igv),
            "total_plastic_bag_taxes": money(totals.icbper),
            "total_taxes": money(totals.taxes),
            "total_value": money(totals.value),
            "total": money(totals.total),
        }
        if self.customer_id is not None:
            payload["customer_id"] = self.customer_id
        if self.customer is not None:
            payload["datos_del_cliente_o_receptor"] = self.customer.to_payload()
        if forced:
            payload["force_create_if_not_exist"] = True
        payload.update(self._header())
        payload.update(dict(self.extra))
        return payload

    def _header(self) -> dict[str, Any]:
        return {}


_SheetT = TypeVar("_SheetT", bound=_Sheet)


@dataclass(frozen=True, kw_only=True)
class SaleNote(_Sheet):
    """A sale note on the series ``series_id`` (see :meth:`SaleNotesResource.series`)."""

    series_id: int
    pdf_format: str = "a4"
    #: The quotation the note is made of (a quotation becomes at most one note).
    quotation_id: int | None = None

    def _header(self) -> dict[str, Any]:
        header: dict[str, Any] = {
            "series_id": self.series_id,
            "prefix": "NV",  # sale_notes.prefix is NOT NULL in real tenants (char(2))
            "actions": {"format_pdf": self.pdf_format},
        }
        if self.quotation_id is not None:
            header["quotation_id"] = self.quotation_id
        return header


@dataclass(frozen=True, kw_only=True)
class Quotation(_Sheet):
    """A quotation (``COT-n``)."""

    description: str = ""
    date_of_due: dt.date | None = None
    delivery_date: dt.date | None = None

    def _header(self) -> dict[str, Any]:
        header: dict[str, Any] = {"prefix": "COT", "description": self.description}
        if self.date_of_due is not None:
            header["date_of_due"] = self.date_of_due.isoformat()
        if self.delivery_date is not None:
            header["delivery_date"] = self.delivery_date.isoformat()
        return header


# -- sale notes -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SaleNoteSeries:
    """A sale-note series of the tenant: its ``id`` is a sale note's ``series_id``."""

    id: int
    number: str
    establishment_id: int
    establishment: str = ""


@dataclass(frozen=True)
class SaleNoteRef:
    """An issued sale note: its id (for :meth:`SaleNotesResource.generate_cpe`), number and PDF link."""

    id: int
    number: str
    external_id: str
    filename: str = ""
    pdf_url: str = ""

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> SaleNoteRef:
        data = _data(body)
        links = body.get("links") if isinstance(body.get("links"), Mapping) else {}
        return cls(
            id=int(data["id"]),
            number=_text(data.get("number")),
            external_id=_text(data.get("external_id")),
            filename=_text(data.get("filename")),
            pdf_url=_text(links.get("pdf")),  # type: ignore[union-attr]
        )


def _money(value: Any) -> Decimal:
    """A list amount: a number, or the real services' ``number_format`` text (``1,234.50``)."""
    return parse_decimal(_text(value).replace(",", ""))


def _first(value: Any) -> Mapping[str, Any]:
    return value[0] if isinstance(value, list) and value and isinstance(value[0], Mapping) else {}


@dataclass(frozen=True)
class SaleNoteRecord:
    """A row of the sale-notes list: the note, its totals and the document it became (``document`` is
    that factura's or boleta's number, ``""`` while the note is not converted)."""

    id: int
    number: str
    external_id: str
    date_of_issue: dt.date | None
    customer_id: int | None
    customer_name: str
    customer_number: str
    currency: str
    total_taxed: Decimal
    total_igv: Decimal
    total: Decimal
    document: str = ""
    document_external_id: str = ""
    document_type_id: str = ""
    quotation: str = ""
    lines: tuple[dict[str, Any], ...] = ()
    #: The row as received (every amount, for :func:`connector.sales.sales_of`-style figures).
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def converted(self) -> bool:
        """Whether the note already made its factura or boleta."""
        return bool(self.document)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> SaleNoteRecord:
        made = _first(row.get("documents"))
        model = row.get("sale_note") if isinstance(row.get("sale_note"), Mapping) else {}
        customer_id = row.get("customer_id", model.get("customer_id"))  # type: ignore[union-attr]
        return cls(
            id=int(row["id"]),
            number=_text(row.get("number_full") or row.get("full_number")),
            external_id=_text(row.get("external_id")),
            date_of_issue=parse_date(row.get("date_of_issue")),
            customer_id=int(customer_id) if customer_id not in (None, "") else None,
            customer_name=_text(row.get("customer_name")),
            customer_number=_text(row.get("customer_number")),
            currency=_text(row.get("currency_type_id")),
            total_taxed=_money(row.get("total_taxed")),
            total_igv=_money(row.get("total_igv")),
            total=_money(row.get("total")),
            document=_text(made.get("number_full")),
            document_external_id=_text(made.get("external_id")),
            document_type_id=_text(made.get("document_type_id")),
            quotation=_text(row.get("quotation_number_full")),
            lines=tuple(dict(line) for line in row.get("items") or [] if isinstance(line, Mapping)),
            raw=dict(row),
        )


SALE_NOTE_COLUMNS = (
    "id",
    "number",
    "date_of_issue",
    "customer_name",
    "customer_number",
    "currency",
    "total_taxed",
    "total_igv",
    "total",
    "document",
    "quotation",
)


def _range_query(search: str, start: dt.date | None, end: dt.date | None, **more: Any) -> str:
    if (start is None) != (end is None):
        raise ValueError("give both start and end, or neither")
    params: dict[str, Any] = {"input": search} if search else {}
    if start is not None and end is not None:
        params |= {"start_date": start.isoformat(), "end_date": end.isoformat()}
    params |= {key: value for key, value in more.items() if value}
    return f"?{urlencode(params)}" if params else ""


class Listing(list[R]):
    """Records as a list call found them: ``complete`` is False when the tenant may hold more of those
    asked than it returned, and ``note`` then says, in one sentence, what it returned."""

    def __init__(self, records: Iterable[R] = (), *, complete: bool = True, note: str = "") -> None:
        super().__init__(records)
        self.complete = complete
        self.note = note


class _Numbered(Protocol):
    """A listed record numbered ``PREFIX-N`` (sale notes ``NV01-25``, quotations ``COT-8``)."""

    @property
    def id(self) -> int: ...
    @property
    def number(self) -> str: ...
    @property
    def date_of_issue(self) -> dt.date | None: ...


def _in_range(
    transport: Connection,
    latest: Sequence[R],
    answer: Callable[[str], list[R]],
    start: dt.date,
    end: dt.date,
    *,
    searched: bool,
    what: str,
) -> Listing[R]:
    """The records of ``start``..``end`` from a real tenant's list, which ignores dates and answers only
    its latest: the dates are applied here and, while the oldest answered is not older than ``start``,
    older ones are asked for one number at a time (their lists filter ``input`` by number) within
    :data:`PAGE_BACK_LIMIT` requests. ``answer(text)`` asks the list with ``input=text``."""
    found = {r.id: r for r in latest}
    complete = True
    if latest and not any(r.date_of_issue is not None and r.date_of_issue < start for r in latest):
        complete = not searched and _page_back(transport, found, answer, start, what)
    chosen = sorted(
        (r for r in found.values() if r.date_of_issue is not None and start <= r.date_of_issue <= end),
        key=lambda r: (r.date_of_issue, split_number(r.number)[1] or 0),
        reverse=True,
    )
    note = ""
    if not complete:
        note = (
            f"La empresa devolvió solo sus últimas {len(latest)} {what}, sin filtrar por fecha: se "
            f"muestran las {len(chosen)} emitidas entre el {start:%d/%m/%Y} y el {end:%d/%m/%Y} que están "
            "entre ellas, y puede haber más."
        )
    return Listing(chosen, complete=complete, note=note)


def _page_back(
    transport: Connection, found: dict[int, R], answer: Callable[[str], list[R]], start: dt.date, what: str
) -> bool:
    """Ask for the records numbered below the lowest listed of each prefix, one number a request, until
    one was issued before ``start``; False when the tenant does not filter by number, a number cannot
    be had (a gap, or more newer records share its digits) or the budget ran out."""
    budget = PAGE_BACK_LIMIT
    for prefix in sorted({split_number(r.number)[0] for r in found.values()}):
        numbers = [n for r in found.values() if (n := _number_in(prefix, r)) is not None]
        number = min(numbers, default=0) - 1
        while number > 0:
            if budget == 0:
                return False
            budget -= 1
            transport.say(f"Buscando {what} anteriores: {prefix}-{number}.")
            answered = answer(str(number))
            if answered and not any(str(number) in r.number.rpartition("-")[2] for r in answered):
                return False  # the tenant ignores the number (pro5)
            found.update((r.id, r) for r in answered)
            record = next((r for r in answered if r.number == f"{prefix}-{number}"), None)
            if record is None:
                return False
            if record.date_of_issue is not None and record.date_of_issue < start:
                break
            number -= 1
    return True


def _number_in(prefix: str, record: _Numbered) -> int | None:
    head, number = split_number(record.number)
    return number if head == prefix else None


#: Requests a range of sale notes may spend asking a real tenant for older notes one number at a time.
PAGE_BACK_LIMIT = 120


def _by_ids(resource: Resource, sheet: _SheetT) -> _SheetT:
    """``sheet`` naming its customer and products by ids, registering those that are new: real tenants
    cannot create them with the note (``force_create_if_not_exist`` makes persons without a district
    and products without their code in Pro9; pro5 needs ``full_item``; quotations have no such path)."""
    if sheet.by_ids:
        return sheet
    transport, plugins = resource._http, resource._plugins
    customer_id = sheet.customer_id
    if sheet.customer is not None:
        customer_id = _customer_id(PersonsResource(transport, plugins), sheet.customer)
    items = ItemsResource(transport, plugins)
    item_ids = []
    for line, amounts in zip(sheet.lines, sheet.line_amounts(), strict=True):
        if line.item_id is not None:
            item_ids.append(line.item_id)
            continue
        found = [p for p in items.search(line.code, limit=50, fresh=True) if p.code == line.code]
        product = (
            found[0]
            if found
            else items.create(
                code=line.code,
                description=line.description,
                sale_price=amounts.unit_price,
                unit=line.unit,
                currency=sheet.currency,
                affectation=line.affectation,
            )
        )
        item_ids.append(product.id)
    assert customer_id is not None
    return sheet.with_ids(customer_id, item_ids)


def _customer_id(persons: PersonsResource, customer: Customer) -> int:
    """The id of the customer with this identity number, registered when new."""
    for row in _PersonSearches(persons._http, True).rows("customers", customer.number):
        if _text(row.get("number")) == customer.number and _text(row.get("identity_document_type_id")) in (
            customer.identity_type,
            "",
        ):
            return int(row["id"])
    fields: dict[str, Any] = {
        "address": customer.address,
        "email": customer.email,
        "district_id": customer.ubigeo,
    }
    return persons.save(
        number=customer.number,
        name=customer.name,
        identity_type=customer.identity_type,
        country=customer.country or "PE",
        **{key: value for key, value in fields.items() if value},
    ).id


class SaleNotesResource(_SaleNotesFamily):
    """Sale notes: :meth:`series`, :meth:`issue` (a :class:`SaleNote` or a raw payload), :meth:`list`
    and :meth:`frame`, :meth:`generate_cpe` (its factura or boleta, once) and :meth:`download_pdf`."""

    def series(self) -> list[SaleNoteSeries]:
        """The tenant's sale-note series (NV01 ...); real tenants answer a bare JSON array."""
        response = self._http.get("/api/sale-note/series", fresh=True)
        return [
            SaleNoteSeries(
                id=int(row["id"]),
                number=_text(row.get("number")),
                establishment_id=int(row.get("establishment_id") or 0),
                establishment=_text(row.get("establishment_description")),
            )
            for row in _rows_of(Connection.parse(response), response.url)
        ]

    def issue(
        self, note: SaleNote | Mapping[str, Any], *, form_values: Mapping[str, Any] | None = None
    ) -> SaleNoteRef:
        """Issue a sale note (not sent to SUNAT; its stock leaves the warehouse). On a real tenant a
        customer given by its data and products given by code are looked up (or registered) first.

        :raises ValidationError: unknown series, customer or product, amounts that do not add up, or
            plugins found problems (nothing sent).
        :raises OutcomeUnknownError: HTTP 5xx: the note may exist (see :meth:`list`).
        """
        if isinstance(note, SaleNote) and self._http.is_laravel():
            note = _by_ids(self, note)
        payload = note.to_payload() if isinstance(note, SaleNote) else dict(note)
        check = "Búsquela en client.sale_notes.list(fresh=True) antes de emitirla otra vez."
        body, answer = _create(self, "/api/sale-note", payload, form_values, check=check)
        result = SaleNoteRef.from_body(answer)
        self._http.invalidate("items.lists")
        self._http.invalidate(f"{self.family}.lists")
        self._http.invalidate("quotations.lists")
        self._plugins.issued(self.family, body, result)
        return result

    def generate_cpe(
        self,
        note_id: int,
        *,
        document_type: Literal["01", "03"] = "03",
        series: str | None = None,
        issue_date: dt.date | None = None,
        issue_time: dt.time | None = None,
        due_date: dt.date | None = None,
    ) -> IssueResult:
        """The factura (01) or boleta (03) of a sale note, issued and not sent (send a factura with
        ``client.documents.send``). Dated today and now unless given; due the day it is issued.

        Real tenants copy the dates from this request (without them the document cannot be saved) and
        would make a second document of a converted note: the connector refuses that itself when the
        note is among their latest. Their boleta of a note is of group 01 (``generateCPE`` fixes it): it
        is sent alone with ``client.documents.send``, a daily summary does not take it.

        :raises ConflictError: the note already made its document.
        :raises NotFoundError: no sale note ``note_id`` in this tenant (real tenants: ``ServerError``).
        :raises OutcomeUnknownError: HTTP 5xx: the document may exist (it carries the note's
            external_id).
        """
        day = issue_date or peru_today()
        if self._http.is_laravel():
            listed = next((n for n in self.list(fresh=True) if n.id == int(note_id)), None)
            if listed is not None and listed.converted:
                raise ConflictError(
                    f"La nota de venta {listed.number} ya generó el comprobante {listed.document}; esta "
                    "empresa no lo impide y emitiría otro.",
                    error_code="SALE_NOTE_CONVERTED",
                )
        payload: dict[str, Any] = {
            "codigo_tipo_documento": document_type,
            "serie_documento": series or ("F001" if document_type == "01" else "B001"),
            "numero_documento": "#",
            "fecha_de_emision": day.isoformat(),
            "hora_de_emision": (issue_time or _now()).strftime("%H:%M:%S"),
            "fecha_de_vencimiento": (due_date or day).isoformat(),
            "codigo_condicion_de_pago": "01",
        }
        response = self._http.post(
            f"/api/sale-note/{int(note_id)}/generate-cpe",
            payload,
            check="Búsquelo en client.documents.latest(fresh=True) antes de generarlo otra vez.",
        )
        self._http.invalidate(DOCUMENT_LISTS_TAG)
        self._http.invalidate(f"{self.family}.lists")
        return IssueResult.from_body(Connection.json(response), response.url)

    def download_pdf(self, external_id: str, fmt: str | None = None) -> bytes:
        """The sale note's PDF (``a4`` or ``ticket``; default its own format)."""
        path = f"/downloads/salenote/sale_note/{external_id}" + (f"/{fmt}" if fmt else "")
        return Connection.content(self._http.get(path, retry=False))

    def _answer(self, query: str, fresh: bool) -> list[SaleNoteRecord]:
        response = self._http.get(f"/api/sale-note/lists{query}", fresh=fresh, tag=f"{self.family}.lists")
        return [SaleNoteRecord.from_row(row) for row in _rows_of(Connection.parse(response), response.url)]

    def list(
        self,
        search: str = "",
        *,
        start: dt.date | None = None,
        end: dt.date | None = None,
        details: bool = False,
        fresh: bool = False,
    ) -> Listing[SaleNoteRecord]:
        """Sale notes, newest first: the latest ones, or (``start`` and ``end``) those issued between the
        two dates; filtered by number or customer; ``details`` adds each note's lines (this service).

        Real tenants ignore the dates and answer their latest 20 (Pro9, Tukifac) or the first 50 by
        number (pro5): the dates are applied here, and when older notes of the range may be missing the
        connector asks for them one number at a time (Pro9 and Tukifac filter by number; at most
        :data:`PAGE_BACK_LIMIT` requests). What could not be had makes ``complete`` False, and ``note``
        says what the tenant returned."""
        query = _range_query(search, start, end, details=int(details))
        if not self._http.is_laravel():
            return Listing(self._answer(query, fresh))
        latest = self._answer(f"?{urlencode({'input': search})}" if search else "", fresh)
        if start is None or end is None:
            return Listing(latest)
        return _in_range(
            self._http,
            latest,
            lambda text: self._answer(f"?{urlencode({'input': text})}", fresh),
            start,
            end,
            searched=bool(search),
            what="notas de venta",
        )

    def frame(
        self, search: str = "", *, start: dt.date | None = None, end: dt.date | None = None
    ) -> pd.DataFrame:
        """:meth:`list` as a DataFrame (columns :data:`SALE_NOTE_COLUMNS`; amounts are Decimal)."""
        return _frame(self.list(search, start=start, end=end, fresh=True), SALE_NOTE_COLUMNS)


# -- quotations -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuotationRef:
    """A registered quotation."""

    id: int
    number: str
    external_id: str
    total: Decimal
    customer_id: int
    pdf_url: str = ""

    @classmethod
    def from_body(cls, body: Mapping[str, Any], sent: Mapping[str, Any] | None = None) -> QuotationRef:
        """From the answer; what pro5 leaves out comes from the request ``sent`` (its total and customer)
        and from the number (quotations are numbered by their id: ``COT-8``)."""
        data = _data(body)
        sent = sent or {}
        customer = data.get("customer") if isinstance(data.get("customer"), Mapping) else {}
        number = _text(data.get("number_full"))
        return cls(
            id=int(data.get("id") or split_number(number)[1] or 0),
            number=number,
            external_id=_text(data.get("external_id")),
            total=parse_decimal(data.get("total", sent.get("total"))),
            customer_id=int(customer.get("id") or sent.get("customer_id") or 0),  # type: ignore[union-attr]
            pdf_url=_text(data.get("print_a4")),
        )


@dataclass(frozen=True)
class QuotationRecord:
    """A row of the quotations list."""

    id: int
    number: str
    external_id: str
    date_of_issue: dt.date | None
    customer_name: str
    customer_number: str
    currency: str
    total: Decimal
    state: str
    converted: bool
    #: The customer's id and the quotation's lines (this service sends them; real tenants do not).
    customer_id: int | None = None
    #: The number of the sale note made from it ("" while open or when the tenant does not say).
    sale_note: str = ""
    lines: tuple[dict[str, Any], ...] = ()

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> QuotationRecord:
        customer_id = row.get("customer_id")
        return cls(
            id=int(row["id"]),
            number=_text(row.get("identifier")),
            external_id=_text(row.get("external_id")),
            date_of_issue=parse_date(row.get("date_of_issue")),
            customer_name=_text(row.get("customer_name")),
            customer_number=_text(row.get("customer_number")),
            currency=_text(row.get("currency_type_id")),
            total=_money(row.get("total")),
            state=_text(row.get("state_type_id")),
            converted=bool(row.get("documents") or row.get("sale_notes") or parse_bool(row.get("changed"))),
            customer_id=int(customer_id) if customer_id not in (None, "") else None,
            sale_note=_text(_first(row.get("sale_notes")).get("number_full")),
            lines=tuple(dict(line) for line in row.get("items") or [] if isinstance(line, Mapping)),
        )


QUOTATION_COLUMNS = (
    "id",
    "number",
    "date_of_issue",
    "customer_name",
    "customer_number",
    "currency",
    "total",
    "converted",
    "sale_note",
)


class QuotationsResource(_QuotationsFamily):
    """Quotations: :meth:`create` (a :class:`Quotation` or a raw payload), :meth:`list`, :meth:`frame`,
    :meth:`download_pdf`."""

    def create(
        self, quotation: Quotation | Mapping[str, Any], *, form_values: Mapping[str, Any] | None = None
    ) -> QuotationRef:
        """Register a quotation (no stock moves). On a real tenant a customer given by its data and
        products given by code are looked up (or registered) first.

        :raises ValidationError: unknown customer or product, amounts that do not add up, or plugins
            found problems (nothing sent).
        :raises OutcomeUnknownError: HTTP 5xx: the quotation may exist (see :meth:`list`).
        """
        if isinstance(quotation, Quotation) and self._http.is_laravel():
            quotation = _by_ids(self, quotation)  # real tenants register neither customers nor products here
        payload = quotation.to_payload() if isinstance(quotation, Quotation) else dict(quotation)
        check = "Búsquela en client.quotations.list(fresh=True) antes de registrarla otra vez."
        body, answer = _create(self, "/api/quotations", payload, form_values, check=check)
        result = QuotationRef.from_body(answer, body)
        self._http.invalidate(f"{self.family}.lists")
        self._plugins.issued(self.family, body, result)
        return result

    def _answer(self, query: str, fresh: bool) -> list[QuotationRecord]:
        response = self._http.get(f"/api/quotations/list{query}", fresh=fresh, tag=f"{self.family}.lists")
        return [QuotationRecord.from_row(row) for row in _rows_of(Connection.parse(response), response.url)]

    def list(
        self,
        search: str = "",
        *,
        start: dt.date | None = None,
        end: dt.date | None = None,
        fresh: bool = False,
    ) -> Listing[QuotationRecord]:
        """The latest 20 quotations, or (``start`` and ``end``) all issued between the two dates;
        filtered by number or customer (real tenants: by the number only).

        Real tenants ignore the dates: they are applied here, older quotations of the range asked for one
        number at a time, as :meth:`SaleNotesResource.list` does (``complete`` and ``note`` say what
        could not be had)."""
        if not self._http.is_laravel():
            return Listing(self._answer(_range_query(search, start, end), fresh))
        latest = self._answer(f"?{urlencode({'input': search})}" if search else "", fresh)
        if start is None or end is None:
            return Listing(latest)
        return _in_range(
            self._http,
            latest,
            lambda text: self._answer(f"?{urlencode({'input': text})}", fresh),
            start,
            end,
            searched=bool(search),
            what="cotizaciones",
        )

    def frame(
        self, search: str = "", *, start: dt.date | None = None, end: dt.date | None = None
    ) -> pd.DataFrame:
        """:meth:`list` as a DataFrame (columns :data:`QUOTATION_COLUMNS`)."""
        return _frame(self.list(search, start=start, end=end, fresh=True), QUOTATION_COLUMNS)

    @staticmethod
    def to_sale_note(record: QuotationRecord, *, series_id: int, **fields: Any) -> SaleNote:
        """The :class:`SaleNote` of a listed quotation: its customer and lines (products by code, unit
        value as quoted), linked by ``quotation_id`` so the service marks the quotation converted.

        :raises ValueError: the row has no customer id or no lines (a real tenant's list).
        """
        if record.customer_id is None or not record.lines:
            raise ValueError("the quotation row carries no customer id or lines")
        lines = [
            NoteLine(
                Decimal(line["quantity"]),
                unit_value=Decimal(line["unit_value"]),
                code=_text(line.get("internal_id")),
                description=_text(line.get("description")),
                unit=_text(line.get("unit_type_id")) or "NIU",
                affectation=_text(line.get("affectation_igv_type_id")) or "10",
                bag_tax=parse_decimal(line.get("total_plastic_bag_taxes")) > 0,
            )
            for line in record.lines
        ]
        return SaleNote(
            series_id=series_id,
            customer_id=record.customer_id,
            lines=lines,
            currency=record.currency or "PEN",
            quotation_id=record.id,
            **fields,
        )

    def download_pdf(self, external_id: str, fmt: str = "a4") -> bytes:
        """The quotation's PDF (``a4`` or ``ticket``)."""
        return Connection.content(self._http.get(f"/quotations/print/{external_id}/{fmt}", retry=False))
