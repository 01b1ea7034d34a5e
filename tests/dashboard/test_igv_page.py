"""IGV del mes (Formulario Virtual 621) in AppTest against the live service: each sales box with its figure,
one click (its expander) from a figure to the documents behind it, what no box takes, and a month with
nothing in it."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

from streamlit.testing.v1 import AppTest

from sunat.calendar import peru_today
from tests.dashboard.conftest import History, Issued
from tests.dashboard.test_app import texts
from tests.dashboard.test_pages import page


def _soles(text: str) -> Decimal:
    assert text.startswith("S/ "), text
    return Decimal(text[3:].replace(",", ""))


def _box_table(at: AppTest, number: str):  # type: ignore[no-untyped-def]
    """The documents table inside the expander of box ``number``."""
    expander = next(e for e in at.expander if e.label.startswith(f"Casilla {number} ·"))
    return expander, [t.value for t in expander.dataframe]


def test_the_boxes_of_the_month_and_their_documents(tenants: Path, issued: Issued, history: History) -> None:
    at = page("views/igv.py")
    assert at.title[0].value == "IGV del mes · Formulario 621"
    metrics = {m.label.split(" · ")[0]: _soles(m.value) for m in at.metric}
    assert list(metrics) == [f"Casilla {n}" for n in ("100", "101", "102", "103", "106", "105", "131")]
    assert metrics["Casilla 131"] == metrics["Casilla 101"] - metrics["Casilla 103"]
    # box 100 opens to the month's facturas, boletas and notes: what each puts in it adds up to the figure
    expander, tables = _box_table(at, "100")
    documents = tables[0]
    assert {issued.invoices[0].number, issued.invoices[1].number, issued.receipt.number} <= set(
        documents["Número"]
    )
    total = sum(
        (Decimal(str(v)).quantize(Decimal("0.01")) for v in documents["Importe en la casilla (S/)"]),
        Decimal(0),
    )
    assert total == metrics["Casilla 100"]
    assert f"{len(documents)} documento" in expander.label
    assert "Factura: S/ " in texts(expander.caption) and "Boleta: S/ " in texts(expander.caption)  # the split
    assert set(documents["Tipo"]) <= {"Factura", "Boleta", "Nota de crédito", "Nota de débito"}
    # the boleta's bag tax is not a sales box: named apart, with its document
    outside = next(e for e in at.expander if e.label.startswith("Importes del mes que no van"))
    assert "ICBPER" in texts(outside.markdown)
    assert any(issued.receipt.number in set(t.value["Número"]) for t in outside.dataframe)
    assert "Cuadra con el Registro de ventas del mes" in texts(at.caption)
    # the factura in dollars (US$ 500 + IGV, issued two days ago) counts at its own rate, in its month
    issued_on = peru_today() - dt.timedelta(days=2)
    at.selectbox(key="igv_month").set_value(f"{issued_on:%m/%Y}").run()
    _, (documents,) = _box_table(at, "100")
    dollars = documents[documents["Número"] == history.dollars.number].iloc[0]
    assert (dollars["Moneda"], dollars["Tipo de cambio"]) == ("USD", 3.725)
    assert dollars["Importe en la casilla (S/)"] == 1862.50  # 500.00 x 3.725
    assert "en moneda extranjera, convertidos a soles a su propio tipo de cambio" in texts(at.info)
    # a month far back: every box at zero, no document behind any
    at.selectbox(key="igv_month").set_value(at.selectbox(key="igv_month").options[-1]).run()
    assert not at.exception, at.exception
    assert all(m.value == "S/ 0.00" for m in at.metric)
    assert "Ningún documento del mes va en esta casilla." in texts(at.caption)
