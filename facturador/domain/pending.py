"""Documents the service still owes the authority, and the sender that sends them.

A document is *pending* while the service owes its sending (see :mod:`facturador.domain.send_policy`): a
factura or a note of one, issued with sending on (the tenant's ``send_auto`` and the body's
``acciones.enviar_xml_firmado`` not false), or a retention or perception, still in state 01 (registered).
That is a document whose issuing request died between its commit and the authority's answer, or one the
authority did not take (an outage, an exception answer, an answer lost on the way). Documents issued with
sending off are the client's to send (``POST /api/documents/send``), and boletas go in daily summaries:
neither is pending.

:class:`PendingSender` sends the pending documents that are due: ``facturador serve`` runs one in its
parent process (whatever the number of workers), ``facturador send-pending`` one pass from cron. Before
sending, a sender *claims* a document by moving its next sending time :data:`CLAIM_SECONDS` ahead in one
conditional update, so two senders (serve and cron, or two hosts) never send one document at once.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import select, update

from facturador.context import ServiceContext
from facturador.domain import states
from facturador.domain.documents import DocumentService
from facturador.domain.other_documents import OtherDocumentService
from facturador.domain.send_policy import CLAIM_SECONDS, retry_delay, utc_now
from facturador.domain.summaries import SummaryService
from facturador.errors import ServiceError
from facturador.store.models import DOCUMENTS, OTHER_DOCUMENTS, TENANTS

log = logging.getLogger("facturador.pending")


@dataclass(frozen=True)
class PendingDocument:
    """A document the service owes the authority; ``next_send_at`` is naive UTC."""

    id: int
    external_id: str
    tenant: str
    number: str
    attempts: int
    next_send_at: dt.datetime
    last_code: str | None
    #: "documents" (facturas and their notes) or "other" (retentions and perceptions)
    family: str = "documents"

    def due(self, now: dt.datetime) -> bool:
        return self.next_send_at <= now


@dataclass(frozen=True)
class SendOutcome:
    """What one sending of a pending document gave: its state afterwards, the authority's code and
    description, or ``error`` when the sending failed or another sender had taken the document."""

    document: PendingDocument
    state: str | None = None
    code: str = ""
    description: str = ""
    error: str | None = None

    @property
    def settled(self) -> bool:
        """The authority answered with a state (05, 07, 09): nothing is owed any more."""
        return self.state is not None and self.state != states.REGISTERED

    def describe(self) -> str:
        where = f"{self.document.number} ({self.document.tenant})"
        if self.error is not None:
            return f"{where}: not sent: {self.error}"
        if self.settled:
            return (
                f"{where}: {self.state} {states.describe(self.state or '')} ({self.code} {self.description})"
            )
        return f"{where}: still pending: {self.code} {self.description}"


class PendingSender:
    """Finds and sends the pending documents of one database (every tenant, or one)."""

    def __init__(self, context: ServiceContext, documents: DocumentService | None = None):
        self.context = context
        self.documents = documents or DocumentService(context)

    def pending(
        self, *, tenant: str | None = None, due_at: dt.datetime | None = None
    ) -> list[PendingDocument]:
        """The pending documents, the longest due first; only those due at ``due_at`` when given."""
        found = []
        for family, table in (("documents", DOCUMENTS), ("other", OTHER_DOCUMENTS)):
            query = (
                select(
                    table.c.id,
                    table.c.external_id,
                    TENANTS.c.slug,
                    table.c.series,
                    table.c.number,
                    table.c.send_attempts,
                    table.c.next_send_at,
                    table.c.response,
                )
                .join(TENANTS, TENANTS.c.id == table.c.tenant_id)
                .where(table.c.next_send_at.is_not(None), table.c.state_type_id == states.REGISTERED)
            )
            if due_at is not None:
                query = query.where(table.c.next_send_at <= due_at)
            if tenant is not None:
                query = query.where(TENANTS.c.slug == tenant)
            with self.context.engine.connect() as connection:
                rows = connection.execute(query).all()
            found += [
                PendingDocument(
                    id=row.id,
                    external_id=row.external_id,
                    tenant=row.slug,
                    number=f"{row.series}-{row.number}",
                    attempts=row.send_attempts,
                    next_send_at=row.next_send_at,
                    last_code=(row.response or {}).get("code"),
                    family=family,
                )
                for row in rows
            ]
        return sorted(found, key=lambda document: (document.next_send_at, document.family, document.id))

    def send_due(
        self,
        *,
        tenant: str | None = None,
        force: bool = False,
        report: Callable[[SendOutcome], None] | None = None,
    ) -> list[SendOutcome]:
        """Send every pending document that is due (every one with ``force``), one at a time, and return
        what each gave; ``report`` hears of each as it is done. Documents another sender claimed are
        skipped."""
        now = utc_now()
        outcomes = []
        for document in self.pending(tenant=tenant, due_at=None if force else now):
            outcome = self._send_one(document)
            if outcome is None:
                continue
            outcomes.append(outcome)
            if report is not None:
                report(outcome)
        return outcomes

    def _claim(self, document: PendingDocument) -> bool:
        """Move the document's next sending time ahead if no other sender did since it was read."""
        table = DOCUMENTS if document.family == "documents" else OTHER_DOCUMENTS
        statement = (
            update(table)
            .where(
                table.c.id == document.id,
                table.c.state_type_id == states.REGISTERED,
                table.c.next_send_at == document.next_send_at,
            )
            .values(next_send_at=utc_now() + dt.timedelta(seconds=CLAIM_SECONDS))
        )
        with self.context.writing() as connection:
            return connection.execute(statement).rowcount == 1

    def _send_one(self, document: PendingDocument) -> SendOutcome | None:
        if not self._claim(document):
            return None
        tenant = self.context.tenant_by_slug(document.tenant)
        if tenant is None:  # pragma: no cover - the tenant was deleted since the query
            return None
        table = DOCUMENTS if document.family == "documents" else OTHER_DOCUMENTS
        try:
            if document.family == "documents":
                row, _has_cdr = self.documents.send_document(tenant, document.external_id)
            else:
                row = OtherDocumentService(self.context).send_stored(tenant, document.id).row
        except Exception as exc:  # an authority transport error must not stop the other documents
            log.exception("sending %s (%s) failed", document.number, document.tenant)
            attempts = document.attempts + 1
            with self.context.writing() as connection:
                connection.execute(
                    update(table)
                    .where(table.c.id == document.id)
                    .values(
                        send_attempts=attempts,
                        next_send_at=utc_now() + retry_delay(attempts, tenant.settings),
                    )
                )
            return SendOutcome(document, error=f"{type(exc).__name__}: {exc}")
        response = row.response or {}
        outcome = SendOutcome(
            document,
            state=row.state_type_id,
            code=str(response.get("code", "")),
            description=str(response.get("description", "")),
        )
        if outcome.settled:
            log.info("sent %s", outcome.describe())
        else:
            log.warning("%s; next attempt at %s UTC", outcome.describe(), row.next_send_at)
        return outcome


@dataclass(frozen=True)
class PollOutcome:
    """What asking about one summary's ticket gave: its state afterwards (03 while SUNAT still
    processes it), SUNAT's code, or the error."""

    tenant: str
    identifier: str
    state: str | None = None
    code: str = ""
    error: str | None = None

    def describe(self) -> str:
        where = f"{self.identifier} ({self.tenant})"
        if self.error is not None:
            return f"{where}: ticket not answered: {self.error}"
        if self.state in (states.SENT, states.REGISTERED):
            return f"{where}: ticket still in process"
        return f"{where}: {self.state} {states.describe(self.state or '')} ({self.code})"


class TicketPoller:
    """Asks SUNAT about the tickets of summaries, voided communications and reversions still in process
    (doubling waits), and sends again those whose answer was lost (see
    :meth:`facturador.domain.summaries.SummaryService.poll`)."""

    def __init__(self, context: ServiceContext):
        self.context = context
        self.summaries = SummaryService(context)

    def due(self, *, tenant: str | None = None, now: dt.datetime | None = None) -> list[tuple[str, int]]:
        """``(tenant slug, summary id)`` of the summaries to ask about at ``now`` (naive UTC)."""
        return self.summaries.due_for_polling(now or utc_now(), tenant)

    def poll_due(
        self,
        *,
        tenant: str | None = None,
        now: dt.datetime | None = None,
        report: Callable[[PollOutcome], None] | None = None,
    ) -> list[PollOutcome]:
        """Ask about every summary due at ``now`` (naive UTC, by default now); what each gave."""
        outcomes = []
        for slug, summary_id in self.due(tenant=tenant, now=now):
            info = self.context.tenant_by_slug(slug)
            if info is None:  # pragma: no cover - deleted since the query
                continue
            try:
                answer = self.summaries.poll(info, summary_id)
            except ServiceError as exc:
                outcome = PollOutcome(slug, str(summary_id), error=exc.message)
            except Exception as exc:  # one failing ticket must not stop the others
                log.exception("polling summary %s (%s) failed", summary_id, slug)
                outcome = PollOutcome(slug, str(summary_id), error=f"{type(exc).__name__}: {exc}")
            else:
                if answer is None:
                    continue
                code = str((answer.response or {}).get("code", ""))
                outcome = PollOutcome(slug, answer.identifier, state=answer.state_type_id, code=code)
            outcomes.append(outcome)
            if report is not None:
                report(outcome)
        return outcomes


def run_sender(context: ServiceContext, every: float, stop: threading.Event) -> None:
    """Send the due pending documents and ask about the due tickets now and then every ``every``
    seconds until ``stop`` is set (the background sender of ``facturador serve``); a failing pass is
    logged and the next one runs."""
    sender = PendingSender(context)
    poller = TicketPoller(context)
    while True:
        try:
            outcomes = sender.send_due()
            if outcomes:
                settled = sum(outcome.settled for outcome in outcomes)
                log.info("pending sender: %d sent, %d settled", len(outcomes), settled)
            for polled in poller.poll_due():
                log.info("ticket poller: %s", polled.describe())
        except Exception:
            log.exception("pending sender pass failed")
        if stop.wait(every):
            return
