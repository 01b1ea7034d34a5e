"""Correlatives under concurrency: 8 threads x 50 documents on one series get 1..400 exactly once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.conftest import LiveService
from tests.samples.bodies import invoice_body
from tests.samples.tenants import ACME_TOKEN
from tests.served import serve

THREADS = 8
PER_THREAD = 50


@pytest.mark.slow
def test_concurrent_issuing_numbers_each_document_once(live: LiveService) -> None:
    def worker(_: int) -> list[int]:
        numbers = []
        with live.client("acme", ACME_TOKEN) as client:
            for _ in range(PER_THREAD):
                response = client.post("/api/documents", json=invoice_body(serie_documento="F900"))
                assert response.status_code == 200, response.text
                numbers.append(int(response.json()["data"]["number"].split("-")[1]))
        return numbers

    with ThreadPoolExecutor(THREADS) as pool:
        results = [n for chunk in pool.map(worker, range(THREADS)) for n in chunk]
    assert sorted(results) == list(range(1, THREADS * PER_THREAD + 1))
    with live.client("acme", ACME_TOKEN) as client:
        day = invoice_body()["fecha_de_emision"]
        rows = client.get(f"/api/documents/lists/{day}/{day}").json()["data"]
    stored = sorted(int(r["number"].split("-")[1]) for r in rows if r["number"].startswith("F900-"))
    assert stored == list(range(1, THREADS * PER_THREAD + 1))
    assert all(r["state_type_id"] == "05" for r in rows if r["number"].startswith("F900-"))


def test_concurrent_explicit_duplicates_get_one_winner(live: LiveService) -> None:
    def attempt(_: int) -> int:
        with live.client("acme", ACME_TOKEN) as client:
            body = invoice_body(serie_documento="F002", numero_documento="90000")
            return client.post("/api/documents", json=body).status_code

    with ThreadPoolExecutor(6) as pool:
        statuses = list(pool.map(attempt, range(6)))
    assert sorted(statuses) == [200] + [409] * 5


@pytest.mark.slow(seconds=31)
def test_numbering_across_server_processes(live: LiveService, tmp_path) -> None:
    """Two uvicorn worker processes sharing the database still hand out each number once."""
    with serve(live.settings, tmp_path / "serve.log", "--workers", "2") as served:
        base = served.base_url("acme")

        def worker(_: int) -> list[int]:
            with httpx.Client(
                base_url=base, headers={"Authorization": f"Bearer {ACME_TOKEN}"}, timeout=60
            ) as c:
                return [
                    int(
                        c.post("/api/documents", json=invoice_body(serie_documento="0001"))
                        .json()["data"]["number"]
                        .split("-")[1]
                    )
                    for _ in range(15)
                ]

        with ThreadPoolExecutor(4) as pool:
            numbers = [n for chunk in pool.map(worker, range(4)) for n in chunk]
        assert len(set(numbers)) == 60
        assert max(numbers) - min(numbers) == 59
