"""The ticket families and waiting for tickets: ``client.summaries`` (daily summaries, RC) and
``client.voided`` (voided communications, RA).

SUNAT answers them asynchronously: creating one answers a :class:`~connector.models.TicketRef`, and
the ticket's status is "in process" (98) for a while — seconds usually, sometimes much longer — before
its CDR. The reference waits for itself, asking again with a growing interval until the answer arrives
or a deadline passes (:meth:`TicketRef.wait <connector.models.TicketRef.wait>`, which is
:func:`wait_for_ticket` on the family that made it)::

    ref = client.voided.void("2026-11-22", [(external_id, "Error en el RUC del cliente")])
    status = ref.wait(timeout=30)            # TicketTimeout if still in process
    if status.accepted:
        ...

A ticket known only by its ``external_id`` (a day later, from a list) is waited for by its family:
``client.voided.wait(external_id=..., timeout=30)``. Each poll goes through the client's retrying read
path (``Connection.poll``: connection errors and 502/503/504 are retried there); errors other than "in
process" propagate at once.
"""

from __future__ import annotations

import copy
import datetime as dt
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar, runtime_checkable

from connector.errors import FacturadorError, FieldError, ServerError, ValidationError
from connector.http import DOCUMENT_LISTS_TAG, Connection
from connector.lists import RecordList
from connector.models import SummaryRecord, TicketRef, TicketStatus, in_process_message
from connector.parsing import coerce_date
from connector.resources import Resource

__all__ = [
    "DATE_FIELD",
    "TICKET_LISTS_TAG",
    "PolledResource",
    "StatusSource",
    "SummariesResource",
    "TicketResource",
    "TicketTimeout",
    "VoidItems",
    "VoidedResource",
    "void_documents",
    "wait_for_ticket",
]

#: Documents to void: ``(external_id, reason)`` pairs, or a mapping ``{external_id: reason}``.
VoidItems = Iterable[tuple[str, str]] | Mapping[str, str]
#: How ``POST /api/voided`` takes its date: P4/P5 tenants (and this service) ``Y-m-d``, P9 ``d-m-Y``.
DateFormat = Literal["Y-m-d", "d-m-Y"]
DATE_FIELD = "fecha_de_emision_de_documentos"
#: Tag of the cached lists of summaries and voided communications (dropped by every change).
TICKET_LISTS_TAG = "tickets.lists"


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


def void_documents(documents: VoidItems, *, reason_required: bool) -> list[dict[str, str]]:
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


class Polled(Protocol):
    """What a status answer needs for :func:`wait_for_ticket`: ``processing`` and the ``raw`` answer
    (:class:`~connector.models.TicketStatus`, :class:`~connector.dispatches.GuideStatus`)."""

    @property
    def processing(self) -> bool: ...

    @property
    def raw(self) -> Any: ...


StatusT = TypeVar("StatusT", bound=Polled)


class PolledResource(Resource, Generic[StatusT]):
    """A family whose tickets are polled (summaries, voided communications, reversions, guides):
    its :meth:`status`, and :meth:`wait`, which asks it again until SUNAT answers."""

    def status(self, *, external_id: str | None = None, ticket: str | None = None) -> StatusT:
        """How the ticket stands (``processing`` while SUNAT works on it)."""
        raise NotImplementedError

    def wait(
        self,
        *,
        external_id: str | None = None,
        ticket: str | None = None,
        timeout: float = 60.0,
        **options: Any,
    ) -> StatusT:
        """:meth:`status` asked again until SUNAT answers, for ``timeout`` seconds
        (:func:`wait_for_ticket`, whose ``options`` it takes: ``initial``, ``factor`` ...).

        :raises TicketTimeout: still in process when ``timeout`` passed (``last`` holds the last answer).
        """
        return wait_for_ticket(self, external_id=external_id, ticket=ticket, timeout=timeout, **options)


class TicketResource(PolledResource[TicketStatus]):
    """Base of the ticket families (``summaries``, ``voided``, the reversions of withholdings): create
    with the plugin hooks, ask the status or wait for it, list, download the signed XML and the CDR.

    Creating runs the family's pipeline (:meth:`Resource._submit`: the hooks, a ``POST`` never retried —
    after a :class:`~connector.errors.TransportError` the summary may exist —, ``facturador_issued``
    with the :class:`TicketRef`) and drops this client's cached lists of documents and tickets (the
    documents changed state). Status polls are idempotent and go through the retrying read path
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
    #: The cached lists a change of its state drops.
    changes: ClassVar[tuple[str, ...]] = (DOCUMENT_LISTS_TAG, TICKET_LISTS_TAG)

    @property
    def lists_tag(self) -> str:
        """Summaries and voided communications share one tag: a change of either drops both lists."""
        return TICKET_LISTS_TAG

    def _create(self, payload: dict[str, Any], form_values: Mapping[str, Any] | None) -> TicketRef:
        return self._submit(
            self.path,
            payload,
            lambda reply: TicketRef.from_body(reply.body, reply.url, family=self.family, resource=self),
            form_values=form_values,
            changes=self.changes,
        )

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
            for tag in self.changes:
                self._http.invalidate(tag)
        return result

    def latest(self, *, fresh: bool = False) -> RecordList[SummaryRecord]:
        """The latest 100 of this family, newest first (``GET {path}/lists``; this service only: real
        tenants raise :class:`~connector.errors.NotOfferedError`)."""
        return self._list(f"{self.path}/lists", SummaryRecord.from_row, fresh=fresh, offered_as=self.listed)

    def list(
        self, start: dt.date | str, end: dt.date | str, *, fresh: bool = False
    ) -> RecordList[SummaryRecord]:
        """Those generated from ``start`` to ``end`` inclusive, newest first (``GET
        {path}/lists/{start}/{end}``; this service only). Cached like document lists; creating one or a
        processed status answer drops the cached lists; ``fresh=True`` bypasses the cache."""
        first, last = coerce_date(start, "start"), coerce_date(end, "end")
        return self._list(
            f"{self.path}/lists/{first.isoformat()}/{last.isoformat()}",
            SummaryRecord.from_row,
            fresh=fresh,
            expire_after=self._http.range_expiry(last),
            offered_as=self.listed,
        )

    def download_xml(self, external_id: str) -> bytes:
        """The signed XML (``RUC-RC-YYYYMMDD-n.xml`` / ``RUC-RA-...``), cached like documents' XML."""
        return self._download(
            f"/downloads/{self.downloads}/xml/{external_id}", expire_after=self._http.xml_expiry
        )

    def download_cdr(self, external_id: str) -> bytes:
        """The CDR zip of the ticket's answer (:class:`NotFoundError` while the ticket is in process)."""
        return self._download(f"/downloads/{self.downloads}/cdr/{external_id}")


class SummariesResource(TicketResource):
    """Daily summaries of boletas and their notes (RC): :meth:`declare` a day's
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
            "documentos": void_documents(documents, reason_required=False),
        }
        return self._create(payload, form_values)


class VoidedResource(TicketResource):
    """Voided communications of facturas and their notes (RA, comunicación de baja): :meth:`void` answers
    a :class:`TicketRef`, whose ``wait()`` (or :meth:`status`) turns into the CDR's answer. Documents go
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
        entries = void_documents(documents, reason_required=True)
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


# -- waiting ---------------------------------------------------------------------------------------


@runtime_checkable
class StatusSource(Protocol):
    """Anything with a ``status(*, external_id=None, ticket=None) -> TicketStatus`` method
    (``client.summaries``, ``client.voided``)."""

    def status(self, *, external_id: str | None = None, ticket: str | None = None) -> TicketStatus:
        """How the ticket stands."""
        ...


class TicketTimeout(FacturadorError):
    """The ticket was still in process when :func:`wait_for_ticket`'s deadline passed.

    Nothing failed: the authority has not answered yet; ask again later (the summary keeps its
    ticket). ``last`` is the last :class:`~connector.models.TicketStatus` received,
    ``waited`` the seconds spent, ``polls`` how many times the status was asked; ``external_id`` and
    ``ticket`` are what was asked. ``status`` is ``None`` and ``error_code`` ``"TICKET_TIMEOUT"``.
    """

    def __init__(
        self,
        message: str,
        *,
        last: TicketStatus,
        waited: float,
        polls: int,
        external_id: str | None = None,
        ticket: str | None = None,
    ) -> None:
        super().__init__(message, error_code="TICKET_TIMEOUT", body=last.raw)
        self.last = last
        self.waited = waited
        self.polls = polls
        self.external_id = external_id
        self.ticket = ticket


def _caller(source: Any) -> Callable[..., Any]:
    status = getattr(source, "status", None)
    if callable(status):
        return status
    if callable(source):
        return source
    raise TypeError(
        "wait_for_ticket needs a resource with status() (client.summaries, client.voided) or a callable"
    )


def wait_for_ticket(
    source: StatusSource | Callable[..., StatusT] | Any,
    *,
    external_id: str | None = None,
    ticket: str | None = None,
    timeout: float = 60.0,
    initial: float = 0.5,
    factor: float = 1.6,
    max_interval: float = 5.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Any:
    """Poll a ticket's status until it is processed; return that :class:`TicketStatus`.

    :param source: ``client.summaries``, ``client.voided`` or ``client.dispatches`` (anything with
        ``status(external_id=..., ticket=...)``), or a callable taking those keyword arguments.
    :param external_id: the summary's ``external_id`` (from the :class:`TicketRef`) ...
    :param ticket: ... or its ticket.
    :param timeout: seconds to keep trying; ``0`` asks once.
    :param initial: seconds before the second poll; each next wait is ``factor`` times longer, at most
        ``max_interval``, and never past the deadline.
    :param sleep: how to wait (tests and UIs may pass their own); ``clock`` the monotonic clock.
    :returns: the processed status: ``accepted`` True (status 0) or False (99, ``code`` says why).
    :raises TicketTimeout: still in process when ``timeout`` passed (``last`` holds the last answer).
    :raises FacturadorError: any other failure of a poll (unknown ticket, wrong token, service down).
    """
    if not external_id and not ticket:
        raise ValueError("wait_for_ticket needs external_id or ticket")
    if timeout < 0 or initial <= 0 or factor < 1 or max_interval <= 0:
        raise ValueError("timeout >= 0, initial > 0, factor >= 1 and max_interval > 0 are required")
    ask = _caller(source)
    started = clock()
    deadline = started + timeout
    interval = min(initial, max_interval)
    polls = 0
    while True:
        status = ask(external_id=external_id, ticket=ticket)
        polls += 1
        if not status.processing:
            return status
        remaining = deadline - clock()
        if remaining <= 0:
            handle = f"ticket {ticket}" if ticket and not external_id else f"resumen {external_id}"
            waited = clock() - started
            raise TicketTimeout(
                f"El {handle} sigue en proceso después de {waited:.1f} s ({polls} consultas): "
                "SUNAT aún no responde; consulte su estado más tarde.",
                last=status,
                waited=waited,
                polls=polls,
                external_id=external_id,
                ticket=ticket,
            )
        sleep(min(interval, remaining))
        interval = min(interval * factor, max_interval)
