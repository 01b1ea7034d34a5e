"""The Clientes and Productos pages in ``streamlit.testing.v1.AppTest`` against the live service, on a
tenant of their own: search, register, edit, stock per warehouse, kardex, inventory moves, and refused
input shown with the field."""

from __future__ import annotations

import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from connector import Client
from tests.conftest import LiveService
from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_app import app, texts
from tests.shops import Shop, new_shop


@pytest.fixture
def shop(live: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Shop:
    shop = new_shop(live, "dash-comercial")
    path = write_tenants(tmp_path / "tenants.toml", shop.base_url, shop.token, name="COMERCIAL S.A.C.")
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    return shop


def submit(at: AppTest, label: str) -> AppTest:
    """Click the submit button of a form by its label."""
    for button in at.get("form_submit_button"):
        if button.proto.label == label:
            return button.click().run()
    raise AssertionError(f"no submit button {label!r}")


#: The dataframes of the Productos page, in page order (a product picked).
ITEM_TABLE, WAREHOUSES, KARDEX = 0, 1, 2


def table(at: AppTest, position: int = 0) -> list[dict[str, Any]]:
    """The rows of the dataframe at ``position`` on the page."""
    return list(at.dataframe[position].value.to_dict("records"))


# -- Clientes -------------------------------------------------------------------------------------


def test_register_search_and_edit_a_customer(shop: Shop) -> None:
    at = app("views/customers.py")
    assert not at.exception, at.exception
    assert at.title[0].value == "Clientes"
    assert "Aún no hay registros" in texts(at.info)
    name = f"CLIENTE PAGINA {uuid.uuid4().hex[:6].upper()}"
    at.text_input(key="person_number_None").set_value("20100070970")
    at.text_input(key="person_name_None").set_value(name)
    at.text_input(key="person_address_None").set_value("Av. Arequipa 100, Lima")
    submit(at, "Guardar")
    assert not at.exception, at.exception
    assert "guardado" in texts(at.success), texts(at.error)
    at.text_input(key="person_search").set_value(name[-6:]).run()
    rows = table(at)
    assert [r["Nombre"] for r in rows] == [name] and rows[0]["Número"] == "20100070970"
    # edit it: the form is filled with its values
    with Client(shop.base_url, shop.token, cache=False) as client:
        (person,) = client.persons.list(search=name)
    at.selectbox(key="person_edit").select_index(1).run()
    key = f"person_name_{person.id}"
    assert at.text_input(key=key).value == name
    at.text_input(key=key).set_value(name + " EIRL")
    submit(at, "Guardar")
    assert "guardado" in texts(at.success), texts(at.error)
    with Client(shop.base_url, shop.token, cache=False) as client:
        assert [p.name for p in client.persons.list(search=name)] == [name + " EIRL"]


def test_search_finds_only_matching_customers(shop: Shop) -> None:
    with Client(shop.base_url, shop.token, cache=False) as client:
        client.persons.create(number="46027862", name="JUAN PEREZ QUISPE", identity_type="1")
        client.persons.create(number="20601030013", name="DISTRIBUIDORA NORTE S.A.C.", identity_type="6")
    at = app("views/customers.py")
    assert len(table(at)) == 2
    at.text_input(key="person_search").set_value("NORTE").run()
    assert [r["Nombre"] for r in table(at)] == ["DISTRIBUIDORA NORTE S.A.C."]
    at.text_input(key="person_search").set_value("NADIE-ASI").run()
    assert "No hay registros que coincidan" in texts(at.info)


def test_a_bad_ruc_is_refused_with_the_field(shop: Shop) -> None:
    at = app("views/customers.py")
    at.text_input(key="person_number_None").set_value("20100070971")  # wrong check digit
    at.text_input(key="person_name_None").set_value("MAL RUC S.A.C.")
    submit(at, "Guardar")
    assert not at.exception, at.exception
    error = texts(at.error)
    assert "No se guardó" in error and "number" in error, error
    with Client(shop.base_url, shop.token, cache=False) as client:
        assert client.persons.list() == []


# -- Productos ------------------------------------------------------------------------------------


def create_product(at: AppTest, code: str, description: str, price: float, stock: float) -> AppTest:
    at.text_input(key="item_code").set_value(code)
    at.text_input(key="item_description").set_value(description)
    at.number_input(key="item_price").set_value(price)
    at.number_input(key="item_stock").set_value(stock)
    return submit(at, "Registrar producto")


def test_register_a_product_then_search_and_see_its_stock(shop: Shop) -> None:
    at = app("views/products.py")
    assert not at.exception, at.exception
    assert at.title[0].value == "Productos"
    assert "Aún no hay productos" in texts(at.info)
    create_product(at, "P-001", "Cuaderno A4 cuadriculado", 5.9, 20)
    assert not at.exception, at.exception
    assert "registrado" in texts(at.success), texts(at.error)
    create_product(at, "P-002", "Lapicero azul", 1.5, 0)
    at.text_input(key="item_search").set_value("cuaderno").run()
    rows = table(at, ITEM_TABLE)
    assert [r["Código"] for r in rows] == ["P-001"] and Decimal(rows[0]["Stock"]) == 20
    at.selectbox(key="item_picked").select_index(0).run()
    assert not at.exception, at.exception
    assert at.metric[0].value.startswith("20")
    warehouses = table(at, WAREHOUSES)
    assert len(warehouses) == 1 and Decimal(warehouses[0]["Stock"]) == 20
    kardex = table(at, KARDEX)
    assert len(kardex) == 1 and Decimal(kardex[0]["Saldo"]) == 20


def test_inventory_moves_show_in_the_kardex(shop: Shop) -> None:
    at = app("views/products.py")
    create_product(at, "CAJA-1", "Caja de cartón", 2.0, 10)
    at.selectbox(key="item_picked").select_index(0).run()
    at.number_input(key="move_quantity").set_value(5.0)
    submit(at, "Registrar movimiento")
    assert not at.exception, at.exception
    assert not at.error, texts(at.error)
    assert at.metric[0].value.startswith("15")
    at.radio(key="move_kind").set_value("output").run()
    at.number_input(key="move_quantity").set_value(3.0)
    submit(at, "Registrar movimiento")
    assert at.metric[0].value.startswith("12"), texts(at.error)
    balances = [r["Saldo"] for r in table(at, KARDEX)]
    assert [Decimal(b) for b in balances] == [10, 15, 12]
    # more than the warehouse holds: refused, nothing moves
    at.number_input(key="move_quantity").set_value(100.0)
    submit(at, "Registrar movimiento")
    assert "No se registró el movimiento" in texts(at.error)
    assert at.metric[0].value.startswith("12")
    assert len(table(at, KARDEX)) == 3


def test_edit_a_product(shop: Shop) -> None:
    at = app("views/products.py")
    create_product(at, "SRV-9", "Servicio técnico", 50.0, 0)
    at.selectbox(key="item_picked").select_index(0).run()
    with Client(shop.base_url, shop.token, cache=False) as client:
        product_id = client.items.search("SRV-9", fresh=True)[0].id
    at.text_input(key=f"item_edit_description_{product_id}").set_value("Servicio técnico a domicilio")
    at.number_input(key=f"item_edit_price_{product_id}").set_value(80.0)
    submit(at, "Guardar cambios")
    assert "actualizado" in texts(at.success), texts(at.error)
    with Client(shop.base_url, shop.token, cache=False) as client:
        (product,) = client.items.search("SRV-9", fresh=True)
    assert product.description == "Servicio técnico a domicilio" and str(product.sale_price).startswith("80")


def test_a_duplicate_code_or_zero_price_is_refused(shop: Shop) -> None:
    at = app("views/products.py")
    create_product(at, "DUP-1", "Primero", 3.0, 1)
    create_product(at, "DUP-1", "Segundo", 3.0, 1)
    assert not at.exception, at.exception
    error = texts(at.error)
    assert "No se registró el producto" in error and "internal_id" in error, error
    create_product(at, "CERO-1", "Gratis", 0.0, 1)
    error = texts(at.error)
    assert "sale_unit_price" in error, error
    with Client(shop.base_url, shop.token, cache=False) as client:
        assert [p.description for p in client.items.search("", fresh=True)] == ["Primero"]
