"""Every body of the real-clients corpus, sent over HTTP to a fresh tenant, is answered as decided.

The corpus (``tests/samples/real_clients``) reproduces what independent public programs send to real
Facturador PRO tenants; each body's decision (issued and its state, or refused naming the field) is
written beside it and explained in ``docs/scenarios.md`` ("What real clients send"). A refused body
changes nothing: the tenant's document list is the same before and after.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import LiveService
from tests.samples.real_clients import DECISIONS, load
from tests.shops import Shop, new_shop

#: Bodies that modify another document get one issued first by the same program.
AFFECTED_BY = {
    "kamary_pe/credit_note.json": "kamary_pe/factura_cash_payment.json",
    "kamary_pe/voided.json": "kamary_pe/factura_cash_payment.json",
    "zcontable/credit_note_every_key.json": "kamary_pe/factura_cash_payment.json",
}


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "clients")


@pytest.fixture
def client(shop: Shop) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60
    ) as http:
        yield http


def _issued_count(client: httpx.Client) -> int:
    return len(client.get("/api/documents/lists").json()["data"])


@pytest.mark.parametrize("name", sorted(DECISIONS))
def test_real_client_body_is_answered_as_decided(client: httpx.Client, name: str) -> None:
    decision = DECISIONS[name]
    affected = ""
    if name in AFFECTED_BY:
        base = client.post("/api/documents", json=load(AFFECTED_BY[name]))
        assert base.status_code == 200, base.text
        affected = base.json()["data"]["external_id"]
    before = _issued_count(client)
    response = client.post(decision.path, json=load(name, affected=affected))
    assert response.status_code == decision.status, response.text
    answer = response.json()
    if decision.status == 200:
        assert answer["success"] is True, answer
        if decision.state is not None:
            assert answer["data"]["state_type_id"] == decision.state, answer
        return
    assert answer["success"] is False
    assert decision.field in {error["field"] for error in answer["errors"]}, answer
    assert _issued_count(client) == before  # a refused body stores nothing


def test_the_corpus_is_large_enough() -> None:
    sources = {name.split("/")[0] for name in DECISIONS}
    assert len(DECISIONS) >= 25 and len(sources) >= 9
