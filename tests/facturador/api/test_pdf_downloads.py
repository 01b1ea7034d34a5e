"""The PDF of the largest document over HTTP: bounded time and pages, and a client that leaves stops it.

The largest document accepted: the most lines a document may have, each description and the additional
information at their declared maxima (facturador/domain/document_schema.py).
"""

from __future__ import annotations

import logging
import socket
import time
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from sqlalchemy import select

from facturador.api.downloads import PDF_WAIT_ENV
from facturador.domain.document_schema import DOCUMENT, ITEM, MAX_ITEMS
from facturador.render.pdf import MAX_A4_PAGES
from facturador.store.models import Artifact, Document
from tests.conftest import LiveService
from tests.facturador.render.pdf_probes import page_count
from tests.samples.bodies import invoice_body

LINES = MAX_ITEMS  # the most items a document may have (SUNAT)
DESCRIPTION = ITEM.fields["descripcion"].max_length
INFORMATION = DOCUMENT.fields["informacion_adicional"].max_length
WORDS = "Descripción ampliada del artículo con medidas y número de serie "


@pytest.fixture(autouse=True)
def wait_for_big_pdfs(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests wait for a big document's PDF in one request (the 202 of one not ready within
    ``PDF_WAIT_SECONDS`` is tested in test_pdf_not_ready.py)."""
    monkeypatch.setenv(PDF_WAIT_ENV, "600")


def largest_body() -> dict[str, Any]:
    body = invoice_body()
    item = body["items"][0]
    body["items"] = [
        {**item, "descripcion": (WORDS * 8)[:DESCRIPTION], "codigo_interno": f"P{i:04d}"}
        for i in range(LINES)
    ]
    body["totales"] = {
        "total_operaciones_gravadas": 100 * LINES,
        "total_igv": 18 * LINES,
        "total_impuestos": 18 * LINES,
        "total_valor": 100 * LINES,
        "total_venta": 118 * LINES,
    }
    body["informacion_adicional"] = (WORDS * 50)[:INFORMATION]
    return body


@pytest.fixture(scope="module")
def largest(live: LiveService) -> dict[str, Any]:
    with live.client() as client:
        answer = client.post("/api/documents", json=largest_body())
    assert answer.status_code == 200, answer.text
    return answer.json()


def _stored_pdf(live: LiveService, external_id: str) -> bool:
    with live.context.session() as session:
        document_id = session.scalar(select(Document.id).where(Document.external_id == external_id))
        kinds = set(session.scalars(select(Artifact.kind).where(Artifact.document_id == document_id)))
    return "pdf-a4" in kinds


def test_a_client_that_leaves_stops_the_rendering(
    live: LiveService, largest: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="facturador.downloads")
    external_id = largest["data"]["external_id"]
    url = urlsplit(largest["links"]["pdf"])
    with socket.create_connection((url.hostname or "", url.port or 80)) as sock:
        sock.sendall(f"GET {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\n\r\n".encode())
        time.sleep(0.15)
    stopped = f"rendering the PDF of {external_id} stopped: every client that asked for it left"
    deadline = time.monotonic() + 10
    while stopped not in caplog.text:
        assert time.monotonic() < deadline, "the rendering did not stop"
        time.sleep(0.05)
    assert not _stored_pdf(live, external_id)  # nothing half-done is kept
    # a client that waits gets the whole PDF, rendered from scratch and kept
    answer = httpx.get(largest["links"]["pdf"], timeout=60)
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/pdf"
    assert _stored_pdf(live, external_id)


@pytest.mark.parametrize("fmt", ["a4", "ticket"])
def test_the_pdf_of_the_largest_document_is_bounded(largest: dict[str, Any], fmt: str) -> None:
    start = time.perf_counter()
    answer = httpx.get(f"{largest['links']['pdf']}/{fmt}", timeout=60)
    seconds = time.perf_counter() - start
    assert answer.status_code == 200
    assert seconds < 60  # bounded (~1 s alone); the render's own CPU bound is in tests/facturador/render
    assert page_count(answer.content) <= (MAX_A4_PAGES + 2 if fmt == "a4" else 3)
    assert len(answer.content) < 1_000_000
