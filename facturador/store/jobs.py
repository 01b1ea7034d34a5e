"""The queue of background work in the service database: one ``jobs`` row per piece of work owed.

The documents, retentions and summaries keep their own schedule (``next_send_at``, ``next_poll_at``) and
their state, which say what is owed; a job says which worker is doing it now. :meth:`JobQueue.enqueue_due`
turns the work that is due into jobs (one per target: a second enqueue keeps the first), and a worker
*takes* a job under a lease: on PostgreSQL with ``FOR UPDATE SKIP LOCKED`` (workers on every node take
different jobs without waiting on each other), on SQLite in a write transaction under the database's
write lock (one writer at a time: the same effect, one process or several on one host). A job whose
worker died keeps its lease until ``lease_until``; then any worker takes it again. A finished job is
deleted, by its lease holder only, after the target's new state is stored.

Exactly one effect per document does not rest on the lease alone: the handler reads the target again and
does nothing when it is no longer owed, and the sending itself claims the document with a conditional
update (:meth:`facturador.domain.pending.PendingSender.claim`).
"""

from __future__ import annotations

import datetime as dt
import os
import socket
import threading
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, delete, literal, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from facturador.store.db import Database
from facturador.store.models import DOCUMENTS, JOB_LEASE_EXPIRIES, JOBS, OTHER_DOCUMENTS, SUMMARIES

#: Kinds of job: send a factura or a note of one, send a retention or perception, ask about a ticket,
#: declare a tenant's past days' boletas in daily summaries (its target is the tenant).
SEND, SEND_OTHER, POLL, DECLARE = "send", "send_other", "poll", "declare"
#: E-mail a document or sale note to its customer (its target is the ``email_deliveries`` row).
EMAIL = "email"
#: States a document is owed in (registered, not answered) and a summary is asked about in.
_REGISTERED, _SENT = "01", "03"


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def worker_name() -> str:
    """``host:pid:thread``: who holds a lease, readable in the table."""
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident() % 100000}"[:100]


@dataclass(frozen=True)
class Job:
    """A job a worker holds: what to do (``kind`` on ``target_id``) and how many times it was taken."""

    id: int
    kind: str
    target_id: int
    taken: int
    owner: str


class JobQueue:
    """Enqueue, take, finish and put back jobs in the ``jobs`` table of ``database``."""

    def __init__(self, database: Database):
        self.database = database

    def _insert(self) -> Any:
        dialect = postgresql if not self.database.is_sqlite else sqlite
        return dialect.insert(JOBS)

    def enqueue_due(self, now: dt.datetime | None = None) -> int:
        """Make a job of every send and ticket question due at ``now``; how many were new."""
        now = now or utc_now()
        sources = [
            (
                SEND,
                select(literal(SEND), DOCUMENTS.c.id, DOCUMENTS.c.next_send_at).where(
                    DOCUMENTS.c.next_send_at <= now, DOCUMENTS.c.state_type_id == _REGISTERED
                ),
            ),
            (
                SEND_OTHER,
                select(literal(SEND_OTHER), OTHER_DOCUMENTS.c.id, OTHER_DOCUMENTS.c.next_send_at).where(
                    OTHER_DOCUMENTS.c.next_send_at <= now, OTHER_DOCUMENTS.c.state_type_id == _REGISTERED
                ),
            ),
            (
                POLL,
                select(literal(POLL), SUMMARIES.c.id, SUMMARIES.c.next_poll_at).where(
                    SUMMARIES.c.next_poll_at <= now,
                    SUMMARIES.c.state_type_id.in_((_SENT, _REGISTERED)),
                ),
            ),
        ]
        added = 0
        with self.database.writing() as connection:
            for _kind, query in sources:
                statement = (
                    self._insert()
                    .from_select(["kind", "target_id", "run_at"], query)
                    .on_conflict_do_nothing(index_elements=["kind", "target_id"])
                )
                added += max(connection.execute(statement).rowcount, 0)
        return added

    def enqueue(self, kind: str, target_ids: list[int], run_at: dt.datetime | None = None) -> int:
        """Make a job of ``kind`` for each of ``target_ids`` that has none; how many were new."""
        if not target_ids:
            return 0
        rows = [{"kind": kind, "target_id": target, "run_at": run_at or utc_now()} for target in target_ids]
        statement = self._insert().on_conflict_do_nothing(index_elements=["kind", "target_id"])
        with self.database.writing() as connection:
            return max(connection.execute(statement, rows).rowcount, 0)

    def take(self, owner: str, lease_seconds: float, now: dt.datetime | None = None) -> Job | None:
        """Lease the job due longest ago that nobody holds (or whose lease ran out) to ``owner``."""
        now = now or utc_now()
        free = or_(JOBS.c.lease_until.is_(None), JOBS.c.lease_until < now)
        candidate = (
            select(JOBS.c.id)
            .where(JOBS.c.run_at <= now, free)
            .order_by(JOBS.c.run_at, JOBS.c.id)
            .limit(1)
            .with_for_update(skip_locked=True)  # SQLite: no FOR UPDATE; the write lock serializes takers
            .scalar_subquery()
        )
        statement = (
            update(JOBS)
            .where(JOBS.c.id == candidate, free)
            .values(
                lease_owner=owner,
                lease_until=now + dt.timedelta(seconds=lease_seconds),
                taken=JOBS.c.taken + 1,
                retaken=JOBS.c.lease_owner.is_not(None),  # free and held: its holder's lease ran out
            )
            .returning(JOBS.c.id, JOBS.c.kind, JOBS.c.target_id, JOBS.c.taken, JOBS.c.retaken)
        )
        with self.database.writing() as connection:
            row = connection.execute(statement).first()
            if row is not None and row.retaken:
                self._count_expiry(connection, row.kind)
        if row is None:
            return None
        return Job(id=row.id, kind=row.kind, target_id=row.target_id, taken=row.taken, owner=owner)

    def _count_expiry(self, connection: Any, kind: str) -> None:
        """Add one to ``kind``'s lease expiries (in the transaction of the take that found it)."""
        dialect = postgresql if not self.database.is_sqlite else sqlite
        statement = dialect.insert(JOB_LEASE_EXPIRIES).values(kind=kind, count=1)
        connection.execute(
            statement.on_conflict_do_update(
                index_elements=["kind"], set_={"count": JOB_LEASE_EXPIRIES.c.count + 1}
            )
        )

    def lease_expiries(self) -> dict[str, int]:
        """Per kind, how many jobs were taken again after their lease ran out (since migration 0022)."""
        with self.database.engine.connect() as connection:
            rows = connection.execute(select(JOB_LEASE_EXPIRIES.c.kind, JOB_LEASE_EXPIRIES.c.count))
            return {kind: int(count) for kind, count in rows}

    def finish(self, job: Job) -> bool:
        """Delete the job if ``job.owner`` still holds it (False: its lease ran out and it was retaken)."""
        with self.database.writing() as connection:
            statement = delete(JOBS).where(JOBS.c.id == job.id, JOBS.c.lease_owner == job.owner)
            return connection.execute(statement).rowcount == 1

    def extend(self, job: Job, lease_seconds: float, now: dt.datetime | None = None) -> bool:
        """Push the lease of a job ``job.owner`` still holds ``lease_seconds`` past ``now`` (a working
        worker's heartbeat); False when it no longer holds it."""
        until = (now or utc_now()) + dt.timedelta(seconds=lease_seconds)
        statement = (
            update(JOBS).where(JOBS.c.id == job.id, JOBS.c.lease_owner == job.owner).values(lease_until=until)
        )
        with self.database.writing() as connection:
            return connection.execute(statement).rowcount == 1

    def put_back(self, job: Job, run_at: dt.datetime, error: str | None = None) -> None:
        """Release the job for another try at ``run_at`` (a handler failed), keeping ``error``."""
        values: dict[str, Any] = {"run_at": run_at, "lease_owner": None, "lease_until": None}
        if error is not None:
            values["last_error"] = error[:500]
        with self.database.writing() as connection:
            connection.execute(
                update(JOBS).where(JOBS.c.id == job.id, JOBS.c.lease_owner == job.owner).values(**values)
            )

    def status(self, now: dt.datetime | None = None) -> dict[str, dict[str, int]]:
        """Per kind, how many jobs are ``queued`` (nobody holds them), ``leased`` (a worker holds them)
        and ``expired`` (held past their lease: their worker died; the next taker takes them again)."""
        now = now or utc_now()
        with self.database.engine.connect() as connection:
            rows = connection.execute(select(JOBS.c.kind, JOBS.c.lease_until)).all()
        found: dict[str, dict[str, int]] = {}
        for row in rows:
            counts = found.setdefault(row.kind, {"queued": 0, "leased": 0, "expired": 0})
            if row.lease_until is None:
                counts["queued"] += 1
            else:
                counts["leased" if row.lease_until >= now else "expired"] += 1
        return found

    def listing(self, limit: int = 20) -> list[QueuedJob]:
        """The jobs that tell of trouble or work in hand first (held, taken more than once, with an
        error), then the longest due; at most ``limit``."""
        trouble = (JOBS.c.lease_owner.is_not(None)) | (JOBS.c.taken > 1) | (JOBS.c.last_error.is_not(None))
        query = (
            select(JOBS).order_by(case((trouble, 0), else_=1), JOBS.c.run_at, JOBS.c.id).limit(max(limit, 0))
        )
        with self.database.engine.connect() as connection:
            rows = connection.execute(query).all()
        return [
            QueuedJob(
                id=row.id,
                kind=row.kind,
                target_id=row.target_id,
                run_at=row.run_at,
                lease_owner=row.lease_owner,
                lease_until=row.lease_until,
                taken=row.taken,
                last_error=row.last_error,
            )
            for row in rows
        ]


@dataclass(frozen=True)
class QueuedJob:
    """A row of the queue as ``facturador jobs`` shows it (times naive UTC)."""

    id: int
    kind: str
    target_id: int
    run_at: dt.datetime
    lease_owner: str | None
    lease_until: dt.datetime | None
    taken: int
    last_error: str | None


__all__ = ["JobQueue", "Job", "QueuedJob", "SEND", "SEND_OTHER", "POLL", "DECLARE", "EMAIL", "worker_name"]
