"""The gateway the service uses to talk to the tax authority, and the answer it gets back.

:class:`AuthorityGateway` is the seam between the issuing service and SUNAT: the default implementation is the
local :class:`~facturador.authority.simulator.SunatSimulator`; a SOAP transport to the real ``billService``
implements the same Protocol later. Response-code ranges: ``docs/sunat_domain.md``, CDR and answer codes.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


class ResponseKind(enum.StrEnum):
    """What a response means for the document (``docs/sunat_domain.md``, CDR and answer codes)."""

    ACCEPTED = "accepted"  # code 0 without observations
    OBSERVED = "observed"  # code 0 with observations (cbc:Note >= 4000)
    REJECTED = "rejected"  # 2000-3999: the number is consumed, issue a new document
    EXCEPTION = "exception"  # 0100-1999 or transport failure: not processed, resend the same number


#: Codes saying SUNAT (or an OSE) already holds the document: 1033 "registrado previamente", 0402 "ya ha
#: sido enviado anteriormente", 4000 (an OSE's). Only its CDR tells in which state: without it the answer
#: is no state, and sending the same file again gets the same code.
ALREADY_REGISTERED = frozenset({"1033", "0402", "4000"})


def kind_of(code: str, has_notes: bool = False, has_cdr: bool = True) -> ResponseKind:
    """Classify a SUNAT response code; anything not numeric counts as an exception. A main code of 4000
    or more is an observation (the document was accepted) only in a CDR: as a bare fault (an OSE's
    4000 "already registered") it gives no state, and counts as an exception."""
    try:
        value = int(code)
    except (TypeError, ValueError):
        return ResponseKind.EXCEPTION
    if value == 0:
        return ResponseKind.OBSERVED if has_notes else ResponseKind.ACCEPTED
    if 2000 <= value <= 3999:
        return ResponseKind.REJECTED
    if value >= 4000 and has_cdr:  # an observation code used as the main code of a CDR: accepted
        return ResponseKind.OBSERVED
    return ResponseKind.EXCEPTION


@dataclass(frozen=True)
class AuthorityResponse:
    """SUNAT's answer to one document.

    ``code`` is SUNAT's response code as text ("0", "2800", "0109"...), ``description`` its message,
    ``notes`` the observations as ``"4252 - message"`` and ``cdr_zip`` the ``R-<filename>.zip`` when a CDR
    exists (accepted, observed and rejected documents; never for exceptions).
    """

    code: str
    description: str
    notes: tuple[str, ...] = ()
    cdr_zip: bytes | None = field(default=None, repr=False)

    @property
    def kind(self) -> ResponseKind:
        """ACCEPTED, OBSERVED, REJECTED or EXCEPTION (see :class:`ResponseKind`)."""
        return kind_of(self.code, bool(self.notes), self.cdr_zip is not None)

    @property
    def accepted(self) -> bool:
        """True when the document is valid for SUNAT (accepted, possibly with observations)."""
        return self.kind in (ResponseKind.ACCEPTED, ResponseKind.OBSERVED)

    @property
    def note_codes(self) -> tuple[str, ...]:
        """The observation codes of ``notes`` (the text before " - ")."""
        return tuple(note.split(" - ", 1)[0].strip() for note in self.notes)

    @classmethod
    def exception(cls, code: str, description: str) -> AuthorityResponse:
        """An exception answer (not processed, no CDR), e.g. 0109 when SUNAT is down."""
        return cls(code=code, description=description)


class AuthorityError(Exception):
    """The authority refused a request without processing it (a SOAP fault on the real service).

    Raised by ``send_summary`` for a file SUNAT does not take (bad name or zip 01xx, unreadable XML 0306,
    schema, signature, ``cbc:ID`` not matching the file name 2220, an ID already sent 2223/2324) and by
    ``get_status`` for an unknown ticket (0127), a ticket of another taxpayer (0126) or an outage (0109).
    ``code`` is SUNAT's code, ``description`` its message; ``str()`` gives the real services' wording
    ``Code: {code}; Description: {description}``.
    """

    def __init__(self, code: str, description: str) -> None:
        super().__init__(f"Code: {code}; Description: {description}")
        self.code = code
        self.description = description


#: ``getStatus`` status codes of a ticket (``docs/sunat_domain.md``, transport).
TICKET_DONE = "0"  # processed: the CDR accepts the summary (maybe with observations)
TICKET_IN_PROCESS = "98"  # still processing: no CDR yet
TICKET_REJECTED = "99"  # processed with errors: the CDR's ResponseCode is the error


@dataclass(frozen=True)
class TicketStatus:
    """SUNAT's answer to ``getStatus(ticket)``.

    ``status_code`` is "98" while the ticket is being processed (``response`` is None), "0" when it was
    processed and accepted, "99" when it was processed and rejected; then ``response`` is the CDR read as
    an :class:`AuthorityResponse` (``code`` "0" or the error code, ``notes``, ``cdr_zip``).
    """

    status_code: str
    response: AuthorityResponse | None = None

    @property
    def in_process(self) -> bool:
        """True while SUNAT still processes the ticket (codes compare as integers: "0098" == "98")."""
        return int(self.status_code) == int(TICKET_IN_PROCESS)

    @property
    def accepted(self) -> bool:
        """True when the ticket was processed and its summary accepted: the CDR's own code says so (as
        greenter reads it), whatever ``status_code`` came with it."""
        return self.response is not None and self.response.accepted


@runtime_checkable
class AuthorityGateway(Protocol):
    """What the service needs from the tax authority.

    ``send_bill`` sends one factura, boleta or note and answers synchronously, like SUNAT's
    ``billService.sendBill``: ``filename`` is the document name without extension
    (``20123456789-01-F001-1``; a trailing ``.zip`` is tolerated) and ``zip_bytes`` the zip made by
    :func:`facturador.authority.packaging.zip_document`. Implementations never raise for
    problems SUNAT answers with a code (bad zip, rules, outage): they return an :class:`AuthorityResponse`.

    ``send_summary`` and ``get_status`` are the ticket flow of daily summaries (RC) and voided
    communications (RA): ``send_summary(filename, zip_bytes)`` returns a ticket (a numeric string) or
    raises :class:`AuthorityError` when SUNAT refuses the file; ``get_status(ticket)`` answers a
    :class:`TicketStatus` (98 in process, 0 accepted, 99 rejected, with the CDR when processed) or raises
    :class:`AuthorityError` (0127 unknown ticket...).

    A later addition: a billConsultService-like ``get_status_cdr(ruc, doc_type, series, number)`` to
    recover a lost CDR.
    """

    def send_bill(self, filename: str, zip_bytes: bytes) -> AuthorityResponse:
        """Send one document zip and return SUNAT's answer (with the CDR when there is one)."""
        ...

    def send_summary(self, filename: str, zip_bytes: bytes) -> str:
        """Send a summary (RC) or voided communication (RA) zip; return SUNAT's ticket."""
        ...

    def get_status(self, ticket: str) -> TicketStatus:
        """Ask SUNAT how a ticket stands: in process (98), accepted (0) or rejected (99) with its CDR."""
        ...
