"""The log lines of a real ``facturador serve`` and ``facturador worker``: one access line per request with
its method, path (tokens redacted), status, duration and request id; the client's ``X-Request-ID`` kept
(else one made) and returned, and carried into the lines the request's own code logs; the JSON form;
each sending logged once by the worker; the database stopped under the worker: warnings, no traceback."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import httpx
import pytest

from facturador.config import Settings
from tests.conftest import _fresh_postgres, free_port
from tests.nodes import Tenant, new_tenant, start, wait_until_up
from tests.samples.bodies import invoice_body


def _lines(text: str) -> list[dict]:
    """The JSON objects of a log (the lines that are not JSON, if any, left out)."""
    found = []
    for line in text.splitlines():
        if line.startswith("{"):
            found.append(json.loads(line))
    return found


@pytest.mark.slow(seconds=30)
def test_access_lines_carry_the_request_id_in_json(tmp_path: Path) -> None:
    settings = Settings.resolve(tmp_path / "data")
    closed = free_port()  # no SUNAT there: the sending's retry line is logged inside the request
    tenant: Tenant = new_tenant(settings, "bitacora", sunat_url=f"http://127.0.0.1:{closed}")
    node = start(
        settings,
        tmp_path / "node.log",
        "serve",
        "--send-pending-every",
        "0",
        "--log-level",
        "info",
        env={"FACTURADOR_LOG_FORMAT": "json"},
        port=free_port(),
    )
    try:
        wait_until_up(node)
        base = f"{node.root}/t/{tenant.slug}"
        given = "proxy-7f3a.91"
        issued = httpx.post(
            f"{base}/api/documents",
            params={"api_token": tenant.token},
            json=invoice_body(),
            headers={"X-Request-ID": given},
            timeout=120,
        )
        assert issued.status_code == 200, issued.text
        assert issued.headers["x-request-id"] == given
        listed = httpx.get(f"{base}/api/documents/lists", headers={"Authorization": f"Bearer {tenant.token}"})
        made = listed.headers["x-request-id"]
        assert re.fullmatch(r"[0-9a-f]{32}", made)
        refused = httpx.get(f"{base}/api/documents/lists", headers={"X-Request-ID": "bad id " + "x" * 200})
        assert refused.status_code == 401 and re.fullmatch(r"[0-9a-f]{32}", refused.headers["x-request-id"])
        time.sleep(0.5)
    finally:
        node.stop()
    output = node.output()
    assert tenant.token not in output
    assert "Traceback" not in output
    lines = _lines(output)
    assert lines and all("time" in line and "level" in line and "request_id" in line for line in lines)
    access = [line for line in lines if line["logger"] == "facturador.access"]
    issue_line = next(line for line in access if line["method"] == "POST")
    assert issue_line["path"] == f"/t/{tenant.slug}/api/documents?api_token=[redacted]"
    assert issue_line["status"] == 200 and issue_line["request_id"] == given
    assert isinstance(issue_line["duration_ms"], float) and issue_line["duration_ms"] > 0
    assert [line["request_id"] for line in access if line["path"].endswith("/api/documents/lists")] == [
        made,
        refused.headers["x-request-id"],
    ]
    assert len(access) == 3  # one line per request (the start's /health probes, answered 200, are not)
    # the request's own code: the SOAP client's retry line, logged in the worker thread of the request
    retry = [line for line in lines if line["logger"] == "facturador.sunat" and "retrying" in line["message"]]
    assert retry and all(line["request_id"] == given for line in retry)


@pytest.mark.slow(seconds=20)
def test_text_access_line_and_one_line_per_sending_of_the_worker(tmp_path: Path) -> None:
    """The text form names the request id in brackets; ``facturador worker`` logs each sending once."""
    settings = Settings.resolve(tmp_path / "data")
    closed = f"http://127.0.0.1:{free_port()}"  # SUNAT away: the documents stay owed, due at once
    tenant = new_tenant(settings, "unavez", sunat_url=closed, send_retry_seconds=0.0)
    node = start(settings, tmp_path / "node.log", "serve", "--no-worker", port=free_port())
    try:
        wait_until_up(node)
        base = f"{node.root}/t/{tenant.slug}"
        headers = {"Authorization": f"Bearer {tenant.token}", "X-Request-ID": "caja-1"}
        for _ in range(2):
            issued = httpx.post(f"{base}/api/documents", json=invoice_body(), headers=headers, timeout=120)
            assert issued.status_code == 200, issued.text
    finally:
        node.stop()
    output = node.output()
    assert re.search(
        rf"INFO facturador\.access \[caja-1\] POST /t/{tenant.slug}/api/documents 200 [\d.]+ ms", output
    )
    worker = start(settings, tmp_path / "worker.log", "worker", "--once")
    worker.process.wait(timeout=300)
    text = worker.output()
    assert worker.process.returncode == 0, text
    sent = [line for line in text.splitlines() if "facturador.pending" in line and "F001-" in line]
    assert len(sent) == 2, text  # two documents, one line each (it was two each)


@pytest.mark.slow(seconds=40)
def test_the_database_stopped_under_the_worker_is_a_warning_without_traceback(tmp_path: Path) -> None:
    """PostgreSQL behind a proxy the test stops: the worker logs one warning a pass, no traceback."""
    server = os.environ.get("FACTURADOR_TEST_DATABASE_URL")
    if not server:
        pytest.skip("PostgreSQL: set FACTURADOR_TEST_DATABASE_URL")
    from sqlalchemy.engine import make_url

    from tests.db_proxy import DatabaseProxy

    url, drop = _fresh_postgres(server)
    parsed = make_url(url)
    proxy = DatabaseProxy((parsed.host or "127.0.0.1", parsed.port or 5432))
    proxy.start()
    try:
        through = parsed.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
        settings = Settings.resolve(tmp_path / "data", through)
        worker = start(settings, tmp_path / "worker.log", "worker", "--every", "0.5", "--log-format", "json")
        try:
            deadline = time.monotonic() + 120
            while "taking jobs" not in worker.output() and time.monotonic() < deadline:
                time.sleep(0.2)
            proxy.down()
            time.sleep(3)
            proxy.up()
            time.sleep(1.5)
        finally:
            worker.stop()
        output = worker.output()
        warnings = [line for line in _lines(output) if line["level"] == "WARNING"]
        assert warnings and all("the database cannot serve" in line["message"] for line in warnings), output
        assert "Traceback" not in output and all("traceback" not in line for line in _lines(output))
        assert worker.process.returncode == 0
    finally:
        proxy.stop()
        drop()
