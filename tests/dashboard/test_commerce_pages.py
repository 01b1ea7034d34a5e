"""The Análisis comercial page, the sale notes listed by date on the Notas de venta page with a
quotation converted there, and the Documents page naming each document's sale note, in
``streamlit.testing.v1.AppTest`` against the live service on a tenant of their own."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from connector import Client
from connector.quotations import Quotation
from connector.sale_notes import SaleNote
from connector.sheets import NoteLine
from tests.conftest import LiveService
from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_app import app, chart_figures, texts
from tests.shops import Shop, new_shop


@pytest.fixture
def shop(live: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Shop:
    shop = new_shop(live, "dash-analisis")
    path = write_tenants(tmp_path / "tenants.toml", shop.base_url, shop.token, name="ANALISIS S.A.C.")
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    return shop


@pytest.fixture
def trading(shop: Shop) -> dict[str, Any]:
    return trade(shop)


def trade(shop: Shop) -> dict[str, Any]:
    """Two products with cost and stock, two customers, a boleta made from a sale note, an open note,
    one quotation converted into a sale note and one still open; their numbers."""
    with Client(shop.base_url, shop.token, cache=False) as client:
        termo = client.items.create(
            code="TER-1", description="Termo 1 l", sale_price="59.00", stock=20, purchase_unit_price="30.00"
        )
        taza = client.items.create(
            code="TAZ-1", description="Taza", sale_price="11.80", stock=10, purchase_unit_price="4.50"
        )
        ana = client.persons.create(number="45678912", name="ANA TORRES", identity_type="1")
        andes = client.persons.create(
            number="20487654320", name="DISTRIBUIDORA LOS ANDES S.A.C.", identity_type="6"
        )
        [series] = client.sale_notes.series()
        converted = client.sale_notes.issue(
            SaleNote(
                series_id=series.id, customer_id=ana.id, lines=[NoteLine(2, unit_price=59, item_id=termo.id)]
            )
        )
        boleta = client.sale_notes.generate_cpe(converted.id, document_type="03")
        still_open = client.sale_notes.issue(
            SaleNote(
                series_id=series.id,
                customer_id=andes.id,
                lines=[NoteLine(5, unit_price="11.80", item_id=taza.id)],
            )
        )
        won = client.quotations.create(
            Quotation(customer_id=andes.id, lines=[NoteLine(1, unit_price=59, item_id=termo.id)])
        )
        [record] = client.quotations.list(won.number, fresh=True)
        from_quotation = client.sale_notes.issue(client.quotations.to_sale_note(record, series_id=series.id))
        open_quotation = client.quotations.create(
            Quotation(customer_id=ana.id, lines=[NoteLine(3, unit_price="11.80", item_id=taza.id)])
        )
    return {
        "boleta": boleta.number,
        "converted": converted.number,
        "open": still_open.number,
        "from_quotation": from_quotation.number,
        "won": won.number,
        "open_quotation": open_quotation.number,
    }


def metrics(at: Any) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_the_analyst_page_sums_sales_values_stock_and_counts_quotations(trading: dict[str, Any]) -> None:
    at = app("views/commerce.py")
    assert not at.exception, at.exception
    assert at.title[0].value == "Análisis comercial"
    charts = [json.dumps(figure) for figure in chart_figures(at)]
    assert any("Principales productos" in t for t in charts) and any(
        "Principales clientes" in t for t in charts
    )
    assert any("Valor del stock al costo" in t for t in charts) and any(
        "Cotizaciones convertidas" in t for t in charts
    )

    products = {row["Código"]: row for row in at.dataframe[0].value.to_dict("records")}
    # the boleta (2 termos, 100.00) + the note from the quotation (1 termo, 50.00); the open note: 5 tazas
    assert products["TER-1"]["Valor de venta"] == 150.0 and products["TER-1"]["Cantidad"] == 3.0
    assert products["TAZ-1"]["Valor de venta"] == 50.0 and products["TAZ-1"]["Cantidad"] == 5.0
    customers = {row["Cliente"]: row for row in at.dataframe[1].value.to_dict("records")}
    assert customers["DISTRIBUIDORA LOS ANDES S.A.C."]["Valor de venta"] == 100.0  # two open notes
    assert customers["ANA TORRES"]["Valor de venta"] == 100.0  # the boleta; its note is not counted again

    stock = {row["Código"]: row for row in at.dataframe[2].value.to_dict("records")}
    assert stock["TER-1"]["Stock"] == 17.0 and stock["TER-1"]["Valor al costo"] == 510.0
    assert stock["TAZ-1"]["Stock"] == 5.0 and stock["TAZ-1"]["Valor al costo"] == 22.5
    assert stock["TAZ-1"]["Valor a precio de venta"] == 59.0
    shown = metrics(at)
    cost = next(value for label, value in shown.items() if label.endswith("al costo"))
    assert cost == "S/ 532.50", shown
    assert shown["Convertidas (PEN)"] == "1 · S/ 59.00" and shown["Abiertas (PEN)"] == "1 · S/ 35.40"
    assert shown["Tasa de conversión (PEN)"] == "50 %"

    at.number_input(key="commerce_top").set_value(3).run()
    assert not at.exception, at.exception


def test_without_data_the_analyst_page_says_so(shop: Shop) -> None:
    at = app("views/commerce.py")
    assert not at.exception, at.exception
    info = texts(at.info)
    assert "No hay productos con stock" in info and "No hay cotizaciones en este rango" in info


def test_sale_notes_listed_with_their_documents_and_a_quotation_converted(trading: dict[str, Any]) -> None:
    at = app("views/sale_notes.py")
    assert not at.exception, at.exception
    notes = {row["Número"]: row for row in at.dataframe[0].value.to_dict("records")}
    assert notes[trading["converted"]]["Comprobante"] == trading["boleta"]
    assert notes[trading["open"]]["Comprobante"] == ""
    assert notes[trading["from_quotation"]]["Cotización"] == trading["won"]
    assert metrics(at)["Convertidas en comprobante"] == "1 de 3"
    assert metrics(at)["Total en notas (PEN)"] == "S/ 236.00"  # 118.00 + 59.00 + 59.00

    quotes = {row["Número"]: row for row in at.dataframe[-1].value.to_dict("records")}
    assert quotes[trading["won"]]["Convertida"] == "Sí"
    assert quotes[trading["won"]]["Nota de venta"] == trading["from_quotation"]
    assert quotes[trading["open_quotation"]]["Convertida"] == "No"
    at.selectbox(key="quotation_picked").set_value(trading["won"]).run()
    assert at.button(key="quotation_convert").disabled
    at.selectbox(key="quotation_picked").set_value(trading["open_quotation"]).run()
    assert not at.button(key="quotation_convert").disabled
    at.button(key="quotation_convert").click().run()
    assert not at.exception, at.exception
    success = texts(at.success)
    assert f"desde la cotización {trading['open_quotation']}" in success, texts(at.error)
    quotes = {row["Número"]: row for row in at.dataframe[-1].value.to_dict("records")}
    assert quotes[trading["open_quotation"]]["Convertida"] == "Sí"
    assert len(at.dataframe[0].value) == 4


def test_the_documents_page_names_the_sale_note_of_each_document(trading: dict[str, Any]) -> None:
    at = app("views/documents.py")
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    row = table[table["number"] == trading["boleta"]].iloc[0]
    assert row["sale_note_number"] == trading["converted"]
    assert Decimal(str(row["total"])) == Decimal("118.00")
