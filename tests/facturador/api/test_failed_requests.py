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

from facturador.domain.failpoints import FAIL_AFTER_SEND_ENV
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.samples.bodies import invoice_body
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
