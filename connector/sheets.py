"""What sale notes and quotations share: their lines (:class:`NoteLine`), the builder both extend
(:class:`Sheet`), and :class:`SheetResource`, the base of their two families: on a real tenant it names
customers and products by their ids (registering the new ones) and applies dates to lists that ignore
them.

Sale notes and quotations name customers and products by their ids on the service (``customer_id``,
``item_id``): :meth:`PersonsResource.create <connector.persons.PersonsResource.create>` and
:meth:`ItemsResource.create <connector.items.ItemsResource.create>` answer them, and
:meth:`PersonsResource.list <connector.persons.PersonsResource.list>` /
:meth:`ItemsResource.search <connector.items.ItemsResource.search>` find them; or give a
:class:`~connector.builders.Customer` and lines with a ``code`` and what is new is created.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Self, TypeVar
from urllib.parse import urlencode

from connector.builders import Customer, money, unit
from connector.errors import ValidationError
from connector.items import ItemsResource
from connector.lists import Numbered, RecordList, in_range, range_query
from connector.persons import PersonsResource
from connector.resources import Resource
from sunat import catalogs
from sunat.calendar import peru_now, peru_today
from sunat.money import to_decimal
from sunat.rates import IGV_PERCENT, icbper_rate
from sunat.totals import DocumentTotals, LineAmounts, compute_line, compute_totals

__all__ = ["NoteLine", "Sheet", "SheetResource", "time_in_lima"]

R = TypeVar("R", bound=Numbered)


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
    #: The product as the tenant lists it (its ``search-items`` row), sent whole as the line's ``item``:
    #: real tenants read it when they save the line and print the note (set by :meth:`Sheet.with_ids`).
    item_row: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if (self.unit_price is None) == (self.unit_value is None):
            raise ValueError("give exactly one of unit_price or unit_value")
        if self.item_id is None and not (self.code and self.description):
            raise ValueError("a line needs an item_id, or a code and a description")

    def amounts(self, on: dt.date) -> LineAmounts:
        """The line's amounts on date ``on`` (the ICBPER rate of that year)."""
        return compute_line(
            self.quantity,
            self.affectation,
            unit_value=self.unit_value,
            unit_price=self.unit_price,
            igv_percent=IGV_PERCENT,
            icbper_rate=icbper_rate(on) if self.bag_tax else Decimal("0"),
        )

    def to_payload(self, amounts: LineAmounts) -> dict[str, Any]:
        """The wire line with its ``amounts``."""
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
        # NOT NULL), read it on saving (is_set) and print the note from it; this service reads it only
        # to create a product
        item: dict[str, Any] = {"unit_type_id": self.unit}
        if self.code:
            item["internal_id"] = self.code
        if self.description:
            item["description"] = self.description
        if self.item_row is not None:
            item = dict(self.item_row)
        if self.item_id is not None:
            line["item_id"] = self.item_id
        line["item"] = item
        return line


def time_in_lima() -> dt.time:
    """The time now in Lima, to the second, without its zone (a sheet's ``issue_time``)."""
    return peru_now().time().replace(microsecond=0, tzinfo=None)


@dataclass(frozen=True, kw_only=True)
class Sheet:
    """What sale notes and quotations share: customer (an id, or a :class:`Customer` created when
    new), lines, currency, date and time (today and now in Lima). Built by :class:`SaleNote
    <connector.sale_notes.SaleNote>` and :class:`Quotation <connector.quotations.Quotation>`."""

    lines: Sequence[NoteLine]
    customer_id: int | None = None
    customer: Customer | None = None
    currency: str = "PEN"
    #: Soles per unit of ``currency``; 1 in soles (real tenants' tables require a rate).
    exchange_rate: Decimal | float | int | str | None = None
    issue_date: dt.date = field(default_factory=peru_today)
    issue_time: dt.time = field(default_factory=time_in_lima)
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

    def with_ids(
        self, customer_id: int, item_ids: Sequence[int], rows: Sequence[Mapping[str, Any]] | None = None
    ) -> Self:
        """The same sheet naming its customer and products by these ids (see :attr:`by_ids`), each line
        carrying its product's row when ``rows`` are given (see :attr:`NoteLine.item_row`)."""
        found = rows if rows is not None else [line.item_row for line in self.lines]
        lines = [
            replace(line, item_id=item_id, item_row=row)
            for line, item_id, row in zip(self.lines, item_ids, found, strict=True)
        ]
        return replace(self, customer=None, customer_id=customer_id, lines=lines)

    def line_amounts(self) -> list[LineAmounts]:
        """Each line's amounts (:meth:`NoteLine.amounts`)."""
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
        """The keys of the family's own header (a sale note's series, a quotation's prefix)."""
        return {}


SheetT = TypeVar("SheetT", bound=Sheet)


class SheetResource(Resource):
    """Base of ``client.sale_notes`` and ``client.quotations``."""

    def _by_ids(self, sheet: SheetT) -> SheetT:
        """``sheet`` naming its customer and products by ids, registering those that are new, each line
        with its product's whole row as the tenant lists it (``search-items``, as the tenant's own mobile
        app sends it): real tenants cannot create them with the note (``force_create_if_not_exist``
        makes persons without a district and products without their code in Pro9; pro5 needs
        ``full_item``; quotations have no such path), and on saving a note's line they read its
        product's ``is_set`` and print its ``description`` from the line (HTTP 500 when missing).

        :raises ValidationError: a line's ``item_id`` is not among the products the tenant lists
            (nothing sent)."""
        if sheet.by_ids and all(line.item_row is not None for line in sheet.lines):
            return sheet
        customer_id = sheet.customer_id
        if sheet.customer is not None:
            customer_id = PersonsResource(self._http, self._plugins).customer_id(sheet.customer)
        items = ItemsResource(self._http, self._plugins)
        item_ids, rows = [], []
        for line, amounts in zip(sheet.lines, sheet.line_amounts(), strict=True):
            if line.item_id is not None:
                item_ids.append(line.item_id)
                rows.append(line.item_row if line.item_row is not None else self._row_of(items, line))
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
            rows.append(product.row)
        assert customer_id is not None
        return sheet.with_ids(customer_id, item_ids, rows)

    @staticmethod
    def _row_of(items: ItemsResource, line: NoteLine) -> Mapping[str, Any]:
        """The row the tenant lists for the product of ``line.item_id``: searched by the line's code or
        description when it has one, else among the products the tenant lists."""
        query = line.code or line.description
        found = items.search(query, limit=50, fresh=True) if query else items.list(fresh=True)
        product = next((p for p in found if p.id == line.item_id), None)
        if product is None and query:
            product = next((p for p in items.list(fresh=True) if p.id == line.item_id), None)
        if product is None:
            raise ValidationError(
                f"No se envió: el producto {line.item_id} no está entre los que la empresa lista por su API "
                "(solo lista los productos con código interno); dé la línea por su código y descripción.",
                error_code="ITEM_NOT_LISTED",
                body=None,
            )
        return product.row

    def _dated(
        self,
        path: str,
        record: Callable[[dict[str, Any]], R],
        search: str,
        start: dt.date | None,
        end: dt.date | None,
        *,
        fresh: bool,
        what: str,
        columns: Sequence[str],
        **more: Any,
    ) -> RecordList[R]:
        """The list at ``path`` filtered by ``search`` and, given both, the dates ``start``..``end``.

        This service filters itself (``more`` are its other query keys). Real tenants ignore the dates
        and answer only their latest: the dates are applied here and older records asked for one
        number at a time (:func:`~connector.lists.in_range`; ``complete`` and ``note`` say what could
        not be had)."""

        def answer(query: str) -> RecordList[R]:
            return self._list(f"{path}{query}", record, fresh=fresh, columns=columns)

        query = range_query(search, start, end, **more)  # both dates or neither
        if not self._http.is_laravel():
            return answer(query)
        latest = answer(f"?{urlencode({'input': search})}" if search else "")
        if start is None or end is None:
            return latest
        return in_range(
            self._http,
            latest,
            lambda text: answer(f"?{urlencode({'input': text})}"),
            start,
            end,
            searched=bool(search),
            what=what,
            columns=columns,
        )
