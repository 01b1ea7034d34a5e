"""Waiting for tickets: poll a summary's or voided communication's status until the authority answers.

SUNAT answers daily summaries (RC) and voided communications (RA) asynchronously: sending gives a
ticket, and the ticket's status is "in process" (98) for a while — seconds usually, sometimes much
longer — before its CDR. :func:`wait_for_ticket` asks again with a growing interval until the answer
arrives or a deadline passes::

    from connector import wait_for_ticket

    ref = client.voided.void("2026-11-22", [(external_id, "Error en el RUC del cliente")])
    status = wait_for_ticket(client.voided, external_id=ref.external_id, timeout=30)
    if status.accepted:
        ...

Each poll goes through the client's retrying read path (``Connection.poll``: connection errors and
502/503/504 are retried there); errors other than "in process" propagate at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, runtime_checkable

from connector.errors import FacturadorError
from connector.models import TicketStatus

__all__ = ["StatusSource", "TicketTimeout", "wait_for_ticket"]


class Polled(Protocol):
    """What a status answer needs for :func:`wait_for_ticket`: ``processing`` and the ``raw`` answer
    (:class:`~connector.models.TicketStatus`, :class:`~connector.dispatches.GuideStatus`)."""

    @property
    def processing(self) -> bool: ...

    @property
    def raw(self) -> Any: ...


StatusT = TypeVar("StatusT", bound=Polled)


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
