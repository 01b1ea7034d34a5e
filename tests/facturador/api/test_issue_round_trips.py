"""What issuing a factura says to PostgreSQL, read from libpq's trace of the service's connections: how
many round trips, that every statement runs prepared once warm, and what runs under the series' lock.

Each round trip costs CPU in psycopg and in a PostgreSQL backend on the same two cores, and the ones
between the correlative and the commit keep every other issuer of the series waiting. PostgreSQL only
(CI's PostgreSQL run).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from facturador.context import ServiceContext
from facturador.domain.documents import DocumentService
from facturador.domain.tenants import hash_token
from tests.conftest import LiveService
from tests.samples.bodies import invoice_body
from tests.samples.tenants import ACME, ACME_TOKEN

POSTGRES = os.environ.get("FACTURADOR_TEST_DATABASE_URL")
pytestmark = pytest.mark.skipif(not POSTGRES, reason="PostgreSQL only (FACTURADOR_TEST_DATABASE_URL)")

#: psycopg prepares a statement the 5th time a connection runs it; a few issues more make them all so
#: (on each of the pool's connections: the signing certificate's version is read on whichever is free).
WARM_ISSUES = 12
#: The round trips of a factura issued and accepted: the signing certificate's version (in autocommit:
#: a certificate renewed on another node signs the next document), the issuing transaction (BEGIN, the
#: customer, the warehouse, the products, their stocks, the correlative, the document with its XML,
#: COMMIT), the simulated SUNAT's registry read, and the answer: the registry, the state and the CDR in
#: one statement in autocommit (it was BEGIN, three statements and COMMIT: 14 round trips in all).
ROUND_TRIPS = 11


@dataclass
class Trace:
    """libpq's trace of each connection an engine handed out (a file each, as psycopg names its prepared
    statements per connection) and the order they were checked out in: ``(connection, offset of its
    file at the checkout)``. A context uses its connections in turn, so the checkouts order the files."""

    folder: Path
    files: dict[int, Path] = field(default_factory=dict)
    checkouts: list[tuple[int, int]] = field(default_factory=list)


@contextlib.contextmanager
def traced(engine: Engine, folder: Path) -> Iterator[Trace]:
    """libpq's trace of every connection ``engine`` hands out meanwhile, without timestamps, in ``folder``."""
    from psycopg import pq

    folder.mkdir()
    trace = Trace(folder)
    traced_connections: list[Any] = []
    handles: list[Any] = []

    def checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        key = id(dbapi_connection)
        if key not in trace.files:
            path = folder / f"connection-{len(trace.files)}.trace"
            handles.append(path.open("w"))
            trace.files[key] = path
            dbapi_connection.pgconn.trace(handles[-1].fileno())
            dbapi_connection.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)
            traced_connections.append(dbapi_connection)
        trace.checkouts.append((key, trace.files[key].stat().st_size))

    event.listen(engine, "checkout", checkout)
    try:
        yield trace
    finally:
        event.remove(engine, "checkout", checkout)
        for dbapi_connection in traced_connections:
            dbapi_connection.pgconn.untrace()
        for handle in handles:
            handle.close()


#: A round trip's end in :func:`_events` (a Sync or a simple Query).
_END = ""


def _events(text: str) -> list[tuple[int, str]]:
    """``(offset, statement)`` of what one connection sent (:data:`_END` where a round trip ends):
    ``BEGIN``/``COMMIT`` as sent, extended-protocol statements by their SQL's first words, a prepared one
    by the SQL it was prepared with on this connection (``prepared: ...``), an unnamed one as
    ``parse: ...``."""
    names: dict[str, str] = {}
    events: list[tuple[int, str]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        at, offset = offset, offset + len(line)
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 3 or parts[0] != "F":
            continue
        kind, rest = parts[2], parts[3] if len(parts) > 3 else ""
        if kind == "Parse":
            name, sql = re.match(r' "([^"]*)" "([^"]*)', rest).groups()  # type: ignore[union-attr]
            words = " ".join(sql.split()[:3])
            if name:
                names[name] = words
            else:
                events.append((at, f"parse: {words}"))
        elif kind == "Bind":
            name = re.match(r' "[^"]*" "([^"]*)"', rest).group(1)  # type: ignore[union-attr]
            if name:
                events.append((at, f"prepared: {names[name]}"))
        elif kind in ("Query", "Sync"):
            if kind == "Query":
                events.append((at, rest.strip().strip('"')))
            events.append((at, _END))
    return events


def round_trips(trace: Trace, since: int) -> list[list[str]]:
    """The statements sent from checkout ``since`` of ``trace`` on, one list per round trip, in the order
    the connections were used."""
    events = {key: _events(path.read_text()) for key, path in trace.files.items()}
    ends = {key: path.stat().st_size for key, path in trace.files.items()}
    trips: list[list[str]] = []
    for index, (key, start) in enumerate(trace.checkouts):
        if index < since:
            continue
        end = next((at for other, at in trace.checkouts[index + 1 :] if other == key), ends[key])
        current: list[str] = []
        for at, statement in events[key]:
            if start <= at < end:
                if statement == _END:
                    trips.append(current)
                    current = []
                else:
                    current.append(statement)
    return trips


@pytest.fixture
def issuing(live: LiveService) -> Iterator[tuple[ServiceContext, DocumentService, Any, Any]]:
    """A service context of the test's own on the live store (its pool: one connection, used in turn)."""
    context = ServiceContext(live.settings, clock=live.clock)
    tenant = context.tenant_by_slug(ACME)
    assert tenant is not None
    caller = context.authenticate(tenant, hash_token(ACME_TOKEN))
    yield context, DocumentService(context), tenant, caller
    context.engine.dispose()


def test_a_warm_issue_takes_its_round_trips_every_statement_prepared(
    issuing: tuple[ServiceContext, DocumentService, Any, Any], tmp_path: Path
) -> None:
    context, service, tenant, caller = issuing
    with traced(context.engine, tmp_path / "trace") as trace:
        for _ in range(WARM_ISSUES):
            service.issue(tenant, caller, invoice_body())
        start = len(trace.checkouts)
        issued = service.issue(tenant, caller, invoice_body())
    assert issued.document.state_type_id == "05"
    last = round_trips(trace, start)
    sent = [statement for trip in last for statement in trip]
    assert "ROLLBACK" not in sent  # a ROLLBACK makes psycopg forget the statements it prepared
    assert [s for s in sent if s.startswith("parse:")] == []  # all prepared: PostgreSQL plans none again
    assert len(last) == ROUND_TRIPS, last
    assert last[-1] == ["prepared: WITH records AS"], last  # the answer's writes: one statement


def test_only_the_document_is_written_under_the_series_lock(
    issuing: tuple[ServiceContext, DocumentService, Any, Any], tmp_path: Path
) -> None:
    """From the correlative to the commit: the number, then the document and its XML in one statement,
    nothing else (the back office is read and written before, the authority is asked after the
    commit)."""
    context, service, tenant, caller = issuing
    with traced(context.engine, tmp_path / "trace") as trace:
        for _ in range(WARM_ISSUES):
            service.issue(tenant, caller, invoice_body())
        start = len(trace.checkouts)
        service.issue(tenant, caller, invoice_body())
    sent = [
        statement.removeprefix("prepared: ").removeprefix("parse: ")
        for trip in round_trips(trace, start)
        for statement in trip
    ]
    taken = sent.index("UPDATE series SET")
    committed = sent.index("COMMIT", taken)
    assert sent[taken + 1 : committed] == ["WITH new_document AS"]  # the document and its XML
    authority = [index for index, statement in enumerate(sent) if "authority_records" in statement]
    assert authority and min(authority) > committed  # the simulated SUNAT is asked after the commit
