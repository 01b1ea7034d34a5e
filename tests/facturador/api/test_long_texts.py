"""Names and descriptions of the longest length accepted, in characters of 3 and 4 bytes (CJK, emoji, astral
ideographs), are stored and found: PostgreSQL's btree entries cannot exceed 2,704 bytes, so no ordered index
may hold such a text whole (migration 0012 indexes a bounded prefix; this answered 500 before)."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest

from tests.conftest import LiveService
from tests.facturador.api.test_bad_input import assert_error
from tests.facturador.api.test_items import ITEM
from tests.facturador.api.test_persons import PERSON
from tests.samples.bodies import invoice_body
from tests.shops import Shop, new_shop

#: CJK ideographs (3 bytes), emoji (4 bytes) and astral ideographs of plane 2 (4 bytes)
_RANGES = ((0x4E00, 0x9FFF), (0x1F300, 0x1FAFF), (0x20000, 0x2A6DF))


def wide(length: int, seed: int) -> str:
    """``length`` random characters of 3 or 4 bytes in UTF-8 (the same for the same seed)."""
    pick = random.Random(seed)
    return "".join(chr(pick.randint(*pick.choice(_RANGES))) for _ in range(length))


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "long-texts")


@pytest.fixture
def client(live: LiveService, shop: Shop) -> Any:
    with live.client(shop.slug, shop.token) as client:
        yield client


def records(client: httpx.Client, kind: str, text: str) -> list[dict[str, Any]]:
    response = client.get(f"/api/persons/{kind}/records", params={"input": text})
    assert response.status_code == 200, response.text
    return response.json()["data"]


def search_items(client: httpx.Client, text: str) -> list[dict[str, Any]]:
    response = client.get("/api/document/search-items", params={"input": text})
    assert response.status_code == 200, response.text
    return response.json()["data"]["items"]


@pytest.mark.parametrize("kind", ["customers", "suppliers"])
@pytest.mark.parametrize("length", [500, 1000, 1500])
def test_persons_with_long_wide_names(client: httpx.Client, kind: str, length: int) -> None:
    number = f"4{length:04d}001"
    name = wide(length, length + (kind == "suppliers"))
    body = {**PERSON, "type": kind, "number": number, "name": name, "trade_name": wide(1500, 7)}
    response = client.post("/api/person", json=body)
    assert response.status_code == 200, response.text
    found = records(client, kind, name[:40])
    assert [(row["number"], row["name"]) for row in found] == [(number, name)]
    assert [row["number"] for row in records(client, kind, number)] == [number]
    # a second person sharing the first 1,000 characters is another person, listed after by number
    twin = {**body, "number": f"{number[:-1]}2", "name": name[:-1] + "x"}
    assert client.post("/api/person", json=twin).status_code == 200
    assert [row["number"] for row in records(client, kind, name[:40])] == sorted([number, twin["number"]])
    # the name is unique per type, however long
    same = client.post("/api/person", json={**body, "number": f"{number[:-1]}3"})
    assert_error(same, 422, "DUPLICATE_PERSON", "name")
    # the list without a filter pages over them as well
    page = client.get(f"/api/persons/{kind}/records")
    assert page.status_code == 200, page.text
    assert {number, twin["number"]} <= {row["number"] for row in page.json()["data"]}


def test_a_factura_whose_customer_has_a_long_wide_name(client: httpx.Client) -> None:
    body = invoice_body()
    name = wide(1500, 11)
    body["datos_del_cliente_o_receptor"]["apellidos_y_nombres_o_razon_social"] = name
    response = client.post("/api/documents", json=body)
    assert response.status_code == 200, response.text
    number = body["datos_del_cliente_o_receptor"]["numero_documento"]
    found = records(client, "customers", name[:30])
    assert [(row["number"], row["name"]) for row in found] == [(number, name)]


@pytest.mark.parametrize("length", [255, 500])
def test_products_with_long_wide_descriptions_and_codes(client: httpx.Client, length: int) -> None:
    description, code = wide(length, 100 + length), wide(30, 200 + length)
    body = {**ITEM, "internal_id": code, "description": description}
    response = client.post("/api/item", json=body)
    assert response.status_code == 200, response.text
    product = response.json()["data"]
    assert [row["id"] for row in search_items(client, description[:20])] == [product["id"]]
    assert [row["id"] for row in search_items(client, code)] == [product["id"]]
    # an edit to another such description (and code)
    renamed, recoded = wide(500, 300 + length), wide(30, 400 + length)
    update = {"internal_id": recoded, "description": renamed, "sale_unit_price": 3, "stock_min": 0}
    edited = client.post(f"/api/items/{product['id']}/update", json=update)
    assert edited.status_code == 200, edited.text
    assert [row["id"] for row in search_items(client, renamed[-20:])] == [product["id"]]
    assert search_items(client, description[:20]) == []


def test_a_document_creates_and_renames_a_product_of_a_long_wide_code(client: httpx.Client) -> None:
    body = invoice_body()
    code = wide(30, 500)
    body["items"][0]["codigo_interno"] = code
    body["items"][0]["descripcion"] = wide(500, 501)
    assert (response := client.post("/api/documents", json=body)).status_code == 200, response.text
    found = search_items(client, code)
    assert len(found) == 1 and found[0]["description"] == body["items"][0]["descripcion"]
    body["items"][0]["descripcion"] = wide(500, 502)
    assert (response := client.post("/api/documents", json=body)).status_code == 200, response.text
    renamed = search_items(client, body["items"][0]["descripcion"][:25])
    assert [row["id"] for row in renamed] == [found[0]["id"]]


def test_a_ligature_that_folds_long(client: httpx.Client) -> None:
    """U+FDFD folds (NFKD) to 18 characters: 500 of them make a search_text of 9,000."""
    body = {**ITEM, "internal_id": "FDFD-500", "description": "\ufdfd" * 500}
    response = client.post("/api/item", json=body)
    assert response.status_code == 200, response.text
    assert [row["internal_id"] for row in search_items(client, "fdfd-500")] == ["FDFD-500"]
