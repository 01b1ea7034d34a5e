"""Answers are gzipped for clients that accept it (``FACTURADOR_COMPRESSION``): not on loopback by
default, always when told so, never for PDFs and zips, which are compressed already."""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest

from facturador.config import Settings
from tests.conftest import ACME, ACME_TOKEN, LiveService
from tests.samples.bodies import invoice_body
from tests.served import serve

GZIP = {"Accept-Encoding": "gzip"}


def raw_get(client: httpx.Client, path: str) -> tuple[httpx.Response, bytes]:
    """GET with only ``Accept-Encoding: gzip`` offered: the answer and its body as sent (not decoded)."""
    with client.stream("GET", path, headers=GZIP) as response:
        return response, b"".join(response.iter_raw())


@pytest.fixture(scope="module")
def issued(live: LiveService) -> str:
    with live.client(ACME, ACME_TOKEN) as client:
        response = client.post("/api/documents", json=invoice_body())
        assert response.status_code == 200, response.text
        return str(response.json()["data"]["external_id"])


def test_loopback_clients_get_plain_answers_by_default(live: LiveService, issued: str) -> None:
    assert live.settings.compression == "remote"
    with live.client(ACME, ACME_TOKEN) as client:
        response, sent = raw_get(client, "/api/documents/lists")
    assert response.status_code == 200 and "content-encoding" not in response.headers
    assert issued.encode() in sent


@pytest.mark.slow
def test_always_gzips_json_but_not_pdfs(live: LiveService, issued: str, tmp_path: Path) -> None:
    with serve(live.settings, tmp_path / "serve.log", env={"FACTURADOR_COMPRESSION": "always"}) as served:
        with served.client(ACME, ACME_TOKEN) as client:
            listed, sent = raw_get(client, "/api/documents/lists")
            assert listed.status_code == 200 and listed.headers["content-encoding"] == "gzip"
            body = gzip.decompress(sent)
            assert issued.encode() in body and len(sent) < len(body)
            assert client.get("/api/documents/lists").json()["data"][0]["external_id"]  # httpx decodes it
            pdf, sent = raw_get(client, f"/downloads/document/pdf/{issued}")
            assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
            assert "content-encoding" not in pdf.headers and sent.startswith(b"%PDF")
            small, _ = raw_get(client, "/health")
            assert "content-encoding" not in small.headers  # under 1 KB


def test_never_and_bad_modes(tmp_path: Path) -> None:
    assert Settings.resolve(tmp_path / "a", compression="never").compression == "never"
    assert Settings.resolve(tmp_path / "b").export()["FACTURADOR_COMPRESSION"] == "remote"
    with pytest.raises(ValueError, match="FACTURADOR_COMPRESSION must be one of remote, always, never"):
        Settings.resolve(tmp_path / "c", compression="sometimes")
