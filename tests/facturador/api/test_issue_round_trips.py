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

#: psycopg prepares a statement the 5th time a connection runs it; a few issues more make them all so.
WARM_ISSUES = 6
#: The round trips of a factura issued and accepted: the issuing transaction (BEGIN, the customer, the
#: warehouse, the products, their stocks, the correlative, the document with its XML, COMMIT), the
#: simulated SUNAT's registry read, and the answer: the registry, the state and the CDR in one statement
#: in autocommit (it was BEGIN, three statements and COMMIT: 14 round trips in all).
ROUND_TRIPS = 10


@contextlib.contextmanager
def traced(engine: Engine, path: Path) -> Iterator[Path]:
    """libpq's trace of every connection ``engine`` hands out meanwhile, without timestamps, in ``path``."""
    from psycopg import pq

    traced_connections: list[Any] = []
    with path.open("w") as file:

        def checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
            dbapi_connection.pgconn.trace(file.fileno())
            dbapi_connection.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)
            traced_connections.append(dbapi_connection)

        event.listen(engine, "checkout", checkout)
        try:
            yield path
        finally:
            event.remove(engine, "checkout", checkout)
            for dbapi_connection in traced_connections:
                dbapi_connection.pgconn.untrace()


def round_trips(trace: str, since: int) -> list[list[str]]:
    """The statements the client sent from offset ``since`` of ``trace`` on, one list per round trip (a
    Sync or a simple Query ends one): ``BEGIN``/``COMMIT`` as sent, extended-protocol statements by
    their SQL's first words, a prepared one by the SQL it was prepared with (``prepared: ...``, maybe
    earlier in the trace), an unnamed, unprepared one as ``parse: ...``."""
    names: dict[str, str] = {}
    trips: list[list[str]] = []
    current: list[str] = []
    offset = 0
    for line in trace.splitlines(keepends=True):
        counted, offset = offset >= since, offset + len(line)
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 3 or parts[0] != "F":
            continue
        kind, rest = parts[2], parts[3] if len(parts) > 3 else ""
        if kind == "Parse":
            name, sql = re.match(r' "([^"]*)" "([^"]*)', rest).groups()  # type: ignore[union-attr]
            words = " ".join(sql.split()[:3])
            if name:
                names[name] = words
            elif counted:
                current.append(f"parse: {words}")
        elif not counted:
            continue
        elif kind == "Bind":
            name = re.match(r' "[^"]*" "([^"]*)"', rest).group(1)  # type: ignore[union-attr]
            if name:
                current.append(f"prepared: {names[name]}")
        elif kind in ("Query", "Sync"):
            if kind == "Query":
                current.append(rest.strip().strip('"'))
            trips.append(current)
            current = []
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
    with traced(context.engine, tmp_path / "trace") as path:
        for _ in range(WARM_ISSUES):
            service.issue(tenant, caller, invoice_body())
        start = path.stat().st_size
        issued = service.issue(tenant, caller, invoice_body())
    assert issued.document.state_type_id == "05"
    trace = path.read_text()
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
    with traced(context.engine, tmp_path / "trace") as path:
        for _ in range(WARM_ISSUES):
            service.issue(tenant, caller, invoice_body())
        start = path.stat().st_size
        service.issue(tenant, caller, invoice_body())
    sent = [
        statement.removeprefix("prepared: ").removeprefix("parse: ")
        for trip in round_trips(path.read_text(), start)
        for statement in trip
    ]
    taken = sent.index("UPDATE series SET")
    committed = sent.index("COMMIT", taken)
    assert sent[taken + 1 : committed] == ["WITH new_document AS"]  # the document and its XML
    authority = [index for index, statement in enumerate(sent) if "authority_records" in statement]
    assert authority and min(authority) > committed  # the simulated SUNAT is asked after the commit
