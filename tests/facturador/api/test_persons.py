"""Customers and suppliers over HTTP: POST /api/person, GET /api/persons/{type}/records, and the customers
documents upsert into the same table (reference §8.15-8.16, §4.2)."""

from __future__ import annotations

import copy
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

PERSON = {
    "type": "customers",
    "identity_document_type_id": "1",
    "number": "72346556",
    "name": "Pedro Diaz",
    "trade_name": "Nombre Comercial",
    "country_id": "PE",
    "address": "Urb Sesquicentenario Vipol Callao",
    "telephone": "954533737",
    "email": None,
}


def person(**changes: Any) -> dict[str, Any]:
    return {**copy.deepcopy(PERSON), **changes}


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "persons")


@pytest.fixture
def client(live: LiveService, shop: Shop) -> Any:
    with live.client(shop.slug, shop.token) as client:
        yield client


def saved(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/api/person", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["success"] is True
    return answer


@requires_shared
def test_the_public_sample_registers_a_customer(live: LiveService) -> None:
    sample = json.loads(shared_path("examples/person.json").read_text(encoding="utf-8"))
    fresh = new_shop(live, "person-sample")
    with live.client(fresh.slug, fresh.token) as client:
        answer = saved(client, sample)
    assert answer["msg"] == "Cliente registrado con éxito"
    data = answer["data"]
    assert data["description"] == "72346556 - Pedro Diaz"
    assert data["identity_document_type_code"] == "DNI"
    assert isinstance(data["id"], int) and data["selected"] is False


def test_register_edit_and_uniqueness_per_type(client: httpx.Client) -> None:
    created = saved(client, person(number="40000001", name="Ana Torres"))["data"]
    supplier = saved(client, person(type="suppliers", number="40000001", name="Ana Torres"))
    assert supplier["msg"] == "Proveedor registrado con éxito"  # same number, other type: allowed

    duplicate = assert_error(
        client.post("/api/person", json=person(number="40000001", name="Otra")),
        422,
        "DUPLICATE_PERSON",
        "number",
    )
    assert "40000001" in duplicate["message"]
    assert_error(
        client.post("/api/person", json=person(number="40000002", name="Ana Torres")), 422, field="name"
    )

    edited = saved(
        client, person(id=created["id"], number="40000001", name="Ana Torres", address="Av. Nueva 1")
    )
    assert edited["msg"] == "Cliente editado con éxito"
    assert edited["data"]["id"] == created["id"] and edited["data"]["address"] == "Av. Nueva 1"
    assert_error(
        client.post("/api/person", json=person(id=999999, number="40000009", name="X")),
        404,
        "PERSON_NOT_FOUND",
    )


def test_location_comes_from_the_district(client: httpx.Client) -> None:
    data = saved(client, person(number="40000010", name="Con Ubigeo", district_id="150101"))["data"]
    assert data["location_id"] == ["15", "1501", "150101"]
    cleared = saved(client, person(id=data["id"], number="40000010", name="Con Ubigeo", department_id="-"))
    assert cleared["data"]["location_id"] == [] and cleared["data"]["district_id"] is None


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"type": "others"}, "type"),
        ({"type": None}, "type"),
        ({"number": ""}, "number"),
        ({"name": None}, "name"),
        ({"country_id": None}, "country_id"),
        ({"identity_document_type_id": "9"}, "identity_document_type_id"),
        ({"identity_document_type_id": "6", "number": "20100066604"}, "number"),  # bad RUC check digit
        ({"number": "123"}, "number"),  # a DNI has 8 digits
        ({"email": "no-es-correo"}, "email"),
        ({"district_id": "999999"}, "district_id"),
        ({"percentage_perception": -1}, "percentage_perception"),
    ],
)
def test_bad_persons_are_refused_naming_the_field(client: httpx.Client, changes: dict, field: str) -> None:
    body = person(number="40000099", name="Nadie Registrado")
    body.update(changes)
    assert_error(client.post("/api/person", json=body), 422, field=field)
    rows = client.get("/api/persons/customers/records", params={"input": "Nadie Registrado"}).json()["data"]
    assert rows == []


def test_malformed_bodies_and_tokens(live: LiveService, client: httpx.Client, shop: Shop) -> None:
    assert_error(
        client.post("/api/person", content=b"{nope", headers={"Content-Type": "application/json"}), 400
    )
    assert_error(client.post("/api/person", json=[PERSON]), 400, "BODY_IS_LIST")
    with live.client(shop.slug, "wrong-token-0123456789-xxxxxxxxxx") as stranger:
        assert_error(stranger.post("/api/person", json=PERSON), 401)
        assert_error(stranger.get("/api/persons/customers/records"), 401)


def test_records_are_paginated_20_per_page_with_links_and_meta(live: LiveService) -> None:
    fresh = new_shop(live, "persons-pages")
    with live.client(fresh.slug, fresh.token) as client:
        for index in range(45):
            saved(client, person(number=f"41{index:06d}", name=f"Cliente {index:02d}"))
        saved(client, person(type="suppliers", number="20000001", name="Proveedor Solo"))
        first = client.get("/api/persons/customers/records").json()
        assert [row["name"] for row in first["data"]] == [f"Cliente {i:02d}" for i in range(20)]
        meta = first["meta"]
        assert (meta["current_page"], meta["last_page"], meta["total"], meta["per_page"]) == (1, 3, 45, 20)
        assert (meta["from"], meta["to"]) == (1, 20)
        assert first["links"]["prev"] is None and first["links"]["next"].endswith("page=2")
        assert [link["label"] for link in meta["links"]][1:-1] == ["1", "2", "3"]
        names = []
        url: str | None = f"{fresh.base_url}/api/persons/customers/records"
        while url:
            page = client.get(url).json()
            names += [row["name"] for row in page["data"]]
            url = page["links"]["next"]
        assert len(names) == 45 and len(set(names)) == 45
        last = client.get("/api/persons/customers/records", params={"page": 3}).json()
        assert (last["meta"]["from"], last["meta"]["to"], last["links"]["next"]) == (41, 45, None)
        empty = client.get("/api/persons/customers/records", params={"page": 9}).json()
        assert empty["data"] == [] and empty["meta"]["from"] is None
        # filters: name (any case) or number; the type never mixes
        assert [
            r["name"] for r in client.get("/api/persons/customers/records?input=cliente 07").json()["data"]
        ] == ["Cliente 07"]
        by_number = client.get("/api/persons/customers/records", params={"input": "41000044"}).json()
        assert [r["name"] for r in by_number["data"]] == ["Cliente 44"]
        assert "input=41000044" in by_number["links"]["first"]
        suppliers = client.get("/api/persons/suppliers/records").json()["data"]
        assert [r["name"] for r in suppliers] == ["Proveedor Solo"]
        assert client.get("/api/persons/suppliers/records?input=Cliente").json()["data"] == []
        assert client.get("/api/persons/customers/records?input=%25").json()["meta"]["total"] == 0
        assert_error(client.get("/api/persons/others/records"), 422, field="type")
        assert_error(client.get("/api/persons/customers/records?page=0"), 422)
        assert_error(client.get("/api/persons/customers/records?page=x"), 422)


def test_documents_upsert_their_customer_into_the_same_table(live: LiveService) -> None:
    fresh = new_shop(live, "persons-docs")
    with live.client(fresh.slug, fresh.token) as client:
        response = client.post("/api/documents", json=invoice_body())
        assert response.status_code == 200, response.text
        rows = client.get("/api/persons/customers/records", params={"input": "20487654320"}).json()["data"]
        assert len(rows) == 1
        customer = rows[0]
        assert customer["name"] == "DISTRIBUIDORA LOS ANDES S.A.C."
        assert customer["email"] == "compras@losandes.pe" and customer["location_id"][-1] == "150101"
        body = invoice_body()
        body["datos_del_cliente_o_receptor"] = {
            **body["datos_del_cliente_o_receptor"],
            "apellidos_y_nombres_o_razon_social": "DISTRIBUIDORA LOS ANDES S.A.",
            "direccion": "Av. Nueva 200",
            "correo_electronico": None,
        }
        assert client.post("/api/documents", json=body).status_code == 200
        again = client.get("/api/persons/customers/records", params={"input": "20487654320"}).json()["data"]
        assert [row["id"] for row in again] == [customer["id"]]
        assert again[0]["name"] == "DISTRIBUIDORA LOS ANDES S.A." and again[0]["address"] == "Av. Nueva 200"
        assert again[0]["email"] == "compras@losandes.pe"  # not given: kept
        # a refused document records no customer
        bad = invoice_body()
        bad["datos_del_cliente_o_receptor"]["numero_documento"] = "20100066603"
        bad["totales"]["total_venta"] = 1
        assert client.post("/api/documents", json=bad).status_code == 422
        assert (
            client.get("/api/persons/customers/records", params={"input": "20100066603"}).json()["data"] == []
        )


def test_persons_never_cross_tenants(live: LiveService, client: httpx.Client) -> None:
    mine = saved(client, person(number="40000500", name="Solo Mio"))["data"]
    stranger = new_shop(live, "persons-other")
    with live.client(stranger.slug, stranger.token) as other:
        assert other.get("/api/persons/customers/records", params={"input": "Solo Mio"}).json()["data"] == []
        assert_error(
            other.post("/api/person", json=person(id=mine["id"], number="40000500", name="Robado")), 404
        )
        saved(other, person(number="40000500", name="Solo Mio"))  # its own register: no clash
    rows = client.get("/api/persons/customers/records", params={"input": "Solo Mio"}).json()["data"]
    assert [r["id"] for r in rows] == [mine["id"]]


@pytest.mark.parametrize("gather_limit", [search_rule.GATHER_LIMIT, 0], ids=["gathered", "walked"])
def test_search_ignores_accents_and_case_and_pages_20(
    live: LiveService, monkeypatch: pytest.MonkeyPatch, gather_limit: int
) -> None:
    """Names found whatever the accents and case (facturador.store.search), numbers as typed; a search
    with more than 20 matches pages like the whole list, its links keeping the search."""
    # gathered or walked, the same answers (the service runs in this process)
    monkeypatch.setattr(search_rule, "GATHER_LIMIT", gather_limit)
    fresh = new_shop(live, f"persons-accents-{gather_limit}")
    with live.client(fresh.slug, fresh.token) as client:
        for index in range(25):
            saved(client, person(number=f"43{index:06d}", name=f"Peña Ñahui Ángela {index:02d}"))
        nunez = saved(client, person(number="44000001", name="Núñez Güere José"))["data"]
        saved(client, person(number="44000002", name="Pena Rojas Luis"))

        def records(text: str, page: int = 1) -> dict[str, Any]:
            response = client.get("/api/persons/customers/records", params={"input": text, "page": page})
            assert response.status_code == 200, response.text
            return response.json()

        for text in ("nunez guere", "NÚÑEZ GÜERE JOSÉ", "Nuñez gUere", "jose", "44000001"):
            assert [row["id"] for row in records(text)["data"]] == [nunez["id"]], text
        first = records("PENA NAHUI angela")
        assert first["meta"]["total"] == 25 and first["meta"]["last_page"] == 2
        assert len(first["data"]) == 20 and (first["meta"]["from"], first["meta"]["to"]) == (1, 20)
        assert [row["name"] for row in first["data"]] == [f"Peña Ñahui Ángela {i:02d}" for i in range(20)]
        following = client.get(first["links"]["next"]).json()
        assert "input=PENA" in first["links"]["next"] and following["links"]["next"] is None
        assert [row["name"] for row in following["data"]] == [
            f"Peña Ñahui Ángela {i:02d}" for i in range(20, 25)
        ]
        assert records("peña")["meta"]["total"] == 26  # "Pena Rojas" too: ñ folds to n
        assert records("ángela 07")["data"][0]["number"] == "43000007"
        # an edit rewrites what is searched
        edited = person(id=nunez["id"], number="44000001", name="Muñoz Ü")
        assert saved(client, edited)["data"]["name"] == "Muñoz Ü"
        assert records("nunez")["data"] == [] and [r["id"] for r in records("MUNOZ U")["data"]] == [
            nunez["id"]
        ]
        # a document's customer is upserted with its folded name
        body = invoice_body()
        body["datos_del_cliente_o_receptor"]["apellidos_y_nombres_o_razon_social"] = (
            "Cámara Peñaranda E.I.R.L."
        )
        assert client.post("/api/documents", json=body).status_code == 200
        assert [r["name"] for r in records("CAMARA PENARANDA")["data"]] == ["Cámara Peñaranda E.I.R.L."]
        body["datos_del_cliente_o_receptor"]["apellidos_y_nombres_o_razon_social"] = "Cámara Ñaupari S.A.C."
        assert client.post("/api/documents", json=body).status_code == 200
        assert records("penaranda")["data"] == [] and len(records("naupari")["data"]) == 1
