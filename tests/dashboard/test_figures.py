"""What the pages show of the Decimal figures: full amounts, plain Spanish, plural forms, currencies apart
or converted, and charts built from the same figures."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D

from connector.sales import by_customer, group_totals, sales_of, summarize
from dashboard import figures
from tests.connector.test_sales import ROWS


def test_money_and_plurals() -> None:
    assert figures.money(D("8393245.67")) == "S/ 8,393,245.67"  # whole, never cut
    assert figures.money(D("-12"), "USD") == "US$ -12.00"
    assert figures.plural(1, "documento", "documentos") == "1 documento"
    assert figures.plural(86, "aceptado", "aceptados") == "86 aceptados"


def test_kpis_say_what_each_figure_is() -> None:
    summary = summarize(sales_of(ROWS))
    cards = {k.label: k for k in figures.kpis(summary)}
    assert cards["Valor de venta (sin IGV)"].value == "S/ 5,506.30"
    assert cards["IGV"].value == "S/ 291.83"
    assert cards["Importe total"].value == "S/ 5,798.63"
    assert cards["Documentos"].value == "10"
    total = cards["Importe total"].help
    assert "Notas de crédito restan" in total and "anulados y rechazados no cuentan" in total
    assert "T.C. de 3.712 a 3.800" in total and "1 documento en moneda extranjera sin tipo de cambio" in total
    assert "2 anulados o rechazados" in cards["Documentos"].help
    lines = figures.currency_lines(summary)
    assert lines[0].startswith("**PEN** · 4 documentos") and "US$ 1,708.00" in lines[1]


def test_charts_come_from_the_decimal_figures() -> None:
    sales = sales_of(ROWS)
    daily = figures.daily_figure(sales, dt.date(2026, 3, 1), dt.date(2026, 3, 31))
    values = {trace.name: sum(trace.y) for trace in daily.data}
    # valor de venta in soles: facturas 100 + 1862.50 + 3800, boletas 50 + 85, notes -20 - 371.20
    assert values == {"Factura": 5762.5, "Boleta": 135.0, "Nota de crédito": -391.2}
    customers = figures.customers_figure(group_totals(sales, by_customer)[0])
    assert customers.data[0].y[-1] == "CLIENTE DEMO S.A."  # the best on top
    empty = figures.daily_figure([], dt.date(2026, 3, 1), dt.date(2026, 3, 2))
    assert empty.layout.annotations[0].text == "Sin documentos en este rango"


def test_a_loading_frame_has_the_chart_title_and_no_data() -> None:
    """The frames the Documentos page shows while its documents load hold no trace (so nothing reads
    them as figures, and the benchmark does not count them as charts drawn)."""
    frame = figures.loading_figure(figures.DAILY_TITLE)
    assert frame.layout.title.text == figures.DAILY_TITLE
    assert not frame.data
    assert [a.text for a in frame.layout.annotations] == ["Cargando…"]
