"""The Notas de venta / Cotizaciones page in ``streamlit.testing.v1.AppTest`` against the live service,
on a tenant of its own: live line totals, issue a sale note and convert it into a factura, register a
quotation and find it in the list with its total, and refused input shown."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from connector import Client
from tests.conftest import LiveService
from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_app import app, texts
from tests.shops import Shop, new_shop

PAGE = "views/sale_notes.py"


@pytest.fixture
def shop(live: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Shop:
    shop = new_shop(live, "dash-ventas")
    path = write_tenants(tmp_path / "tenants.toml", shop.base_url, shop.token, name="VENTAS S.A.C.")
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    return shop


@pytest.fixture
def stocked(shop: Shop) -> Shop:
    """A customer with a RUC and two products with stock."""
    with Client(shop.base_url, shop.token, cache=False) as client:
        client.persons.create(number="20100070970", name="CLIENTE CON RUC S.A.C.", identity_type="6")
        client.items.create(code="CUA-1", description="Cuaderno A4", sale_price="5.90", stock=50)
        client.items.create(code="LAP-1", description="Lapicero", sale_price="1.50", stock=50)
    return shop


def pick_lines(at: AppTest, *lines: tuple[int, float]) -> AppTest:
    """Fill the line rows: (product position in the picker, quantity)."""
    for row, (product, quantity) in enumerate(lines):
        at.selectbox(key=f"note_item_{row}").select_index(product)
        at.number_input(key=f"note_quantity_{row}").set_value(quantity)
    return at.run()


def test_without_customers_or_products_the_page_says_so(shop: Shop) -> None:
    at = app(PAGE)
    assert not at.exception, at.exception
    assert at.title[0].value == "Notas de venta / Cotizaciones"
    info = texts(at.info)
    assert "Registra primero clientes y productos" in info and "No hay cotizaciones" in info


def test_live_totals_then_issue_and_convert_into_a_factura(stocked: Shop) -> None:
    at = app(PAGE)
    pick_lines(at, (0, 2), (1, 4))  # by description: Cuaderno A4 x2 at 5.90, Lapicero x4 at 1.50
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Total"] == "S/ 17.80" and metrics["IGV"] == "S/ 2.72", metrics
    assert [row["Total"] for row in at.dataframe[0].value.to_dict("records")] == [
        11.8,
        6.0,
    ]  # numbers: shown 11.80
    at.button(key="note_issue").click().run()
    assert not at.exception, at.exception
    success = texts(at.success)
    assert "Nota de venta" in success and "17.80" in success, texts(at.error)
    notes = at.dataframe[1].value.to_dict("records")
    assert len(notes) == 1 and notes[0]["Comprobante"] == ""
    assert [b.key for b in at.download_button] == ["note_pdf"]
    at.radio(key="note_cpe_type").set_value("01").run()
    at.button(key="note_convert").click().run()
    assert not at.exception, at.exception
    success = texts(at.success)
    assert "Factura **F001-" in success, texts(at.error)
    number = at.dataframe[1].value.to_dict("records")[0]["Comprobante"]
    assert number.startswith("F001-") and number in success
    assert at.button(key="note_convert").disabled
    with Client(stocked.base_url, stocked.token, cache=False) as client:
        (cuaderno,) = client.items.search("CUA-1", fresh=True)
        series, _, correlative = number.partition("-")
        document = client.documents.find(series, int(correlative))
    assert cuaderno.stock == Decimal("48")  # the sale note took the stock
    assert document is not None and Decimal(str(document.total)) == Decimal("17.80")


def test_register_a_quotation_and_find_it_with_its_total(stocked: Shop) -> None:
    at = app(PAGE)
    at.radio(key="note_kind").set_value("quotation").run()
    at.number_input(key="note_price_0").set_value(6.5)
    pick_lines(at, (0, 3))
    assert {m.label: m.value for m in at.metric}["Total"] == "S/ 19.50"
    at.button(key="note_issue").click().run()
    assert not at.exception, at.exception
    success = texts(at.success)
    assert "Cotización **COT-" in success and "19.50" in success, texts(at.error)
    assert [b.key for b in at.download_button] == ["quotation_pdf"]
    quotes = at.dataframe[-1].value.to_dict("records")
    assert (
        len(quotes) == 1 and quotes[0]["Total"] == 19.5 and quotes[0]["Cliente"] == "CLIENTE CON RUC S.A.C."
    )
    at.text_input(key="quotation_search").set_value("NADIE-ASI").run()
    assert "No hay cotizaciones que coincidan" in texts(at.info)


def test_a_factura_for_a_customer_without_ruc_is_refused(stocked: Shop) -> None:
    with Client(stocked.base_url, stocked.token, cache=False) as client:
        client.persons.create(number="46027862", name="AAA JUAN PEREZ", identity_type="1")
    at = app(PAGE)
    customers = at.selectbox(key="note_customer").options
    at.selectbox(key="note_customer").select_index(
        next(i for i, c in enumerate(customers) if "46027862" in c)
    )
    pick_lines(at, (1, 1))
    at.button(key="note_issue").click().run()
    assert "Nota de venta" in texts(at.success), texts(at.error)
    at.radio(key="note_cpe_type").set_value("01").run()
    at.button(key="note_convert").click().run()
    assert not at.exception, at.exception
    error = texts(at.error)
    assert "No se generó el comprobante" in error and "codigo_tipo_documento_identidad" in error, error
    assert at.dataframe[1].value.to_dict("records")[0]["Comprobante"] == ""
