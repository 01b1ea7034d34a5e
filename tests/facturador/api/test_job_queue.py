"""The job queue's heartbeat and its listing (``facturador jobs``), on a store of the test's own.

A worker renews its job's lease and its document's claim while it works, so a sending slower than the
lease is not taken by a second worker; a worker that stops beating (killed) loses the job one lease
later. Runs on SQLite and, in the PostgreSQL run, on a fresh PostgreSQL database.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import select, update

from facturador.config import Settings
from facturador.context import Caller, ServiceContext
from facturador.domain.documents import DocumentService
from facturador.domain.pending import Heartbeat, PendingSender, Worker
from facturador.store.jobs import SEND, JobQueue, utc_now
from facturador.store.models import DOCUMENTS, JOBS, SUMMARIES, USERS
from sunat.calendar import peru_today
from tests.nodes import new_tenant
from tests.samples.bodies import boleta_body, invoice_body

#: Seconds: a heartbeat every 1.5 s, so a beat may come 3 s late before the lease runs out (with 0.9 s, a
#: beat 0.6 s late on a loaded machine lost the job and the test "keeps its job" failed)
LEASE = 4.5


@pytest.fixture
def store(fresh_settings: Settings) -> Iterator[tuple[ServiceContext, str]]:
    """A service context on a fresh store holding one tenant whose SUNAT is down (documents stay 01)."""
    tenant = new_tenant(fresh_settings, "queue", authority_outage=True, send_retry_seconds=1.0)
    context = ServiceContext(fresh_settings)
    try:
        yield context, tenant.slug
    finally:
        context.engine.dispose()


def _first_user(context: ServiceContext, slug: str) -> tuple[Any, Caller]:
    """The tenant ``slug`` and its first user as a caller."""
    info = context.tenant_by_slug(slug)
    assert info is not None
    with context.engine.connect() as connection:
        user = connection.execute(
            select(USERS.c.id, USERS.c.establishment_id).where(USERS.c.tenant_id == info.id)
        ).first()
    assert user is not None
    return info, Caller(user_id=user.id, establishment_id=user.establishment_id)


def _pending_document(context: ServiceContext, slug: str) -> int:
    """Issue a factura while SUNAT is down, make it due now and bring SUNAT back; its id."""
    info, caller = _first_user(context, slug)
    issued = DocumentService(context).issue(info, caller, invoice_body())
    assert issued.document.state_type_id == "01"
    with context.writing() as connection:
        connection.execute(
            update(DOCUMENTS)
            .where(DOCUMENTS.c.id == issued.document.id)
            .values(next_send_at=utc_now() - dt.timedelta(seconds=1))
        )
    _set_outage(context, slug, False)
    return int(issued.document.id)


def _set_outage(context: ServiceContext, slug: str, outage: bool) -> None:
    from facturador.domain.tenants import update_settings

    with context.session() as session, session.begin():
        update_settings(session, slug, {"authority_outage": outage})
    context._tenants.clear()


def _state(context: ServiceContext, document_id: int) -> Any:
    with context.engine.connect() as connection:
        return connection.execute(
            select(DOCUMENTS.c.state_type_id, DOCUMENTS.c.send_attempts, DOCUMENTS.c.next_send_at).where(
                DOCUMENTS.c.id == document_id
            )
        ).one()


def _slow_sends(worker: Worker, seconds: float, sends: list[str]) -> None:
    """Make ``worker``'s sendings last ``seconds`` (SUNAT slow to answer), counting them in ``sends``."""
    real = worker.sender.documents.send_document

    def slow(tenant: Any, external_id: str) -> Any:
        sends.append(worker.name)
        time.sleep(seconds)
        return real(tenant, external_id)

    worker.sender.documents.send_document = slow  # type: ignore[method-assign]


def _race(store: tuple[ServiceContext, str], monkeypatch: pytest.MonkeyPatch, *, beating: bool) -> Any:
    """Worker A takes the document's job and sends for 3 leases; worker B tries all along. Who sent."""
    context, slug = store
    document_id = _pending_document(context, slug)
    if not beating:  # a worker that holds the job but never renews it, as a killed one
        monkeypatch.setattr(Heartbeat, "beat", lambda self: True)
    first, second = Worker(context, lease_seconds=LEASE), Worker(context, lease_seconds=LEASE)
    second.name = first.name + "-b"
    sends: list[str] = []
    _slow_sends(first, 3 * LEASE, sends)
    _slow_sends(second, 0.0, sends)
    worker = threading.Thread(target=first.run_once)
    worker.start()
    deadline = time.monotonic() + 10
    while not sends and time.monotonic() < deadline:  # A has taken the job and is sending
        time.sleep(0.02)
    assert sends == [first.name]
    while worker.is_alive():
        second.run_once()
        time.sleep(0.1)
    worker.join()
    return sends, _state(context, document_id)


@pytest.mark.timing_sensitive
def test_a_sending_slower_than_the_lease_keeps_its_job(
    store: tuple[ServiceContext, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sends, state = _race(store, monkeypatch, beating=True)
    assert len(sends) == 1, sends  # worker B never took the job nor the document's claim
    # two attempts: the inline one in the outage, then A's
    assert (state.state_type_id, state.send_attempts, state.next_send_at) == ("05", 2, None)
    with store[0].engine.connect() as connection:
        assert connection.execute(select(JOBS.c.id)).all() == []  # A finished and deleted its job


@pytest.mark.timing_sensitive
def test_a_worker_that_stops_beating_loses_its_job_one_lease_later(
    store: tuple[ServiceContext, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sends, state = _race(store, monkeypatch, beating=False)
    assert len(sends) == 2 and sends[1].endswith("-b"), sends  # B took it again after the lease
    assert state.state_type_id == "05"


@pytest.mark.timing_sensitive
def test_a_beat_never_moves_the_next_attempt_an_answer_stored(store: tuple[ServiceContext, str]) -> None:
    context, slug = store
    document_id = _pending_document(context, slug)
    worker = Worker(context, lease_seconds=LEASE)
    queue = JobQueue(context.db)
    queue.enqueue(SEND, [document_id])
    job = queue.take(worker.name, LEASE)
    assert job is not None
    found = PendingSender(context).pending(only=("documents", document_id))
    claimed_until = PendingSender(context).claim(found[0], LEASE)
    assert claimed_until is not None
    heartbeat = Heartbeat(worker, job)
    heartbeat.keep_claim("documents", document_id, claimed_until)
    assert heartbeat.beat()
    renewed = _state(context, document_id).next_send_at
    assert renewed > claimed_until  # the claim was pushed a lease ahead
    retry_at = utc_now() + dt.timedelta(minutes=7)  # the answer's next attempt, stored meanwhile
    with context.writing() as connection:
        answer = update(DOCUMENTS).where(DOCUMENTS.c.id == document_id).values(next_send_at=retry_at)
        connection.execute(answer)
    assert heartbeat.beat()  # the job's lease is renewed...
    assert _state(context, document_id).next_send_at == retry_at  # ...the answer's time is left alone
    queue.finish(job)
    assert not heartbeat.beat()  # a finished job has no lease to renew


def test_jobs_lists_the_queue(store: tuple[ServiceContext, str], fresh_settings: Settings) -> None:
    from facturador.cli import main

    def jobs(*options: str) -> str:
        arguments = ["jobs", "--data-dir", str(fresh_settings.data_dir)]
        if fresh_settings.database_url.startswith("postgresql"):
            arguments += ["--database", fresh_settings.database_url]
        done = CliRunner().invoke(main, [*arguments, *options])
        assert done.exit_code == 0, done.output
        return done.output

    assert jobs().strip() == "Nothing is owed: no document pending, no ticket in process, no job queued."
    context, _slug = store
    queue = JobQueue(context.db)
    queue.enqueue(SEND, [101, 102, 103])
    held = queue.take("node-1:42:7", 120)
    failed = queue.take("node-1:42:7", 120)
    assert held is not None and failed is not None
    queue.put_back(failed, utc_now() + dt.timedelta(minutes=1), "TimeoutError: SUNAT did not answer")
    dead = queue.take("node-2:43:8", -5)  # a lease already over: its worker died
    assert dead is not None and dead.id not in (held.id, failed.id)
    output = jobs()
    assert "Jobs send: 1 queued, 1 leased, 1 expired" in output
    table = output.split("held by / last error", 1)[1]
    lines = {line.split()[0]: line for line in table.splitlines() if line.strip()}
    assert "node-1:42:7" in lines[str(held.id)] and "s left" in lines[str(held.id)]
    assert "node-2:43:8 (expired)" in lines[str(dead.id)]
    assert "TimeoutError: SUNAT did not answer" in lines[str(failed.id)]
    assert jobs("--limit", "1").count("node-") <= 1
    assert CliRunner().invoke(main, ["jobs", "--limit", "-1"]).exit_code == 2


def test_jobs_shows_what_is_owed_when_no_job_is_queued(
    store: tuple[ServiceContext, str], fresh_settings: Settings
) -> None:
    """Facturas pending and a ticket owed are shown, with SUNAT's last day and their ages, though no job
    is queued yet (the report that found "The queue is empty" with 33 facturas pending)."""
    from facturador.cli import main

    context, slug = store
    info, caller = _first_user(context, slug)
    issued = [DocumentService(context).issue(info, caller, invoice_body()).document for _ in range(2)]
    assert [document.state_type_id for document in issued] == ["01", "01"]
    today = peru_today()
    old_issue = today - dt.timedelta(days=5)  # past SUNAT's 3 days
    with context.writing() as connection:
        connection.execute(
            update(DOCUMENTS)
            .where(DOCUMENTS.c.id == issued[0].id)
            .values(date_of_issue=old_issue, created_at=dt.datetime.now(dt.UTC) - dt.timedelta(hours=2))
        )
        connection.execute(
            SUMMARIES.insert().values(
                tenant_id=info.id,
                external_id="00000000-0000-4000-8000-000000000001",
                user_id=caller.user_id,
                summary_type="RC",
                process_type="1",
                identifier=f"RC-{today:%Y%m%d}-1",
                sequence=1,
                filename=f"20000000001-RC-{today:%Y%m%d}-1",
                date_of_issue=today,
                date_of_reference=today,
                state_type_id="03",
                ticket="1700000000001",
                xml=b"<x/>",
                next_poll_at=utc_now() + dt.timedelta(minutes=5),
                poll_attempts=3,
                poll_error="TimeoutError: SUNAT did not answer",
                created_at=dt.datetime.now(dt.UTC) - dt.timedelta(minutes=90),
            )
        )
    arguments = ["jobs", "--data-dir", str(fresh_settings.data_dir)]
    if fresh_settings.database_url.startswith("postgresql"):
        arguments += ["--database", fresh_settings.database_url]
    done = CliRunner().invoke(main, arguments)
    assert done.exit_code == 0, done.output
    output = done.output
    assert "Documents pending: 2, 1 past SUNAT's deadline (the oldest owed for 2 h 0 min)" in output, output
    late = next(line for line in output.splitlines() if f"{issued[0].series}-{issued[0].number} " in line)
    deadline = old_issue + dt.timedelta(days=3)
    assert f"issued {old_issue}, SUNAT's last day {deadline} PAST, owed for 2 h 0 min" in late, late
    fresh = next(line for line in output.splitlines() if f"{issued[1].series}-{issued[1].number} " in line)
    assert f"SUNAT's last day {today + dt.timedelta(days=3)}, owed for" in fresh and "PAST" not in fresh
    assert "Tickets owed: 1 (the oldest owed for 1 h 30 min)" in output, output
    polled = f"RC-{today:%Y%m%d}-1 ({slug}) ticket 1700000000001, owed for 1 h 30 min, asked 3 time(s)"
    assert polled in output, output
    assert "TimeoutError: SUNAT did not answer" in output
    assert "Jobs: none queued" in output


def test_automatic_summaries_wait_for_the_tenants_hour(fresh_settings: Settings) -> None:
    from facturador.domain.tenants import TenantError, parse_setting, update_settings
    from sunat.calendar import LIMA

    tenant = new_tenant(fresh_settings, "hour", summary_auto=True, summary_hour=6)
    today = peru_today()
    at = {"hour": 5, "minute": 59}

    def clock() -> float:
        return dt.datetime.combine(today, dt.time(at["hour"], at["minute"]), LIMA).timestamp()

    context = ServiceContext(fresh_settings, clock=clock)
    try:
        info, caller = _first_user(context, tenant.slug)
        yesterday = (today - dt.timedelta(days=1)).isoformat()
        DocumentService(context).issue(info, caller, boleta_body(fecha_de_emision=yesterday))
        worker = Worker(context)
        assert worker.tenants_owing_summaries() == []  # 05:59 in Lima: not yet
        worker.declare(info.id)  # a job enqueued before the hour was set does nothing either
        with context.engine.connect() as connection:
            assert connection.execute(select(SUMMARIES.c.id)).all() == []
        at.update(hour=6, minute=0)
        assert worker.tenants_owing_summaries() == [info.id]
        with context.session() as session, session.begin():
            update_settings(session, tenant.slug, {"summary_auto": False})
        assert worker.tenants_owing_summaries() == []  # the hour alone declares nothing
    finally:
        context.engine.dispose()
    assert parse_setting("summary_hour", "23") == 23
    for wrong in ("24", "-1", "6.5", "seis"):
        with pytest.raises(TenantError, match="summary_hour"):
            parse_setting("summary_hour", wrong)
