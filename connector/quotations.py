"""``client.quotations``: quotations (``POST /api/quotations``, ``GET /api/quotations/list``;
``docs/back_office_analysis.md``).

A quotation is built with :class:`Quotation` (the same lines as a sale note), registered through the
family's plugin pipeline (``facturador_issued`` gets the :class:`QuotationRef`), listed as
:class:`QuotationRecord` rows, and made into a sale note with :meth:`QuotationsResource.to_sale_note`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from connector.lists import RecordList
from connector.parsing import data_of, first_of, parse_bool, parse_date, parse_decimal, split_number, text
from connector.sale_notes import SaleNote
from connector.sheets import NoteLine, Sheet, SheetResource
from connector.states import State

__all__ = ["QUOTATION_COLUMNS", "Quotation", "QuotationRecord", "QuotationRef", "QuotationsResource"]


@dataclass(frozen=True, kw_only=True)
class Quotation(Sheet):
    """A quotation (``COT-n``)."""

    description: str = ""
    date_of_due: dt.date | None = None
    delivery_date: dt.date | None = None

    def _header(self) -> dict[str, Any]:
        """The ``COT`` prefix, the description and the due and delivery dates."""
        header: dict[str, Any] = {"prefix": "COT", "description": self.description}
        if self.date_of_due is not None:
            header["date_of_due"] = self.date_of_due.isoformat()
        if self.delivery_date is not None:
            header["delivery_date"] = self.delivery_date.isoformat()
        return header


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
    def from_body(
        cls, body: Mapping[str, Any], sent: Mapping[str, Any] | None = None, url: str | None = None
    ) -> QuotationRef:
        """From the answer; what pro5 leaves out comes from the request ``sent`` (its total and customer)
        and from the number (quotations are numbered by their id: ``COT-8``)."""
        data = data_of(body, url)
        sent = sent or {}
        customer = data.get("customer") if isinstance(data.get("customer"), Mapping) else {}
        number = text(data.get("number_full"))
        return cls(
            id=int(data.get("id") or split_number(number)[1] or 0),
            number=number,
            external_id=text(data.get("external_id")),
            total=parse_decimal(data.get("total", sent.get("total"))),
            customer_id=int(customer.get("id") or sent.get("customer_id") or 0),  # type: ignore[union-attr]
            pdf_url=text(data.get("print_a4")),
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
    state: State
    converted: bool
    #: The customer's id and the quotation's lines (this service sends them; real tenants do not).
    customer_id: int | None = None
    #: The number of the sale note made from it ("" while open or when the tenant does not say).
    sale_note: str = ""
    lines: tuple[dict[str, Any], ...] = ()

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> QuotationRecord:
        """Build from a list row (this service's or a real tenant's)."""
        customer_id = row.get("customer_id")
        return cls(
            id=int(row["id"]),
            number=text(row.get("identifier")),
            external_id=text(row.get("external_id")),
            date_of_issue=parse_date(row.get("date_of_issue")),
            customer_name=text(row.get("customer_name")),
            customer_number=text(row.get("customer_number")),
            currency=text(row.get("currency_type_id")),
            total=parse_decimal(row.get("total")),
            state=State(text(row.get("state_type_id"))),
            converted=bool(row.get("documents") or row.get("sale_notes") or parse_bool(row.get("changed"))),
            customer_id=int(customer_id) if customer_id not in (None, "") else None,
            sale_note=text(first_of(row.get("sale_notes")).get("number_full")),
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


class QuotationsResource(SheetResource):
    """Quotations: :meth:`create` (a :class:`Quotation` or a raw payload), :meth:`list`,
    :meth:`to_sale_note`, :meth:`download_pdf`."""

    family: ClassVar[str] = "quotations"

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
            quotation = self._by_ids(quotation)  # real tenants register neither customers nor products here
        return self._submit(
            "/api/quotations",
            quotation.to_payload() if isinstance(quotation, Quotation) else quotation,
            lambda reply: QuotationRef.from_body(reply.body, reply.sent, reply.url),
            form_values=form_values,
            check="Búsquela en client.quotations.list(fresh=True) antes de registrarla otra vez.",
            changes=(self.lists_tag,),
        )

    def list(
        self,
        search: str = "",
        *,
        start: dt.date | None = None,
        end: dt.date | None = None,
        fresh: bool = False,
    ) -> RecordList[QuotationRecord]:
        """The latest 20 quotations, or (``start`` and ``end``) all issued between the two dates;
        filtered by number or customer (real tenants: by the number only).

        Real tenants ignore the dates: they are applied here, older quotations of the range asked for one
        number at a time, as :meth:`SaleNotesResource.list <connector.sale_notes.SaleNotesResource.list>`
        does (``complete`` and ``note`` say what could not be had)."""
        return self._dated(
            "/api/quotations/list",
            QuotationRecord.from_row,
            search,
            start,
            end,
            fresh=fresh,
            what="cotizaciones",
            columns=QUOTATION_COLUMNS,
        )

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
                code=text(line.get("internal_id")),
                description=text(line.get("description")),
                unit=text(line.get("unit_type_id")) or "NIU",
                affectation=text(line.get("affectation_igv_type_id")) or "10",
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
        return self._download(f"/quotations/print/{external_id}/{fmt}", retry=False)
