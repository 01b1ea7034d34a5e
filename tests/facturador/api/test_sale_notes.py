"""Sale notes over HTTP: POST /api/sale-note, GET /api/sale-note/series, the PDF downloads and
POST /api/sale-note/{id}/generate-cpe (reference §8.4-8.5)."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest

from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.facturador.api.test_bad_input import assert_error
from tests.reference import requires_shared, shared_path
from tests.shops import Shop, new_shop

RUC_CUSTOMER = {
    "codigo_tipo_documento_identidad": "6",
    "numero_documento": "20487654320",
    "apellidos_y_nombres_o_razon_social": "DISTRIBUIDORA LOS ANDES S.A.C.",
    "codigo_pais": "PE",
    "direccion": "Jr. Junín 512",
}
DNI_CUSTOMER = {
    "codigo_tipo_documento_identidad": "1",
    "numero_documento": "45678912",
    "apellidos_y_nombres_o_razon_social": "ANA TORRES",
    "codigo_pais": "PE",
}


def line(item: dict[str, Any], quantity: int = 2) -> dict[str, Any]:
    """A taxed line: quantity x 50.00 + 18 % IGV."""
    value = 50 * quantity
    return {
        **item,
        "quantity": quantity,
        "unit_value": 50,
        "unit_price": 59,
        "price_type_id": "01",
        "affectation_igv_type_id": "10",
        "total_base_igv": value,
        "percentage_igv": 18,
        "total_igv": value * 0.18,
        "total_taxes": value * 0.18,
        "total_value": value,
        "total": value * 1.18,
    }


def note_body(series_id: int, lines: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    value = sum(entry["total_value"] for entry in lines)
    return {
        "series_id": series_id,
        "date_of_issue": peru_today().isoformat(),
        "time_of_issue": "10:00:00",
        "currency_type_id": "PEN",
        "items": lines,
        "total_taxed": value,
        "total_igv": round(value * 0.18, 2),
        "total_taxes": round(value * 0.18, 2),
        "total_value": value,
        "total": round(value * 1.18, 2),
        **extra,
    }


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "notes")


@pytest.fixture
def client(live: LiveService, shop: Shop) -> Any:
    with live.client(shop.slug, shop.token) as client:
        yield client


def series_id(client: httpx.Client) -> int:
    response = client.get("/api/sale-note/series")
    assert response.status_code == 200, response.text
    [series] = response.json()["data"]
    assert series["number"] == "NV01" and series["document_type_id"] == "80"
    assert isinstance(series["establishment_id"], int)
    return series["id"]


def ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    assert response.json()["success"] is True
    return response.json()


def stock_of(client: httpx.Client, code: str) -> float:
    rows = client.get("/api/document/search-items", params={"input": code}).json()["data"]["items"]
    return next(row["stock"] for row in rows if row["internal_id"] == code)


def product(client: httpx.Client, code: str, stock: int = 10, affectation: str = "10") -> dict[str, Any]:
    body = {
        "internal_id": code,
        "description": f"Producto {code}",
        "unit_type_id": "NIU",
        "currency_type_id": "PEN",
        "sale_unit_price": 59,
        "sale_affectation_igv_type_id": affectation,
        "stock": stock,
    }
    return ok(client.post("/api/item", json=body))["data"]


def customer(client: httpx.Client, number: str = "20487654320", identity: str = "6") -> int:
    body = {
        "type": "customers",
        "identity_document_type_id": identity,
        "number": number,
        "name": f"Cliente {number}",
    }
    return ok(client.post("/api/person", json={**body, "country_id": "PE"}))["data"]["id"]


@requires_shared
def test_the_public_sample_with_ids_learned_from_the_api(live: LiveService) -> None:
    sample = json.loads(shared_path("examples/sale_note.json").read_text(encoding="utf-8"))
    fresh = new_shop(live, "note-sample")
    with live.client(fresh.slug, fresh.token) as client:
        item = product(client, "111111111111", affectation="20")
        sample["series_id"] = series_id(client)
        sample["customer_id"] = customer(client)
        sample["items"][0]["item_id"] = item["id"]
        answer = ok(client.post("/api/sale-note", json=sample))
        data = answer["data"]
        assert data["number"] == "NV01-1" and data["filename"].startswith("NV01-1-")
        assert answer["links"]["pdf"].endswith(f"/downloads/salenote/sale_note/{data['external_id']}")
        assert stock_of(client, "111111111111") == 9
        for url in (answer["links"]["pdf"], data["print_ticket"]):
            pdf = client.get(url)
            assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
            assert pdf.headers["content-type"] == "application/pdf"
        assert ok(client.post("/api/sale-note", json=sample))["data"]["number"] == "NV01-2"


def test_forced_creation_of_customer_and_products(client: httpx.Client) -> None:
    nv = series_id(client)
    body = note_body(
        nv,
        [
            line(
                {"item": {"internal_id": "NEW-1", "description": "Creado por la nota", "unit_type_id": "NIU"}}
            )
        ],
        force_create_if_not_exist=True,
        datos_del_cliente_o_receptor=DNI_CUSTOMER,
    )
    ok(client.post("/api/sale-note", json=body))
    persons = client.get("/api/persons/customers/records", params={"input": "45678912"}).json()["data"]
    assert [p["name"] for p in persons] == ["ANA TORRES"]
    assert stock_of(client, "NEW-1") == 0  # never stocked: the note has nothing to take (never below zero)
    ok(client.post("/api/sale-note", json=body))  # the same customer and product again, not duplicated
    assert len(client.get("/api/persons/customers/records", params={"input": "45678912"}).json()["data"]) == 1
    assert stock_of(client, "NEW-1") == 0


def test_bad_sale_notes_are_refused_and_store_nothing(live: LiveService, client: httpx.Client) -> None:
    nv = series_id(client)
    item = product(client, "BAD-NOTE", stock=5)
    person = customer(client, "20100066603")
    good = note_body(nv, [line({"item_id": item["id"]})], customer_id=person)
    first = ok(client.post("/api/sale-note", json=good))["data"]["number"]
    stranger = new_shop(live, "notes-other")
    with live.client(stranger.slug, stranger.token) as other:
        foreign_series = series_id(other)
        foreign_customer = customer(other, "20601030013")
    factura_series = 999_999
    wrong_totals = copy.deepcopy(good)
    wrong_totals["items"][0]["total_igv"] = 5
    wrong_header = {**good, "total": 500}
    cases: list[tuple[dict[str, Any], int, str | None, str]] = [
        ({**good, "series_id": factura_series}, 422, "INVALID_SERIES", "series_id"),
        ({**good, "series_id": foreign_series}, 422, "INVALID_SERIES", "series_id"),
        ({**good, "customer_id": foreign_customer}, 422, "CUSTOMER_NOT_FOUND", "customer_id"),
        ({**good, "customer_id": None}, 422, "MISSING_FIELDS", "customer_id"),
        ({**good, "items": [line({"item_id": 987654})]}, 422, "ITEM_NOT_FOUND", "items.0.item_id"),
        ({**good, "items": [line({})]}, 422, "MISSING_FIELDS", "items.0.item_id"),
        ({**good, "items": []}, 422, None, "items"),
        (wrong_totals, 422, "TOTALS_MISMATCH", "items.0.total_igv"),
        (wrong_header, 422, "TOTALS_MISMATCH", "total"),
        ({**good, "date_of_issue": "2026-13-01"}, 422, None, "date_of_issue"),
        ({**good, "currency_type_id": "XXX"}, 422, None, "currency_type_id"),
        ({**good, "charges": [{"amount": 1}]}, 422, "UNSUPPORTED_BLOCK", "charges"),
        ({**good, "establishment_id": 987654}, 422, "INVALID_ESTABLISHMENT", "establishment_id"),
    ]
    negative = copy.deepcopy(good)
    negative["items"][0]["quantity"] = -2
    cases.append((negative, 422, None, "items.0.quantity"))
    for body, status, code, field in cases:
        assert_error(client.post("/api/sale-note", json=body), status, code, field)
    assert stock_of(client, "BAD-NOTE") == 3  # only the good note moved it
    after = ok(client.post("/api/sale-note", json=good))["data"]["number"]
    assert int(after.split("-")[1]) == int(first.split("-")[1]) + 1  # no correlative was consumed
    with live.client(stranger.slug, "wrong-token-0123456789-xxxxxxxxxx") as nobody:
        assert_error(nobody.post("/api/sale-note", json=good), 401)
        assert_error(nobody.get("/api/sale-note/series"), 401)
    assert_error(client.get("/downloads/salenote/sale_note/00000000-0000-4000-8000-000000000000"), 404)


def test_a_sale_note_becomes_a_factura_once_and_is_sent(client: httpx.Client) -> None:
    nv = series_id(client)
    item = product(client, "CPE-1", stock=10)
    body = note_body(nv, [line({"item_id": item["id"]})], customer_id=customer(client, "20487654320"))
    note = ok(client.post("/api/sale-note", json=body))["data"]
    assert stock_of(client, "CPE-1") == 8
    made = ok(
        client.post(
            f"/api/sale-note/{note['id']}/generate-cpe",
            json={"codigo_tipo_documento": "01", "serie_documento": "F001", "numero_documento": "#"},
        )
    )
    assert made["data"]["number"].startswith("F001-") and made["data"]["state_type_id"] == "01"
    assert made["response"] == [] and made["links"]["cdr"] == ""
    assert stock_of(client, "CPE-1") == 8  # the note already took it
    again = assert_error(
        client.post(
            f"/api/sale-note/{note['id']}/generate-cpe",
            json={"codigo_tipo_documento": "03", "serie_documento": "B001"},
        ),
        409,
        "SALE_NOTE_ALREADY_CONVERTED",
    )
    assert made["data"]["number"] in again["message"]
    sent = ok(client.post("/api/documents/send", json={"external_id": made["data"]["external_id"]}))
    assert sent["data"]["state_type_id"] == "05"
    xml = client.get(made["links"]["xml"])
    assert xml.status_code == 200 and b"CPE-1" in xml.content


def test_a_refused_conversion_leaves_the_note_convertible(client: httpx.Client, live: LiveService) -> None:
    nv = series_id(client)
    item = product(client, "CPE-2", stock=10)
    dni = customer(client, "45678913", identity="1")
    note = ok(
        client.post("/api/sale-note", json=note_body(nv, [line({"item_id": item["id"]})], customer_id=dni))
    )["data"]
    url = f"/api/sale-note/{note['id']}/generate-cpe"
    assert_error(
        client.post(url, json={"codigo_tipo_documento": "01", "serie_documento": "F001"}), 422
    )  # DNI
    assert_error(
        client.post(url, json={"codigo_tipo_documento": "09", "serie_documento": "B001"}),
        422,
        field="codigo_tipo_documento",
    )
    assert_error(client.post(url, json={"codigo_tipo_documento": "03", "serie_documento": "X999"}), 422)
    boleta = ok(client.post(url, json={"codigo_tipo_documento": "03", "serie_documento": "B001"}))
    assert boleta["data"]["number"].startswith("B001-") and boleta["response"] == []
    assert_error(
        client.post(
            "/api/sale-note/987654/generate-cpe",
            json={"codigo_tipo_documento": "03", "serie_documento": "B001"},
        ),
        404,
        "SALE_NOTE_NOT_FOUND",
    )
    stranger = new_shop(live, "notes-steal")
    with live.client(stranger.slug, stranger.token) as other:
        assert_error(
            other.post(url, json={"codigo_tipo_documento": "03", "serie_documento": "B001"}),
            404,
            "SALE_NOTE_NOT_FOUND",
        )
        assert_error(other.get(f"/downloads/salenote/sale_note/{note['external_id']}"), 404)
