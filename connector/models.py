"""Typed answers of the documents and ticket endpoints: issue and send results, list records, summaries
and their tickets, connection status."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, overload

from connector.columns import AMOUNT_KEYS, sale_note_number
from connector.errors import ServerError
from connector.parsing import (
    data_of,
    exchange_rate_of,
    gc_paused,
    links_of,
    parse_bool,
    parse_date,
    parse_datetime,
    parse_decimal,
    split_number,
)
from connector.states import State, WithState, WithVerdict

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

T = TypeVar("T")

__all__ = [
    "AffectedRef",
    "AuthorityAnswer",
    "ConnectionStatus",
    "DocumentList",
    "DocumentRecord",
    "IssueResult",
    "SendResult",
    "SummaryRecord",
    "TicketRef",
    "TicketStatus",
    "in_process_message",
]


@dataclass(frozen=True)
class AuthorityAnswer:
    """What the tax authority answered (the CDR): ``code`` ``"0"`` accepted, 2000–3999 rejected,
    4000+ accepted with observations, 100–1999 or non-numeric: an exception (nothing decided, the
    document stays registered and can be sent again)."""

    code: str
    description: str
    notes: list[str] = field(default_factory=list)

    @classmethod
    def from_wire(cls, value: Any) -> AuthorityAnswer | None:
        """``None`` for ``[]``/``{}``/``null`` (not sent), else the answer."""
        if not isinstance(value, Mapping) or not value:
            return None
        notes = value.get("notes") or []
        return cls(
            code=str(value.get("code", "")),
            description=str(value.get("description") or ""),
            notes=[str(n) for n in notes] if isinstance(notes, list) else [str(notes)],
        )

    def _numeric(self) -> int | None:
        try:
            return int(self.code)
        except ValueError:
            return None

    @property
    def accepted(self) -> bool:
        """Accepted without observations (code 0)."""
        return self._numeric() == 0

    @property
    def observed(self) -> bool:
        """Accepted with observations (codes 4000 and above)."""
        code = self._numeric()
        return code is not None and code >= 4000

    @property
    def rejected(self) -> bool:
        """Rejected (codes 2000–3999)."""
        code = self._numeric()
        return code is not None and 2000 <= code <= 3999

    @property
    def exception(self) -> bool:
        """Not decided: codes 100–1999 or a transport failure (non-numeric code)."""
        code = self._numeric()
        return code is None or 0 < code < 2000


def _qr_png(value: Any) -> bytes | None:
    if not isinstance(value, str) or not value:
        return None
    text = value.split(",", 1)[1] if value.startswith("data:") else value
    try:
        return base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError):
        return None


@dataclass(frozen=True)
class IssueResult(WithVerdict):
    """The answer to ``POST /api/documents`` .

    ``number`` is ``"F001-26"``, split into ``series`` and ``correlative``; ``state_type_id`` is ``01``
    (registered, not sent), ``05`` accepted, ``07`` observed or ``09`` rejected; ``response`` is the
    authority's answer or ``None`` when the document was not sent (boletas, ``send=False``);
    ``qr_png`` the PNG bytes of the QR (``None`` when the tenant does not return it); ``links`` the
    ``xml``/``pdf``/``cdr`` URLs (``cdr`` is ``""`` until there is one); ``raw`` the whole answer.
    """

    number: str
    series: str
    correlative: int
    filename: str
    external_id: str
    state_type_id: str
    state_description: str
    hash: str
    number_to_letter: str
    qr_png: bytes | None = field(repr=False)
    links: dict[str, str]
    response: AuthorityAnswer | None
    raw: dict[str, Any] = field(repr=False)
    #: The answer of an earlier issue with the same idempotency key: no new document was made.
    was_duplicate: bool = False

    @classmethod
    def from_body(cls, body: Mapping[str, Any], url: str | None = None) -> IssueResult:
        """Build from the JSON answer (P4/P5/P9 and this service's shapes)."""
        data = data_of(body, url)
        number = str(data.get("number") or "")
        series, correlative = split_number(number)
        return cls(
            number=number,
            series=series,
            correlative=correlative or 0,
            filename=str(data.get("filename") or ""),
            external_id=str(data.get("external_id") or ""),
            state_type_id=str(data.get("state_type_id") or ""),
            state_description=str(data.get("state_type_description") or ""),
            hash=str(data.get("hash") or ""),
            number_to_letter=str(data.get("number_to_letter") or ""),
            qr_png=_qr_png(data.get("qr")),
            links=links_of(body),
            response=AuthorityAnswer.from_wire(body.get("response")),
            raw=dict(body),
            was_duplicate=parse_bool(body.get("was_duplicate")),
        )


@dataclass(frozen=True)
class SendResult(WithState):
    """The answer to ``POST /api/documents/send`` ."""

    state_type_id: str
    state_description: str
    response: AuthorityAnswer | None
    links: dict[str, str]
    raw: dict[str, Any] = field(repr=False)
    number: str = ""
    external_id: str = ""

    @classmethod
    def from_body(cls, body: Mapping[str, Any], url: str | None = None) -> SendResult:
        """Build from the JSON answer."""
        data = data_of(body, url)
        return cls(
            state_type_id=str(data.get("state_type_id") or ""),
            state_description=str(data.get("state_type_description") or ""),
            response=AuthorityAnswer.from_wire(body.get("response")),
            links=links_of(body),
            raw=dict(body),
            number=str(data.get("number") or ""),
            external_id=str(data.get("external_id") or ""),
        )


@dataclass(frozen=True)
class StateChange:
    """A document's state set by hand, as this service records it (``state_changes``): when (Lima's
    time), by whom, from which state to which, and why."""

    changed_at: dt.datetime | None
    user_name: str
    from_state: str
    to_state: str
    reason: str

    @classmethod
    def from_wire(cls, item: Mapping[str, Any]) -> StateChange:
        """One item of a row's ``state_changes`` or of ``GET /api/documents/state-changes/{id}``."""
        when = item.get("changed_at")
        try:
            changed_at = dt.datetime.fromisoformat(str(when)) if when else None
        except ValueError:
            changed_at = None
        return cls(
            changed_at=changed_at,
            user_name=str(item.get("user_name") or ""),
            from_state=str(item.get("from_state_type_id") or ""),
            to_state=str(item.get("state_type_id") or ""),
            reason=str(item.get("reason") or ""),
        )


@dataclass(frozen=True)
class EmailDelivery:
    """A document or sale note e-mailed to its customer: to which addresses (``email``), its ``state``
    (``queued``, ``sent``, ``failed``), the attempts made and the last error. This service queues the
    message and its worker sends it; real tenants send it in the request and answer only that it went
    (``state`` "sent", ``id`` None)."""

    id: int | None
    email: str
    state: str
    attempts: int = 0
    last_error: str | None = None
    created_at: str | None = None
    sent_at: str | None = None
    next_attempt_at: str | None = None

    @property
    def sent(self) -> bool:
        return self.state == "sent"

    @classmethod
    def from_wire(cls, item: Mapping[str, Any], email: str = "") -> EmailDelivery:
        """An item of ``email_send_it_array`` or of ``GET /api/documents/email-deliveries/{id}``, or
        the ``data`` of ``POST /api/document/email``; times are Lima's wall clock as answered."""
        state = item.get("state") or ("sent" if item.get("send_it") else "queued")
        attempts = item.get("attempts")
        return cls(
            id=item["id"] if isinstance(item.get("id"), int) else None,
            email=str(item.get("email") or email),
            state=str(state),
            attempts=attempts if isinstance(attempts, int) else 0,
            last_error=item.get("last_error") or None,
            created_at=item.get("created_at") or item.get("send_date") or None,
            sent_at=item.get("sent_at") or None,
            next_attempt_at=item.get("next_attempt_at") or None,
        )


@dataclass(frozen=True)
class AffectedRef:
    """The document a note modifies, as a list row names it (``affected_document``): type, series,
    number and, when the service tells it, its issue date and external id."""

    document_type_id: str
    series: str
    number: int | None
    date_of_issue: dt.date | None = None
    external_id: str = ""

    @property
    def full_number(self) -> str:
        """``F001-12``."""
        return f"{self.series}-{self.number}" if self.number is not None else self.series

    @classmethod
    def from_wire(cls, value: Any) -> AffectedRef | None:
        """From this service's object, or a real tenant's ``"F001-12"`` string; ``None`` otherwise."""
        if isinstance(value, str) and "-" in value:
            series, number = split_number(value.strip())
            return cls("", series, number)
        if not isinstance(value, Mapping) or not value:
            return None
        series, number = str(value.get("series") or ""), value.get("number")
        if not series and value.get("number") and "-" in str(value["number"]):
            series, parsed = split_number(str(value["number"]))
            number = parsed
        try:
            correlative = int(str(number)) if number not in (None, "") else None
        except ValueError:
            correlative = split_number(str(number))[1]
        return cls(
            document_type_id=str(value.get("document_type_id") or ""),
            series=series,
            number=correlative,
            date_of_issue=parse_date(value.get("date_of_issue")),
            external_id=str(value.get("external_id") or ""),
        )


NOTES = ("07", "08")


def link_notes(rows: Sequence[dict[str, Any]]) -> int:
    """Give each credit or debit note row without ``affected_document`` the document it modifies, when
    that document is among ``rows``: real tenants never fill ``affected_document`` in their lists
    (``DocumentCollection.php`` sets it to null), but each factura's and boleta's row lists its notes by
    number (``notes[].description``). Returns how many notes stay without it (their document is not in
    ``rows``, or the note named it by series and number only)."""
    pending = [
        row for row in rows if row.get("document_type_id") in NOTES and not row.get("affected_document")
    ]
    if not pending:
        return 0
    modified: dict[str, dict[str, Any]] = {}
    for row in rows:
        for entry in row.get("notes") or ():
            if isinstance(entry, Mapping) and entry.get("description"):
                modified[str(entry["description"]).upper()] = row
    unlinked = 0
    for note in pending:
        document = modified.get(str(note.get("number") or "").upper())
        if document is None:
            unlinked += 1
            continue
        series, number = split_number(str(document.get("number") or ""))
        note["affected_document"] = {
            "document_type_id": str(document.get("document_type_id") or ""),
            "series": series,
            "number": number,
            "date_of_issue": document.get("date_of_issue"),
            "external_id": str(document.get("external_id") or ""),
        }
    return unlinked


@dataclass(frozen=True)
class DocumentRecord(WithState):
    """One row of ``GET /api/documents/lists[/{start}/{end}]``, typed.

    Amounts are :class:`~decimal.Decimal`; ``date_of_issue`` is a :class:`~datetime.date` read from
    ``Y-m-d`` or ``d-m-Y`` (``None`` only when a tenant sends something unreadable); ``series`` and
    ``correlative`` come from the row or from ``number``; ``raw`` is the row as received.
    """

    id: int | None
    external_id: str
    date_of_issue: dt.date | None
    number: str
    series: str
    correlative: int | None
    document_type_id: str
    document_type_description: str
    customer_name: str
    customer_number: str
    currency_type_id: str
    total_exportation: Decimal
    total_free: Decimal
    total_unaffected: Decimal
    total_exonerated: Decimal
    total_taxed: Decimal
    total_igv: Decimal
    total_plastic_bag_taxes: Decimal
    total: Decimal
    state_type_id: str
    state_type_description: str
    has_xml: bool
    has_pdf: bool
    has_cdr: bool
    download_xml: str
    download_pdf: str
    download_cdr: str
    raw: dict[str, Any] = field(repr=False, compare=False)
    #: What real tenants may not send (``None`` / empty then): the rate of a foreign-currency document,
    #: the customer's identity type (catalog 06), the note type and the document a note modifies.
    exchange_rate: Decimal | None = None
    customer_identity_type: str = ""
    note_type_id: str = ""
    affected: AffectedRef | None = None
    date_of_due: dt.date | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    #: The number of the sale note the document was made from (``sales_note``; "" when none or unsaid).
    sale_note: str = ""

    @property
    def is_note(self) -> bool:
        """A credit (07) or debit (08) note."""
        return self.document_type_id in ("07", "08")

    @property
    def is_unsent(self) -> bool:
        """A factura or a note of one still registered (state 01) without a CDR: the authority has not
        answered it yet. This service sends such documents itself later (after an outage or a crash)
        unless they were issued with sending off: those the client sends (``client.documents.send``).
        Boletas and their notes are declared in daily summaries instead, never sent one by one."""
        if self.state_type_id != "01" or self.has_cdr:
            return False
        group = self.raw.get("group_id")
        if group:
            return str(group) == "01"
        return self.document_type_id == "01" or self.series.startswith("F")

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> DocumentRecord:
        """Build from a list row of this service or of a real tenant (P5/P9)."""
        number = str(row.get("number") or "")
        series, correlative = split_number(number)
        if row.get("series"):
            series = str(row["series"])
        if row.get("correlative") not in (None, ""):
            try:
                correlative = int(row["correlative"])
            except (TypeError, ValueError):
                pass
        raw_id = row.get("id")
        try:
            record_id = int(raw_id) if raw_id not in (None, "") else None
        except (TypeError, ValueError):
            record_id = None

        def text(key: str) -> str:
            value = row.get(key)
            return "" if value is None else str(value)

        amounts = {key: parse_decimal(row.get(key)) for key in AMOUNT_KEYS}
        return cls(
            id=record_id,
            external_id=text("external_id"),
            date_of_issue=parse_date(row.get("date_of_issue")),
            number=number,
            series=series,
            correlative=correlative,
            document_type_id=text("document_type_id"),
            document_type_description=text("document_type_description"),
            customer_name=text("customer_name"),
            customer_number=text("customer_number"),
            currency_type_id=text("currency_type_id"),
            state_type_id=text("state_type_id"),
            state_type_description=text("state_type_description"),
            has_xml=parse_bool(row.get("has_xml")),
            has_pdf=parse_bool(row.get("has_pdf")),
            has_cdr=parse_bool(row.get("has_cdr")),
            download_xml=text("download_xml"),
            download_pdf=text("download_pdf"),
            download_cdr=text("download_cdr"),
            raw=dict(row),
            exchange_rate=exchange_rate_of(row),
            customer_identity_type=text("customer_identity_document_type_id"),
            note_type_id=text("note_type_id"),
            affected=AffectedRef.from_wire(row.get("affected_document")),
            date_of_due=parse_date(row.get("date_of_due")),
            created_at=parse_datetime(row.get("created_at")),
            updated_at=parse_datetime(row.get("updated_at")),
            sale_note=sale_note_number(row.get("sales_note")) or "",
            **amounts,
        )


class DocumentList(Sequence[DocumentRecord]):
    """The rows of a list call: a sequence of :class:`DocumentRecord` built lazily from the raw rows,
    and :meth:`to_dataframe` that builds its columns straight from the raw rows (fast for 20,000 rows).

    ``from_cache`` says whether the answer came from the client's cache; ``url`` is what was called.
    """

    def __init__(self, rows: list[dict[str, Any]], *, from_cache: bool = False, url: str = "") -> None:
        self.rows = rows
        self.from_cache = from_cache
        self._frame: pd.DataFrame | None = None
        self.url = url
        self._records: list[DocumentRecord | None] = [None] * len(rows)
        self._derived: dict[Callable[[list[dict[str, Any]]], Any], Any] = {}  # shared with cached copies

    @property
    def has_details(self) -> bool:
        """Whether the rows carry their lines and instalments (``list(..., details=True)`` on a service
        that sends them); an empty list counts as detailed."""
        return all("items" in row for row in self.rows)

    def cached_copy(self) -> DocumentList:
        """The same list marked as served from the cache (rows, records and DataFrame are shared)."""
        copy = DocumentList(self.rows, from_cache=True, url=self.url)
        copy._frame, copy._records = self._frame, self._records
        copy._derived = self._derived
        return copy

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> DocumentRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[DocumentRecord]: ...
    def __getitem__(self, index: int | slice) -> DocumentRecord | list[DocumentRecord]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self.rows)
        if not 0 <= index < len(self.rows):
            raise IndexError("DocumentList index out of range")
        record = self._records[index]
        if record is None:
            record = self._records[index] = DocumentRecord.from_row(self.rows[index])
        return record

    def __iter__(self) -> Iterator[DocumentRecord]:
        if self.rows and self._records[-1] is None:  # build them all at once (see gc_paused)
            with gc_paused():
                self._records = [
                    record if record is not None else DocumentRecord.from_row(row)
                    for record, row in zip(self._records, self.rows, strict=True)
                ]
        for i in range(len(self.rows)):
            yield self[i]

    def __repr__(self) -> str:
        return f"DocumentList({len(self.rows)} documents{', from cache' if self.from_cache else ''})"

    def to_dataframe(self) -> pd.DataFrame:
        """A pandas DataFrame with one row per document and typed columns.

        ``date_of_issue`` is ``datetime64`` (``d-m-Y`` and ``Y-m-d`` both read); amounts are ``float64``
        (for analysis and charts; use the records' :class:`~decimal.Decimal` for exact sums to the
        cent); ``document_type_id``, ``state_type_id``, ``currency_type_id``, ``series`` and the two
        descriptions are ``category``; ``id`` and ``correlative`` nullable ``Int64``; ``has_*`` ``bool``.
        Needs pandas (``pip install facturador-kit[connector]``).
        """
        from connector.frames import documents_frame

        if self._frame is None:  # built once per list; callers get their own copy to modify
            with gc_paused():
                self._frame = documents_frame(self.rows)
        return self._frame.copy()

    def derived(self, build: Callable[[list[dict[str, Any]]], T]) -> T:
        """``build(rows)``, built once per answer: the copies served from the cache share it (the
        analysts' figures keep their sales here: ``analysis.sales.listed_sales``)."""
        if build not in self._derived:
            self._derived[build] = build(self.rows)
        return self._derived[build]  # type: ignore[no-any-return]


@dataclass(frozen=True)
class ConnectionStatus:
    """Result of :meth:`Client.ping <connector.Client.ping>`.

    ``reason`` is ``"ok"``, ``"unreachable"`` (service down, DNS, timeout), ``"unauthorized"`` (wrong
    token), ``"not_found"`` (wrong base URL or tenant) or ``"error"``; ``message`` is for people.
    """

    ok: bool
    message: str
    reason: str = "ok"
    status: int | None = None


# --------------------------------------------------------------------------------------------------
# Tickets: daily summaries (RC) and voided communications (RA)


StatusT = TypeVar("StatusT", covariant=True)


class TicketFamily(Protocol[StatusT]):
    """The client's family that made a ticket: it asks the ticket's status and waits for it
    (:class:`~connector.tickets.TicketResource`, :class:`~connector.dispatches.DispatchesResource`)."""

    def status(self, *, external_id: str | None = ..., ticket: str | None = ...) -> StatusT: ...

    def wait(
        self, *, external_id: str | None = ..., ticket: str | None = ..., timeout: float = ..., **options: Any
    ) -> StatusT: ...


class WaitsForItself(Generic[StatusT]):
    """``status()`` and ``wait()`` of an answer that names its ticket by ``external_id`` and keeps the
    family that made it (``resource``; ``None`` when built by hand)."""

    external_id: str
    resource: TicketFamily[StatusT] | None

    def status(self) -> StatusT:
        """How the ticket stands now (one question; ``processing`` while SUNAT works on it)."""
        return self._source().status(external_id=self.external_id)

    def wait(self, timeout: float = 60.0, **options: Any) -> StatusT:
        """The ticket's status once SUNAT answered, asked again with a growing interval for ``timeout``
        seconds (``options``: those of :func:`~connector.tickets.wait_for_ticket`).

        :raises TicketTimeout: still in process when ``timeout`` passed (``last`` holds the last answer).
        """
        return self._source().wait(external_id=self.external_id, timeout=timeout, **options)

    def _source(self) -> TicketFamily[StatusT]:
        if self.resource is None:
            raise RuntimeError(
                f"this {type(self).__name__} was not made by a client: "
                "ask client.<family>.wait(external_id=...)"
            )
        return self.resource


@dataclass(frozen=True)
class TicketRef(WaitsForItself["TicketStatus"]):
    """The answer to ``POST /api/summaries`` or ``POST /api/voided`` : the
    summary's ``external_id`` and the authority's ``ticket``; :meth:`wait` asks how it went until SUNAT
    answers.

    ``family`` is ``"summaries"`` or ``"voided"`` (which ``status`` to ask); ``summaries`` lists every
    summary the request created when the documents needed more than one (500 lines each; this service's
    ``data.summaries``), the first being this one; it is empty when there was just one. ``raw`` is the
    whole answer; ``resource`` the client's family that made it (``None`` for a reference built by hand).
    """

    external_id: str
    ticket: str
    raw: dict[str, Any] = field(repr=False)
    family: str = ""
    summaries: tuple[TicketRef, ...] = field(default=(), repr=False)
    resource: TicketFamily[TicketStatus] | None = field(default=None, repr=False, compare=False)

    @property
    def every(self) -> tuple[TicketRef, ...]:
        """Every summary the request created (this one alone, or all of :attr:`summaries`)."""
        return self.summaries or (self,)

    @classmethod
    def from_body(
        cls,
        body: Mapping[str, Any],
        url: str | None = None,
        *,
        family: str = "",
        resource: TicketFamily[TicketStatus] | None = None,
    ) -> TicketRef:
        """Build from the JSON answer; :class:`~connector.errors.ServerError` when it has no
        ``data.external_id`` or ``data.ticket``."""
        data = data_of(body, url)
        external_id, ticket = data.get("external_id"), data.get("ticket")
        if not external_id or ticket in (None, ""):
            raise ServerError(
                "La respuesta del servicio no trae 'data.external_id' y 'data.ticket'.",
                status=200,
                body=dict(body),
                url=url,
            )
        parts: list[TicketRef] = []
        listed = data.get("summaries")
        if isinstance(listed, list) and len(listed) > 1:
            for item in listed:
                if isinstance(item, Mapping) and item.get("external_id"):
                    parts.append(
                        cls(
                            str(item["external_id"]),
                            str(item.get("ticket") or ""),
                            dict(item),
                            family,
                            resource=resource,
                        )
                    )
        return cls(str(external_id), str(ticket), dict(body), family, tuple(parts), resource)


#: ``Code: 98; Description: ...``: the message of a ticket still in process .
_IN_PROCESS = re.compile(r"^\s*Code:\s*0*98\s*(?:;|$)", re.IGNORECASE)
_DESCRIPTION = re.compile(r"Description:\s*(.*)$", re.IGNORECASE | re.DOTALL)
#: SUNAT's status codes of a ticket: processed and accepted, in process, processed with errors.
TICKET_ACCEPTED, TICKET_IN_PROCESS, TICKET_REJECTED = 0, 98, 99
IN_PROCESS_DESCRIPTION = "El procesamiento del comprobante aún no ha terminado"


def in_process_message(body: Any) -> bool:
    """Whether an answer's body says the ticket is still in process: this service's ``error_code``
    ``TICKET_IN_PROCESS`` (HTTP 202), or the real tenants' message ``Code: 98; Description: ...``
    (HTTP 500, or HTTP 200 with ``success: false``)."""
    if not isinstance(body, Mapping) or body.get("success") is True:
        return False
    if body.get("error_code") == "TICKET_IN_PROCESS":
        return True
    message = body.get("message")
    return isinstance(message, str) and bool(_IN_PROCESS.match(message))


def _int_or_none(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


@dataclass(frozen=True)
class TicketStatus:
    """How a ticket of a daily summary or voided communication stands (``POST /api/summaries/status``,
    ``/api/voided/status``).

    While the authority still works on it, ``processing`` is True, ``accepted`` is ``None``,
    ``status_code`` 98 and ``code`` ``"98"`` (this service answers HTTP 202, real tenants HTTP 500
    ``Code: 98; Description: ...``: both read the same). Once processed, ``accepted`` says whether the
    CDR accepts it (``status_code`` 0) or rejects it (99, ``code`` is SUNAT's error, e.g. ``"2957"``),
    with ``description`` and ``notes``; ``links`` has the ``xml`` and ``cdr`` URLs. ``external_id``,
    ``ticket`` and ``filename`` (``RUC-RC-YYYYMMDD-n``) say which summary it is, as far as the answer
    (or the question) tells; ``raw`` is the whole answer.
    """

    processing: bool
    accepted: bool | None
    code: str
    description: str
    notes: list[str]
    status_code: int | None
    links: dict[str, str]
    raw: dict[str, Any] = field(repr=False)
    external_id: str = ""
    ticket: str = ""
    filename: str = ""

    @property
    def rejected(self) -> bool:
        """Processed and rejected by the authority (status 99)."""
        return self.accepted is False

    @property
    def identifier(self) -> str:
        """``RC-YYYYMMDD-n`` / ``RA-YYYYMMDD-n`` from the file name (``""`` when unknown)."""
        head, sep, rest = self.filename.partition("-")
        return rest if sep and head.isdigit() else self.filename

    @classmethod
    def in_process(
        cls, body: Mapping[str, Any] | None, *, external_id: str = "", ticket: str = ""
    ) -> TicketStatus:
        """The status of a ticket still in process, from the answer that said so."""
        raw = dict(body or {})
        data = raw.get("data") if isinstance(raw.get("data"), Mapping) else {}
        assert isinstance(data, Mapping)
        message = str(raw.get("message") or "")
        found = _DESCRIPTION.search(message)
        return cls(
            processing=True,
            accepted=None,
            code=str(TICKET_IN_PROCESS),
            description=(found.group(1).strip() if found else "") or IN_PROCESS_DESCRIPTION,
            notes=[],
            status_code=TICKET_IN_PROCESS,
            links={},
            raw=raw,
            external_id=str(data.get("external_id") or external_id),
            ticket=str(data.get("ticket") or ticket),
            filename=str(data.get("filename") or ""),
        )

    @classmethod
    def from_body(
        cls, body: Mapping[str, Any], url: str | None = None, *, external_id: str = "", ticket: str = ""
    ) -> TicketStatus:
        """Build from a successful answer (``success: true`` with ``response``). ``external_id`` and
        ``ticket`` are what was asked, used when the answer does not repeat them."""
        response = body.get("response")
        if not isinstance(response, Mapping) or not response:
            raise ServerError(
                "La respuesta del servicio no trae 'response'.", status=200, body=dict(body), url=url
            )
        data = body.get("data") if isinstance(body.get("data"), Mapping) else {}
        assert isinstance(data, Mapping)
        code = str(response.get("code", "")).strip()
        status_code = _int_or_none(response.get("status_code"))
        if status_code == TICKET_IN_PROCESS or (
            status_code is None and _int_or_none(code) == TICKET_IN_PROCESS
        ):
            return cls.in_process(body, external_id=external_id, ticket=ticket)
        flag = response.get("is_accepted")
        if isinstance(flag, bool | int | str) and flag != "":
            accepted = parse_bool(flag)
        elif status_code is not None:
            accepted = status_code == TICKET_ACCEPTED
        else:
            accepted = _int_or_none(code) == 0
        if status_code is None:
            status_code = TICKET_ACCEPTED if accepted else TICKET_REJECTED
        notes = response.get("notes") or []
        return cls(
            processing=False,
            accepted=accepted,
            code=code,
            description=str(response.get("description") or ""),
            notes=[str(n) for n in notes] if isinstance(notes, list) else [str(notes)],
            status_code=status_code,
            links=links_of(body),
            raw=dict(body),
            external_id=str(data.get("external_id") or external_id),
            ticket=str(data.get("ticket") or ticket),
            filename=str(data.get("filename") or ""),
        )


@dataclass(frozen=True)
class SummaryRecord(WithState):
    """One row of ``GET /api/summaries/lists`` or ``/api/voided/lists`` (this service's extension: real
    tenants have no list of summaries), typed.

    ``summary_type`` is ``"RC"`` (daily summary) or ``"RA"`` (voided communication), ``process_type``
    ``"1"`` (declare) or ``"3"`` (void); ``date_of_issue`` is when it was generated, ``date_of_reference``
    the issue date of its documents, ``documents`` how many it carries. ``state_type_id`` is ``03``
    (sent: its ticket not answered yet), ``05`` accepted or ``09`` rejected, with the authority's
    ``response`` once answered. ``created_at`` is the service's timestamp as Lima's wall clock
    (:func:`~connector.parsing.parse_datetime`). ``raw`` is the row as received.
    """

    id: int | None
    external_id: str
    identifier: str
    filename: str
    ticket: str
    summary_type: str
    process_type: str
    date_of_issue: dt.date | None
    date_of_reference: dt.date | None
    documents: int
    state_type_id: str
    state_type_description: str
    response: AuthorityAnswer | None
    has_cdr: bool
    download_xml: str
    download_cdr: str
    created_at: dt.datetime | None
    raw: dict[str, Any] = field(repr=False, compare=False)

    @property
    def family(self) -> str:
        """``"voided"`` for a voided communication (RA), else ``"summaries"``."""
        return "voided" if self.summary_type == "RA" else "summaries"

    @property
    def processing(self) -> bool:
        """Sent, and its ticket not answered yet (state 03)."""
        return self.state is State.SENT

    @property
    def accepted(self) -> bool | None:
        """True accepted (05), False rejected (09), ``None`` while its ticket has no answer."""
        if self.state is State.ACCEPTED:
            return True
        if self.state is State.REJECTED:
            return False
        return None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> SummaryRecord:
        """Build from a list row."""

        def text(key: str) -> str:
            value = row.get(key)
            return "" if value is None else str(value)

        count = _int_or_none(row.get("documents"))
        return cls(
            id=_int_or_none(row.get("id")),
            external_id=text("external_id"),
            identifier=text("identifier"),
            filename=text("filename"),
            ticket=text("ticket"),
            summary_type=text("summary_type"),
            process_type=text("process_type"),
            date_of_issue=parse_date(row.get("date_of_issue")),
            date_of_reference=parse_date(row.get("date_of_reference")),
            documents=count or 0,
            state_type_id=text("state_type_id"),
            state_type_description=text("state_type_description"),
            response=AuthorityAnswer.from_wire(row.get("response")),
            has_cdr=parse_bool(row.get("has_cdr")),
            download_xml=text("download_xml"),
            download_cdr=text("download_cdr"),
            created_at=parse_datetime(row.get("created_at")),
            raw=dict(row),
        )
