"""``client.sale_notes``: sale notes (notas de venta, not sent to SUNAT; ``POST /api/sale-note`` and
``/api/sale-note/{id}/generate-cpe``; ``docs/back_office_analysis.md``).

A note is built with :class:`SaleNote` (lines whose amounts ``sunat.totals`` computes, so the service's
checks pass), issued through the family's plugin pipeline (``facturador_issued`` gets the
:class:`SaleNoteRef`), listed as :class:`SaleNoteRecord` rows, and turned into its factura or boleta
once (:meth:`SaleNotesResource.generate_cpe`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar, Literal

from connector.errors import ConflictError
from connector.http import DOCUMENT_LISTS_TAG, Connection
from connector.lists import RecordList
from connector.models import EmailDelivery, IssueResult
from connector.parsing import data_of, first_of, links_of, parse_date, parse_decimal, text
from connector.sheets import Sheet, SheetResource, time_in_lima
from sunat.calendar import peru_today

__all__ = [
    "SALE_NOTE_COLUMNS",
    "SaleNote",
    "SaleNoteRecord",
    "SaleNoteRef",
    "SaleNoteSeries",
    "SaleNotesResource",
]


@dataclass(frozen=True, kw_only=True)
class SaleNote(Sheet):
    """A sale note on the series ``series_id`` (see :meth:`SaleNotesResource.series`)."""

    series_id: int
    pdf_format: str = "a4"
    #: The quotation the note is made of (a quotation becomes at most one note).
    quotation_id: int | None = None

    def _header(self) -> dict[str, Any]:
        """The series, the ``NV`` prefix, the PDF format and the quotation it comes from."""
        header: dict[str, Any] = {
            "series_id": self.series_id,
            "prefix": "NV",  # sale_notes.prefix is NOT NULL in real tenants (char(2))
            "actions": {"format_pdf": self.pdf_format},
        }
        if self.quotation_id is not None:
            header["quotation_id"] = self.quotation_id
        return header


@dataclass(frozen=True)
class SaleNoteSeries:
    """A sale-note series of the tenant: its ``id`` is a sale note's ``series_id``."""

    id: int
    number: str
    establishment_id: int
    establishment: str = ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> SaleNoteSeries:
        """Build from a row of the series' list."""
        return cls(
            id=int(row["id"]),
            number=text(row.get("number")),
            establishment_id=int(row.get("establishment_id") or 0),
            establishment=text(row.get("establishment_description")),
        )


@dataclass(frozen=True)
class SaleNoteRef:
    """An issued sale note: its id (for :meth:`SaleNotesResource.generate_cpe`), number and PDF link."""

    id: int
    number: str
    external_id: str
    filename: str = ""
    pdf_url: str = ""

    @classmethod
    def from_body(cls, body: Mapping[str, Any], url: str | None = None) -> SaleNoteRef:
        """Build from the JSON answer."""
        data = data_of(body, url)
        return cls(
            id=int(data["id"]),
            number=text(data.get("number")),
            external_id=text(data.get("external_id")),
            filename=text(data.get("filename")),
            pdf_url=links_of(body).get("pdf", ""),
        )


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
    #: The row as received (every amount, for :func:`analysis.sales.sales_of`-style figures).
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def converted(self) -> bool:
        """Whether the note already made its factura or boleta."""
        return bool(self.document)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> SaleNoteRecord:
        """Build from a list row (this service's or a real tenant's)."""
        made = first_of(row.get("documents"))
        model = row.get("sale_note") if isinstance(row.get("sale_note"), Mapping) else {}
        customer_id = row.get("customer_id", model.get("customer_id"))  # type: ignore[union-attr]
        return cls(
            id=int(row["id"]),
            number=text(row.get("number_full") or row.get("full_number")),
            external_id=text(row.get("external_id")),
            date_of_issue=parse_date(row.get("date_of_issue")),
            customer_id=int(customer_id) if customer_id not in (None, "") else None,
            customer_name=text(row.get("customer_name")),
            customer_number=text(row.get("customer_number")),
            currency=text(row.get("currency_type_id")),
            total_taxed=parse_decimal(row.get("total_taxed")),
            total_igv=parse_decimal(row.get("total_igv")),
            total=parse_decimal(row.get("total")),
            document=text(made.get("number_full")),
            document_external_id=text(made.get("external_id")),
            document_type_id=text(made.get("document_type_id")),
            quotation=text(row.get("quotation_number_full")),
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


class SaleNotesResource(SheetResource):
    """Sale notes: :meth:`series`, :meth:`issue` (a :class:`SaleNote` or a raw payload), :meth:`list`,
    :meth:`generate_cpe` (its factura or boleta, once) and :meth:`download_pdf`."""

    family: ClassVar[str] = "sale_notes"

    def series(self) -> RecordList[SaleNoteSeries]:
        """The tenant's sale-note series (NV01 ...); real tenants answer a bare JSON array."""
        return self._list("/api/sale-note/series", SaleNoteSeries.from_row, fresh=True, tagged=False)

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
            note = self._by_ids(note)
        return self._submit(
            "/api/sale-note",
            note.to_payload() if isinstance(note, SaleNote) else note,
            lambda reply: SaleNoteRef.from_body(reply.body, reply.url),
            form_values=form_values,
            check="Búsquela en client.sale_notes.list(fresh=True) antes de emitirla otra vez.",
            changes=("items.lists", self.lists_tag, "quotations.lists"),
        )

    def email(self, note_id: int, email: str | None = None) -> EmailDelivery:
        """E-mail a sale note's PDF to ``email`` (None: the customer's) through the tenant's SMTP server
        (``POST /api/sale-note/email``, real PRO's body ``{"id", "email"}``); this service queues it
        (state ``queued``), real tenants send it at once."""
        body: dict[str, Any] = {"id": note_id}
        if email is not None:
            body["email"] = email
        answer = Connection.json(self._http.post("/api/sale-note/email", body))
        data = answer.get("data")
        if isinstance(data, Mapping):
            return EmailDelivery.from_wire(data, email or "")
        return EmailDelivery(id=None, email=email or "", state="sent")

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
            "hora_de_emision": (issue_time or time_in_lima()).strftime("%H:%M:%S"),
            "fecha_de_vencimiento": (due_date or day).isoformat(),
            "codigo_condicion_de_pago": "01",
        }
        response = self._http.post(
            f"/api/sale-note/{int(note_id)}/generate-cpe",
            payload,
            check="Búsquelo en client.documents.latest(fresh=True) antes de generarlo otra vez.",
        )
        self._http.invalidate(DOCUMENT_LISTS_TAG)
        self._http.invalidate(self.lists_tag)
        return IssueResult.from_body(Connection.json(response), response.url)

    def download_pdf(self, external_id: str, fmt: str | None = None) -> bytes:
        """The sale note's PDF (``a4`` or ``ticket``; default its own format)."""
        path = f"/downloads/salenote/sale_note/{external_id}" + (f"/{fmt}" if fmt else "")
        return self._download(path, retry=False)

    def list(
        self,
        search: str = "",
        *,
        start: dt.date | None = None,
        end: dt.date | None = None,
        details: bool = False,
        fresh: bool = False,
    ) -> RecordList[SaleNoteRecord]:
        """Sale notes, newest first: the latest ones, or (``start`` and ``end``) those issued between the
        two dates; filtered by number or customer; ``details`` adds each note's lines (this service).

        Real tenants ignore the dates and answer their latest 20 (Pro9, Tukifac) or the first 50 by
        number (pro5): the dates are applied here, and when older notes of the range may be missing the
        connector asks for them one number at a time (Pro9 and Tukifac filter by number; at most
        :data:`~connector.lists.PAGE_BACK_LIMIT` requests). What could not be had makes ``complete``
        False, and ``note`` says what the tenant returned."""
        return self._dated(
            "/api/sale-note/lists",
            SaleNoteRecord.from_row,
            search,
            start,
            end,
            fresh=fresh,
            what="notas de venta",
            columns=SALE_NOTE_COLUMNS,
            details=int(details),
        )
