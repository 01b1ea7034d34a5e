"""When the service sends a document it owes to the authority again: a first wait, then doubling waits.

The service owes the sending of a factura or a note of one (group 01) issued while sending is on (the
tenant's ``send_auto`` and the body's ``acciones.enviar_xml_firmado`` not false) until the authority
answers with a state (05, 07 or 09). It is sent when issued; a document still in 01 afterwards (the
authority was unreachable or answered an exception, or the process died before sending) is sent again
by the pending sender (``facturador.domain.pending``) ``send_retry_seconds`` (a tenant setting, 60 by
default; over SOAP at least :func:`sending_seconds`, so that no worker sends it while the issuing request
still may) after it was issued, then after waits that double with each answer, up to
:data:`MAX_RETRY_SECONDS`. :func:`next_attempt` takes that whole decision after each answer.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, NamedTuple

from facturador.authority.gateway import ALREADY_REGISTERED
from facturador.authority.soap.client import RETRY_PAUSE_SECONDS

#: The longest wait between two attempts (30 minutes: SUNAT takes facturas up to 3 days late).
MAX_RETRY_SECONDS = 1800.0
#: How long a sender that took a document keeps it before another may take it (it died while sending).
CLAIM_SECONDS = 300.0
#: How long a worker's job, and the claim of the document it sends, stay its own without a heartbeat
#: (a worker renews both every third of it while it works: see ``facturador.domain.pending.Heartbeat``).
JOB_LEASE_SECONDS = 60.0
DEFAULT_RETRY_SECONDS = 60.0
#: How many answers in a row saying SUNAT already holds the document, without its CDR (1033, 0402, an
#: OSE's 4000, when no billConsultService can prove it: SUNAT's beta, an OSE without one, or a CDR not
#: found), the service takes before it stops sending the document: the same file gets the same answer.
MAX_UNPROVEN_ANSWERS = 3
#: What the document's response says once the service stopped sending it (shown with its code).
NEEDS_A_PERSON = (
    "SUNAT ya tiene este comprobante pero no entregó su CDR: no se reenvía más. Consulte su estado en SUNAT "
    "(Consulta de validez del CPE / CDR en SOL) y regístrelo (POST /api/documents/updatedocumentstatus), o "
    "envíelo otra vez a mano (POST /api/documents/send)."
)


def utc_now() -> dt.datetime:
    """Now in UTC, naive (as ``next_send_at`` is stored)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def retry_seconds(settings: dict[str, Any]) -> float:
    """The tenant's first wait (``send_retry_seconds``)."""
    return float(settings.get("send_retry_seconds", DEFAULT_RETRY_SECONDS))


def sending_seconds(settings: dict[str, Any]) -> float:
    """The longest one sending over SOAP may take (0 on the in-process simulator): two SOAP calls, each of
    up to ``sunat_retries + 1`` tries of up to ``sunat_timeout`` seconds with the client's pauses between
    tries. The second call is the consultation (getStatusCdr) that follows a sendBill whose answer was
    not read (timed out, cut) or that SUNAT refused with a CDR to fetch; with the defaults (30 s, 2
    retries) 2 × (3 × 30 + 0.5 + 1.0) = 183 s. Nothing else of an issuing request waits that long."""
    if settings.get("sunat_sending", "simulator") == "simulator":
        return 0.0
    retries = int(settings.get("sunat_retries", 2))
    pauses = RETRY_PAUSE_SECONDS * retries * (retries + 1) / 2  # 0.5 s, 1 s, ... between the tries
    return 2 * (float(settings.get("sunat_timeout", 30.0)) * (retries + 1) + pauses)


def first_send_at(settings: dict[str, Any], now: dt.datetime) -> dt.datetime:
    """When the pending sender takes a document issued at ``now`` if issuing did not get its answer:
    after the first wait, and never while the issuing request may still be sending it itself (another
    node's worker would send it a second time)."""
    return now + dt.timedelta(seconds=max(retry_seconds(settings), sending_seconds(settings)))


def retry_delay(attempts: int, settings: dict[str, Any]) -> dt.timedelta:
    """The wait after the ``attempts``-th answer that left the document in 01: the first wait doubled
    ``attempts - 1`` times, at most :data:`MAX_RETRY_SECONDS` (or the first wait when it is longer)."""
    base = retry_seconds(settings)
    seconds = min(base * 2 ** min(max(attempts - 1, 0), 30), max(base, MAX_RETRY_SECONDS))
    return dt.timedelta(seconds=seconds)


def unproven_answers(previous: Mapping[str, Any] | None, code: str, has_cdr: bool) -> int:
    """How many answers in a row, this one included, said SUNAT already holds the document without
    giving its CDR (0 when this one is not such an answer); ``previous`` is the response stored before."""
    if has_cdr or code not in ALREADY_REGISTERED:
        return 0
    before = previous or {}
    return int(before.get("unproven") or 0) + 1 if before.get("code") in ALREADY_REGISTERED else 1


def gives_up(unproven: int) -> bool:
    """Whether the service stops sending a document after ``unproven`` such answers in a row: it stays
    registered (01) with its last answer, for a person to settle (the dashboard's Inicio lists it)."""
    return unproven >= MAX_UNPROVEN_ANSWERS


class NextAttempt(NamedTuple):
    """What the service does after an answer: ``at`` is when the pending sender sends the document again
    (naive UTC; ``None``: it is not sent again by itself), ``given_up`` whether that is because the service
    stopped sending it (:func:`gives_up`: a person settles it)."""

    at: dt.datetime | None
    given_up: bool = False


def next_attempt(
    owed: bool, attempts: int, settings: dict[str, Any], unproven: int = 0, now: dt.datetime | None = None
) -> NextAttempt:
    """The whole retry decision after the ``attempts``-th answer to a document: when the sending is still
    ``owed`` (the answer left it in 01: an exception, or no answer at all) it is sent again after
    :func:`retry_delay`, unless ``unproven`` answers in a row said SUNAT holds it without its CDR
    (:func:`gives_up`); once answered with a state it is not sent again. ``now`` defaults to
    :func:`utc_now`."""
    if not owed:
        return NextAttempt(None)
    if gives_up(unproven):
        return NextAttempt(None, given_up=True)
    return NextAttempt((now or utc_now()) + retry_delay(attempts, settings))
