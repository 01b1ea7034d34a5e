"""The gateway the service uses to talk to the tax authority, and the answer it gets back.

:class:`AuthorityGateway` is the seam between the issuing service and SUNAT: the default implementation
is the local :class:`~facturador.service.authority.simulator.SunatSimulator`; a SOAP transport to the real
``billService`` implements the same Protocol later. Response-code ranges follow reference/sunat.md §6.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


class ResponseKind(enum.StrEnum):
    """What a response means for the document (reference/sunat.md §6)."""

    ACCEPTED = "accepted"  # code 0 without observations
    OBSERVED = "observed"  # code 0 with observations (cbc:Note >= 4000)
    REJECTED = "rejected"  # 2000-3999: the number is consumed, issue a new document
    EXCEPTION = "exception"  # 0100-1999 or transport failure: not processed, resend the same number


def kind_of(code: str, has_notes: bool = False) -> ResponseKind:
    """Classify a SUNAT response code; anything not numeric counts as an exception."""
    try:
        value = int(code)
    except (TypeError, ValueError):
        return ResponseKind.EXCEPTION
    if value == 0:
        return ResponseKind.OBSERVED if has_notes else ResponseKind.ACCEPTED
    if 2000 <= value <= 3999:
        return ResponseKind.REJECTED
    if value >= 4000:  # an observation code used as the main code: the document was accepted
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
        return kind_of(self.code, bool(self.notes))

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


@runtime_checkable
class AuthorityGateway(Protocol):
    """What the service needs from the tax authority.

    ``send_bill`` sends one factura, boleta or note and answers synchronously, like SUNAT's
    ``billService.sendBill``: ``filename`` is the document name without extension
    (``20123456789-01-F001-1``; a trailing ``.zip`` is tolerated) and ``zip_bytes`` the zip made by
    :func:`facturador.service.authority.packaging.zip_document`. Implementations never raise for
    problems SUNAT answers with a code (bad zip, rules, outage): they return an :class:`AuthorityResponse`.

    Planned additions (a later issue; not part of the Protocol yet):

    - ``send_summary(filename: str, zip_bytes: bytes) -> str``: daily summaries (RC) and voided
      communications (RA, RR) go through ``sendSummary`` and return a ticket (numeric string).
    - ``get_status(ticket: str) -> AuthorityResponse``: poll a ticket; ``code`` "98" while SUNAT is still
      processing (no CDR), "0" processed with a CDR, "99" processed with errors (the CDR's ResponseCode
      carries the error), or an exception such as 0127 (unknown ticket). Compare codes as integers
      ("0098" == "98").
    - A billConsultService-like ``get_status_cdr(ruc, doc_type, series, number)`` to recover a lost CDR.
    """

    def send_bill(self, filename: str, zip_bytes: bytes) -> AuthorityResponse:
        """Send one document zip and return SUNAT's answer (with the CDR when there is one)."""
        ...
