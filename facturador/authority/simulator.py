"""A local SUNAT: ``billService.sendBill`` for facturas, boletas and notes, answered with a signed CDR.

The simulator reproduces what an issuer observes from SUNAT (``docs/sunat_domain.md``: transport, CDR, what
the simulator checks). This module is the transport: it reads the file name, guards against concurrent sends
of one document (0140), parses the zip, runs :data:`~facturador.authority.rules.CHECKS` - the one ordered list
of SUNAT's checks, each written in the module of :mod:`facturador.authority.rules` that owns its codes - and
answers:

- an exception (01xx-1xxx) carries no CDR and is not recorded;
- a rejection (the first failing rule, 2xxx-3xxx) and an acceptance (0, with the observations 4xxx as
  ``cbc:Note``) carry a signed CDR and are recorded in the :class:`~facturador.authority.registry.Registry`
  (the number is consumed); an accepted document sent again unchanged gets its stored CDR back.

``mode="test"`` behaves like SUNAT beta (no taxpayer registries); ``mode="strict"`` adds the checks that
need SUNAT's registries (the customer's RUC, the document a note modifies). ``outage=True`` answers 0109;
a simulator bug answers 0100 instead of failing.

Daily summaries (RC) and voided communications (RA) follow SUNAT's ticket flow: ``send_summary`` checks
the file (:func:`~facturador.authority.rules.identification.receive_summary`) and raises
:class:`AuthorityError` when it does not take it, else stores a ticket; ``get_status`` answers 98 until
the ticket's processing delay has passed, then processes it once with the rules of :mod:`.tickets` and
answers 0 or 99 with the CDR (0127 for an unknown ticket, 0126 for another taxpayer's).
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from facturador.authority import cdr as cdr_mod
from facturador.authority.detail import described
from facturador.authority.gateway import AuthorityError, AuthorityResponse, TicketStatus
from facturador.authority.packaging import base_name
from facturador.authority.registry import Registry, RegistryKey, RegistryRecord, RegistryStatus
from facturador.authority.rules import CHECKS, customer, identification, other_documents
from facturador.authority.rules.context import Answer, FileName, StoredAnswer, Submission, message
from facturador.authority.tickets import InMemoryTicketStore, TicketRecord, TicketStore, process_ticket
from facturador.ubl.signing import SigningIdentity

if TYPE_CHECKING:  # imported by the service only when a tenant points at SUNAT's stylesheets
    from facturador.authority.stylesheets import SunatStylesheets
from sunat.calendar import peru_now, peru_today

__all__ = ["DEFAULT_TICKET_DELAY", "MODES", "SunatSimulator", "message"]

logger = logging.getLogger(__name__)

MODES = ("test", "strict")
#: Seconds a ticket answers 98 before it is processed (``SunatSimulator(ticket_delay=...)``).
DEFAULT_TICKET_DELAY = 2.0

_INFLIGHT: set[RegistryKey] = set()
_INFLIGHT_LOCK = threading.Lock()
#: Tickets being processed in this process, each with the event set when its answer is stored.
_TICKETS_INFLIGHT: dict[str, threading.Event] = {}
#: Seconds a query waits for a concurrent query of this process that is processing the same ticket.
_TICKET_WAIT_SECONDS = 30.0
_SEQUENCE = itertools.count(1)


def _description(code: str, detail: str) -> str:
    return described(code, detail)


class SunatSimulator:
    """An in-process SUNAT ``billService`` implementing :class:`AuthorityGateway`.

    ``identity`` signs the CDRs (SUNAT's certificate in real life); ``registry`` remembers received
    documents; ``mode`` is "test" (beta-like, the default) or "strict" (production-like registries);
    ``today`` gives the Lima date the deadline rules use; ``outage=True`` answers 0109 to everything.
    Cheap to construct (the service may build one per request) and thread-safe: concurrent sends of the
    same document in one process get 0140 for all but one.

    The ticket flow uses ``tickets`` (where tickets are kept; in memory by default), ``ticket_delay``
    (seconds a ticket stays in process), ``clock`` (epoch seconds, for the delay), ``check_deadlines``
    (False: a sandbox loading history, the summaries' date rules 4443/2957/2236/2301 are not applied)
    and ``user_ruc`` (the taxpayer of the SOL user: files and tickets of another RUC get 0154 / 0126).

    ``stylesheets`` (:class:`~facturador.authority.stylesheets.SunatStylesheets`, when the tenant's
    ``authority_rules_dir`` points at SUNAT's published stylesheets) makes SUNAT's own rules answer too:
    after the file, signature and duplicate checks, and before the simulator's business rules, a document
    or summary they reject gets their code; their observations join the CDR's notes.
    """

    def __init__(
        self,
        identity: SigningIdentity,
        registry: Registry,
        *,
        mode: str = "test",
        today: Callable[[], date] = peru_today,
        outage: bool = False,
        tickets: TicketStore | None = None,
        ticket_delay: float = DEFAULT_TICKET_DELAY,
        clock: Callable[[], float] = time.time,
        check_deadlines: bool = True,
        user_ruc: str | None = None,
        stylesheets: SunatStylesheets | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        if ticket_delay < 0:
            raise ValueError("ticket_delay must not be negative")
        self.identity = identity
        self.registry = registry
        self.mode = mode
        #: Answer as SUNAT's production path rather than beta: an accepted document sent again unchanged
        #: is 1033, not its CDR again (the SOAP endpoint sets it per request path).
        self.production = False
        self.today = today
        self.outage = outage
        self.tickets: TicketStore = tickets if tickets is not None else InMemoryTicketStore()
        self.ticket_delay = ticket_delay
        self.clock = clock
        self.check_deadlines = check_deadlines
        self.user_ruc = user_ruc
        self.stylesheets = stylesheets

    # --------------------------------------------------------------------------------------------------
    # The gateway

    def send_bill(self, filename: str, zip_bytes: bytes) -> AuthorityResponse:
        """Process one document zip like SUNAT's ``sendBill`` and answer with the CDR (see module doc)."""
        if self.outage:
            return AuthorityResponse.exception("0109", message("0109"))
        received_at = datetime.combine(self.today(), peru_now().time().replace(microsecond=0))
        try:
            file = identification.file_name(base_name(filename))
        except Answer as answer:
            return AuthorityResponse.exception(answer.code, _description(answer.code, answer.detail))
        if foreign := self._foreign_file(file.name):
            return foreign
        try:
            with self._exclusive(file.key):
                return self._process(file, received_at, zip_bytes)
        except Answer as answer:  # 0140 (being processed), or the zip or its XML cannot be read
            return AuthorityResponse.exception(answer.code, _description(answer.code, answer.detail))
        except Exception as exc:  # a simulator bug must not become a 500: SUNAT's "system error" instead
            logger.exception("SUNAT simulator failed on %s", file.name)
            return AuthorityResponse.exception("0100", _description("0100", f"{type(exc).__name__}: {exc}"))

    def send_other_bill(self, filename: str, zip_bytes: bytes) -> AuthorityResponse:
        """The otros-CPE ``sendBill``: a retention (20) or perception (40) answered with its CDR
        (:mod:`~facturador.authority.rules.other_documents`)."""
        if foreign := self._foreign_file(base_name(filename)):
            return foreign
        try:
            return other_documents.send_other_bill(self, filename, zip_bytes)
        except Exception as exc:  # a simulator bug must not become a 500: SUNAT's "system error" instead
            logger.exception("SUNAT simulator failed on %s", filename)
            return AuthorityResponse.exception("0100", _description("0100", f"{type(exc).__name__}: {exc}"))

    def send_other_summary(self, filename: str, zip_bytes: bytes) -> str:
        """The otros-CPE ``sendSummary``: a reversion (RR) of retentions and perceptions, answered with a
        ticket (:func:`~facturador.authority.rules.other_documents.receive_reversion`); ``get_status``
        processes it like a voided communication."""
        if self.outage:
            raise AuthorityError("0109", message("0109"))
        name = base_name(filename)
        try:
            ruc = other_documents.receive_reversion(
                name, zip_bytes, user_ruc=self.user_ruc, tickets=self.tickets
            )
        except Answer as answer:
            raise AuthorityError(answer.code, _description(answer.code, answer.detail)) from None
        now = self.clock()
        record = TicketRecord(
            ticket=self._ticket_number(now),
            issuer_ruc=ruc,
            filename=name,
            received_at=datetime.combine(self.today(), peru_now().time().replace(microsecond=0)),
            ready_at=_utc(now) + timedelta(seconds=self.ticket_delay),
            zip_bytes=zip_bytes,
        )
        self.tickets.add(record)
        return record.ticket

    def send_summary(self, filename: str, zip_bytes: bytes) -> str:
        """Receive a daily summary (RC) or voided communication (RA) like SUNAT's ``sendSummary``.

        Returns the ticket (a numeric string) and keeps the file for processing; raises
        :class:`AuthorityError` when SUNAT does not take the file (see module doc): nothing is kept then.
        """
        if self.outage:
            raise AuthorityError("0109", message("0109"))
        name = base_name(filename)
        try:
            record = self._receive_summary(name, zip_bytes)
        except Answer as answer:
            raise AuthorityError(answer.code, _description(answer.code, answer.detail)) from None
        except Exception as exc:  # a simulator bug must not become a 500: SUNAT's "system error" instead
            logger.exception("SUNAT simulator failed on %s", name)
            raise AuthorityError("0100", _description("0100", f"{type(exc).__name__}: {exc}")) from exc
        self.tickets.add(record)
        return record.ticket

    def get_status(self, ticket: str) -> TicketStatus:
        """Answer ``getStatus(ticket)``: 98 while in process, then 0 or 99 with the CDR (see module doc).

        A ticket is processed once, by the first query after its delay; later queries get the stored
        answer. Raises :class:`AuthorityError` 0127 for an unknown ticket, 0126 for another taxpayer's.
        """
        if self.outage:
            raise AuthorityError("0109", message("0109"))
        record = self.tickets.get(ticket)
        if record is None:
            raise AuthorityError("0127", message("0127"))
        if self.user_ruc is not None and record.issuer_ruc != self.user_ruc:
            raise AuthorityError("0126", message("0126"))
        if record.processed:
            assert record.cdr_zip is not None
            return TicketStatus(record.status_code, cdr_mod.read_cdr(record.cdr_zip))
        if _utc(self.clock()) < record.ready_at:
            return TicketStatus("98")
        with _INFLIGHT_LOCK:
            processing = _TICKETS_INFLIGHT.get(ticket)
            if processing is None:
                done = _TICKETS_INFLIGHT[ticket] = threading.Event()
        if processing is not None:  # another query is processing it right now: its answer is the answer
            if not processing.wait(_TICKET_WAIT_SECONDS):
                return TicketStatus("98")
            stored = self.tickets.get(ticket)
            if stored is None or not stored.processed or stored.cdr_zip is None:
                return TicketStatus("98")
            return TicketStatus(stored.status_code, cdr_mod.read_cdr(stored.cdr_zip))
        try:
            status_code, cdr_zip = process_ticket(
                record,
                registry=self.registry,
                identity=self.identity,
                processed_at=datetime.combine(self.today(), peru_now().time().replace(microsecond=0)),
                check_deadlines=self.check_deadlines,
                stylesheets=self.stylesheets,
            )
            self.tickets.complete(ticket, status_code, cdr_zip)
        except Exception as exc:  # not processed: the ticket stays in process and can be asked again
            logger.exception("SUNAT simulator failed processing ticket %s", ticket)
            raise AuthorityError("0100", _description("0100", f"{type(exc).__name__}: {exc}")) from exc
        finally:
            with _INFLIGHT_LOCK:
                _TICKETS_INFLIGHT.pop(ticket, None)
            done.set()
        return TicketStatus(status_code, cdr_mod.read_cdr(cdr_zip))

    # --------------------------------------------------------------------------------------------------
    # Steps

    def _foreign_file(self, name: str) -> AuthorityResponse | None:
        """0154 for a file whose RUC is not the SOL user's (``user_ruc``); None otherwise."""
        ruc = name[:11]
        if self.user_ruc is None or not (len(ruc) == 11 and ruc.isdigit()) or ruc == self.user_ruc:
            return None
        return AuthorityResponse.exception("0154", _description("0154", f'fileName valor: "{name}.zip"'))

    def _process(self, file: FileName, received_at: datetime, zip_bytes: bytes) -> AuthorityResponse:
        """Read the zip, run :data:`CHECKS` in order and answer (the first failing check decides)."""
        xml, root = identification.read_document(file.name, zip_bytes)
        doc = Submission(
            file,
            received_at,
            xml,
            root,
            mode=self.mode,
            today=self.today,
            registry=self.registry,
            customer=customer.recipient(root),
            stylesheets=self.stylesheets,
            production=self.production,
        )
        try:
            for check in CHECKS:
                check(doc)
        except StoredAnswer as stored:
            return stored.response
        except Answer as answer:
            return self._respond(doc, answer.code, answer.detail)
        return self._respond(doc, "0", "")

    def _receive_summary(self, name: str, zip_bytes: bytes) -> TicketRecord:
        """The file checks of ``sendSummary``, then a ticket for the file; raises :class:`Answer`."""
        ruc = identification.receive_summary(name, zip_bytes, user_ruc=self.user_ruc, tickets=self.tickets)
        now = self.clock()
        return TicketRecord(
            ticket=self._ticket_number(now),
            issuer_ruc=ruc,
            filename=name,
            received_at=datetime.combine(self.today(), peru_now().time().replace(microsecond=0)),
            ready_at=_utc(now) + timedelta(seconds=self.ticket_delay),
            zip_bytes=zip_bytes,
        )

    @staticmethod
    def _ticket_number(now: float) -> str:
        """A numeric ticket like SUNAT's (milliseconds + 3 digits), unique within the process."""
        return f"{int(now * 1000)}{(next(_SEQUENCE) + os.getpid()) % 1000:03d}"

    @staticmethod
    @contextmanager
    def _exclusive(key: RegistryKey) -> Iterator[None]:
        """Process-wide guard: a document already being processed answers 0140 (the service builds a
        simulator per request, so the set lives at module level)."""
        with _INFLIGHT_LOCK:
            if key in _INFLIGHT:
                raise Answer("0140", f'cbc:ID valor: "{key.series}-{key.number}"')
            _INFLIGHT.add(key)
        try:
            yield
        finally:
            with _INFLIGHT_LOCK:
                _INFLIGHT.discard(key)

    # --------------------------------------------------------------------------------------------------
    # Answers

    def _respond(self, doc: Submission, code: str, detail: str) -> AuthorityResponse:
        """An exception, or a signed CDR recorded in the registry (unless SUNAT already holds one)."""
        value = int(code)
        if 0 < value < 2000:  # exception: not processed, no CDR, nothing recorded
            return AuthorityResponse.exception(code, _description(code, detail))
        if value == 0:
            description = cdr_mod.accepted_description(doc.file.doc_type, doc.doc_id)
            notes = tuple(dict.fromkeys(doc.notes))  # each observation once
        else:
            description = _description(code, detail)
            notes = ()
        xml = cdr_mod.build_cdr(
            self.identity,
            cdr_id=self._cdr_id(),
            issuer_ruc=doc.file.ruc,
            reference_id=doc.doc_id,
            code=code,
            description=description,
            notes=notes,
            recipient=doc.customer,
            received_at=doc.received_at,
            issued_at=datetime.combine(doc.received_at.date(), peru_now().time().replace(microsecond=0)),
        )
        cdr_zip = cdr_mod.zip_cdr(doc.file.name, xml)
        previous = doc.previous if doc.looked_up else self.registry.lookup(doc.file.key)
        if previous is None:  # never overwrite what SUNAT already holds (e.g. an altered resend)
            status: RegistryStatus = "accepted" if value == 0 else "rejected"
            self.registry.record(doc.file.key, RegistryRecord(status, doc.digest, code, cdr_zip))
        return AuthorityResponse(code=code, description=description, notes=notes, cdr_zip=cdr_zip)

    @staticmethod
    def _cdr_id() -> str:
        """A numeric constancy id, unique within the process (milliseconds + a 3-digit sequence)."""
        return f"{time.time_ns() // 1_000_000}{next(_SEQUENCE) % 1000:03d}"


def _utc(epoch_seconds: float) -> datetime:
    """Naive UTC datetime of an epoch time (how ticket records keep ``ready_at``)."""
    return datetime.fromtimestamp(epoch_seconds, UTC).replace(tzinfo=None)
