"""What the pages show of the Decimal figures: full amounts, plain Spanish, plural forms, currencies apart
or converted, and charts built from the same figures."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D

from analysis.sales import ProductTotal, by_customer, by_type, group_totals, sales_of, summarize
from dashboard import figures
from tests.analysis.test_sales import ROWS


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


def test_the_months_chart_draws_the_previous_period_as_the_previous_period() -> None:
    """Valor de venta por mes: the months of the period before are gray "Periodo anterior" bars (they were
    drawn as "Periodo elegido"), the chosen ones blue, each trace naming its dates."""
    from tests.analysis.test_sales import row

    now = sales_of([row("F001-2", "01", day=dt.date(2026, 11, 5), taxed=200, igv=36, total=236)])
    before = sales_of([row("F001-1", "01", day=dt.date(2026, 10, 5), taxed=160, igv="28.80", total="188.80")])
    chosen, previous = (
        (dt.date(2026, 11, 1), dt.date(2026, 11, 26)),
        (dt.date(2026, 10, 1), dt.date(2026, 10, 26)),
    )
    fig = figures.months_figure(now, before, chosen, previous)
    traces = {trace.name: trace for trace in fig.data}
    assert set(traces) == {
        "Anterior (01/10/2026 – 26/10/2026)",
        "Elegido (01/11/2026 – 26/11/2026)",
    }
    old = traces["Anterior (01/10/2026 – 26/10/2026)"]
    new = traces["Elegido (01/11/2026 – 26/11/2026)"]
    assert (list(old.x), list(old.y)) == (["10/2026"], [160.0])
    assert (list(new.x), list(new.y)) == (["11/2026"], [200.0])
    assert fig.layout.xaxis.type == "category"


def test_the_period_caption_says_what_is_compared() -> None:
    assert figures.comparison_text(
        (dt.date(2026, 11, 1), dt.date(2026, 11, 26)), (dt.date(2026, 10, 1), dt.date(2026, 10, 26))
    ) == (
        "Del 01/11/2026 al 26/11/2026, comparado con los mismos días del mes anterior "
        "(01/10/2026 – 26/10/2026)"
    )
    assert figures.comparison_text(
        (dt.date(2026, 10, 1), dt.date(2026, 10, 31)), (dt.date(2026, 9, 1), dt.date(2026, 9, 30))
    ) == ("Del 01/10/2026 al 31/10/2026, comparado con el mes anterior (01/09/2026 – 30/09/2026)")
    assert figures.comparison_text(
        (dt.date(2026, 10, 3), dt.date(2026, 10, 9)), (dt.date(2026, 9, 26), dt.date(2026, 10, 2))
    ) == ("Del 03/10/2026 al 09/10/2026, comparado con los 7 días anteriores (26/09/2026 – 02/10/2026)")


def test_the_mix_shows_no_sliver_percentages() -> None:
    """A share under 1 % is not written on the donut ("0.00472%"); the hover still gives it."""
    fig = figures.mix_figure({"Gravado": D("1000"), "Exonerado": D("500"), "Gratuito": D("0.07")})
    texts = list(fig.data[0].text)
    assert texts[:2] == ["66.7 %", "33.3 %"] and texts[2] == ""
    assert fig.data[0].textinfo == "text"


def test_numbers_read_one_way_in_every_table() -> None:
    """Money by its column's name as 3,528,226.08, whole numbers as 131,440 (never 17.0), others with two
    decimals; and every page draws its tables through that one place."""
    from pathlib import Path

    import pandas as pd

    from dashboard import widgets

    frame = pd.DataFrame(
        {
            "Valor de venta": [552048.0, 3528226.08],
            "Importe total": [1.0, 2.0],
            "Cantidad": [131440.0, 17.0],
            "Peso": [12.5, 3.0],
            "Documentos": [50, 6],
            "Cliente": ["A", "B"],
            "Activo": [True, False],
        }
    )
    shown = {name: column["type_config"]["format"] for name, column in widgets.number_formats(frame).items()}
    assert shown == {
        "Valor de venta": "%,.2f",
        "Importe total": "%,.2f",
        "Cantidad": "%,d",
        "Peso": "%,.2f",
        "Documentos": "%,d",
    }
    assert figures.quantity(D("17.0000")) == "17" and figures.quantity(D("131440")) == "131,440"
    assert figures.quantity(D("12.5000")) == "12.5"
    views = Path(widgets.__file__).parent / "views"
    raw = [p.name for p in sorted(views.glob("*.py")) if ".dataframe(" in p.read_text(encoding="utf-8")]
    assert raw == [], f"tables drawn without widgets.data_table: {raw}"


def test_the_products_table_has_an_icbper_column_only_when_a_product_carries_it() -> None:
    coffee = ProductTotal("X001", "Café", "KGM", D(3), D("30.00"), D("0"), D("0"), D("30.00"), 1)
    bag = ProductTotal("B001", "Bolsa", "NIU", D(2), D("0.20"), D("0.04"), D("0.10"), D("0.34"), 1)
    assert "ICBPER" not in figures.products_frame([coffee]).columns
    with_bags = figures.products_frame([coffee, bag])
    assert list(with_bags["ICBPER"]) == [0.0, 0.1] and list(with_bags.columns)[-1] == "Importe total"


def test_the_daily_chart_ticks_whole_days() -> None:
    """A day, a week or a month reads one label per day or per week, never one day over and over."""
    day = dt.date(2026, 12, 1)
    one = figures.daily_figure([], day, day).layout.xaxis
    assert one.dtick == 86_400_000 and one.tickformat == "%d/%m"
    month = figures.daily_figure([], dt.date(2026, 11, 2), day).layout.xaxis
    assert month.dtick == 7 * 86_400_000
    year = figures.daily_figure([], dt.date(2025, 12, 2), day).layout.xaxis
    assert year.dtick is None


def test_the_mix_legend_sits_under_the_donut_not_on_its_title() -> None:
    """Issue 31: at the top, the legend of «Mezcla por afectación» covered its title."""
    fig = figures.mix_figure({"Gravado": D("1000"), "Exonerado": D("500"), "Inafecto": D("200")})
    legend = fig.layout.legend
    assert legend.yanchor == "top" and legend.y <= 0, legend
    assert fig.layout.title.text == "Mezcla por afectación (S/)"


def test_the_quotations_chart_writes_amounts_with_their_currency() -> None:
    """Issue 31: its axis read "25k" with no S/."""
    from dashboard.commerce import Conversion, conversion_figure

    def row(currency: str) -> Conversion:
        return Conversion(currency, 3, D("25000"), 2, D("1200.5"))

    soles = conversion_figure([row("PEN")])
    assert soles.layout.yaxis.tickprefix == "S/ " and soles.layout.yaxis.tickformat == ",.0f"
    both = conversion_figure([row("PEN"), row("USD")])
    assert list(both.data[0].x) == ["Soles (S/)", "Dólares (US$)"]
    assert both.layout.yaxis.tickformat == ",.0f" and not both.layout.yaxis.tickprefix
    assert [c[0] for c in both.data[0].customdata] == ["S/", "US$"]


def test_the_documents_card_and_the_totals_tables_count_differently_and_say_why() -> None:
    """Issue 31: Periodos' card said 1,127 and its Totales table 1,103: the card counts every document
    listed, the tables those in the figures (not voided or rejected, not without a rate)."""
    summary = summarize(sales_of(ROWS))
    groups, left_out = group_totals(sales_of(ROWS), by_type)
    in_tables = sum(g.amounts.documents for g in groups)
    assert (summary.listed, in_tables) == (10, 7)  # 2 voided or rejected, 1 in dollars without a rate
    assert summary.counted - len(summary.unconverted) == in_tables and len(left_out) == 1
    note = figures.counted_note(summary)
    assert note == (
        "Las tablas cuentan 7 documentos, los que entran en las cifras; la tarjeta «Documentos» cuenta los "
        "10 emitidos, con 2 anulados o rechazados y 1 documento en moneda extranjera sin tipo de cambio "
        "que no suman."
    )
    plain = [r for r in ROWS if r["state_type_id"] not in ("09", "11") and r["currency_type_id"] == "PEN"]
    assert plain and figures.counted_note(summarize(sales_of(plain))) == ""  # nothing to explain
