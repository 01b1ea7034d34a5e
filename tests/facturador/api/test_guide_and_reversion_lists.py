"""The lists of carrier guides (``GET /api/dispatch-carrier/records``, paginated as real tenants) and of
reversions (``GET /api/{retentions|perceptions}/voided/lists[/{start}/{end}]``) over real HTTP: each
family sees only its own, no tenant sees another's, bad paths are 4xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from sunat.calendar import peru_today
from tests.common import wait_for
from tests.conftest import LiveService
from tests.facturador.api.test_bad_input import assert_error
from tests.samples.dispatches import carrier_body, dispatch_body
from tests.samples.withholding import perception, retention
from tests.shops import Shop, new_shop


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "lists-shop")


@pytest.fixture(scope="module")
def rival(live: LiveService) -> Shop:
    return new_shop(live, "lists-rival")


@pytest.fixture
def client(shop: Shop) -> Iterator[httpx.Client]:
    with shop.http() as client:
        yield client


def records(client: httpx.Client, page: int = 1) -> dict[str, Any]:
    response = client.get("/api/dispatch-carrier/records", params={"page": page})
    assert response.status_code == 200, response.text
    return response.json()


def test_carrier_guides_are_listed_page_by_page(client: httpx.Client, rival: Shop) -> None:
    assert records(client)["meta"]["total"] == 0
    made = [client.post("/api/dispatch-carrier", json=carrier_body()).json()["data"] for _ in range(3)]
    assert client.post("/api/dispatches", json=dispatch_body()).status_code == 200  # a 09: not listed
    listed = records(client)
    assert (
        listed["meta"]["total"] == 3 and listed["meta"]["last_page"] == 1 and listed["meta"]["per_page"] == 20
    )
    assert [row["external_id"] for row in listed["data"]] == [m["external_id"] for m in reversed(made)]
    row = listed["data"][0]
    assert row["number"].startswith("V001-") and row["document_type_id"] == "31"
    assert row["links"]["xml"].endswith(f"/downloads/dispatch/xml/{row['external_id']}")
    assert records(client, 2)["data"] == []
    with rival.http() as other:
        assert records(other)["meta"]["total"] == 0
    assert_error(client.get("/api/dispatch-carrier/records", params={"page": 0}), 422)
    with httpx.Client(base_url=str(client.base_url)) as anonymous:
        assert anonymous.get("/api/dispatch-carrier/records").status_code == 401


def reversions(client: httpx.Client, plural: str, dated: bool = False) -> list[dict[str, Any]]:
    day = peru_today().isoformat()
    path = f"/api/{plural}/voided/lists" + (f"/{day}/{day}" if dated else "")
    response = client.get(path)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def test_reversions_are_listed_by_family_and_tenant(client: httpx.Client, rival: Shop) -> None:
    made = {}
    for plural, body in (("retentions", retention), ("perceptions", perception)):
        issued = client.post(f"/api/{plural}", json=body())
        assert issued.status_code == 200, issued.text
        sent = client.post(
            f"/api/{plural}/voided",
            json={
                "fecha_de_emision_de_documentos": peru_today().isoformat(),
                "documentos": [
                    {"external_id": issued.json()["data"]["external_id"], "motivo_anulacion": "Error"}
                ],
            },
        )
        assert sent.status_code == 200, sent.text
        made[plural] = sent.json()["data"]["external_id"]
        answer = wait_for(client, f"/api/{plural}/voided/status", {"external_id": made[plural]})
        assert answer.status_code == 200, answer.text
    for plural in ("retentions", "perceptions"):
        for dated in (False, True):
            [row] = reversions(client, plural, dated)
            assert row["external_id"] == made[plural] and row["summary_type"] == "RR"
            assert row["documents"] == 1 and row["state_type_id"] == "05" and row["has_cdr"] is True
            assert row["identifier"].startswith(f"RR-{peru_today():%Y%m%d}-")
            assert row["download_cdr"].endswith(f"/downloads/reversion/cdr/{made[plural]}")
    assert client.get(reversions(client, "retentions")[0]["download_xml"]).status_code == 200
    with rival.http() as other:
        assert reversions(other, "retentions") == [] and reversions(other, "perceptions", True) == []
    assert_error(client.get("/api/retentions/voided/lists/2026-13-01/2026-01-02"), 422)
    with httpx.Client(base_url=str(client.base_url)) as anonymous:
        assert anonymous.get("/api/perceptions/voided/lists").status_code == 401
