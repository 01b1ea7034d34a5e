"""A request that fails midway, seen by its client: the connection stays usable after a 500, and a
database lost after the document was committed is answered with the document, never with "nothing was
saved". A ``facturador serve`` process armed with the failpoint ``FACTURADOR_TEST_FAIL_AFTER_SEND``
(:mod:`facturador.domain.failpoints`) fails once, after sending a document and before storing the answer.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from facturador.domain.failpoints import DATABASE_GONE, FAIL_AFTER_SEND_ENV
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.samples.bodies import invoice_body
from tests.samples.withholding import retention
from tests.served import Served, serve
from tests.shops import Shop, new_shop


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "fallas")


@pytest.fixture
def trigger(tmp_path: Path) -> Path:
    return tmp_path / "fail-next-send"


@pytest.fixture
def served(live: LiveService, tmp_path: Path, trigger: Path) -> Iterator[Served]:
    with serve(live.settings, tmp_path / "serve.log", env={FAIL_AFTER_SEND_ENV: str(trigger)}) as served:
        yield served


class KeepAlive:
    """One raw HTTP/1.1 keep-alive connection (http.client), as a point of sale's would be."""

    def __init__(self, served: Served, shop: Shop):
        root = urlsplit(served.root)
        self.connection = http.client.HTTPConnection(root.hostname or "", root.port, timeout=60)
        self.prefix = f"/t/{shop.slug}"
        self.headers = {"Authorization": f"Bearer {shop.token}", "Content-Type": "application/json"}

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], Any]:
        content = None if body is None else json.dumps(body).encode()
        self.connection.request(method, self.prefix + path, content, {**self.headers, **(headers or {})})
        response = self.connection.getresponse()
        payload = response.read()
        return response.status, dict(response.getheaders()), json.loads(payload) if payload else None

    def numbers_today(self) -> list[str]:
        day = peru_today().isoformat()
        status, _headers, listed = self.request("GET", f"/api/documents/lists/{day}/{day}")
        assert status == 200, listed
        return sorted(row["number"] for row in listed["data"])


@pytest.mark.slow(seconds=20)
def test_after_a_500_the_same_keep_alive_connection_serves_the_next_request(
    served: Served, shop: Shop, trigger: Path
) -> None:
    client = KeepAlive(served, shop)
    assert client.request("POST", "/api/documents", invoice_body())[0] == 200
    socket_before = client.connection.sock
    trigger.write_text("a bug", encoding="utf-8")
    status, headers, body = client.request("POST", "/api/documents", invoice_body())
    assert status == 500 and body["error_code"] == "INTERNAL_ERROR", body
    assert not trigger.exists()
    # the next request on the same connection is served (it was reset before)
    status, _headers, body = client.request("POST", "/api/documents", invoice_body())
    assert status == 200, body
    assert client.connection.sock is socket_before or headers.get("connection", "").lower() == "close"
    assert len(client.numbers_today()) == 3  # the failed request's document was committed before the bug
    assert "failpoint: a bug after sending" in served.output()


@pytest.mark.slow(seconds=20)
def test_a_database_lost_after_the_document_was_stored_answers_the_document(
    served: Served, shop: Shop, trigger: Path
) -> None:
    """The issue stores the factura, sends it, then stores SUNAT's answer: the database gone at that second
    step once answered 503 "nothing was saved" for a factura that existed. Now it answers the factura as
    registered (the pending sender sends it again), and the node's log names it."""
    client = KeepAlive(served, shop)
    trigger.write_text(DATABASE_GONE, encoding="utf-8")
    key = {"Idempotency-Key": "pos-7-sale-2291"}
    status, _headers, body = client.request("POST", "/api/documents", invoice_body(), key)
    assert status == 200, body
    data = body["data"]
    assert data["state_type_id"] == "01" and data["number"] in client.numbers_today(), body
    assert not trigger.exists()
    assert f"{data['number']} ({data['external_id']}) was stored but the database failed" in served.output()
    # the point of sale sending it again with its key gets the same factura, not a second one
    status, _headers, again = client.request("POST", "/api/documents", invoice_body(), key)
    assert status == 200 and again["data"]["number"] == data["number"], again
    assert client.numbers_today().count(data["number"]) == 1


@pytest.mark.slow(seconds=20)
def test_a_503_after_a_committed_write_never_says_nothing_was_saved(
    served: Served, shop: Shop, trigger: Path
) -> None:
    """A retention committed, then the database gone before its answer is stored: the 503 tells the client
    that the retention may exist and how to ask for it again."""
    client = KeepAlive(served, shop)
    trigger.write_text(DATABASE_GONE, encoding="utf-8")
    status, headers, body = client.request("POST", "/api/retentions", retention())
    assert status == 503 and headers.get("retry-after") == "5", body
    assert body["error_code"] == "DATABASE_UNAVAILABLE", body
    assert "no se guardó nada" not in body["message"], body
    assert "puede haberse guardado" in body["message"] and "Idempotency-Key" in body["message"], body
    status, _headers, listed = client.request("GET", "/api/retentions/lists")
    assert status == 200 and len(listed["data"]) == 1, listed  # it exists
    assert f"POST /t/{shop.slug}/api/retentions wrote (its client does not know)" in served.output()
