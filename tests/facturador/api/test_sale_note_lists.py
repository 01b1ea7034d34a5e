"""Over HTTP: GET /api/sale-note/lists (the real route; with this service's input, date-range and details
extensions), a quotation turned into a sale note (``quotation_id``, once: 409 after), the quotations list
saying which were converted, and the documents list naming the sale note each document came from."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx
import pytest

from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.facturador.api.test_bad_input import assert_error
from tests.facturador.api.test_sale_notes import customer, line, note_body, ok, product, series_id, stock_of
from tests.shops import Shop, new_shop


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "note-lists")


@pytest.fixture
def client(live: LiveService, shop: Shop) -> Any:
    with live.client(shop.slug, shop.token) as client:
        yield client


def quotation_body(lines: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body = note_body(0, lines, **extra)
    del body["series_id"]
    return body


def notes(client: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    response = client.get("/api/sale-note/lists", params=params)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def test_the_list_says_which_document_each_note_became(client: httpx.Client) -> None:
    series = series_id(client)
    item = product(client, "LST-1", stock=50)
    buyer = customer(client, "20100070970")
    today = peru_today()
    earlier = today - dt.timedelta(days=3)
    old = ok(
        client.post(
            "/api/sale-note",
            json=note_body(
                series,
                [line({"item_id": item["id"]}, 1)],
                customer_id=buyer,
                date_of_issue=earlier.isoformat(),
            ),
        )
    )["data"]
    new = ok(
        client.post(
            "/api/sale-note",
            json=note_body(series, [line({"item_id": item["id"]}, 3)], customer_id=buyer),
        )
    )["data"]
    made = ok(
        client.post(
            f"/api/sale-note/{new['id']}/generate-cpe",
            json={"codigo_tipo_documento": "01", "serie_documento": "F001"},
        )
    )["data"]

    latest = notes(client)
    assert [row["number_full"] for row in latest[:2]] == [new["number"], old["number"]]  # latest first
    converted, still_open = latest[0], latest[1]
    assert converted["documents"] == [
        {
            "id": made["id"],
            "number_full": made["number"],
            "external_id": made["external_id"],
            "document_type_id": "01",
            "state_type_id": "01",
        }
    ]
    assert converted["btn_generate"] is False and converted["changed"] is True
    assert still_open["documents"] == [] and still_open["btn_generate"] is True
    assert converted["total"] == "177.00" and converted["customer_id"] == buyer
    assert converted["customer_number"] == "20100070970" and "items" not in converted

    # the date range, inclusive, newest first; details carry the lines
    ranged = notes(client, start_date=earlier.isoformat(), end_date=earlier.isoformat(), details=1)
    assert [row["id"] for row in ranged] == [old["id"]]
    assert ranged[0]["items"][0]["internal_id"] == "LST-1" and ranged[0]["items"][0]["quantity"] == "1"
    assert [row["id"] for row in notes(client, start_date=earlier.isoformat(), end_date=today.isoformat())][
        :2
    ] == [new["id"], old["id"]]
    assert notes(client, input=new["number"])[0]["id"] == new["id"]
    assert notes(client, input="20100070970")
    assert notes(client, input="no-such-customer-%") == []

    # the documents list names the sale note its document came from
    documents = client.get(f"/api/documents/lists/{today}/{today}").json()["data"]
    row = next(d for d in documents if d["external_id"] == made["external_id"])
    assert row["sales_note"] == [
        {"id": new["id"], "number_full": new["number"], "external_id": new["external_id"]}
    ]
    assert all(d["sales_note"] == [] for d in documents if d["external_id"] != made["external_id"])


def test_a_quotation_becomes_one_sale_note(client: httpx.Client, live: LiveService) -> None:
    series = series_id(client)
    item = product(client, "LST-Q", stock=20)
    buyer = customer(client, "20131312955")
    quotation = ok(
        client.post(
            "/api/quotations", json=quotation_body([line({"item_id": item["id"]}, 2)], customer_id=buyer)
        )
    )["data"]
    [row] = client.get("/api/quotations/list", params={"input": quotation["number_full"]}).json()["data"]
    assert row["changed"] is False and row["sale_notes"] == []
    assert row["items"][0]["internal_id"] == "LST-Q" and row["items"][0]["quantity"] == "2"

    body = note_body(
        series, [line({"item_id": item["id"]}, 2)], customer_id=buyer, quotation_id=quotation["id"]
    )
    note = ok(client.post("/api/sale-note", json=body))["data"]
    [row] = client.get("/api/quotations/list", params={"input": quotation["number_full"]}).json()["data"]
    assert row["changed"] is True
    assert row["sale_notes"] == [
        {"id": note["id"], "number_full": note["number"], "external_id": note["external_id"]}
    ]
    listed = next(n for n in notes(client) if n["id"] == note["id"])
    assert listed["quotation_id"] == quotation["id"]
    assert listed["quotation_number_full"] == quotation["number_full"]

    # a second conversion is a conflict, and stores nothing (no note, no stock move)
    before, stock = len(notes(client)), stock_of(client, "LST-Q")
    assert_error(client.post("/api/sale-note", json=body), 409, "QUOTATION_ALREADY_CONVERTED", "quotation_id")
    assert len(notes(client)) == before and stock_of(client, "LST-Q") == stock

    # another tenant's quotation is unknown here, and stays open there
    stranger = new_shop(live, "note-lists-other")
    with live.client(stranger.slug, stranger.token) as other:
        other_item = product(other, "LST-X", stock=5)
        other_buyer = customer(other, "20131312955")
        foreign = ok(
            other.post(
                "/api/quotations",
                json=quotation_body([line({"item_id": other_item["id"]}, 1)], customer_id=other_buyer),
            )
        )["data"]
        assert notes(other) == []  # the first shop's notes are not listed to another tenant
        stolen = note_body(
            series, [line({"item_id": item["id"]}, 1)], customer_id=buyer, quotation_id=foreign["id"]
        )
        assert_error(client.post("/api/sale-note", json=stolen), 422, "QUOTATION_NOT_FOUND", "quotation_id")
        [foreign_row] = other.get("/api/quotations/list").json()["data"]
        assert foreign_row["changed"] is False and foreign_row["sale_notes"] == []
    assert len(notes(client)) == before


def test_the_quotations_list_takes_a_date_range(client: httpx.Client) -> None:
    item = product(client, "LST-R", stock=5)
    buyer = customer(client, "20100047218")
    day = peru_today() - dt.timedelta(days=10)
    made = ok(
        client.post(
            "/api/quotations",
            json=quotation_body(
                [line({"item_id": item["id"]}, 1)], customer_id=buyer, date_of_issue=day.isoformat()
            ),
        )
    )["data"]
    response = client.get(
        "/api/quotations/list", params={"start_date": day.isoformat(), "end_date": day.isoformat()}
    )
    assert response.status_code == 200, response.text
    assert [row["id"] for row in response.json()["data"]] == [made["id"]]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"start_date": "2026-01-01"}, "end_date"),
        ({"end_date": "2026-01-01"}, "start_date"),
        ({"start_date": "01-01-2026", "end_date": "2026-01-31"}, "start_date"),
        ({"start_date": "2026-01-01", "end_date": "2026-02-30"}, "end_date"),
        ({"start_date": "2026-02-01", "end_date": "2026-01-01"}, "start_date"),
        ({"start_date": "", "end_date": "2026-01-01"}, "start_date"),
        ({"start_date": ""}, "end_date"),
        ({"input": "x" * 101}, None),
        ({"details": "maybe"}, None),
    ],
)
def test_bad_list_parameters_are_422(client: httpx.Client, params: dict[str, str], field: str | None) -> None:
    assert_error(client.get("/api/sale-note/lists", params=params), 422, field=field)
    if "details" not in params:
        assert_error(client.get("/api/quotations/list", params=params), 422, field=field)


def test_the_list_needs_the_token(live: LiveService, shop: Shop) -> None:
    with live.client(shop.slug, "wrong-token-0123456789-abcdefghij-0123456789") as nobody:
        assert_error(nobody.get("/api/sale-note/lists"), 401)


def test_two_concurrent_conversions_of_a_quotation_make_one_note(live: LiveService, shop: Shop) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with live.client(shop.slug, shop.token) as client:
        series = series_id(client)
        item = product(client, "LST-C", stock=20)
        buyer = customer(client, "20100053455")
        quotation = ok(
            client.post(
                "/api/quotations", json=quotation_body([line({"item_id": item["id"]}, 1)], customer_id=buyer)
            )
        )["data"]
        before = len(notes(client))
    body = note_body(
        series, [line({"item_id": item["id"]}, 1)], customer_id=buyer, quotation_id=quotation["id"]
    )

    def convert(_: int) -> int:
        with live.client(shop.slug, shop.token) as own:
            return own.post("/api/sale-note", json=body).status_code

    with ThreadPoolExecutor(4) as pool:
        statuses = sorted(pool.map(convert, range(4)))
    assert statuses == [200, 409, 409, 409]
    with live.client(shop.slug, shop.token) as client:
        assert len(notes(client)) == before + 1
        assert stock_of(client, "LST-C") == 19
