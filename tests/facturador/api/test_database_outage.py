"""The service when its PostgreSQL goes away and comes back (a restart, a failover, a pooler dropping
connections): a request that finds the database unreachable gets a clear 503 with Retry-After, changes
nothing and loses nothing, and the node's background worker skips its passes with a line each; once the
database answers again the next request is served, even on pooled connections used a moment before the
server dropped them (a restart sends their sockets an end, which the pool sees without a round trip).
PostgreSQL only: one ``facturador serve`` node on a throw-away database."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from facturador.config import Settings
from sunat.calendar import peru_today
from tests.conftest import _fresh_postgres
from tests.nodes import new_tenant, nodes
from tests.samples.bodies import invoice_body


@pytest.fixture
def pg_database(tmp_path: Path) -> Iterator[tuple[Settings, str]]:
    url = os.environ.get("FACTURADOR_TEST_DATABASE_URL")
    if not url:
        pytest.skip("a PostgreSQL outage: set FACTURADOR_TEST_DATABASE_URL (CI's PostgreSQL run does)")
    database_url, drop = _fresh_postgres(url)
    yield Settings.resolve(tmp_path / "data", database_url), url
    drop()


def _drop_connections(admin_url: str, database: str, *, refuse: bool | None = None) -> int:
    """Terminate every backend of ``database`` (as a restart does); ``refuse`` closes or opens it to new
    connections first. How many backends were ended."""
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            if refuse is not None:
                allow = "false" if refuse else "true"
                connection.execute(text(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS {allow}'))
            ended = connection.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": database},
            ).scalar()
    finally:
        admin.dispose()
    return int(ended or 0)


def test_an_outage_answers_503_loses_nothing_and_the_service_comes_back(
    pg_database: tuple[Settings, str], tmp_path: Path
) -> None:
    settings, admin_url = pg_database
    assert settings.database_url is not None
    database = settings.database_url.rsplit("/", 1)[1]
    tenant = new_tenant(settings, "caida")
    with nodes(settings, tmp_path, 1, "--send-pending-every", "0.3") as (node,):
        headers = {"Authorization": f"Bearer {tenant.token}"}
        with httpx.Client(base_url=f"{node.root}/t/{tenant.slug}", headers=headers, timeout=60) as client:
            answered = [client.post("/api/documents", json=invoice_body()) for _ in range(3)]
            assert [a.status_code for a in answered] == [200] * 3, answered[-1].text

            # a restart: every pooled connection, used a moment ago, is ended by the server
            assert _drop_connections(admin_url, database) >= 1
            after_restart = client.post("/api/documents", json=invoice_body())
            assert after_restart.status_code == 200, after_restart.text
            answered.append(after_restart)

            # the database down: a clear 503 to retry, for writes and reads, and nothing written
            _drop_connections(admin_url, database, refuse=True)
            for _attempt in range(2):
                down = client.post("/api/documents", json=invoice_body())
                assert down.status_code == 503, down.text
                assert down.headers.get("Retry-After"), down.headers
                body = down.json()
                assert body["success"] is False and body["error_code"] == "DATABASE_UNAVAILABLE", body
                assert "base de datos" in body["message"], body
            today = peru_today().isoformat()
            listed = client.get(f"/api/documents/lists/{today}/{today}")
            assert listed.status_code == 503, listed.text
            # a tenant asked for by its host is looked up before any route: the same 503, not a bare 500
            by_host = httpx.get(f"{node.root}/api/documents", headers={"Host": "otra.example.pe", **headers})
            assert by_host.status_code == 503, by_host.text
            assert by_host.json()["error_code"] == "DATABASE_UNAVAILABLE"

            time.sleep(1)  # the node's background worker meets the outage too: a line a pass, no traceback
            assert "the database cannot serve" in node.output(), node.output()[-3000:]

            # back up: served again, and every document answered 200 is there, numbered without a gap
            _drop_connections(admin_url, database, refuse=False)
            again = client.post("/api/documents", json=invoice_body())
            assert again.status_code == 200, again.text
            answered.append(again)
            listed = client.get(f"/api/documents/lists/{today}/{today}")
            assert listed.status_code == 200, listed.text
            numbers = sorted(row["number"] for row in listed.json()["data"])
            assert numbers == sorted(a.json()["data"]["number"] for a in answered)
            assert [int(n.split("-")[1]) for n in numbers] == list(range(1, len(answered) + 1))
        assert "Traceback" not in node.output(), node.output()[-3000:]
