"""Resources per endpoint family: the base class, the ticket families, and the families whose endpoints
come later.

Each family of the API has one resource object on :class:`~connector.Client`
(``client.summaries``, ``client.voided``, ...). ``client.documents`` is complete: see
:mod:`connector.documents`. ``client.summaries`` (daily summaries, RC) and ``client.voided``
(voided communications, RA) are the ticket families: creating one answers a :class:`TicketRef`, and its
status, a :class:`TicketStatus`, is polled (:func:`connector.tickets.wait_for_ticket`).
Retentions and perceptions are in :mod:`connector.withholding`. The other families' methods arrive
together with their endpoints in the service; until then their resources exist so that plugins, forms
and callers can already name them (``family="dispatches"`` in hooks).
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar, Literal

from connector.errors import (
    FieldError,
    NotFoundError,
    NotOfferedError,
    ServerError,
    ValidationError,
    missing_route,
    not_offered,
)
from connector.forms import FormField
from connector.http import DOCUMENT_LISTS_TAG, Connection
from connector.models import SummaryRecord, TicketRef, TicketStatus, in_process_message
from connector.parsing import coerce_date
from connector.plugins import PluginHost
from sunat.calendar import peru_today

__all__ = [
    "TICKET_LISTS_TAG",
    "offered",
    "InventoryResource",
    "ItemsResource",
    "PersonsResource",
    "QuotationsResource",
    "Resource",
    "SaleNotesResource",
    "SummariesResource",
    "TicketResource",
    "VoidedResource",
    "VoidItems",
]

#: Documents to void: ``(external_id, reason)`` pairs, or a mapping ``{external_id: reason}``.
VoidItems = Iterable[tuple[str, str]] | Mapping[str, str]
#: How ``POST /api/voided`` takes its date: P4/P5 tenants (and this service) ``Y-m-d``, P9 ``d-m-Y``.
DateFormat = Literal["Y-m-d", "d-m-Y"]
DATE_FIELD = "fecha_de_emision_de_documentos"
#: Tag of the cached lists of summaries and voided communications (dropped by every change).
TICKET_LISTS_TAG = "tickets.lists"


@contextlib.contextmanager
def offered(what: str) -> Iterator[None]:
    """Turn the 404 of a route the tenant lacks into a :class:`~connector.errors.NotOfferedError`
    ("Esta empresa no ofrece ``what`` por su API."); a 404 of a record stays a ``NotFoundError``."""
    try:
        yield
    except NotFoundError as exc:
        if isinstance(exc, NotOfferedError) or not missing_route(exc):
            raise
        raise not_offered(what, exc) from exc


#: What PHP's date parser says of a date in another format (``Carbon::createFromFormat``).
_DATE_PARSE_ERRORS = (
    "separation symbol",
    "Trailing data",
    "digit",
    "Data missing",
    "Unexpected data",
    "Not enough data",
)
#: What the voided validation says when no document of that date matches (pro5 compares the text as is).
_NO_DOCUMENT_THAT_DAY = "la fecha indica no corresponde"


def _date_format_refused(error: ServerError, sent: str) -> bool:
    """Whether a refused voided communication says the tenant reads its date the other way."""
    return any(text in error.message for text in _DATE_PARSE_ERRORS) or (
        sent == "d-m-Y" and _NO_DOCUMENT_THAT_DAY in error.message
    )


class Resource:
    """Base of the resources: the family name, the tenant's transport and plugin host."""

    #: Endpoint family, as passed to the plugin hooks.
    family: ClassVar[str] = ""

    def __init__(self, transport: Connection, plugins: PluginHost) -> None:
        self._http = transport
        self._plugins = plugins

    def form_fields(self, document_type: str | None = None) -> list[FormField]:
        """Extra form fields plugins contribute for this family (``facturador_form_fields``)."""
        return self._plugins.form_fields(self.family, document_type)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} family={self.family!r} base_url={self._http.base_url!r}>"


def _void_documents(documents: VoidItems, *, reason_required: bool) -> list[dict[str, str]]:
    """The ``documentos`` list of a voiding request; :class:`ValidationError` (nothing sent) when it is
    empty, or an entry lacks its ``external_id`` (or its reason, when ``reason_required``)."""
    pairs = list(documents.items()) if isinstance(documents, Mapping) else list(documents)
    problems: list[FieldError] = []
    entries: list[dict[str, str]] = []
    for index, pair in enumerate(pairs):
        if isinstance(pair, str) or not isinstance(pair, tuple | list) or len(pair) != 2:
            raise TypeError(f"documents must be (external_id, reason) pairs (got {pair!r})")
        external_id, reason = (str(part or "").strip() for part in pair)
        if not external_id:
            problems.append(FieldError(f"documentos.{index}.external_id", "Falta el código externo."))
        if reason_required and not reason:
            problems.append(
                FieldError(f"documentos.{index}.motivo_anulacion", "Indique el motivo de la anulación.")
            )
        entries.append({"external_id": external_id, "motivo_anulacion": reason})
    if not entries:
        message = "No se enviaron documentos para la anulación."
        raise ValidationError(
            message, error_code="NO_DOCUMENTS", field_errors=[FieldError("documentos", message)]
        )
    if problems:
        raise ValidationError(
            f"No se envió la anulación: {problems[0].message}",
            error_code="MISSING_FIELDS",
            field_errors=problems,
        )
    return entries


class TicketResource(Resource):
    """Base of the ticket families (``summaries``, ``voided``): create with the plugin hooks, ask the
    status, download the signed XML and the CDR.

    Creating runs ``facturador_prepare_payload`` → ``facturador_validate_payload`` → ``POST`` (never
    retried: after a :class:`~connector.errors.TransportError` the summary may exist) →
    ``facturador_issued`` with the :class:`TicketRef`, and drops this client's cached document lists
    (the documents changed state). Status polls are idempotent and go through the retrying read path
    (:meth:`Connection.poll`); a processed answer also drops the cached lists. :meth:`latest` and
    :meth:`list` read this service's lists of summaries (real tenants have none: a
    :class:`~connector.errors.NotOfferedError` says so).
    """

    #: ``POST`` path that creates one, and its ``/status``.
    path: ClassVar[str] = ""
    #: Folder of its files under ``/downloads/``.
    downloads: ClassVar[str] = ""
    #: Its lists, as "Esta empresa no ofrece ... por su API." names them.
    listed: ClassVar[str] = ""

    def _create(self, payload: dict[str, Any], form_values: Mapping[str, Any] | None) -> TicketRef:
        body = self._plugins.prepare_payload(self.family, payload, dict(form_values or {}))
        problems = self._plugins.validate_payload(self.family, body)
        if problems:
            more = f" (y {len(problems) - 1} problema(s) más)" if len(problems) > 1 else ""
            raise ValidationError(
                f"No se envió la solicitud: {problems[0].message}{more}",
                error_code="PLUGIN_VALIDATION",
                field_errors=problems,
                body=None,
            )
        response = self._http.post(self.path, body)
        result = TicketRef.from_body(Connection.json(response), response.url, family=self.family)
        self._changed()
        self._plugins.issued(self.family, body, result)
        return result

    def _changed(self) -> None:
        """Documents and summaries changed state: drop the cached lists of both."""
        self._http.invalidate(DOCUMENT_LISTS_TAG)
        self._http.invalidate(TICKET_LISTS_TAG)

    def status(self, *, external_id: str | None = None, ticket: str | None = None) -> TicketStatus:
        """How the ticket stands, found by the summary's ``external_id`` or by its ``ticket``.

        Still in process (this service's HTTP 202, real tenants' HTTP 500 ``Code: 98; ...``) gives a
        :class:`TicketStatus` with ``processing=True``, not an error. Retried on connection errors and
        502/503/504 like a read.

        :raises ValueError: neither ``external_id`` nor ``ticket`` given.
        :raises NotFoundError: no summary of this family with that ``external_id`` or ``ticket``
            (real tenants answer it as a :class:`ServerError`, HTTP 500).
        """
        if not external_id and not ticket:
            raise ValueError("status() needs external_id or ticket")
        payload = {"external_id": external_id} if external_id else {"ticket": str(ticket)}
        response = self._http.poll(f"{self.path}/status", payload)
        body = Connection.body(response)
        asked = {"external_id": external_id or "", "ticket": str(ticket or "")}
        if in_process_message(body):
            assert isinstance(body, dict)
            return TicketStatus.in_process(body, **asked)
        result = TicketStatus.from_body(Connection.json(response), response.url, **asked)
        if not result.processing:
            self._changed()
        return result

    def _records(self, path: str, *, expire_after: float | None, fresh: bool) -> list[SummaryRecord]:
        with offered(self.listed):  # real tenants have no lists of them
            response = self._http.get(path, expire_after=expire_after, fresh=fresh, tag=TICKET_LISTS_TAG)
            body = Connection.parse(response)
        rows = body.get("data") if isinstance(body, dict) else body
        if not isinstance(rows, list):
            raise ServerError(
                "La lista del servicio no trae 'data'.",
                status=response.status_code,
                body=body,
                url=response.url,
            )
        return [SummaryRecord.from_row(row) for row in rows if isinstance(row, Mapping)]

    def latest(self, *, fresh: bool = False) -> list[SummaryRecord]:
        """The latest 100 of this family, newest first (``GET {path}/lists``; this service only: real
        tenants raise :class:`~connector.errors.NotOfferedError`)."""
        return self._records(f"{self.path}/lists", expire_after=None, fresh=fresh)

    def list(self, start: dt.date | str, end: dt.date | str, *, fresh: bool = False) -> list[SummaryRecord]:
        """Those generated from ``start`` to ``end`` inclusive, newest first (``GET
        {path}/lists/{start}/{end}``; this service only). Cached like document lists; creating one or a
        processed status answer drops the cached lists; ``fresh=True`` bypasses the cache."""
        first, last = coerce_date(start, "start"), coerce_date(end, "end")
        settings = self._http.cache_settings
        expire = None
        if settings is not None:
            expire = settings.closed_range_expire_after if last < peru_today() else settings.expire_after
        return self._records(
            f"{self.path}/lists/{first.isoformat()}/{last.isoformat()}", expire_after=expire, fresh=fresh
        )

    def download_xml(self, external_id: str) -> bytes:
        """The signed XML (``RUC-RC-YYYYMMDD-n.xml`` / ``RUC-RA-...``), cached like documents' XML."""
        settings = self._http.cache_settings
        expire = settings.xml_expire_after if settings is not None else None
        response = self._http.get(f"/downloads/{self.downloads}/xml/{external_id}", expire_after=expire)
        return Connection.content(response)

    def download_cdr(self, external_id: str) -> bytes:
        """The CDR zip of the ticket's answer (:class:`NotFoundError` while the ticket is in process)."""
        response = self._http.get(f"/downloads/{self.downloads}/cdr/{external_id}")
        return Connection.content(response)


class SummariesResource(TicketResource):
    """Daily summaries of boletas and their notes (RC, reference §8.6–8.7): :meth:`declare` a day's
    registered boletas (process 1), :meth:`void` accepted ones (process 3); each answers a
    :class:`TicketRef`, whose :meth:`status` turns into the CDR's answer. Documents go 01 → 03 → 05 when
    declared, 05 → 13 → 11 when voided (back to 01 / their state when the authority rejects)."""

    family: ClassVar[str] = "summaries"
    path: ClassVar[str] = "/api/summaries"
    downloads: ClassVar[str] = "summary"
    listed: ClassVar[str] = "la lista de sus resúmenes diarios"

    def declare(
        self,
        day: dt.date | str,
        *,
        generated_on: dt.date | str | None = None,
        form_values: Mapping[str, Any] | None = None,
    ) -> TicketRef:
        """Declare the boletas and boleta notes issued on ``day`` that are still registered (01).

        The service chooses the documents (all of that day, 500 per summary: more summaries when there
        are more, listed in :attr:`TicketRef.summaries`). ``generated_on`` (this service's extension
        ``fecha_de_generacion``, for a tenant that takes past dates, as while seeding history) dates the
        summary between ``day`` and today instead of today.

        :raises ValidationError: no registered boletas that day (this service: 422 ``NO_DOCUMENTS``;
            real tenants answer HTTP 500, a :class:`ServerError`), or plugins found problems.
        """
        payload = {DATE_FIELD: coerce_date(day, "day").isoformat(), "codigo_tipo_proceso": "1"}
        if generated_on is not None:
            payload["fecha_de_generacion"] = coerce_date(generated_on, "generated_on").isoformat()
        return self._create(payload, form_values)

    def void(
        self,
        day: dt.date | str,
        documents: VoidItems,
        *,
        form_values: Mapping[str, Any] | None = None,
    ) -> TicketRef:
        """Void boletas and boleta notes issued on ``day`` (a summary with process 3).

        :param documents: ``(external_id, reason)`` pairs (the reason may be empty here: a summary does
            not carry it), or ``{external_id: reason}``.
        :raises ValidationError: an empty list (nothing sent), or the service refused a document
            (unknown, another day, a factura, not accepted: ``field_errors`` name it).
        """
        payload = {
            DATE_FIELD: coerce_date(day, "day").isoformat(),
            "codigo_tipo_proceso": "3",
            "documentos": _void_documents(documents, reason_required=False),
        }
        return self._create(payload, form_values)


class VoidedResource(TicketResource):
    """Voided communications of facturas and their notes (RA, comunicación de baja; reference
    §8.8–8.9): :meth:`void` answers a :class:`TicketRef`, :meth:`status` the CDR's answer. Documents go
    05 → 13 → 11."""

    family: ClassVar[str] = "voided"
    path: ClassVar[str] = "/api/voided"
    downloads: ClassVar[str] = "voided"
    listed: ClassVar[str] = "la lista de sus comunicaciones de baja"

    def void(
        self,
        day: dt.date | str,
        documents: VoidItems,
        *,
        date_format: DateFormat | None = None,
        form_values: Mapping[str, Any] | None = None,
    ) -> TicketRef:
        """Void facturas and factura notes issued on ``day``.

        The date goes as the tenant reads it: Pro9 and Tukifac parse ``d-m-Y``, pro5 compares the text
        with ``Y-m-d`` dates, this service takes both. The connector writes it as the tenant's document
        lists write theirs (the same code bases differ the same way), ``Y-m-d`` before any list; when the
        tenant refuses the date's format it sends the request once more with the other one (a refused
        communication registers nothing) and remembers what worked.

        :param documents: ``(external_id, reason)`` pairs, or ``{external_id: reason}``; every reason is
            required.
        :param date_format: ``"Y-m-d"`` or ``"d-m-Y"`` to force one (no second try).
        :raises ValidationError: an empty list or a missing reason (nothing sent), or the service
            refused a document (unknown, another day, a boleta, not accepted).
        """
        if date_format not in (None, "Y-m-d", "d-m-Y"):
            raise ValueError(f"date_format must be 'Y-m-d' or 'd-m-Y' (got {date_format!r})")
        first = coerce_date(day, "day")
        entries = _void_documents(documents, reason_required=True)
        profile = self._http.profile
        style: DateFormat = date_format or profile.voided_dates or profile.list_dates or "Y-m-d"  # type: ignore[assignment]

        def send(written: DateFormat) -> TicketRef:
            text = first.isoformat() if written == "Y-m-d" else first.strftime("%d-%m-%Y")
            return self._create(copy.deepcopy({DATE_FIELD: text, "documentos": entries}), form_values)

        try:
            result = send(style)
        except ServerError as exc:
            if date_format is not None or not _date_format_refused(exc, style):
                raise
            style = "d-m-Y" if style == "Y-m-d" else "Y-m-d"
            result = send(style)
        profile.voided_dates = style
        return result


class SaleNotesResource(Resource):
    """Sale notes (notas de venta, not sent to SUNAT): ``POST /api/sale-note`` and
    ``/api/sale-note/{id}/generate-cpe`` (reference §8.4–8.5). The methods: :mod:`connector.backoffice`."""

    family: ClassVar[str] = "sale_notes"


class QuotationsResource(Resource):
    """Quotations: ``POST /api/quotations``, ``GET /api/quotations/list`` (reference §8.14). The methods:
    :mod:`connector.backoffice`."""

    family: ClassVar[str] = "quotations"


class PersonsResource(Resource):
    """Customers and suppliers: ``POST /api/person``, ``GET /api/persons/{type}/records`` (reference
    §8.15–8.16). The methods: :mod:`connector.backoffice`."""

    family: ClassVar[str] = "persons"


class ItemsResource(Resource):
    """Products and services: ``POST /api/item``, ``POST /api/items/{id}/update``,
    ``GET /api/document/search-items`` (reference §8.17–8.18). The methods: :mod:`connector.backoffice`."""

    family: ClassVar[str] = "items"


class InventoryResource(Resource):
    """Stock movements: ``POST /api/inventory/transaction`` (reference §8.19). The methods:
    :mod:`connector.backoffice`."""

    family: ClassVar[str] = "inventory"
