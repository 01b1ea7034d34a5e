"""One tenant's big work does not stall the others: a big factura is issued while other requests are
answered, and concurrent requests for one PDF share a single rendering (timing is measured in
benchmarks/busy_tenant.py, not here)."""

from __future__ import annotations

import concurrent.futures
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from facturador.api.downloads import PDF_WAIT_ENV
from facturador.domain import documents
from tests.common import issue
from tests.conftest import LiveService
from tests.facturador.api.test_pdf_downloads import largest_body
from tests.samples.bodies import invoice_body
from tests.shops import Shop, new_shop


@pytest.fixture(autouse=True)
def wait_for_big_pdfs(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests wait for a big document's PDF in one request (the 202 of one not ready within
    ``PDF_WAIT_SECONDS`` is tested in test_pdf_not_ready.py)."""
    monkeypatch.setenv(PDF_WAIT_ENV, "600")


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "busy")


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The formats of every PDF rendering the service does from now on (the real renderer runs)."""
    done: list[str] = []
    render = documents.render_pdf

    def counted(*args: Any, **kwargs: Any) -> bytes:
        content = render(*args, **kwargs)
        done.append(kwargs["fmt"])
        return content

    monkeypatch.setattr(documents, "render_pdf", counted)
    yield done


def big_body(lines: int) -> dict[str, Any]:
    """The largest document's lines and texts, cut to ``lines`` lines."""
    body = largest_body()
    body["items"] = body["items"][:lines]
    body["totales"] = {
        "total_operaciones_gravadas": 100 * lines,
        "total_igv": 18 * lines,
        "total_impuestos": 18 * lines,
        "total_valor": 100 * lines,
        "total_venta": 118 * lines,
    }
    return body


def fetch_all(urls: list[str]) -> list[httpx.Response]:
    """GET every URL at once (each from its own thread and connection, started together)."""
    start = threading.Barrier(len(urls))

    def get(url: str) -> httpx.Response:
        start.wait()
        return httpx.get(url, timeout=120)

    with concurrent.futures.ThreadPoolExecutor(len(urls)) as pool:
        return list(pool.map(get, urls))


def test_concurrent_requests_for_one_pdf_share_one_rendering(
    live: LiveService, shop: Shop, renders: list[str]
) -> None:
    with shop.http() as client:
        issued = issue(client, big_body(300))
    pdf = issued["links"]["pdf"]
    answers = fetch_all([f"{pdf}/a4"] * 6 + [f"{pdf}/ticket"] * 4)
    assert [a.status_code for a in answers] == [200] * 10
    assert all(a.headers["content-type"] == "application/pdf" for a in answers)
    a4, ticket = {a.content for a in answers[:6]}, {a.content for a in answers[6:]}
    assert len(a4) == 1 and len(ticket) == 1 and a4 != ticket  # each format once, the same bytes for all
    assert sorted(renders) == ["a4", "ticket"]
    # kept: later downloads read the stored file
    assert httpx.get(f"{pdf}/a4", timeout=60).content in a4
    assert httpx.get(f"{pdf}/ticket", timeout=60).content in ticket
    assert sorted(renders) == ["a4", "ticket"]


def test_a_client_that_leaves_does_not_stop_the_rendering_the_others_wait_for(
    live: LiveService, shop: Shop, renders: list[str]
) -> None:
    with shop.http() as client:
        issued = issue(client, big_body(600))
    url = urlsplit(issued["links"]["pdf"])
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        with socket.create_connection((url.hostname or "", url.port or 80)) as leaving:
            leaving.sendall(f"GET {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\n\r\n".encode())
            time.sleep(0.1)  # the rendering has started for the client that leaves
            waiting = [pool.submit(httpx.get, issued["links"]["pdf"], timeout=120) for _ in range(3)]
            time.sleep(0.1)
        answers = [future.result() for future in waiting]
    assert [a.status_code for a in answers] == [200] * 3
    assert len({a.content for a in answers}) == 1 and answers[0].content.startswith(b"%PDF")
    assert renders == ["a4"]  # one rendering, not stopped and started again


def test_a_big_factura_does_not_hold_up_the_other_tenants(live: LiveService, shop: Shop) -> None:
    """While one tenant issues the largest factura, another tenant's small requests keep being answered:
    several of them are answered before the big one is."""
    neighbour = new_shop(live, "busy-neighbour")
    done = threading.Event()
    answered: list[str] = []

    def small_requests() -> None:
        with live.client(neighbour.slug, neighbour.token) as client, httpx.Client(base_url=live.root) as bare:
            while not done.is_set():
                for name, response in (
                    ("health", bare.get("/health")),
                    ("factura", client.post("/api/documents", json=invoice_body())),
                    ("list", client.get("/api/documents/lists")),
                ):
                    assert response.status_code == 200, response.text
                    if not done.is_set():
                        answered.append(name)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        other = pool.submit(small_requests)
        with live.client(shop.slug, shop.token) as client:
            big = client.post("/api/documents", json=largest_body())
        done.set()
        other.result()
    assert big.status_code == 200, big.text
    assert big.json()["data"]["state_type_id"] == "05"
    assert {"health", "factura", "list"} <= set(answered) and len(answered) >= 6, answered
