"""Quotations over HTTP: POST /api/quotations, GET /api/quotations/list and the PDF (reference §8.14)."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from tests.conftest import LiveService
from tests.facturador.api.test_bad_input import assert_error
from tests.facturador.api.test_sale_notes import (
    DNI_CUSTOMER,
    customer,
    line,
    note_body,
    ok,
    product,
    stock_of,
)
from tests.shops import Shop, new_shop


def quotation(lines: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body = note_body(0, lines, prefix="COT", description="Precios válidos por 7 días", **extra)
    del body["series_id"]
    return body


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "quotes")


@pytest.fixture
def client(live: LiveService, shop: Shop) -> Any:
    with live.client(shop.slug, shop.token) as client:
        yield client


def test_quotations_are_numbered_listed_and_printed(client: httpx.Client) -> None:
    item = product(client, "COT-ITEM", stock=5)
    person = customer(client, "20487654320")
    first = ok(
        client.post("/api/quotations", json=quotation([line({"item_id": item["id"]})], customer_id=person))
    )
    data = first["data"]
    assert data["number_full"] == "COT-1" and data["state_type_id"] == "01"
    assert data["customer"]["id"] == person and data["customer"]["number"] == "20487654320"
    assert data["total"] == 118.0 and data["filename"].startswith("COT-1-")
    second = ok(
        client.post(
            "/api/quotations",
            json=quotation(
                [line({"item_id": item["id"]}, quantity=3)],
                force_create_if_not_exist=True,
                datos_del_cliente_o_receptor=DNI_CUSTOMER,
            ),
        )
    )["data"]
    assert second["number_full"] == "COT-2" and second["total"] == 177.0
    assert stock_of(client, "COT-ITEM") == 5  # a quotation moves no stock
    rows = client.get("/api/quotations/list").json()["data"]
    assert [row["identifier"] for row in rows] == ["COT-2", "COT-1"]
    assert rows[0]["customer_name"] == "ANA TORRES" and rows[0]["total"] == "177.00"
    assert rows[1]["total_taxed"] == "100.00" and rows[1]["state_type_description"] == "Registrado"
    assert [
        r["identifier"] for r in client.get("/api/quotations/list", params={"input": "ana"}).json()["data"]
    ] == ["COT-2"]
    assert [r["identifier"] for r in client.get("/api/quotations/list?input=COT-1").json()["data"]] == [
        "COT-1"
    ]
    pdf = client.get(data["print_a4"])
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert client.get(data["print_ticket"]).content.startswith(b"%PDF")
    assert_error(client.get(data["print_a4"].replace("/a4", "/a5")), 404)


def test_bad_quotations_are_refused_and_take_no_number(live: LiveService, client: httpx.Client) -> None:
    item = product(client, "COT-BAD")
    person = customer(client, "20100066603")
    good = quotation([line({"item_id": item["id"]})], customer_id=person)
    wrong = copy.deepcopy(good)
    wrong["items"][0]["total"] = 999
    before = len(client.get("/api/quotations/list").json()["data"])
    for body, code, field in (
        ({**good, "customer_id": 987654}, "CUSTOMER_NOT_FOUND", "customer_id"),
        ({**good, "items": [line({"item_id": 987654})]}, "ITEM_NOT_FOUND", "items.0.item_id"),
        (wrong, "TOTALS_MISMATCH", "items.0.total"),
        ({**good, "prefix": "C0T!"}, None, "prefix"),
        ({**good, "date_of_issue": None}, "MISSING_FIELDS", "date_of_issue"),
    ):
        assert_error(client.post("/api/quotations", json=body), 422, code, field)
    assert len(client.get("/api/quotations/list").json()["data"]) == before
    stranger = new_shop(live, "quotes-other")
    with live.client(stranger.slug, stranger.token) as other:
        assert other.get("/api/quotations/list").json()["data"] == []
        assert_error(other.post("/api/quotations", json=good), 422, "CUSTOMER_NOT_FOUND")
        mine = ok(client.post("/api/quotations", json=good))["data"]
        assert_error(other.get(f"/quotations/print/{mine['external_id']}/a4"), 404, "QUOTATION_NOT_FOUND")
        other_customer = customer(other, "20601030013")
        other_item = product(other, "COT-OTHER")
        theirs = ok(
            other.post(
                "/api/quotations",
                json=quotation([line({"item_id": other_item["id"]})], customer_id=other_customer),
            )
        )
        assert theirs["data"]["number_full"] == "COT-1"  # correlatives are per tenant and establishment
    with live.client(stranger.slug, "wrong-token-0123456789-xxxxxxxxxx") as nobody:
        assert_error(nobody.post("/api/quotations", json=good), 401)
        assert_error(nobody.get("/api/quotations/list"), 401)
