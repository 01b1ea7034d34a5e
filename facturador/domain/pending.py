"""Documents the service still owes the authority, and the sender that sends them.

A document is *pending* while the service owes its sending (see :mod:`facturador.domain.send_policy`): a
factura or a note of one, issued with sending on (the tenant's ``send_auto`` and the body's
``acciones.enviar_xml_firmado`` not false), or a retention or perception, still in state 01 (registered).
That is a document whose issuing request died between its commit and the authority's answer, or one the
authority did not take (an outage, an exception answer, an answer lost on the way). Documents issued with
sending off are the client's to send (``POST /api/documents/send``), and boletas go in daily summaries:
neither is pending.

:class:`PendingSender` sends the pending documents that are due; ``facturador send-pending`` runs one
pass from cron. Before sending, a sender *claims* a document by moving its next sending time ahead (by
:data:`CLAIM_SECONDS`, or a worker's lease) in one conditional update, so two senders (a worker and
cron, or two nodes) never send one document at once.

:class:`Worker` does the background work through the job queue (:mod:`facturador.store.jobs`): it turns
what is due into jobs, takes one at a time under a lease and does it. ``facturador serve`` runs one in its
parent process (unless ``--no-worker``), ``facturador worker`` one on its own; any number of them on one
database share the work, each document sent by one of them.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update

from facturador.authority.gateway import AuthorityError
from facturador.context import Caller, ServiceContext
from facturador.domain import failpoints, states
from facturador.domain.documents import DocumentService
from facturador.domain.email_delivery import EmailDeliveries
from facturador.domain.email_delivery import enqueue_due as email_due
from facturador.domain.other_documents import OtherDocumentService
from facturador.domain.send_policy import CLAIM_SECONDS, JOB_LEASE_SECONDS, next_attempt, utc_now
from facturador.domain.summaries import BOLETA_GROUP, SummaryService, needs_a_person
from facturador.domain.validity_sweep import (
    VALIDATE,
    run_scheduled_sweep,
    tenants_owing_sweeps,
    validity_attention,
)
from facturador.errors import ServiceError
from facturador.store.db import UNAVAILABLE
from facturador.store.jobs import DECLARE, EMAIL, POLL, SEND, SEND_OTHER, Job, JobQueue, worker_name
from facturador.store.models import DOCUMENTS, OTHER_DOCUMENTS, SUMMARIES, TENANTS, USERS
from sunat.calendar import LIMA

log = logging.getLogger("facturador.pending")
#: What a sending or a job meets in the ordinary course (the database or the authority away, a connection
#: cut): logged as one warning line, without a traceback; anything else is a defect and keeps its traceback.
EXPECTED_FAILURES: tuple[type[Exception], ...] = (*UNAVAILABLE, AuthorityError, OSError, TimeoutError)


def move_claim(
    context: ServiceContext, family: str, document_id: int, read: dt.datetime, seconds: float
) -> dt.datetime | None:
    """Set a registered document's next sending time ``seconds`` from now if it is still ``read``
    (compare-and-set); the new time, or None when another sender, or the document's answer, moved it."""
    table = DOCUMENTS if family == "documents" else OTHER_DOCUMENTS
    until = utc_now() + dt.timedelta(seconds=seconds)
    statement = (
        update(table)
        .where(
            table.c.id == document_id,
            table.c.state_type_id == states.REGISTERED,
            table.c.next_send_at == read,
        )
        .values(next_send_at=until)
    )
    with context.writing() as connection:
        return until if connection.execute(statement).rowcount == 1 else None


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
        self,
        *,
        tenant: str | None = None,
        due_at: dt.datetime | None = None,
        only: tuple[str, int] | None = None,
    ) -> list[PendingDocument]:
        """The pending documents, the longest due first; only those due at ``due_at`` when given, only
        the document ``only`` (its family and id) when given."""
        found = []
        for family, table in (("documents", DOCUMENTS), ("other", OTHER_DOCUMENTS)):
            if only is not None and only[0] != family:
                continue
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
            if only is not None:
                query = query.where(table.c.id == only[1])
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
            outcome = self.send_one(document)
            if outcome is None:
                continue
            outcomes.append(outcome)
            if report is not None:
                report(outcome)
        return outcomes

    def claim(self, document: PendingDocument, seconds: float = CLAIM_SECONDS) -> dt.datetime | None:
        """Move the document's next sending time ``seconds`` ahead if no other sender did since it was
        read: the one sender whose update matched sends it. The time it is claimed until, or None."""
        return move_claim(self.context, document.family, document.id, document.next_send_at, seconds)

    def send_one(
        self,
        document: PendingDocument,
        claim_seconds: float = CLAIM_SECONDS,
        heartbeat: Heartbeat | None = None,
    ) -> SendOutcome | None:
        """Claim the document and send it; None when another sender claimed it first. A worker's
        ``heartbeat`` keeps the claim alive while the sending lasts."""
        claimed_until = self.claim(document, claim_seconds)
        if claimed_until is None:
            return None
        if heartbeat is not None:
            heartbeat.keep_claim(document.family, document.id, claimed_until)
        failpoints.after_send_claim()
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
            if isinstance(exc, EXPECTED_FAILURES):  # SUNAT or the database away: one line, no traceback
                log.warning("sending %s (%s) failed: %s", document.number, document.tenant, _first_line(exc))
            else:
                log.exception("sending %s (%s) failed", document.number, document.tenant)
            attempts = document.attempts + 1
            with self.context.writing() as connection:
                connection.execute(
                    update(table)
                    .where(table.c.id == document.id)
                    .values(
                        send_attempts=attempts,
                        next_send_at=next_attempt(owed=True, attempts=attempts, settings=tenant.settings).at,
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

    def poll_one(self, summary_id: int, now: dt.datetime | None = None) -> PollOutcome | None:
        """Ask about one summary's ticket if it is still due at ``now``; None when it is not."""
        with self.context.engine.connect() as connection:
            slug = connection.execute(
                select(TENANTS.c.slug)
                .join(SUMMARIES, SUMMARIES.c.tenant_id == TENANTS.c.id)
                .where(
                    SUMMARIES.c.id == summary_id,
                    SUMMARIES.c.next_poll_at <= (now or utc_now()),
                    SUMMARIES.c.state_type_id.in_((states.SENT, states.REGISTERED)),
                )
            ).scalar()
        return None if slug is None else self._poll(slug, summary_id)

    def _poll(self, slug: str, summary_id: int) -> PollOutcome | None:
        info = self.context.tenant_by_slug(slug)
        if info is None:  # pragma: no cover - deleted since the query
            return None
        try:
            answer = self.summaries.poll(info, summary_id)
        except ServiceError as exc:
            return PollOutcome(slug, str(summary_id), error=exc.message)
        except Exception as exc:  # one failing ticket must not stop the others
            log.exception("polling summary %s (%s) failed", summary_id, slug)
            return PollOutcome(slug, str(summary_id), error=f"{type(exc).__name__}: {exc}")
        if answer is None:
            return None
        code = str((answer.response or {}).get("code", ""))
        return PollOutcome(slug, answer.identifier, state=answer.state_type_id, code=code)

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
            outcome = self._poll(slug, summary_id)
            if outcome is None:
                continue
            outcomes.append(outcome)
            if report is not None:
                report(outcome)
        return outcomes


#: Seconds a job whose handler failed waits before it is taken again.
FAILED_JOB_WAIT = 60.0


class Heartbeat:
    """Keeps a job's lease, and the claim of the document it sends, alive while a worker does it.

    Every third of the lease both are pushed a whole lease ahead (the claim by compare-and-set on the time
    this heartbeat last set, so a stored answer's next attempt time is never overwritten). A lease then
    needs to outlast only a heartbeat's silence, not the longest sending: a worker killed outright stops
    beating and its job is taken again one lease later. Used as a context manager around the job."""

    def __init__(self, worker: Worker, job: Job):
        self.worker, self.job = worker, job
        self.interval = worker.lease_seconds / 3
        self._claim: tuple[str, int, dt.datetime] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{job.id}", daemon=True)

    def keep_claim(self, family: str, document_id: int, claimed_until: dt.datetime) -> None:
        """Keep pushing this document's claim (set to ``claimed_until``) while the job lasts."""
        self._claim = (family, document_id, claimed_until)

    def beat(self) -> bool:
        """Push the lease and the claim ahead once; False when the job's lease was lost."""
        lease = self.worker.lease_seconds
        if not self.worker.queue.extend(self.job, lease):
            return False
        if self._claim is not None:
            family, document_id, until = self._claim
            moved = move_claim(self.worker.context, family, document_id, until, lease)
            self._claim = None if moved is None else (family, document_id, moved)
        return True

    def _beat(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                if not self.beat():
                    log.warning("job %s %s lost its lease", self.job.kind, self.job.target_id)
                    return
            except Exception:  # a failed beat is retried at the next one; the job goes on
                log.exception("heartbeat of job %s failed", self.job.id)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()


class Worker:
    """Does the background work of one database through its job queue: pending sends, ticket polls
    and their retries (the targets' own schedules, doubling after each answer that leaves them owed),
    and the e-mails to customers (:mod:`facturador.domain.email_delivery`).

    A job is held under a lease of ``lease_seconds`` that a :class:`Heartbeat` renews while the job is
    done: a worker killed while it holds one leaves the job and the document's claim to expire within a
    lease, and then another worker takes it again."""

    def __init__(self, context: ServiceContext, *, lease_seconds: float = JOB_LEASE_SECONDS):
        self.context = context
        self.lease_seconds = lease_seconds
        self.queue = JobQueue(context.db)
        self.sender = PendingSender(context)
        self.poller = TicketPoller(context)
        self.mail = EmailDeliveries(context)
        self.name = worker_name()

    def run_once(self, stop: threading.Event | None = None) -> int:
        """Enqueue what is due, then take and do jobs until none is left (or ``stop`` is set); how many
        were done."""
        self.queue.enqueue_due()
        self.queue.enqueue(DECLARE, self.tenants_owing_summaries())
        email_due(self.context)
        self.queue.enqueue(VALIDATE, tenants_owing_sweeps(self.context))
        done = 0
        while stop is None or not stop.is_set():
            job = self.queue.take(self.name, self.lease_seconds)
            if job is None:
                break
            try:
                with Heartbeat(self, job) as heartbeat:
                    self.handle(job, heartbeat)
            except Exception as exc:  # a failing job must not stop the others
                if isinstance(exc, EXPECTED_FAILURES):
                    log.warning("job %s %s failed: %s", job.kind, job.target_id, _first_line(exc))
                else:
                    log.exception("job %s %s failed", job.kind, job.target_id)
                wait = utc_now() + dt.timedelta(seconds=FAILED_JOB_WAIT)
                self.queue.put_back(job, wait, f"{type(exc).__name__}: {exc}")
                continue
            if not self.queue.finish(job):
                log.warning("job %s %s outlived its lease (another worker took it)", job.kind, job.target_id)
            done += 1
        return done

    def handle(self, job: Job, heartbeat: Heartbeat | None = None) -> None:
        """Do ``job`` if its target is still owed and due (read again: another worker, a request or
        cron may have done it since it was enqueued); its new state is stored before the job goes."""
        if job.kind == POLL:
            polled = self.poller.poll_one(job.target_id)
            if polled is not None:
                log.info("ticket poller: %s", polled.describe())
            return
        if job.kind == DECLARE:
            self.declare(job.target_id)
            return
        if job.kind == EMAIL:
            self.mail.deliver(job.target_id)
            return
        if job.kind == VALIDATE:  # a slice of the tenant's monthly validity sweep (docs/validity.md)
            run_scheduled_sweep(self.context, job.target_id)
            return
        family = {SEND: "documents", SEND_OTHER: "other"}.get(job.kind)
        if family is None:
            log.warning("job %s of an unknown kind %r dropped", job.id, job.kind)
            return
        found = self.sender.pending(only=(family, job.target_id), due_at=utc_now())
        if found:
            self.sender.send_one(found[0], claim_seconds=self.lease_seconds, heartbeat=heartbeat)  # logs it

    # -- automatic daily summaries -------------------------------------------------------------------

    def _past_boletas(self, tenant_ids: list[int]) -> Any:
        """Boletas and their notes still registered (01) of a day before today (Peru) of ``tenant_ids``."""
        return (
            DOCUMENTS.c.tenant_id.in_(tenant_ids)
            & (DOCUMENTS.c.group_id == BOLETA_GROUP)
            & (DOCUMENTS.c.state_type_id == states.REGISTERED)
            & (DOCUMENTS.c.date_of_issue < self.context.today())
        )

    def summaries_due(self, settings: dict[str, Any] | None) -> bool:
        """Whether a tenant of these (stored) settings has its past days declared now: ``summary_auto``
        on and the Lima hour of the context's clock at ``summary_hour`` or later."""
        settings = settings or {}
        if settings.get("summary_auto") is not True:
            return False
        hour = dt.datetime.fromtimestamp(self.context.clock(), LIMA).hour
        return hour >= int(settings.get("summary_hour") or 0)

    def tenants_owing_summaries(self) -> list[int]:
        """Ids of the tenants whose summaries are due (:meth:`summaries_due`) that have boletas of a
        past day to declare."""
        with self.context.engine.connect() as connection:
            rows = connection.execute(select(TENANTS.c.id, TENANTS.c.settings)).all()
            auto = [row.id for row in rows if self.summaries_due(row.settings)]
            if not auto:
                return []
            owing = select(DOCUMENTS.c.tenant_id).where(self._past_boletas(auto)).distinct()
            return list(connection.execute(owing).scalars())

    def declare(self, tenant_id: int) -> None:
        """Declare each past day's registered boletas of the tenant in daily summaries, oldest day
        first, as its first user (``POST /api/summaries`` with process 1). A day another worker or a
        request declared since is skipped: declaring moves the boletas out of 01 in the transaction that
        stores the summary, under the tenant's lock."""
        with self.context.engine.connect() as connection:
            slug = connection.execute(select(TENANTS.c.slug).where(TENANTS.c.id == tenant_id)).scalar()
            user = connection.execute(
                select(USERS.c.id, USERS.c.establishment_id)
                .where(USERS.c.tenant_id == tenant_id)
                .order_by(USERS.c.id)
                .limit(1)
            ).first()
            days = list(
                connection.execute(
                    select(DOCUMENTS.c.date_of_issue)
                    .where(self._past_boletas([tenant_id]))
                    .distinct()
                    .order_by(DOCUMENTS.c.date_of_issue)
                ).scalars()
            )
        tenant = self.context.tenant_by_slug(slug) if slug else None
        if tenant is None or user is None or not self.summaries_due(tenant.settings):
            return
        caller = Caller(user_id=user.id, establishment_id=user.establishment_id)
        for day in days:
            body = {"fecha_de_emision_de_documentos": day.isoformat(), "codigo_tipo_proceso": "1"}
            try:
                sent = SummaryService(self.context).summarize(tenant, caller, body)
            except ServiceError as exc:
                if exc.error_code == "NO_DOCUMENTS":  # declared since the query
                    continue
                raise
            for summary in sent:
                log.info("daily summary of %s (%s): ticket %s", day, tenant.slug, summary.ticket)


def _first_line(exc: BaseException) -> str:
    """``Type: first line of the message`` of an expected failure, for its one log line."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def run_worker(
    context: ServiceContext, every: float, stop: threading.Event, *, lease_seconds: float = JOB_LEASE_SECONDS
) -> None:
    """Run :class:`Worker` passes every ``every`` seconds until ``stop`` is set (the background worker
    of ``facturador serve`` and ``facturador worker``); a failing pass is logged and the next one runs."""
    worker = Worker(context, lease_seconds=lease_seconds)
    while not stop.is_set():
        try:
            worker.run_once(stop)
        except UNAVAILABLE as exc:  # the database restarting or down: one line a pass, no traceback
            log.warning(
                "background worker pass skipped, the database cannot serve: %s", str(exc).splitlines()[0]
            )
        except Exception:
            log.exception("background worker pass failed")
        if stop.wait(every):
            return


def needing_a_person(context: ServiceContext, tenant_id: int) -> list[dict[str, Any]]:
    """What the service stopped doing by itself for a tenant, for a person to settle (the dashboard's
    Inicio shows it): documents SUNAT said it already holds without a CDR to prove it
    (:func:`facturador.domain.send_policy.gives_up`) and summaries, voided communications and
    reversions the poller no longer asks about (:func:`facturador.domain.summaries.needs_a_person`).
    Each: ``kind`` (``document`` or ``summary``), ``reference`` (F001-7, RC-20261205-1), ``date``
    (Y-m-d, of issue or generation), SUNAT's ``code`` and the ``reason``."""
    found: list[dict[str, Any]] = []
    with context.engine.connect() as connection:
        for table in (DOCUMENTS, OTHER_DOCUMENTS):
            rows = connection.execute(
                select(table.c.series, table.c.number, table.c.date_of_issue, table.c.response).where(
                    table.c.tenant_id == tenant_id,
                    table.c.state_type_id == states.REGISTERED,
                    table.c.next_send_at.is_(None),
                    table.c.response.is_not(None),
                )
            ).all()
            found += [
                {
                    "kind": "document",
                    "reference": f"{row.series}-{row.number}",
                    "date": row.date_of_issue.isoformat(),
                    "code": str(row.response.get("code", "")),
                    "reason": str(row.response["attention"]),
                }
                for row in rows
                if isinstance(row.response, dict) and row.response.get("attention")
            ]
        summaries = connection.execute(
            select(
                SUMMARIES.c.identifier,
                SUMMARIES.c.date_of_issue,
                SUMMARIES.c.state_type_id,
                SUMMARIES.c.next_poll_at,
                SUMMARIES.c.poll_error,
            ).where(
                SUMMARIES.c.tenant_id == tenant_id,
                SUMMARIES.c.state_type_id.in_((states.REGISTERED, states.SENT)),
                SUMMARIES.c.next_poll_at.is_(None),
                SUMMARIES.c.poll_error.is_not(None),
            )
        ).all()
    found += [
        {
            "kind": "summary",
            "reference": row.identifier,
            "date": row.date_of_issue.isoformat(),
            "code": _code_of(row.poll_error or ""),
            "reason": row.poll_error,
        }
        for row in summaries
        if needs_a_person(row.state_type_id, row.next_poll_at, row.poll_error)
    ]
    found += validity_attention(context, tenant_id)
    return sorted(found, key=lambda item: (item["date"], item["reference"]))


def _code_of(error: str) -> str:
    """SUNAT's code in an error that says ``Code: c; Description: d`` ("" when none)."""
    _before, found, after = error.partition("Code: ")
    return after.split(";", 1)[0].strip() if found else ""
