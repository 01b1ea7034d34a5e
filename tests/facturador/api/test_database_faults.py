"""PostgreSQL going away and coming back while 8 clients issue facturas, through a proxy the test
controls (tests/db_proxy.py; the shared server itself is never touched): every answered factura is
stored, numbers are neither reused nor skipped, a request during the fault gets a 503 with Retry-After
within a bounded time (never a 500), the node serves again by itself once the database is back, and its
background worker sends what the fault left unsent. The same when the backends are terminated
(``pg_terminate_backend`` on the test's own database) while requests run, and when the database goes
silent (the proxy keeps the connections open and answers nothing): each exchange gives up after
``FACTURADOR_DB_ANSWER_SECONDS`` and each new connection after ``connect_timeout``, so requests get their
503 in bounded time instead of hanging.

Each client sends every sale with an Idempotency-Key and, after a 503, the same sale again with the same
key, as docs/deploying.md asks of a production client. PostgreSQL only (CI's PostgreSQL run).
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from facturador.config import Settings
from facturador.store.db import ANSWER_SECONDS_ENV
from tests.conftest import _fresh_postgres
from tests.db_proxy import DatabaseProxy, database_proxy
from tests.facturador.api.test_database_outage import _drop_connections
from tests.nodes import new_tenant, nodes
from tests.samples.bodies import invoice_body

CLIENTS = 8
#: The longest any request may take, fault or not (a new connection gives up after 10 s).
REQUEST_BOUND_SECONDS = 20.0
#: How long the database stays away.
OUTAGE_SECONDS = 8.0
#: The silent database's bounds in the test (one exchange, one new connection), in seconds.
SILENT_ANSWER_SECONDS = 3
#: How long the database stays silent: several of those bounds, so that a request given up on is told
#: so while it is still silent even on a loaded machine (CI runs this beside the SQLite suite).
SILENT_SECONDS = 15.0


@dataclass
class Traffic:
    """What the clients saw: every answer's status and time, and the factura answered for each sale."""

    statuses: list[tuple[float, int, float]] = field(default_factory=list)  # (sent at, status, seconds)
    answered: dict[str, str] = field(default_factory=dict)  # sale's key -> number
    unexpected: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)

    def first_200_after(self, moment: float) -> float | None:
        return min(
            (at + took for at, status, took in self.statuses if status == 200 and at >= moment), default=None
        )


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[tuple[Settings, DatabaseProxy, str, str]]:
    """A fresh database reached through a proxy: the settings through it, the proxy, the admin URL and the
    database's name."""
    url = os.environ.get("FACTURADOR_TEST_DATABASE_URL")
    if not url:
        pytest.skip("PostgreSQL faults: set FACTURADOR_TEST_DATABASE_URL (CI's PostgreSQL run does)")
    database_url, drop = _fresh_postgres(url)
    parsed = make_url(database_url)
    try:
        with database_proxy((parsed.host or "127.0.0.1", parsed.port or 5432)) as proxy:
            through = parsed.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
            settings = dataclasses.replace(
                Settings.resolve(tmp_path / "data", database_url), database_url=through
            )
            yield settings, proxy, url, parsed.database or ""
    finally:
        drop()


def _client_loop(base: str, token: str, traffic: Traffic) -> None:
    """Sales one after another until told to stop; a sale answered 503 is sent again with its key."""
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        while not traffic.stop.is_set():
            key = uuid.uuid4().hex
            while True:
                sent = time.monotonic()
                try:
                    response = client.post(
                        "/api/documents", json=invoice_body(), headers={"Idempotency-Key": key}
                    )
                except httpx.HTTPError as exc:
                    with traffic.lock:
                        traffic.unexpected.append(f"{type(exc).__name__}: {exc}")
                    return
                took = time.monotonic() - sent
                with traffic.lock:
                    traffic.statuses.append((sent, response.status_code, took))
                if response.status_code == 200:
                    with traffic.lock:
                        traffic.answered[key] = response.json()["data"]["number"]
                    break
                if response.status_code != 503 or not response.headers.get("Retry-After"):
                    with traffic.lock:
                        traffic.unexpected.append(f"{response.status_code} {response.text[:300]}")
                    return
                time.sleep(0.3)  # a test's client retries sooner than the 5 s it is told


def _stored(admin_url: str, database: str) -> list[tuple[str, str]]:
    """Every factura's number and state, read straight from the database (not through the proxy)."""
    engine = create_engine(make_url(admin_url).set(database=database))
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT series, number, state_type_id FROM documents ORDER BY number")
            )
            return [(f"{series}-{number}", state) for series, number, state in rows]
    finally:
        engine.dispose()


@pytest.mark.slow(seconds=90)
@pytest.mark.parametrize("fault", ["outage", "terminated", "silent"])
def test_the_database_going_away_loses_nothing_and_the_service_recovers(
    proxied: tuple[Settings, DatabaseProxy, str, str],
    tmp_path: Path,
    fault: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings, proxy, admin_url, database = proxied
    tenant = new_tenant(settings, "faltas")
    traffic = Traffic()
    if fault == "silent":  # bounds shorter than the service's own (30 s, 10 s), for a short test
        monkeypatch.setenv(ANSWER_SECONDS_ENV, str(SILENT_ANSWER_SECONDS))
        url = make_url(settings.database_url)
        bounded = url.update_query_dict({"connect_timeout": str(SILENT_ANSWER_SECONDS)})
        settings = dataclasses.replace(settings, database_url=bounded.render_as_string(hide_password=False))
    with nodes(settings, tmp_path, 1, "--send-pending-every", "0.3") as (node,):
        base = f"{node.root}/t/{tenant.slug}"
        threads = [
            threading.Thread(target=_client_loop, args=(base, tenant.token, traffic)) for _ in range(CLIENTS)
        ]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(3)
        fault_at = time.monotonic()
        if fault == "outage":
            proxy.down()
            time.sleep(OUTAGE_SECONDS)
            proxy.up()
        elif fault == "silent":
            proxy.silence()
            time.sleep(SILENT_SECONDS)
            proxy.up()
        else:
            for _ in range(3):
                _drop_connections(admin_url, database)
                time.sleep(1.5)
        back_at = time.monotonic()
        deadline = back_at + 60
        while traffic.first_200_after(back_at) is None and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)
        traffic.stop.set()
        for thread in threads:
            thread.join(timeout=120)
        ended = time.monotonic()

        assert traffic.unexpected == [], (traffic.unexpected[:5], node.output()[-6000:])
        statuses = [status for _at, status, _took in traffic.statuses]
        assert set(statuses) <= {200, 503}, statuses
        slowest = max(took for _at, _status, took in traffic.statuses)
        assert slowest < REQUEST_BOUND_SECONDS, slowest
        recovered = traffic.first_200_after(back_at)
        assert recovered is not None, "the service did not serve again once the database was back"
        if fault in ("outage", "silent"):
            assert statuses.count(503) >= 1, "no request met the outage"
        if fault == "silent":  # told while the database was still silent, not when it came back
            told = [at + took for at, status, took in traffic.statuses if status == 503]
            assert any(moment < back_at for moment in told), "no 503 while the database was silent"

        # every answered factura is stored once, numbered without gaps, one per sale (no key made two)
        numbers = list(traffic.answered.values())
        assert len(set(numbers)) == len(numbers)
        stored = _stored(admin_url, database)
        assert sorted(number for number, _state in stored) == sorted(numbers)
        assert sorted(int(n.split("-")[1]) for n in numbers) == list(range(1, len(numbers) + 1))

        # the worker sends what the fault left registered: every factura ends accepted
        waited = time.monotonic() + 60
        while any(state != "05" for _n, state in _stored(admin_url, database)) and time.monotonic() < waited:
            time.sleep(0.5)
        left = [(n, state) for n, state in _stored(admin_url, database) if state != "05"]
        assert left == [], left
        output = node.output()
        # no 500 and no pool noise (the in-process SUNAT simulator, a test's stand-in, logs its own failed
        # registry reads and answers 0100, SUNAT's "system error", which is sent again later)
        assert "unexpected error" not in output and "Exception during reset" not in output, output[-3000:]
        if fault == "outage":
            assert "the database cannot serve" in output, output[-3000:]
    timeline = {
        "fault": fault,
        "issued": len(statuses),
        "answered": len(numbers),
        "503": statuses.count(503),
        "lost": 0,
        "fault_at_s": round(fault_at - started, 1),
        "back_at_s": round(back_at - started, 1),
        "recovery_s": round(recovered - back_at, 2),
        "slowest_request_s": round(slowest, 2),
        "total_s": round(ended - started, 1),
    }
    print(f"\nTIMELINE {timeline}")
