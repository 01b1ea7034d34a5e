"""What the analyst pages show of the figures of :mod:`analysis.sales`, :mod:`analysis.receivables`
and :mod:`analysis.alerts`: KPI texts, tables and plotly charts.

The figures are Decimal (computed in the connector); here they only become text (``S/ 1,234.50``),
table cells (rounded to the cent) and, for charts, floats at the very end. No Streamlit, no HTTP.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from analysis.receivables import AGES, CustomerAging, OpenInstalment
from analysis.sales import (
    Comparison,
    DayRate,
    GroupTotal,
    ProductTotal,
    Sale,
    SalesCell,
    SalesSummary,
    by_month,
    by_type,
    customer_totals_sql,
    group_totals,
    sales_cells,
    summarize_cells,
)
from connector.parsing import gc_paused
from dashboard import data

__all__ = [
    "CURRENCY_SYMBOLS",
    "Kpi",
    "aging_frame",
    "comparison_figure",
    "comparison_text",
    "customers_figure",
    "daily_figure",
    "customers_frame",
    "groups_frame",
    "kpis",
    "mix_figure",
    "months_figure",
    "money",
    "plural",
    "products_figure",
    "products_frame",
    "quantity",
    "rejection_figure",
]

CURRENCY_SYMBOLS = data.CURRENCY_SYMBOLS
TYPE_COLORS = {
    "Factura": "#2f80ed",
    "Boleta": "#56ccf2",
    "Nota de crédito": "#eb5757",
    "Nota de débito": "#f2994a",
}
_DAY_MS = 86_400_000


def _percent(comparison: Comparison) -> float | None:
    percent = comparison.percent
    return float(percent) if percent is not None else None


def money(amount: Decimal, currency: str = "PEN") -> str:
    """``S/ 1,234.50`` / ``US$ -12.00``: the full amount, never cut."""
    symbol = CURRENCY_SYMBOLS.get(currency, currency)
    return f"{symbol} {amount:,.2f}"


def quantity(amount: Decimal | float | int) -> str:
    """A quantity as an accountant writes it: ``1,234`` (no stray ``.0``), ``12.5``, ``0.125``."""
    value = Decimal(str(amount)).normalize()
    if value == value.to_integral_value():
        return f"{value:,.0f}"
    return f"{value:,f}"


def plural(count: int, one: str, many: str) -> str:
    """``"1 documento"`` / ``"86 documentos"``."""
    return f"{count:,} {one if count == 1 else many}"


@dataclass(frozen=True)
class Kpi:
    """One KPI card: label, full value, and what it is (the card's help)."""

    label: str
    value: str
    help: str


def _rates_text(summary: SalesSummary) -> str:
    found = summary.rate_range()
    if found is None:
        return ""
    low, high = found
    rates = f"T.C. {low:.3f}" if low == high else f"T.C. de {low:.3f} a {high:.3f}"
    return f" Documentos en otra moneda convertidos cada uno a su tipo de cambio ({rates})."


def kpis(summary: SalesSummary) -> list[Kpi]:
    """The KPI cards: valor de venta, IGV and importe total in soles (consolidated), documents, ICBPER;
    each says what it is and how currencies were handled."""
    soles = summary.soles
    rates = _rates_text(summary)
    left_out = (
        f" Sin {plural(len(summary.unconverted), 'documento', 'documentos')} en moneda extranjera "
        "sin tipo de cambio conocido (ver por moneda)."
        if summary.unconverted
        else ""
    )
    rules = "Notas de crédito restan; anulados y rechazados no cuentan."
    excluded = f" {summary.excluded} anulados o rechazados fuera de las cifras." if summary.excluded else ""
    return [
        Kpi(
            "Valor de venta (sin IGV)",
            money(soles.value),
            "Gravado + exonerado + inafecto + exportación, sin IGV ni ICBPER, en soles. "
            + rules
            + rates
            + left_out,
        ),
        Kpi("IGV", money(soles.igv), "IGV neto de las ventas, en soles. " + rules + rates + left_out),
        Kpi(
            "Importe total",
            money(soles.total),
            "Lo facturado con impuestos (valor de venta + IGV + ICBPER + otros cargos), en soles. "
            + rules
            + rates
            + left_out,
        ),
        Kpi(
            "Documentos",
            f"{summary.listed:,}",
            f"{plural(summary.counted, 'documento cuenta', 'documentos cuentan')} en las cifras." + excluded,
        ),
        Kpi("ICBPER", money(soles.icbper), "Impuesto a las bolsas plásticas, en soles."),
        Kpi(
            "Gratuitas",
            money(soles.free),
            "Valor referencial de las transferencias gratuitas: no es venta, se muestra aparte.",
        ),
    ]


def currency_lines(summary: SalesSummary) -> list[str]:
    """One line per currency: its own figures in its own currency (never added to another)."""
    lines = []
    for currency in summary.currencies:
        amounts = summary.per_currency[currency]
        lines.append(
            f"**{currency}** · {plural(amounts.documents, 'documento', 'documentos')} · valor de venta "
            f"{money(amounts.value, currency)} · IGV {money(amounts.igv, currency)} · total "
            f"{money(amounts.total, currency)}"
        )
    return lines


# --------------------------------------------------------------------------------------------- tables


def _cents(value: Decimal) -> float:
    """A Decimal amount for a table cell or a chart (exact to the cent)."""
    return float(round(value, 2))


def counted_note(summary: SalesSummary) -> str:
    """Why the «Documentos» card and the Totales tables count differently (the card: every document
    listed; the tables: those in the figures), or ``""`` when they agree."""
    in_tables = summary.counted - len(summary.unconverted)
    if in_tables == summary.listed:
        return ""
    parts = []
    if summary.excluded:
        parts.append(f"{plural(summary.excluded, 'anulado o rechazado', 'anulados o rechazados')}")
    if summary.unconverted:
        parts.append(
            f"{plural(len(summary.unconverted), 'documento', 'documentos')} en moneda extranjera sin tipo "
            "de cambio"
        )
    return (
        f"Las tablas cuentan {in_tables:,} documentos, los que entran en las cifras; la tarjeta "
        f"«Documentos» cuenta los {summary.listed:,} emitidos, con {' y '.join(parts)} que no suman."
    )


def groups_frame(
    groups: Sequence[GroupTotal], comparison: Sequence[Comparison] | None = None, *, header: str = "Grupo"
) -> pd.DataFrame:
    """A table of groups (their names under ``header``): documents, valor de venta, IGV, ICBPER, total
    (soles), and the previous period's valor de venta and its change when ``comparison`` is given."""
    frame = pd.DataFrame(
        {
            header: [g.label for g in groups],
            "Documentos": [g.amounts.documents for g in groups],
            "Valor de venta": [_cents(g.amounts.value) for g in groups],
            "IGV": [_cents(g.amounts.igv) for g in groups],
            "ICBPER": [_cents(g.amounts.icbper) for g in groups],
            "Importe total": [_cents(g.amounts.total) for g in groups],
        }
    )
    if comparison is not None:
        previous = {c.key: c for c in comparison}
        keys = [g.key for g in groups]
        frame["Periodo anterior"] = [_cents(previous[k].previous) if k in previous else 0.0 for k in keys]
        frame["Variación %"] = [_percent(previous[k]) if k in previous else None for k in keys]
    return frame


def customers_frame(
    groups: Sequence[GroupTotal], comparison: Sequence[Comparison] | None = None
) -> pd.DataFrame:
    """:func:`groups_frame` of customers: their RUC or DNI beside the name («-» for the anonymous
    buyers of boletas), the largest valor de venta first."""
    frame = groups_frame(groups, comparison, header="Cliente")
    frame.insert(0, "RUC/DNI", [g.key for g in groups])
    return frame.sort_values(
        ["Valor de venta", "Cliente"], ascending=[False, True], kind="stable"
    ).reset_index(drop=True)


def products_frame(products: Sequence[ProductTotal]) -> pd.DataFrame:
    """Products by net valor de venta (soles); the ICBPER column only when some product carries it (a
    column of zeros pushed the totals out of sight at 1280 px)."""
    frame = pd.DataFrame(
        {
            "Código": [p.code for p in products],
            "Producto": [p.description for p in products],
            "Unidad": [p.unit for p in products],
            "Cantidad": [float(p.quantity) for p in products],
            "Documentos": [p.documents for p in products],
            "Valor de venta": [_cents(p.value) for p in products],
            "IGV": [_cents(p.igv) for p in products],
            "ICBPER": [_cents(p.icbper) for p in products],
            "Importe total": [_cents(p.total) for p in products],
        }
    )
    return frame if any(p.icbper for p in products) else frame.drop(columns="ICBPER")


def aging_frame(rows: Sequence[CustomerAging]) -> pd.DataFrame:
    """What each customer owes in one currency (the table's heading names it): the total and what is
    overdue first, where a table narrower than its columns still shows them, then by age bucket."""
    frame = pd.DataFrame(
        {
            "Cliente": [r.customer_name for r in rows],
            "RUC/DNI": [r.customer_number for r in rows],
            "Total": [_cents(r.total) for r in rows],
            "Vencido": [_cents(r.due) for r in rows],
        }
    )
    for age in AGES:
        frame[age] = [_cents(r.buckets.get(age, Decimal(0))) for r in rows]
    return frame


def instalments_frame(items: Sequence[OpenInstalment], today: dt.date) -> pd.DataFrame:
    """Open instalments, the oldest due first."""
    return pd.DataFrame(
        {
            "Documento": [i.document for i in items],
            "Cuota": [i.position for i in items],
            "Cliente": [i.customer_name for i in items],
            "Emisión": [i.issue_date for i in items],
            "Vence": [i.due_date for i in items],
            "Días de atraso": [max(0, i.days_late(today)) for i in items],
            "Antigüedad": [i.age(today) for i in items],
            "Moneda": [i.currency for i in items],
            "Pendiente": [_cents(i.amount) for i in items],
        }
    )


# --------------------------------------------------------------------------------------------- charts


def _layout(fig: go.Figure, title: str, *, legend: bool = True, height: int = 340) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        height=height,
        showlegend=legend,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1},
        separators=".,",
    )
    return fig


def _empty(fig: go.Figure, text: str = "Sin documentos en este rango") -> go.Figure:
    fig.add_annotation(text=text, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


def loading_figure(title: str) -> go.Figure:
    """An empty frame titled like the chart to come, shown while its documents load (the browser
    meanwhile loads plotly's code, so the real chart is drawn as soon as it arrives)."""
    return _empty(_layout(go.Figure(), title, legend=False), "Cargando…")


DAILY_TITLE = "Valor de venta por día y tipo (S/, sin IGV)"
CUSTOMERS_TITLE = "Principales clientes (valor de venta, S/)"


def _day_ticks(start: dt.date, end: dt.date) -> dict[str, Any]:
    """Ticks of a day axis on whole days (plotly put ticks every few hours on a short range: a single
    day read «30/11 30/11 30/11 01/12 01/12»): every day up to two weeks, every week up to a quarter,
    plotly's own (months) beyond."""
    days = (end - start).days + 1
    if days > 92:
        return {}
    return {"tick0": pd.Timestamp(start), "dtick": _DAY_MS * (1 if days <= 14 else 7)}


def daily_figure(sales: Iterable[Sale | SalesCell], start: dt.date, end: dt.date) -> go.Figure:
    """Net valor de venta in soles per day, stacked by document type (credit notes below zero), of
    sales or of their cells (:func:`analysis.sales.sales_cells`)."""
    values: dict[str, dict[dt.date, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    counts: dict[str, dict[dt.date, int]] = defaultdict(lambda: defaultdict(int))
    for sale in sales:
        converted = sale.soles if sale.counted else None
        if converted is None:
            continue
        kind = by_type(sale)[1]  # type: ignore[arg-type]  # a cell keys as its sales do
        values[kind][sale.date] += converted.value
        counts[kind][sale.date] += sale.documents
    return daily_points_figure(
        [(day, kind, values[kind][day], counts[kind][day]) for kind in values for day in values[kind]],
        start,
        end,
    )


def daily_points_figure(
    points: Iterable[tuple[dt.date, str, Decimal, int]], start: dt.date, end: dt.date
) -> go.Figure:
    """:func:`daily_figure` of its points: (day, type name, valor de venta in soles, documents)."""
    values: dict[str, dict[dt.date, Decimal]] = defaultdict(dict)
    counts: dict[str, dict[dt.date, int]] = defaultdict(dict)
    for day, kind, value, documents in points:
        values[kind][day] = value
        counts[kind][day] = documents
    fig = go.Figure()
    for kind, days in values.items():
        ordered = sorted(days)
        fig.add_trace(
            go.Bar(
                x=[pd.Timestamp(d) for d in ordered],
                y=[_cents(days[d]) for d in ordered],
                name=kind,
                marker_color=TYPE_COLORS.get(kind),
                customdata=[counts[kind][d] for d in ordered],
                width=_DAY_MS * 0.8,
                hovertemplate="%{x|%d/%m/%Y}<br>S/ %{y:,.2f}<br>%{customdata} doc.<extra>"
                + kind
                + "</extra>",
            )
        )
    fig.update_layout(
        barmode="relative",
        xaxis={
            "type": "date",
            "tickformat": "%d/%m",
            "range": [
                pd.Timestamp(start) - pd.Timedelta(hours=12),
                pd.Timestamp(end) + pd.Timedelta(hours=12),
            ],
            **_day_ticks(start, end),
        },
        yaxis={"tickprefix": "S/ ", "tickformat": ",.0f"},
    )
    _layout(fig, DAILY_TITLE)
    return fig if values else _empty(fig)


def comparison_figure(comparison: Sequence[Comparison], title: str) -> go.Figure:
    """Bars of each group now and in the previous period (valor de venta in soles)."""
    fig = go.Figure(
        [
            go.Bar(
                x=[c.label for c in comparison],
                y=[_cents(c.previous) for c in comparison],
                name="Periodo anterior",
                marker_color="#bdbdbd",
                hovertemplate="%{x}<br>S/ %{y:,.2f}<extra>Periodo anterior</extra>",
            ),
            go.Bar(
                x=[c.label for c in comparison],
                y=[_cents(c.current) for c in comparison],
                name="Periodo elegido",
                marker_color="#2f80ed",
                hovertemplate="%{x}<br>S/ %{y:,.2f}<extra>Periodo elegido</extra>",
            ),
        ]
    )
    fig.update_layout(barmode="group", yaxis={"tickprefix": "S/ ", "tickformat": ",.0f"})
    _layout(fig, title)
    return fig if comparison else _empty(fig)


def _dates(period: tuple[dt.date, dt.date]) -> str:
    return f"{period[0]:%d/%m/%Y} – {period[1]:%d/%m/%Y}"


def comparison_text(chosen: tuple[dt.date, dt.date], previous: tuple[dt.date, dt.date]) -> str:
    """What a period is compared with, in words: the month before, the same days of the month before (a
    month so far), or the same number of days before (:func:`analysis.sales.previous_period`)."""
    start, end = chosen
    whole_months = start.day == 1 and (end + dt.timedelta(days=1)).day == 1
    if whole_months:
        months = (end.year - start.year) * 12 + end.month - start.month + 1
        what = "el mes anterior" if months == 1 else f"los {months} meses anteriores"
    elif start.day == 1 and previous[0].day == 1 and (end.year, end.month) == (start.year, start.month):
        what = "los mismos días del mes anterior"
    else:
        what = f"los {plural((end - start).days + 1, 'día anterior', 'días anteriores')}"
        what = what.replace("los 1 día", "el día")
    return f"Del {start:%d/%m/%Y} al {end:%d/%m/%Y}, comparado con {what} ({_dates(previous)})"


def months_figure(
    sales: Iterable[Sale],
    previous: Iterable[Sale],
    chosen: tuple[dt.date, dt.date],
    before: tuple[dt.date, dt.date],
) -> go.Figure:
    """Valor de venta per month (soles): the months of the previous period in gray, those of the chosen
    period in blue, each trace naming its dates (a month so far is compared with the same days)."""
    return months_groups_figure(
        group_totals(sales, by_month)[0], group_totals(previous, by_month)[0], chosen, before
    )


def months_groups_figure(
    groups: Sequence[GroupTotal],
    previous: Sequence[GroupTotal],
    chosen: tuple[dt.date, dt.date],
    before: tuple[dt.date, dt.date],
) -> go.Figure:
    """:func:`months_figure` of the two periods' month groups (:func:`analysis.sales.group_totals` or
    of :func:`~analysis.sales.sales_cells`, with ``by_month``)."""
    fig = go.Figure()
    for label, part, period, color in (
        ("Anterior", previous, before, "#bdbdbd"),
        ("Elegido", groups, chosen, "#2f80ed"),
    ):
        name = f"{label} ({_dates(period)})"
        fig.add_trace(
            go.Bar(
                x=[g.label for g in part],
                y=[_cents(g.amounts.value) for g in part],
                name=name,
                marker_color=color,
                hovertemplate=f"%{{x}}<br>S/ %{{y:,.2f}}<extra>{name}</extra>",
            )
        )
    fig.update_layout(xaxis={"type": "category"}, yaxis={"tickprefix": "S/ ", "tickformat": ",.0f"})
    _layout(fig, MONTHS_TITLE)
    # the periods' names are long: under the chart, where they never run into the title
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.12, "xanchor": "left", "x": 0})
    return fig if any(len(trace.x) for trace in fig.data) else _empty(fig)


MONTHS_TITLE = "Valor de venta por mes (S/)"


def customers_figure(groups: Sequence[GroupTotal], n: int = 10) -> go.Figure:
    """The ``n`` customers with the largest net valor de venta (soles), the best on top."""
    best = sorted(groups, key=lambda g: g.amounts.value, reverse=True)[:n][::-1]
    fig = go.Figure(
        go.Bar(
            x=[_cents(g.amounts.value) for g in best],
            y=[_short(g.label) for g in best],
            orientation="h",
            marker_color="#2f80ed",
            customdata=[[g.key, g.amounts.documents] for g in best],
            hovertemplate="%{y}<br>%{customdata[0]}<br>S/ %{x:,.2f} · %{customdata[1]} doc.<extra></extra>",
        )
    )
    fig.update_xaxes(tickprefix="S/ ", tickformat=",.0f")
    _layout(fig, CUSTOMERS_TITLE, legend=False)
    return fig if best else _empty(fig)


def products_figure(products: Sequence[ProductTotal], n: int = 10) -> go.Figure:
    """The ``n`` products with the largest net valor de venta (soles)."""
    best = list(products[:n])[::-1]
    fig = go.Figure(
        go.Bar(
            x=[_cents(p.value) for p in best],
            y=[_short(p.description or p.code) for p in best],
            orientation="h",
            marker_color="#27ae60",
            customdata=[[p.code, float(p.quantity)] for p in best],
            hovertemplate="%{y}<br>%{customdata[0]} · %{customdata[1]:,} u.<br>S/ %{x:,.2f}<extra></extra>",
        )
    )
    fig.update_xaxes(tickprefix="S/ ", tickformat=",.0f")
    _layout(fig, "Principales productos (valor de venta, S/)", legend=False)
    return fig if best else _empty(fig, "Sin líneas de productos")


MIX_COLORS = ["#2f80ed", "#27ae60", "#f2c94c", "#9b51e0", "#bdbdbd"]


def mix_figure(mix: dict[str, Decimal]) -> go.Figure:
    """The net amounts by affectation (soles) as a donut; gratuitas at their referential value."""
    shown = {k: v for k, v in mix.items() if v > 0}
    whole = sum(shown.values(), Decimal(0))
    shares = [v * 100 / whole for v in shown.values()] if whole else []
    fig = go.Figure(
        go.Pie(
            labels=list(shown),
            values=[_cents(v) for v in shown.values()],
            hole=0.5,
            marker={"colors": MIX_COLORS[: len(shown)]},
            # a share under 1 % is not written on the ring ("0.00472%"): the hover gives it
            text=[f"{share:.1f} %" if share >= 1 else "" for share in shares],
            textinfo="text",
            customdata=[f"{share:.2f} %" for share in shares],
            hovertemplate="%{label}<br>S/ %{value:,.2f} (%{customdata})<extra></extra>",
            sort=False,
        )
    )
    _layout(fig, "Mezcla por afectación (S/)")
    # a donut's legend goes under it: at the top (as the bar charts have it) it covers the title
    fig.update_layout(
        legend={"orientation": "h", "yanchor": "top", "y": -0.02, "xanchor": "center", "x": 0.5},
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
    )
    return fig if shown else _empty(fig)


def rejection_figure(rates: Sequence[DayRate]) -> go.Figure:
    """Rejected over judged documents (facturas and their notes) per day, in percent."""
    fig = go.Figure(
        go.Scatter(
            x=[pd.Timestamp(r.day) for r in rates],
            y=[float(r.rate) for r in rates],
            mode="lines+markers",
            line={"color": "#eb5757"},
            customdata=[[r.rejected, r.judged] for r in rates],
            hovertemplate="%{x|%d/%m/%Y}<br>%{y:.1f} %<br>%{customdata[0]} de %{customdata[1]}"
            "<extra></extra>",
        )
    )
    fig.update_layout(
        xaxis={"type": "date", "tickformat": "%d/%m"}, yaxis={"ticksuffix": " %", "rangemode": "tozero"}
    )
    _layout(fig, "Tasa de rechazo por día (facturas y notas)", legend=False)
    return fig if rates else _empty(fig)


def _short(text: str, width: int = 30) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def alert_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """An alert's rows as a table (Decimal amounts as cents)."""
    frame = pd.DataFrame(list(rows))
    for column in frame.columns:
        if len(frame) and isinstance(frame[column].iloc[0], Decimal):
            frame[column] = [_cents(v) for v in frame[column]]
    return frame


@dataclass(frozen=True)
class DocumentsView:
    """What the Documents page shows of a range and the filters picked, out of SQL over the documents
    (:class:`dashboard.data.Scope`): built once per range and filters, reused by every rerun."""

    count: int
    summary: SalesSummary
    daily: go.Figure
    states: go.Figure
    customers: go.Figure
    table: pd.DataFrame


#: Customers the customers chart shows.
TOP_CUSTOMERS = 10


def documents_view(scope: data.Scope, table_rows: int | None = None) -> DocumentsView:
    """The KPIs, the three charts and the table (the newest ``table_rows``, default
    :data:`dashboard.data.TABLE_ROWS`) of ``scope``'s documents:
    aggregates computed in SQL by :mod:`analysis.sales`' rules, one row per group, never per document."""
    run, source, values = scope.run, scope.source, scope.parameters
    with gc_paused():
        cells = sales_cells(run, source, values)
        return DocumentsView(
            sum(cell.documents for cell in cells),
            summarize_cells(cells, run, source, values),
            daily_figure(cells, scope.start, scope.end),
            data.state_counts_figure(data.cell_state_totals(cells)),
            customers_figure(customer_totals_sql(run, source, values, top=TOP_CUSTOMERS)),
            scope.table(data.TABLE_ROWS if table_rows is None else table_rows),
        )
