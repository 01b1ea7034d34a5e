"""What a load balancer, an orchestrator and Prometheus ask the service, over HTTP: liveness (``/health``,
``/livez``: the process answers, without the database), readiness (``/ready``, ``/readyz``: the database
answers and the schema is at the migrations' head, else 503 with the reason), ``/metrics`` (requests by
route template and status, and what the service owes, read from the database), and links behind a TLS
proxy (forwarded headers believed from the trusted proxies only). On SQLite and, in the PostgreSQL run,
on a fresh PostgreSQL database of the test's own."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from click.testing import CliRunner
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from facturador.app import create_app
from facturador.cli import main
from facturador.config import Settings
from facturador.context import ServiceContext
from facturador.store.db import make_engine
from facturador.store.operations import head_revision
from tests.conftest import free_port
from tests.nodes import new_tenant
from tests.samples.bodies import invoice_body
from tests.served import serve

DEPLOYING = Path(__file__).resolve().parents[3] / "docs" / "deploying.md"


@contextlib.contextmanager
def in_process(context: ServiceContext) -> Iterator[str]:
    """The application of ``context`` served on a loopback port in a thread; its root URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(context), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline, "the service did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def migrate_to(settings: Settings, revision: str) -> None:
    """Create the schema up to ``revision`` only (a database an older release migrated)."""
    from alembic import command
    from alembic.config import Config

    from facturador.store.db import MIGRATIONS_DIR

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = make_engine(settings.database_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
    engine.dispose()


def storage(settings: Settings) -> list[str]:
    """The CLI options naming ``settings``' store."""
    options = ["--data-dir", str(settings.data_dir)]
    if settings.database_url.startswith("postgresql"):
        options += ["--database", settings.database_url]
    return options


def test_live_and_ready_on_a_store_at_head(fresh_settings: Settings) -> None:
    context = ServiceContext(fresh_settings)
    try:
        with in_process(context) as root:
            for path in ("/health", "/livez"):
                answer = httpx.get(f"{root}{path}")
                assert answer.status_code == 200 and answer.json()["success"] is True, answer.text
            for path in ("/ready", "/readyz"):
                answer = httpx.get(f"{root}{path}")
                assert answer.status_code == 200, answer.text
                assert answer.json() == {
                    "success": True,
                    "status": "ready",
                    "database": "ok",
                    "schema": head_revision(),
                }
    finally:
        context.engine.dispose()


def test_not_ready_while_the_schema_is_behind_the_migrations_head(fresh_settings: Settings) -> None:
    """A node of a new release on a database an older release migrated answers, but is not ready until
    the schema is migrated (and is ready again without a restart once it is)."""
    migrate_to(fresh_settings, "0018")
    context = ServiceContext(fresh_settings, migrate=False)
    try:
        with in_process(context) as root:
            assert httpx.get(f"{root}/health").status_code == 200
            answer = httpx.get(f"{root}/readyz")
            assert answer.status_code == 503, answer.text
            body = answer.json()
            assert body["error_code"] == "SCHEMA_NOT_AT_HEAD" and body["success"] is False, body
            assert (body["schema"], body["head"]) == ("0018", head_revision()), body
            assert "facturador migrate" in body["message"], body
            assert httpx.get(f"{root}/ready").status_code == 503  # still behind: nothing changed it
            migrated = CliRunner().invoke(main, ["migrate", *storage(fresh_settings)])
            assert migrated.exit_code == 0, migrated.output
            assert f"Schema migrated from revision 0018 to {head_revision()}." in migrated.output
            assert httpx.get(f"{root}/ready").status_code == 200
            again = CliRunner().invoke(main, ["migrate", *storage(fresh_settings)])
            assert again.exit_code == 0 and "at the newest revision already" in again.output, again.output
    finally:
        context.engine.dispose()


def test_not_ready_while_the_database_does_not_answer(fresh_settings: Settings) -> None:
    """PostgreSQL refusing the node's connections (its pooled ones ended, as a restart does): alive, not
    ready (503 with the reason), the metrics still scraped (``facturador_database_up 0``); ready again
    once it answers."""
    url = os.environ.get("FACTURADOR_TEST_DATABASE_URL")
    if not url:
        pytest.skip("a database that cannot be reached: PostgreSQL only (FACTURADOR_TEST_DATABASE_URL)")
    database = fresh_settings.database_url.rsplit("/", 1)[1]
    admin = create_engine(url, isolation_level="AUTOCOMMIT")

    def refuse(refused: bool) -> None:
        with admin.connect() as connection:
            allow = "false" if refused else "true"
            connection.execute(text(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS {allow}'))
            connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": database},
            )

    context = ServiceContext(fresh_settings)
    try:
        with in_process(context) as root:
            assert httpx.get(f"{root}/ready").status_code == 200
            refuse(True)
            try:
                assert httpx.get(f"{root}/health").status_code == 200
                answer = httpx.get(f"{root}/ready", timeout=60)
                assert answer.status_code == 503, answer.text
                assert answer.json()["error_code"] == "DATABASE_UNAVAILABLE", answer.text
                scraped = httpx.get(f"{root}/metrics", timeout=60)
                assert scraped.status_code == 200
                assert "facturador_database_up 0.0" in scraped.text
            finally:
                refuse(False)
            assert httpx.get(f"{root}/readyz", timeout=60).status_code == 200
    finally:
        context.engine.dispose()
        admin.dispose()


class Relay:
    """A TCP relay from a loopback port to PostgreSQL: the node's database address. :meth:`close` closes
    the port and every connection through it (a database host gone); a new relay on the same port brings
    it back."""

    def __init__(self, target: tuple[str, int], port: int = 0):
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", port))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
                upstream = socket.create_connection(self.target)
            except OSError:
                return
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for connection in self.sockets:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()


def test_not_ready_while_the_database_port_is_closed(fresh_settings: Settings) -> None:
    """The node's database address a closed loopback port (the host or its PostgreSQL gone): alive, not
    ready at once (503 with the reason), the metrics still scraped; ready again once the port answers."""
    if not fresh_settings.database_url.startswith("postgresql"):
        pytest.skip("a database port that closes: PostgreSQL only (FACTURADOR_TEST_DATABASE_URL)")
    real = make_url(fresh_settings.database_url)
    relay = Relay((real.host or "127.0.0.1", real.port or 5432))
    through = real.set(host="127.0.0.1", port=relay.port).render_as_string(hide_password=False)
    settings = Settings.resolve(fresh_settings.data_dir, through)
    context = ServiceContext(settings)
    try:
        with in_process(context) as root:
            assert httpx.get(f"{root}/ready").status_code == 200
            relay.close()
            assert httpx.get(f"{root}/livez").status_code == 200
            started = time.monotonic()
            answer = httpx.get(f"{root}/readyz", timeout=60)
            assert answer.status_code == 503, answer.text
            assert time.monotonic() - started < 30  # a refused connection is an answer at once
            body = answer.json()
            assert body["error_code"] == "DATABASE_UNAVAILABLE" and body["status"] == "not ready", body
            assert "the database does not answer" in body["message"], body
            assert "facturador_database_up 0.0" in httpx.get(f"{root}/metrics", timeout=60).text
            relay = Relay(relay.target, relay.port)
            assert httpx.get(f"{root}/ready", timeout=60).status_code == 200
    finally:
        relay.close()
        context.engine.dispose()


def samples(scraped: str, name: str) -> dict[str, float]:
    """The samples of metric ``name`` in a Prometheus exposition: labels text -> value."""
    found = {}
    for line in scraped.splitlines():
        match = re.match(rf"^{re.escape(name)}(\{{.*\}})? (\S+)$", line)
        if match:
            found[match.group(1) or ""] = float(match.group(2))
    return found


def test_metrics_after_a_few_documents(fresh_settings: Settings) -> None:
    tenant = new_tenant(fresh_settings, "metricas")
    late = new_tenant(fresh_settings, "caida", authority_outage=True)  # SUNAT away: its factura pends
    context = ServiceContext(fresh_settings)
    try:
        with in_process(context) as root:
            before = samples(httpx.get(f"{root}/metrics").text, "facturador_http_requests_total")
            route = '{method="POST",route="/t/{slug}/api/documents",status="200"}'
            for slug, token in ((tenant.slug, tenant.token), (late.slug, late.token)):
                with httpx.Client(
                    base_url=f"{root}/t/{slug}", headers={"Authorization": f"Bearer {token}"}, timeout=60
                ) as client:
                    for _ in range(3 if slug == tenant.slug else 1):
                        issued = client.post("/api/documents", json=invoice_body())
                        assert issued.status_code == 200, issued.text
                    assert client.get("/api/documents/NOT-A-UUID").status_code in (404, 422)
            scraped = httpx.get(f"{root}/metrics")
    finally:
        context.engine.dispose()
    assert scraped.status_code == 200 and scraped.headers["content-type"].startswith("text/plain")
    text_ = scraped.text
    counted = samples(text_, "facturador_http_requests_total")
    assert counted[route] - before.get(route, 0) == 4, counted
    assert (
        samples(text_, "facturador_http_request_duration_seconds_count")[
            '{method="POST",route="/t/{slug}/api/documents"}'
        ]
        >= 4
    )
    # no slug, token or id in any label: route templates only
    for secret in (tenant.slug, tenant.token, late.slug, late.token, "NOT-A-UUID"):
        assert secret not in text_
    assert samples(text_, "facturador_documents") == {
        '{document_type="01",state="05"}': 3.0,
        '{document_type="01",state="01"}': 1.0,
    }
    assert samples(text_, "facturador_pending_documents") == {"": 1.0}
    assert samples(text_, "facturador_pending_past_deadline") == {"": 0.0}
    assert 0 <= samples(text_, "facturador_pending_oldest_age_seconds")[""] < 600
    assert samples(text_, "facturador_tickets_owed") == {"": 0.0}
    assert samples(text_, "facturador_sunat_answers")['{code="0"}'] == 3.0
    assert samples(text_, "facturador_database_up") == {"": 1.0}
    # every metric docs/deploying.md names (its list and its alerts) is in a scrape
    documented = set(re.findall(r"\b(facturador_[a-z_]+)", DEPLOYING.read_text(encoding="utf-8")))
    assert {"facturador_ticket_oldest_age_seconds", "facturador_pending_past_deadline"} <= documented
    exposed = set(re.findall(r"^(?:# HELP )?(facturador_[a-z_]+)", text_, re.MULTILINE))
    assert documented <= exposed, documented - exposed


def test_metrics_add_up_the_worker_processes_of_a_node(fresh_settings: Settings, tmp_path: Path) -> None:
    """``--workers 2``: whichever process answers the scrape, it counts every process's requests."""
    tenant = new_tenant(fresh_settings, "procesos")
    with serve(fresh_settings, tmp_path / "serve.log", "--workers", "2", "--send-pending-every", "0") as node:
        with node.client(tenant.slug, tenant.token) as client:
            for _ in range(4):
                assert client.post("/api/documents", json=invoice_body()).status_code == 200
        route = '{method="POST",route="/t/{slug}/api/documents",status="200"}'
        for _ in range(6):  # several scrapes, answered by either process
            scraped = httpx.get(f"{node.root}/metrics", timeout=60)
            assert scraped.status_code == 200, scraped.text
            assert samples(scraped.text, "facturador_http_requests_total")[route] == 4.0, scraped.text
            assert samples(scraped.text, "facturador_documents") == {'{document_type="01",state="05"}': 4.0}


@pytest.mark.parametrize("trusted", [True, False])
def test_links_behind_a_tls_proxy(fresh_settings: Settings, tmp_path: Path, trusted: bool) -> None:
    """A proxy on a trusted address that says the client came over https gets https links on the public
    host; the same headers from an address not trusted change nothing."""
    tenant = new_tenant(fresh_settings, "proxy")
    allowed = "127.0.0.1" if trusted else "10.9.8.7"
    env = {"FACTURADOR_ALLOWED_HOSTS": "facturas.example.pe"}
    with serve(
        fresh_settings,
        tmp_path / "serve.log",
        "--forwarded-allow-ips",
        allowed,
        "--send-pending-every",
        "0",
        env=env,
    ) as node:
        headers = {
            "Authorization": f"Bearer {tenant.token}",
            "Host": "facturas.example.pe",
            "X-Forwarded-Proto": "https",
            "X-Forwarded-For": "203.0.113.9",
        }
        answer = httpx.post(
            f"{node.root}/t/{tenant.slug}/api/documents", json=invoice_body(), headers=headers, timeout=60
        )
    assert answer.status_code == 200, answer.text
    links = re.findall(r'"(https?://[^"]+)"', answer.text)
    assert links, answer.text
    scheme = "https" if trusted else "http"
    assert all(link.startswith(f"{scheme}://facturas.example.pe/t/{tenant.slug}/") for link in links), links


def test_a_job_retaken_after_its_lease_ran_out_is_counted(fresh_settings: Settings) -> None:
    """A worker that dies holding a job lets its lease run out; the take that finds it so adds one to
    ``facturador_job_lease_expiries_total{kind}``, kept in the database (the job itself goes when done),
    so every node's scrape says it, after restarts too. A job taken while free, or put back, is not one."""
    import datetime as dt

    from facturador.store.jobs import JobQueue

    context = ServiceContext(fresh_settings)
    queue = JobQueue(context.db)
    start = dt.datetime(2026, 12, 5, 12, 0, 0)
    try:
        with in_process(context) as root:
            assert "facturador_job_lease_expiries_total{" not in httpx.get(f"{root}/metrics").text
            queue.enqueue("send", [101, 102], run_at=start)
            first = queue.take("worker-a", 10, now=start)  # worker-a dies holding it
            assert first is not None and first.target_id == 101
            second = queue.take("worker-b", 10, now=start)  # free: not a retake
            assert second is not None
            queue.put_back(second, start)  # a failed handler puts it back: not an expiry either
            assert queue.take("worker-c", 10, now=start + dt.timedelta(seconds=5)).target_id == 102  # type: ignore[union-attr]
            assert queue.take("worker-d", 10, now=start + dt.timedelta(seconds=5)) is None  # leases hold
            retaken = queue.take("worker-d", 10, now=start + dt.timedelta(seconds=11))  # a's ran out
            assert retaken is not None and retaken.target_id == 101 and retaken.taken == 2
            assert queue.finish(retaken)
            scraped = httpx.get(f"{root}/metrics").text
    finally:
        context.engine.dispose()
    assert samples(scraped, "facturador_job_lease_expiries_total") == {'{kind="send"}': 1.0}


def test_ready_on_a_schema_a_newer_release_migrated(fresh_settings: Settings) -> None:
    """During a rolling upgrade the schema is past this release's head (a revision it does not know):
    the node stays ready, since migrations are backward compatible; a known revision behind is not."""
    context = ServiceContext(fresh_settings)
    try:
        with in_process(context) as root:
            with context.engine.begin() as connection:
                connection.execute(text("UPDATE alembic_version SET version_num = '9001'"))
            ahead = httpx.get(f"{root}/ready", timeout=30)
            with context.engine.begin() as connection:
                connection.execute(text("UPDATE alembic_version SET version_num = '0021'"))
            behind = httpx.get(f"{root}/ready", timeout=30)
            with context.engine.begin() as connection:
                connection.execute(
                    text("UPDATE alembic_version SET version_num = :head"), {"head": head_revision()}
                )
    finally:
        context.engine.dispose()
    assert ahead.status_code == 200 and ahead.json()["schema"] == "9001", ahead.text
    assert behind.status_code == 503 and behind.json()["error_code"] == "SCHEMA_NOT_AT_HEAD", behind.text
