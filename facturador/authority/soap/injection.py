"""Failures the simulator's SOAP endpoint injects on purpose, to test how a client survives SUNAT.

An injection applies to one taxpayer (its RUC; or every taxpayer) and one operation (``sendBill``,
``sendSummary``, ``getStatus``, ``getStatusCdr``; or every one), for the next N requests (counted) or
for S seconds (timed), or both (whichever ends first). The oldest active injection that matches a
request is used, and a counted one loses one count. They are kept in the service's database
(``sunat_faults``), so every worker process of ``facturador serve`` applies them; ``facturador
sunat-fault`` adds, lists and clears them (see ``docs/going_live.md``).

The kinds, and what the client sees (*processed* means the simulator really received the request
before failing: a document is registered, a ticket exists, exactly as if the answer had been lost on
the way back):

- ``fault``: not processed; HTTP 500 with a SOAP fault ``soap-env:Client.<code>`` (``Server.<code>``
  for SUNAT's system codes: 0100, 0109, 0130-0138, 0200-0253) and SUNAT's text of the code. Any family:
  01xx (0102 bad user, 0111 no profile...), 0109 (SUNAT down: inject it for an hour), 2xxx/3xxx.
- ``503``: not processed; HTTP 503 with a plain-text body, no SOAP (a gateway in front of SUNAT).
- ``reset``: not processed; the connection is closed without a byte of answer.
- ``reset-after``: processed, then the connection is closed without a byte of answer.
- ``cut``: processed; the answer's status line, headers and half its body, then the connection closes.
- ``timeout``: processed; the answer is held ``seconds`` (60 by default: longer than clients wait)
  or until the client hangs up, then sent.
- ``truncated-zip``: processed; the CDR zip in the answer (``applicationResponse`` or ``content``) is
  cut to half its bytes (answers without a CDR go out whole).
- ``garbage``: processed; HTTP 200 with a body that is not XML.
- ``exception-cdr``: not processed; ``sendBill`` answers HTTP 200 with a bare CDR coded ``code`` (0109 by
  default) as SUNAT sometimes answers an exception (its real ``cdr-rechazo.zip``): the reference,
  the code and the catalogue's text, without dates, signature or parties. ``getStatus(ticket)`` answers
  statusCode 0 with such a CDR about the ticket's file instead of the ticket's own (greenter reads the
  CDR's code, not the statusCode); the ticket keeps its real answer for the next query. An operation
  without a CDR to answer gets the fault of that code instead.
- ``duplicate``: processed; a fault with ``code`` (1033 "registrado previamente con otros datos" by
  default; 0402 also fits) instead of the answer: SUNAT has the document, the client must recover its
  CDR with ``getStatusCdr``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol

__all__ = ["CODED", "KINDS", "OPERATIONS", "Fault", "FaultStore", "check_fault"]

#: Each kind and whether the request is processed before it strikes.
KINDS: dict[str, bool] = {
    "fault": False,
    "503": False,
    "reset": False,
    "reset-after": True,
    "cut": True,
    "timeout": True,
    "truncated-zip": True,
    "garbage": True,
    "duplicate": True,
    "exception-cdr": False,
}
#: The kinds that answer a SUNAT code (``code``).
CODED = ("fault", "duplicate", "exception-cdr")
#: The operations an injection may be limited to.
OPERATIONS = ("sendBill", "sendSummary", "getStatus", "getStatusCdr")
#: Seconds a ``timeout`` holds the answer when the injection does not say.
DEFAULT_HOLD_SECONDS = 60.0
#: The code of a ``duplicate`` when the injection does not say.
DEFAULT_DUPLICATE_CODE = "1033"


@dataclass(frozen=True)
class Fault:
    """One injection: what happens (``kind``, ``code``, ``seconds``) to which requests (``ruc``: None
    for every taxpayer; ``operation``: "" for every one), for how many (``remaining``: None for no
    count) and until when (``until``, naive UTC: None for no end). ``id`` is the store's."""

    kind: str
    ruc: str | None = None
    operation: str = ""
    code: str = ""
    seconds: float = 0.0
    remaining: int | None = None
    until: dt.datetime | None = None
    id: int | None = None

    @property
    def processed(self) -> bool:
        """True when the request is processed before the failure strikes."""
        return KINDS[self.kind]

    @property
    def hold_seconds(self) -> float:
        """How long a ``timeout`` holds the answer."""
        return self.seconds or DEFAULT_HOLD_SECONDS

    @property
    def fault_code(self) -> str:
        """The SUNAT code a ``fault``, ``duplicate`` or ``exception-cdr`` answers (as given: SUNAT's own
        faultcodes are sometimes unpadded, ``soap-env:Server.200``)."""
        if self.code:
            return self.code
        return DEFAULT_DUPLICATE_CODE if self.kind == "duplicate" else "0109"

    def describe(self) -> str:
        """One line for ``facturador sunat-fault list``."""
        who = self.ruc or "every RUC"
        what = self.kind + (f" {self.fault_code}" if self.kind in CODED else "")
        if self.kind == "timeout":
            what += f" holding {self.hold_seconds:g} s"
        scope = f"{self.operation or 'every operation'} of {who}"
        limits = []
        if self.remaining is not None:
            limits.append(f"{self.remaining} request(s) left")
        if self.until is not None:
            limits.append(f"until {self.until:%Y-%m-%d %H:%M:%S} UTC")
        return f"#{self.id}: {what} on {scope}" + (f" ({', '.join(limits)})" if limits else " (no end)")


def check_fault(fault: Fault) -> Fault:
    """``fault`` when it is well formed; ValueError naming the wrong part otherwise."""
    if fault.kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {fault.kind!r}")
    if fault.operation and fault.operation not in OPERATIONS:
        raise ValueError(f"operation must be one of {', '.join(OPERATIONS)}, not {fault.operation!r}")
    if fault.ruc is not None and not (len(fault.ruc) == 11 and fault.ruc.isdigit()):
        raise ValueError(f"ruc must be 11 digits, not {fault.ruc!r}")
    if fault.code and not (fault.code.isdigit() and 1 <= len(fault.code) <= 4):
        raise ValueError(f"code must be SUNAT's code (up to 4 digits), not {fault.code!r}")
    if fault.code and fault.kind not in CODED:
        raise ValueError("only a fault, a duplicate or an exception CDR takes a code")
    if fault.remaining is not None and fault.remaining < 1:
        raise ValueError("the count must be at least 1")
    if not 0 <= fault.seconds <= 3600:
        raise ValueError("seconds must be between 0 and 3600")
    return fault


class FaultStore(Protocol):
    """Where injections are kept (the service's database: ``facturador.store.faults``)."""

    def take(self, ruc: str, operation: str) -> Fault | None:
        """The injection that applies to this request, its count lowered by one; None when none does."""
        ...
