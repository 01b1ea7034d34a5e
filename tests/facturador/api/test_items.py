"""Products over HTTP: POST /api/item, POST /api/items/{id}/update, GET /api/document/search-items, and
the products documents create by ``codigo_interno`` (reference §8.17-8.18, §4.4)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from facturador.store import search as search_rule
from tests.conftest import LiveService
from tests.facturador.api.test_bad_input import assert_error
from tests.reference import requires_shared, shared_path
from tests.samples.bodies import invoice_body
from tests.shops import Shop, new_shop

ITEM = {
    "internal_id": "P0121",
    "description": "Inca Kola 250 ml",
    "unit_type_id": "NIU",
    "currency_type_id": "PEN",
    "sale_unit_price": "2.50",
    "purchase_unit_price": 1.2,
    "sale_affectation_igv_type_id": "10",
    "purchase_affectation_igv_type_id": "10",
    "stock": 24,
    "stock_min": 6,
}


def item(**changes: Any) -> dict[str, Any]:
    return {**ITEM, **changes}


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "items")


@pytest.fixture
def client(live: LiveService, shop: Shop) -> Any:
    with live.client(shop.slug, shop.token) as client:
        yield client


def created(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/api/item", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["success"] is True and answer["msg"] == "Producto registrado con éxito"
    return answer["data"]


def search(client: httpx.Client, text: str, **params: Any) -> list[dict[str, Any]]:
    response = client.get("/api/document/search-items", params={"input": text, **params})
    assert response.status_code == 200, response.text
    assert response.json()["success"] is True
    return response.json()["data"]["items"]


@requires_shared
def test_the_public_sample_registers_a_product(live: LiveService) -> None:
    sample = json.loads(shared_path("examples/item.json").read_text(encoding="utf-8"))
    fresh = new_shop(live, "item-sample")
    with live.client(fresh.slug, fresh.token) as client:
        data = created(client, sample)
    assert data["full_description"] == "rrr - apk"
    assert data["sale_unit_price"] == "500.00" and data["currency_type_symbol"] == "S/"
    assert data["stock"] == 0 and len(data["warehouses"]) == 1
    assert isinstance(data["warehouses"][0]["warehouse_id"], int)


def test_create_with_stock_and_price_list_then_search(client: httpx.Client) -> None:
    data = created(
        client,
        item(
            internal_id="GAS-625",
            description="Agua San Luis 625 ml",
            item_unit_types=[
                {
                    "description": "Paquete x 15",
                    "unit_type_id": "BX",
                    "quantity_unit": 15,
                    "price1": 18,
                    "price2": 17,
                }
            ],
        ),
    )
    assert data["stock"] == 24 and data["warehouses"][0]["stock"] == "24.0000"
    assert data["item_unit_types"] == [
        {
            "id": 1,
            "description": "Paquete x 15",
            "unit_type_id": "BX",
            "quantity_unit": "15",
            "price1": "18.00",
            "price2": "17.00",
            "price3": "0.00",
            "price_default": 2,
        }
    ]
    by_description = search(client, "san luis")
    assert [row["id"] for row in by_description] == [data["id"]]
    assert by_description[0]["warehouses"] == data["warehouses"]
    assert by_description[0]["item_unit_types"] == data["item_unit_types"]
    assert [row["id"] for row in search(client, "gas-6")] == [data["id"]]  # by internal code
    assert search(client, "no existe nada así") == []
    assert search(client, "%") == []  # wildcards are plain text


def test_duplicates_and_bad_products_are_refused(client: httpx.Client) -> None:
    created(client, item(internal_id="DUP-1", description="Primero"))
    assert_error(
        client.post("/api/item", json=item(internal_id="DUP-1", description="Otro")),
        422,
        "DUPLICATE_ITEM",
        "internal_id",
    )
    for changes, field in (
        ({"internal_id": None}, "internal_id"),
        ({"description": ""}, "description"),
        ({"sale_unit_price": 0}, "sale_unit_price"),
        ({"sale_unit_price": -3}, "sale_unit_price"),
        ({"unit_type_id": "XXX"}, "unit_type_id"),
        ({"currency_type_id": "ZZZ"}, "currency_type_id"),
        ({"sale_affectation_igv_type_id": "99"}, "sale_affectation_igv_type_id"),
        ({"stock": -1}, "stock"),
        ({"internal_id": "X" * 31}, "internal_id"),
        ({"item_unit_types": [{"unit_type_id": "NIU"}]}, "item_unit_types.0.quantity_unit"),
    ):
        assert_error(client.post("/api/item", json=item(internal_id="BAD-1") | changes), 422, field=field)
    assert search(client, "BAD-1") == []


def test_update_writes_only_the_editable_fields(client: httpx.Client) -> None:
    data = created(client, item(internal_id="UPD-1", description="Antes", brand="Marca"))
    response = client.post(
        f"/api/items/{data['id']}/update",
        json={
            "internal_id": "UPD-1B",
            "description": "Después",
            "sale_unit_price": 3.2,
            "stock_min": 2,
            "barcode": "7750182000123",
            "brand": "Ignorada",
            "unit_type_id": "KGM",
        },
    )
    assert response.status_code == 200, response.text
    assert response.json()["msg"] == "Producto editado con éxito"
    edited = response.json()["data"]
    assert (edited["internal_id"], edited["description"], edited["sale_unit_price"]) == (
        "UPD-1B",
        "Después",
        "3.20",
    )
    assert edited["barcode"] == "7750182000123" and edited["stock_min"] == "2.0000"
    assert edited["brand"] == "Marca" and edited["unit_type_id"] == "NIU"  # not editable here
    assert edited["stock"] == 24  # the stock is moved by inventory transactions only

    created(client, item(internal_id="UPD-2", description="Otro"))
    body = {"internal_id": "UPD-2", "description": "x", "sale_unit_price": 1, "stock_min": 0}
    assert_error(
        client.post(f"/api/items/{data['id']}/update", json=body), 422, "DUPLICATE_ITEM", "internal_id"
    )
    assert_error(
        client.post(f"/api/items/{data['id']}/update", json={"description": "x"}), 422, "MISSING_FIELDS"
    )
    missing = assert_error(client.post("/api/items/987654/update", json=body), 404, "ITEM_NOT_FOUND")
    assert missing["success"] is False
    assert_error(client.post("/api/items/abc/update", json=body), 422)


def test_documents_create_and_rewrite_the_same_products(live: LiveService) -> None:
    fresh = new_shop(live, "items-docs")
    with live.client(fresh.slug, fresh.token) as client:
        assert client.post("/api/documents", json=invoice_body()).status_code == 200
        found = search(client, "ARCH-A4")
        assert len(found) == 1
        product = found[0]
        assert product["description"] == "Archivador de palanca A4 lomo ancho"
        assert product["sale_unit_price"] == "59.00" and product["unit_type_id"] == "NIU"
        assert product["stock"] == 0  # never stocked: the sale takes nothing (stock never goes below zero)
        body = invoice_body()
        body["items"][0]["descripcion"] = "Archivador A4 (nuevo nombre)"
        assert client.post("/api/documents", json=body).status_code == 200
        body["items"][0]["descripcion"] = "No reescribe"
        body["items"][0]["actualizar_descripcion"] = False
        assert client.post("/api/documents", json=body).status_code == 200
        again = search(client, "ARCH-A4")
        assert [row["id"] for row in again] == [product["id"]]
        assert again[0]["description"] == "Archivador A4 (nuevo nombre)"
        assert again[0]["stock"] == 0
        # the registered product answers for the code from now on
        update = {
            "internal_id": "ARCH-A4",
            "description": "Archivador",
            "sale_unit_price": 60,
            "stock_min": 1,
        }
        assert client.post(f"/api/items/{product['id']}/update", json=update).status_code == 200
        assert_error(client.post("/api/item", json=item(internal_id="ARCH-A4")), 422, "DUPLICATE_ITEM")


def test_search_limit_and_order(client: httpx.Client) -> None:
    for index in range(25):
        created(
            client, item(internal_id=f"LIM-{index:02d}", description=f"Lápiz limitado {index:02d}", stock=0)
        )
    rows = search(client, "limitado")
    assert len(rows) == 20 and [r["internal_id"] for r in rows] == [f"LIM-{i:02d}" for i in range(20)]
    assert len(search(client, "limitado", limit=100)) == 25
    assert_error(client.get("/api/document/search-items", params={"limit": 0}), 422)
    assert_error(client.get("/api/document/search-items", params={"input": "x" * 101}), 422)
    # pages (this service's extension): the same order, page after page, then nothing
    pages = [search(client, "limitado", limit=10, page=page) for page in (1, 2, 3, 4)]
    assert [len(p) for p in pages] == [10, 10, 5, 0]
    assert [r["internal_id"] for p in pages for r in p] == [f"LIM-{i:02d}" for i in range(25)]
    assert search(client, "limitado", limit=10) == pages[0]  # page 1 by default
    for page in (0, -1, 100_001, "x"):
        assert_error(client.get("/api/document/search-items", params={"page": page}), 422)


def test_products_never_cross_tenants(live: LiveService, client: httpx.Client) -> None:
    mine = created(client, item(internal_id="MINE-1", description="Producto propio"))
    stranger = new_shop(live, "items-other")
    with live.client(stranger.slug, stranger.token) as other:
        assert search(other, "MINE-1") == []
        body = {"internal_id": "ROBADO", "description": "x", "sale_unit_price": 1, "stock_min": 0}
        assert_error(other.post(f"/api/items/{mine['id']}/update", json=body), 404, "ITEM_NOT_FOUND")
        assert created(other, item(internal_id="MINE-1"))["id"] != mine["id"]  # codes are per tenant
    assert search(client, "MINE-1")[0]["description"] == "Producto propio"
    with live.client(stranger.slug, "wrong-token-0123456789-xxxxxxxxxx") as nobody:
        assert_error(nobody.post("/api/item", json=ITEM), 401)
        assert_error(nobody.get("/api/document/search-items"), 401)
        assert_error(nobody.post(f"/api/items/{mine['id']}/update", json=ITEM), 401)


@pytest.mark.parametrize("gather_limit", [search_rule.GATHER_LIMIT, 0], ids=["gathered", "walked"])
def test_search_ignores_accents_and_case(
    live: LiveService, monkeypatch: pytest.MonkeyPatch, gather_limit: int
) -> None:
    """A shop types "cafe" or "CAFÉ" and finds "Café" (facturador.store.search): by description or code,
    through every way a product is written (created, edited, issued in a document)."""
    # gathered or walked, the same answers (the service runs in this process)
    monkeypatch.setattr(search_rule, "GATHER_LIMIT", gather_limit)
    fresh = new_shop(live, f"items-accents-{gather_limit}")
    with live.client(fresh.slug, fresh.token) as client:
        cafe = created(client, item(internal_id="CAF-ÑA1", description="Café Altomayo Ñandú 250 g"))
        pinguino = created(client, item(internal_id="PEL-01", description="Pingüino de peluche ÚNICO"))
        azucar = created(client, item(internal_id="azu-1", description="AZÚCAR RUBIA Éxito 1 kg"))
        created(client, item(internal_id="CAFE-X", description="Cafetera eléctrica"))

        def ids(text: str) -> list[int]:
            return [row["id"] for row in search(client, text)]

        for text in (
            "cafe altomayo",
            "CAFÉ ALTOMAYO",
            "Cafe AltoMayo",
            "ñandú",
            "NANDU",
            "caf-ña1",
            "CAF-NA",
        ):
            assert ids(text) == [cafe["id"]], text
        for text in ("pinguino", "PINGÜINO", "PingUino de", "unico", "Único"):
            assert ids(text) == [pinguino["id"]], text
        for text in ("azucar rubia", "éxito", "EXITO", "AZU-1"):
            assert ids(text) == [azucar["id"]], text
        assert len(ids("café")) == 2  # the coffee and the coffee maker, by description
        assert ids("cafe altomayo ñandu 250 g x") == []
        assert ids("250 g caf") == []  # never across the description and the code
        # an edit rewrites what is searched
        update = {
            "internal_id": "TE-01",
            "description": "Té Verde Ñuñoa",
            "sale_unit_price": 3,
            "stock_min": 0,
        }
        assert client.post(f"/api/items/{cafe['id']}/update", json=update).status_code == 200
        assert ids("te verde nunoa") == ids("TÉ VERDE ÑUÑOA") == [cafe["id"]]
        assert ids("altomayo") == [] and ids("caf-na1") == []
        # a document creates, then renames, the product of its code
        body = invoice_body()
        body["items"][0]["codigo_interno"] = "ÁRBOL-1"
        body["items"][0]["descripcion"] = "Árbol de Navidad Pequeño"
        assert client.post("/api/documents", json=body).status_code == 200
        tree = ids("arbol de navidad")
        assert len(tree) == 1 and ids("ÁRBOL-1") == ids("arbol-1") == tree
        body["items"][0]["descripcion"] = "Árbol de Navidad GRANDE"
        assert client.post("/api/documents", json=body).status_code == 200
        assert ids("navidad grande") == tree and ids("pequeno") == []
