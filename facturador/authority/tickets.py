"""SUNAT's ticket flow for daily summaries (RC) and voided communications (RA).

``sendSummary`` only checks the file and answers a ticket (see
:meth:`~facturador.authority.simulator.SunatSimulator.send_summary`); SUNAT processes the summary
later and ``getStatus(ticket)`` answers 98 until then, and afterwards 0 or 99 with the CDR
(``docs/sunat_domain.md``, transport). This module holds what that needs:

- :class:`TicketRecord` and the :class:`TicketStore` Protocol (SUNAT's memory of the tickets; the service
  keeps them in its database, ``facturador.store.tickets``, so a restart loses nothing) with a
  process-local :class:`InMemoryTicketStore`;
- :func:`process_ticket`: SUNAT's rules for RC and RA against the
  :class:`~facturador.authority.registry.Registry`, the CDR, and the registry changes of an
  accepted summary (declared boletas become "accepted", voided documents "voided"). A rejected summary
  (99) changes nothing at SUNAT: its first error is the CDR's ResponseCode.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from lxml import etree

from facturador.authority import cdr as cdr_mod
from facturador.authority import reading
from facturador.authority.detail import described
from facturador.authority.gateway import TICKET_DONE, TICKET_IN_PROCESS, TICKET_REJECTED
from facturador.authority.packaging import read_zip
from facturador.authority.registry import Registry, RegistryKey, RegistryRecord
from facturador.ubl.namespaces import CAC, CBC, SAC
from facturador.ubl.signing import SigningIdentity
from sunat import catalogs
from sunat.deadlines import VOIDING_DAYS

if TYPE_CHECKING:  # imported only when a tenant points at SUNAT's stylesheets
    from facturador.authority.stylesheets import SunatStylesheets

__all__ = [
    "SUMMARY_TYPES",
    "InMemoryTicketStore",
    "TicketRecord",
    "TicketStore",
    "accepted_description",
    "process_ticket",
]

#: Summary kinds the ticket flow handles: daily summary, voided communication and reversion (RR, of
#: retentions and perceptions, received by the otros-CPE service).
SUMMARY_TYPES = ("RC", "RA", "RR")
#: Days after a document's issue date SUNAT still takes it in a summary (4443) or voids it (2957).
VOID_DAYS = VOIDING_DAYS
#: A boleta above this total must identify its customer in the summary (2514).
IDENTIFICATION_THRESHOLD = Decimal("700")
#: Document types of a daily summary's lines, and of a voided communication's lines.
SUMMARY_DOCUMENT_TYPES = frozenset({"03", "07", "08"})
VOIDED_DOCUMENT_TYPES = frozenset({"01", "07", "08", "30", "34", "42"})
REVERSED_DOCUMENT_TYPES = frozenset({"20", "40"})
_SUMMARY_DOC_ID = re.compile(r"^(?:B[A-Z0-9]{3}|\d{1,4})-\d{1,8}$")
_SERIES = re.compile(r"^[A-Z0-9]{4}$")
_NUMBER = re.compile(r"^\d{1,8}$")
_UNIDENTIFIED = frozenset({"", "-", "0"})
_RUC = re.compile(r"^\d{11}$")
_DNI = re.compile(r"^\d{8}$")
_NO_SPACES = re.compile(r"^\S+$")
#: Identity types (catalog 06) whose number SUNAT's summary stylesheet checks only for length (4208).
_OTHER_IDENTITIES = frozenset({"0", "4", "7", "A", "B", "C", "D", "E", "F", "G"})
#: What SUNAT's stylesheet wants in a void reason: not blank, no leading space, 3 characters or more.
_VOID_REASON = re.compile(r"^(?!\s*$)\S.{2,}$")


@dataclass(frozen=True)
class TicketRecord:
    """One ticket as SUNAT keeps it.

    ``received_at`` is the reception time in Lima (naive, the CDR's ResponseDate/Time); ``ready_at`` the
    moment (naive UTC) from which the ticket is processed; ``status_code`` is "98" until then, and "0" or
    "99" once processed, with ``cdr_zip``.
    """

    ticket: str
    issuer_ruc: str
    filename: str
    received_at: datetime
    ready_at: datetime
    zip_bytes: bytes = field(repr=False)
    status_code: str = TICKET_IN_PROCESS
    cdr_zip: bytes | None = field(default=None, repr=False)

    @property
    def processed(self) -> bool:
        """True once the ticket has its answer (0 or 99) and its CDR."""
        return self.status_code != TICKET_IN_PROCESS

    @property
    def summary_type(self) -> str:
        """ "RC", "RA" or "RR", from the file name ``RUC-RC-YYYYMMDD-n``."""
        return self.filename[12:14]


@runtime_checkable
class TicketStore(Protocol):
    """Storage of :class:`TicketRecord`; implementations must be thread-safe."""

    def add(self, record: TicketRecord) -> None:
        """Store a new ticket (in process)."""
        ...

    def get(self, ticket: str) -> TicketRecord | None:
        """The record of ``ticket``, or None when SUNAT never gave that ticket."""
        ...

    def find(self, issuer_ruc: str, filename: str) -> TicketRecord | None:
        """The ticket of a file already received from ``issuer_ruc`` (to refuse an ID sent twice)."""
        ...

    def complete(self, ticket: str, status_code: str, cdr_zip: bytes) -> None:
        """Record the processing result of ``ticket``: "0" or "99" and the CDR."""
        ...


class InMemoryTicketStore:
    """A thread-safe, process-local :class:`TicketStore` (the simulator's default, and unit tests')."""

    def __init__(self) -> None:
        self._records: dict[str, TicketRecord] = {}
        self._lock = threading.Lock()

    def add(self, record: TicketRecord) -> None:
        """Store a new ticket."""
        with self._lock:
            self._records[record.ticket] = record

    def get(self, ticket: str) -> TicketRecord | None:
        """The record of ``ticket``, or None."""
        with self._lock:
            return self._records.get(ticket)

    def find(self, issuer_ruc: str, filename: str) -> TicketRecord | None:
        """The ticket of ``filename`` from ``issuer_ruc``, or None."""
        with self._lock:
            return next(
                (r for r in self._records.values() if r.issuer_ruc == issuer_ruc and r.filename == filename),
                None,
            )

    def complete(self, ticket: str, status_code: str, cdr_zip: bytes) -> None:
        """Record the result of ``ticket``."""
        with self._lock:
            record = self._records[ticket]
            self._records[ticket] = replace(record, status_code=status_code, cdr_zip=cdr_zip)

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)


# ------------------------------------------------------------------------------------------------------
# Processing


class _Rejection(Exception):
    """The first error of a summary: the ticket answers 99 with ``code`` in the CDR."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code} {detail}")
        self.code = code
        self.detail = detail


@dataclass
class _Run:
    """What processing one summary collects: observations and the registry changes to apply."""

    ruc: str
    received: date
    check_deadlines: bool
    notes: list[str] = field(default_factory=list)
    changes: list[tuple[RegistryKey, RegistryRecord]] = field(default_factory=list)

    def observe(self, code: str, detail: str = "") -> None:
        note = f"{code} - {catalogs.response_message(code)}"
        if detail:
            note += f" - Detalle: {detail}"
        if not any(existing.startswith(f"{code} - ") for existing in self.notes):
            self.notes.append(note)


def accepted_description(summary_type: str, summary_id: str) -> str:
    """SUNAT's wording for an accepted summary or voided communication."""
    if summary_type == "RA":
        return f"La Comunicación de baja {summary_id}, ha sido aceptada"
    if summary_type == "RR":
        return f"El Resumen de reversiones {summary_id}, ha sido aceptado"
    return f"El Resumen diario {summary_id}, ha sido aceptado"


def process_ticket(
    record: TicketRecord,
    *,
    registry: Registry,
    identity: SigningIdentity,
    processed_at: datetime,
    check_deadlines: bool = True,
    stylesheets: SunatStylesheets | None = None,
) -> tuple[str, bytes]:
    """Process a received summary as SUNAT does; return the ticket's status code ("0"/"99") and CDR zip.

    The file was checked when it was received (zip, XML, schema, signature, ID = file name), so only the
    business rules run here. On acceptance the registry learns the declared boletas (status 1 ->
    "accepted") and the voided documents ("voided"); on rejection nothing is recorded. ``processed_at``
    (Lima, naive) is the CDR's generation time; ``check_deadlines=False`` skips the date rules
    (4443, 2957, 2236/2301) for a sandbox loading history. ``stylesheets`` (SUNAT's published ones, when
    the tenant points at them) run first: their first rejection is the answer, their observations notes.
    """
    _entry, xml = read_zip(record.zip_bytes)
    root = etree.fromstring(xml, cdr_mod.safe_parser())
    summary_id = (root.findtext(CBC("ID")) or "").strip()
    run = _Run(record.issuer_ruc, record.received_at.date(), check_deadlines)
    try:
        if stylesheets is not None:
            _published_rules(run, stylesheets, record, xml)
        if record.summary_type in ("RA", "RR"):
            _voided_rules(run, root, summary_id, registry, reversion=record.summary_type == "RR")
        else:
            _summary_rules(run, root, summary_id, registry)
        code, description, notes = (
            "0",
            accepted_description(record.summary_type, summary_id),
            tuple(run.notes),
        )
    except _Rejection as rejection:
        code, notes = rejection.code, ()
        description = described(code, rejection.detail, record.ticket)
    cdr_xml = cdr_mod.build_cdr(
        identity,
        cdr_id=record.ticket,
        issuer_ruc=record.issuer_ruc,
        reference_id=summary_id,
        code=code,
        description=description,
        notes=notes,
        received_at=record.received_at,
        issued_at=processed_at,
    )
    if code == "0":
        for key, registry_record in run.changes:
            registry.record(key, registry_record)
    return (TICKET_DONE if code == "0" else TICKET_REJECTED), cdr_mod.zip_cdr(record.filename, cdr_xml)


def _published_rules(run: _Run, stylesheets: SunatStylesheets, record: TicketRecord, xml: bytes) -> None:
    """SUNAT's own stylesheet of the summary: its first rejection raises, its observations are noted."""
    verdict = stylesheets.check(record.summary_type, xml, f"{record.filename}.xml", run.received)
    if verdict.rejection is not None:
        raise _Rejection(verdict.rejection.code, verdict.rejection.detail)
    for finding in verdict.observations:
        run.observe(finding.code, finding.detail)


def _date(root: etree._Element, tag: str, code: str) -> date:
    text = reading.text(root, CBC(tag), "")
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        raise _Rejection(code, f'cbc:{tag} valor: "{text}"') from None


def _check_header(run: _Run, root: etree._Element, summary_id: str, late_code: str) -> date:
    """Dates of the summary: IssueDate = date in the ID (2346), ReferenceDate <= IssueDate (2671),
    IssueDate not after reception (2236 RC / 2301 RA). Returns the ReferenceDate."""
    issued = _date(root, "IssueDate", "2346")
    reference = _date(root, "ReferenceDate", "2671")
    parts = summary_id.split("-")
    if len(parts) != 3 or parts[1] != issued.strftime("%Y%m%d"):
        raise _Rejection("2346", f'cbc:ID valor: "{summary_id}"')
    if reference > issued:
        raise _Rejection("2671", f'cbc:ReferenceDate valor: "{reference}"')
    if run.check_deadlines and issued > run.received:
        raise _Rejection(late_code, f'cbc:IssueDate valor: "{issued}"')
    return reference


def _late(run: _Run, reference: date) -> bool:
    return run.check_deadlines and (run.received - reference).days > VOID_DAYS


def _summary_rules(run: _Run, root: etree._Element, summary_id: str, registry: Registry) -> None:
    """Rules of the daily summary (``docs/sunat_domain.md``); the first error raises."""
    reference = _check_header(run, root, summary_id, "2236")
    if _late(run, reference):
        run.observe("4443", f'cbc:ReferenceDate "{reference}"')
    seen: dict[tuple[str, str], set[str]] = {}
    for line in root.iterchildren(SAC("SummaryDocumentsLine")):
        line_id = reading.text(line, CBC("LineID"), "")
        doc_type = reading.text(line, CBC("DocumentTypeCode"), "")
        doc_id = reading.text(line, CBC("ID"), "")
        condition = reading.text(line, f"{CAC('Status')}/{CBC('ConditionCode')}", "")
        if doc_type not in SUMMARY_DOCUMENT_TYPES:
            raise _Rejection("2241", f'line {line_id}: cbc:DocumentTypeCode valor: "{doc_type}"')
        if not _SUMMARY_DOC_ID.match(doc_id):
            raise _Rejection("2280", f'line {line_id}: cbc:ID valor: "{doc_id}"')
        if condition not in catalogs.SUMMARY_CONDITIONS:
            raise _Rejection("2896", f'line {line_id}: cac:Status/cbc:ConditionCode valor: "{condition}"')
        if _total(line) < 0:
            total = reading.text(line, SAC("TotalAmount"), "")
            raise _Rejection("2251", f'line {line_id}: sac:TotalAmount valor: "{total}"')
        _summary_customer(run, line, line_id)
        conditions = seen.setdefault((doc_type, doc_id), set())
        if condition in conditions:
            raise _Rejection("3094", f'line {line_id}: cbc:ID valor: "{doc_id}"')
        conditions.add(condition)
        if {"1", "2"} <= conditions:
            raise _Rejection("3095", f'line {line_id}: cbc:ID valor: "{doc_id}"')
        if {"2", "3"} <= conditions:
            raise _Rejection("3096", f'line {line_id}: cbc:ID valor: "{doc_id}"')
        key = RegistryKey.from_id(run.ruc, doc_type, doc_id)
        previous = registry.lookup(key)
        if condition == "1":
            if previous is not None:
                raise _Rejection("2282", f'line {line_id}: cbc:ID valor: "{doc_id}"')
            if _total(line) > IDENTIFICATION_THRESHOLD and not _identified(line):
                raise _Rejection("2514", f'line {line_id}: cbc:ID valor: "{doc_id}"')
            run.changes.append((key, RegistryRecord("accepted", digest="", code="0")))
            continue
        if previous is None:
            raise _Rejection("2663", f'line {line_id}: cbc:ID valor: "{doc_id}"')
        if previous.status != "accepted":
            raise _Rejection("2987", f'line {line_id}: cbc:ID valor: "{doc_id}"')
        if condition == "3":
            if _late(run, reference):
                raise _Rejection("2957", f'line {line_id}: cbc:ID valor: "{doc_id}"')
            run.changes.append((key, replace(previous, status="voided")))


def _summary_customer(run: _Run, line: etree._Element, line_id: str) -> None:
    """The customer of a summary line, as SUNAT's summary stylesheet checks it: 2017 a RUC that is not
    11 digits (error); observations 4207 a DNI that is not 8 digits, 4208 another document's number
    outside 1-15 characters or with spaces."""
    customer = line.find(CAC("AccountingCustomerParty"))
    if customer is None:
        return
    number = customer.findtext(CBC("CustomerAssignedAccountID"))
    if number is None:
        return
    kind = reading.text(customer, CBC("AdditionalAccountID"), "")
    if kind == "6" and not _RUC.match(number):
        raise _Rejection("2017", f'line {line_id}: cbc:CustomerAssignedAccountID valor: "{number}"')
    if kind == "1" and not _DNI.match(number):
        run.observe("4207", f'line {line_id}: cbc:CustomerAssignedAccountID valor: "{number}"')
    elif kind in _OTHER_IDENTITIES and not (1 <= len(number) <= 15 and _NO_SPACES.match(number)):
        run.observe("4208", f'line {line_id}: cbc:CustomerAssignedAccountID valor: "{number}"')


def _total(line: etree._Element) -> Decimal:
    try:
        return Decimal(reading.text(line, SAC("TotalAmount"), "") or "0")
    except InvalidOperation:  # pragma: no cover - the schema checked xsd:decimal on reception
        return Decimal("0")


def _identified(line: etree._Element) -> bool:
    """Whether a summary line identifies its customer (type of catalog 06 other than 0/-, a number)."""
    customer = line.find(CAC("AccountingCustomerParty"))
    if customer is None:
        return False
    number = reading.text(customer, CBC("CustomerAssignedAccountID"), "")
    kind = reading.text(customer, CBC("AdditionalAccountID"), "")
    return kind not in _UNIDENTIFIED and number not in _UNIDENTIFIED


def _voided_rules(
    run: _Run, root: etree._Element, summary_id: str, registry: Registry, *, reversion: bool = False
) -> None:
    """Rules of the voided communication (``docs/sunat_domain.md``) and of the reversion (RR: the same
    structure for retentions and perceptions, without the 7-day limit); the first error raises."""
    reference = _check_header(run, root, summary_id, "2301")
    seen: set[tuple[str, str, int]] = set()
    for line in root.iterchildren(SAC("VoidedDocumentsLine")):
        line_id = reading.text(line, CBC("LineID"), "")
        doc_type = reading.text(line, CBC("DocumentTypeCode"), "")
        series = reading.text(line, SAC("DocumentSerialID"), "")
        number = reading.text(line, SAC("DocumentNumberID"), "")
        if doc_type not in (REVERSED_DOCUMENT_TYPES if reversion else VOIDED_DOCUMENT_TYPES):
            raise _Rejection("2308", f'line {line_id}: cbc:DocumentTypeCode valor: "{doc_type}"')
        if not _SERIES.match(series) or not _NUMBER.match(number):
            raise _Rejection("2317", f'line {line_id}: cbc:ID valor: "{series}-{number}"')
        identity = (doc_type, series, int(number))
        if identity in seen:
            raise _Rejection("2348", f'line {line_id}: cbc:ID valor: "{series}-{number}"')
        seen.add(identity)
        key = RegistryKey(run.ruc, doc_type, series, int(number))
        previous = registry.lookup(key)
        if previous is None:
            raise _Rejection("2105", f'line {line_id}: cbc:ID valor: "{series}-{number}"')
        if previous.status == "rejected":
            raise _Rejection("2398", f'line {line_id}: cbc:ID valor: "{series}-{number}"')
        if previous.status == "voided":
            raise _Rejection("2323", f'line {line_id}: cbc:ID valor: "{series}-{number}"')
        if not reversion and _late(run, reference):
            raise _Rejection("2957", f'line {line_id}: cbc:ID valor: "{series}-{number}"')
        reason = line.findtext(SAC("VoidReasonDescription")) or ""
        if len(reason) < 3:
            run.observe("4203", f"line {line_id}: sac:VoidReasonDescription")
        if not _VOID_REASON.match(reason):
            run.observe("2314", f"line {line_id}: sac:VoidReasonDescription")
        run.changes.append((key, replace(previous, status="voided")))
