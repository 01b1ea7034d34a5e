"""Every numbered family under 8 concurrent HTTP clients: each number handed out once, without a gap,
and no 5xx (CI runs this file on SQLite and on PostgreSQL).

Documents, sale notes, quotations, retentions, perceptions and guides take their correlative from a
counter row (:mod:`facturador.domain.numbering`); summaries and voided communications are numbered per
tenant and day under the tenant's lock. Inventory movements carry no number. Each family works on a
fresh tenant, so its numbers start at 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.conftest import LiveService
from tests.facturador.api.test_sale_notes import customer, line, note_body, product, series_id
from tests.samples.bodies import boleta_body, invoice_body
from tests.samples.dispatches import dispatch_body
from tests.samples.withholding import perception, retention, today
from tests.shops import Shop, new_shop

CLIENTS = 8

#: One request of a family, made by a client on its own connection: (HTTP status, the number it got).
Issue = Callable[[httpx.Client], tuple[int, str | None]]


def run_clients(shop: Shop, per_client: int, issue: Issue, family: str) -> tuple[Counter[int], list[str]]:
    """``CLIENTS`` threads, each with its own keep-alive connection, issue ``per_client`` times at once:
    the statuses seen and the numbers answered (printed, for the record: ``pytest -s``)."""

    def client_loop(_: int) -> list[tuple[int, str | None]]:
        with shop.http() as client:
            return [issue(client) for _ in range(per_client)]

    with ThreadPoolExecutor(CLIENTS) as pool:
        outcomes = [outcome for chunk in pool.map(client_loop, range(CLIENTS)) for outcome in chunk]
    statuses = Counter(status for status, _number in outcomes)
    numbers = [number for _status, number in outcomes if number is not None]
    print(f"\n{family}: {len(outcomes)} requests by {CLIENTS} clients, statuses {dict(statuses)}")
    return statuses, numbers


def correlatives(numbers: list[str], prefix: str) -> list[int]:
    """``["F001-3", "F001-1", ...]`` -> sorted ``[1, 3, ...]`` (every number must carry ``prefix``)."""
    assert all(number.startswith(prefix) for number in numbers), numbers
    return sorted(int(number.rsplit("-", 1)[1]) for number in numbers)


def answered(response: httpx.Response, key: str) -> tuple[int, str | None]:
    if response.status_code != 200:
        return response.status_code, None
    return 200, response.json()["data"][key]


@pytest.fixture
def fresh(live: LiveService) -> Shop:
    return new_shop(live, "familias")


@pytest.mark.slow(seconds=10)
@pytest.mark.parametrize(
    ("family", "prefix", "per_client"),
    [
        ("factura", "F001-", 6),
        ("boleta", "B001-", 4),
        ("retention", "R001-", 4),
        ("perception", "P001-", 4),
        ("guide", "T001-", 4),
    ],
)
def test_documents_of_each_family_are_numbered_once_without_gaps(
    fresh: Shop, family: str, prefix: str, per_client: int
) -> None:
    post: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
        "factura": ("/api/documents", invoice_body),
        "boleta": ("/api/documents", boleta_body),
        "retention": ("/api/retentions", retention),
        "perception": ("/api/perceptions", perception),
        "guide": ("/api/dispatches", dispatch_body),
    }
    path, body = post[family]
    statuses, numbers = run_clients(
        fresh, per_client, lambda c: answered(c.post(path, json=body()), "number"), family
    )
    total = CLIENTS * per_client
    assert statuses == {200: total}, statuses
    assert correlatives(numbers, prefix) == list(range(1, total + 1))


@pytest.mark.slow(seconds=10)
def test_sale_notes_and_quotations_are_numbered_once_without_gaps(fresh: Shop) -> None:
    with fresh.http() as client:
        item = product(client, "CONC-1", stock=100_000)
        person = customer(client)
        series = series_id(client)
    items = [line({"item_id": item["id"]})]

    def sale_note(client: httpx.Client) -> tuple[int, str | None]:
        body = note_body(series, items, customer_id=person)
        return answered(client.post("/api/sale-note", json=body), "number")

    def quotation(client: httpx.Client) -> tuple[int, str | None]:
        body = note_body(0, items, customer_id=person, prefix="COT")
        del body["series_id"]
        return answered(client.post("/api/quotations", json=body), "number_full")

    statuses, numbers = run_clients(fresh, 6, sale_note, "sale note")
    assert statuses == {200: CLIENTS * 6}, statuses
    assert correlatives(numbers, "NV01-") == list(range(1, CLIENTS * 6 + 1))

    # PostgreSQL answered 500 to 6-8 of 100 quotations sent by 4 threads (a correlative taken twice)
    statuses, numbers = run_clients(fresh, 12, quotation, "quotation")
    assert statuses == {200: CLIENTS * 12}, statuses
    assert correlatives(numbers, "COT-") == list(range(1, CLIENTS * 12 + 1))
    with fresh.http() as client:
        listed = client.get("/api/quotations/list", params={"input": "COT-"}).json()["data"]
    assert len(listed) == 20  # the latest 20: the highest numbers
    assert correlatives([row["identifier"] for row in listed], "COT-") == list(
        range(CLIENTS * 12 - 19, CLIENTS * 12 + 1)
    )


def _identifiers(client: httpx.Client, plural: str) -> list[str]:
    response = client.get(f"/api/{plural}/lists")
    assert response.status_code == 200, response.text
    return [row["identifier"] for row in response.json()["data"]]


@pytest.mark.slow(seconds=10)
def test_voided_communications_and_summaries_are_numbered_once_without_gaps(fresh: Shop) -> None:
    day = today().replace("-", "")

    def void_a_factura(client: httpx.Client) -> tuple[int, str | None]:
        factura = client.post("/api/documents", json=invoice_body())
        assert factura.status_code == 200, factura.text
        body = {
            "fecha_de_emision_de_documentos": today(),
            "documentos": [
                {"external_id": factura.json()["data"]["external_id"], "motivo_anulacion": "Error en el RUC"}
            ],
        }
        response = client.post("/api/voided", json=body)
        return response.status_code, None

    statuses, _ = run_clients(fresh, 3, void_a_factura, "voided")
    assert statuses == {200: CLIENTS * 3}, statuses
    with fresh.http() as client:
        voided = _identifiers(client, "voided")
    assert correlatives(voided, f"RA-{day}-") == list(range(1, CLIENTS * 3 + 1))

    def declare_a_day(client: httpx.Client) -> tuple[int, str | None]:
        boleta = client.post("/api/documents", json=boleta_body())
        assert boleta.status_code == 200, boleta.text
        body = {"fecha_de_emision_de_documentos": today(), "codigo_tipo_proceso": "1"}
        response = client.post("/api/summaries", json=body)
        # a concurrent summary may have declared this client's boleta already: nothing left to declare
        if response.status_code == 422:
            assert response.json()["error_code"] in ("NO_DOCUMENTS", "CONCURRENT_CHANGE"), response.text
        return response.status_code, None

    statuses, _ = run_clients(fresh, 3, declare_a_day, "summary")
    assert set(statuses) <= {200, 409, 422} and statuses[200] >= 1, statuses
    with fresh.http() as client:
        summaries = _identifiers(client, "summaries")
    assert correlatives(summaries, f"RC-{day}-") == list(range(1, statuses[200] + 1))
