"""Periodos: a month or a range, its totals by month, series, document type, product and customer
(valor de venta, IGV, ICBPER and total, in soles), compared with the previous period, and the charts an
analyst reads at a glance (sales by day and month against the previous period, mix by affectation, top
products and customers, rejection rate by day)."""

from __future__ import annotations

from datetime import date

import streamlit as st

from analysis.sales import (
    SalesCell,
    by_customer,
    by_month,
    by_series,
    by_type,
    compare_months,
    compare_periods,
    customer_totals_sql,
    group_totals,
    has_lines_sql,
    mix_of,
    previous_period,
    product_totals_sql,
    rejection_rate,
    sales_cells,
    summarize_cells,
)
from connector import FacturadorError
from dashboard import charts, data, figures
from dashboard.data import Scope
from dashboard.session import forget_connection, require_connection, scoped
from dashboard.widgets import data_table, pick_period, show_kpis

AMOUNTS = ("Valor de venta", "IGV", "ICBPER", "Importe total", "Periodo anterior")
GROUPS = {
    "Mes": by_month,
    "Serie": by_series,
    "Tipo de documento": by_type,
    "Cliente": by_customer,
}


def _table(frame, key: str) -> None:  # type: ignore[no-untyped-def]
    config = {name: st.column_config.NumberColumn(name, format="%,.2f") for name in AMOUNTS if name in frame}
    if "Variación %" in frame:
        config["Variación %"] = st.column_config.NumberColumn(
            "Variación %",
            format="%+.1f %%",
            help="Cambio del valor de venta frente al periodo anterior. En blanco cuando el periodo "
            "anterior no tiene una base positiva: sin ventas, o negativa (notas de crédito), donde un "
            "porcentaje no se lee bien.",
        )
    data_table(frame, hide_index=True, column_config=config, key=key, width="stretch")


def _largest_customers(frame, chosen: tuple[date, date]):  # type: ignore[no-untyped-def]
    """The customers' table as shown: at most :data:`~dashboard.data.TABLE_ROWS` rows, the largest by
    valor de venta, and every customer in a CSV (a year of a large tenant has tens of thousands)."""
    if len(frame) <= data.TABLE_ROWS:
        return frame
    start, end = chosen
    st.caption(
        f"La tabla muestra los {data.TABLE_ROWS:,} clientes de mayor valor de venta de {len(frame):,}; "
        "el CSV los tiene todos."
    )
    st.download_button(
        "CSV de todos los clientes",
        data=lambda: frame.to_csv(index=False, float_format="%.2f").encode("utf-8-sig"),
        file_name=f"clientes_{start:%Y%m%d}_{end:%Y%m%d}.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",
        key="periods_customers_csv",
    )
    return frame.sort_values("Valor de venta", ascending=False, kind="stable").head(data.TABLE_ROWS)


def _cells(scope: Scope) -> list[SalesCell]:
    return scope.memo(("cells",), lambda: sales_cells(scope.run, scope.source, scope.parameters))


def _groups(scope: Scope, key):  # type: ignore[no-untyped-def]
    """The period's groups by ``key``: over its cells, or by customer in SQL (cells have none)."""
    if key is by_customer:
        return scope.memo(
            ("customers",), lambda: customer_totals_sql(scope.run, scope.source, scope.parameters)
        )
    return group_totals(_cells(scope), key)[0]  # type: ignore[arg-type]  # cells stand for sales


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Periodos", anchor=False)
    picked = pick_period("periods")
    if picked is None:
        return
    start, end = picked
    before = previous_period(start, end)
    try:
        with st.spinner("Cargando documentos…"):
            now = scoped(active, start, end, details=True)
            then = scoped(active, *before, details=False)
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo cargar los documentos: {exc.message}")
        return
    st.caption(
        f"{figures.comparison_text((start, end), before)}. Cifras en soles: cada documento en otra moneda "
        "convertido a su propio tipo de cambio; notas de crédito restan; anulados y rechazados no cuentan."
    )
    summary = now.memo(
        ("summary",), lambda: summarize_cells(_cells(now), now.run, now.source, now.parameters)
    )
    show_kpis(summary)
    if not summary.listed:
        st.info(f"No hay documentos emitidos entre el {start:%d/%m/%Y} y el {end:%d/%m/%Y}.")
        return
    products, without_lines, products_left_out = now.memo(
        ("products",), lambda: product_totals_sql(now.run, now.source, now.parameters)
    )
    _charts(now, then, summary, products, (start, end), before)
    st.subheader("Totales", anchor=False)
    counted = figures.counted_note(summary)
    if counted:
        st.caption(counted)
    tabs = st.tabs([*GROUPS, "Producto"])
    for tab, (name, key) in zip(tabs, GROUPS.items(), strict=False):
        with tab:
            groups, prev_groups = _groups(now, key), _groups(then, key)
            compare = compare_months if key is by_month else compare_periods
            if key is by_customer:
                frame = _largest_customers(
                    figures.customers_frame(groups, compare(groups, prev_groups)), (start, end)
                )
            else:
                frame = figures.groups_frame(groups, compare(groups, prev_groups), header=name)
            _table(frame, f"periods_{name}")
            if summary.unconverted:
                st.caption(f"Sin tipo de cambio (fuera de estos totales): {', '.join(summary.unconverted)}")
    with tabs[-1]:
        if not now.memo(("lines",), lambda: has_lines_sql(now.run, now.source, now.parameters)):
            st.info(
                "Este servicio no envía las líneas de los documentos en sus listas: las ventas por producto "
                "no están disponibles.",
                icon=":material/info:",
            )
        else:
            config = {n: st.column_config.NumberColumn(n, format="%,.2f") for n in AMOUNTS}
            data_table(
                figures.products_frame(products),
                hide_index=True,
                column_config=config,
                key="periods_products",
            )
            if without_lines or products_left_out:
                left_out = ", ".join(products_left_out)
                st.caption(f"{without_lines} documentos sin líneas; sin tipo de cambio: {left_out}")


def _charts(
    now: Scope, then: Scope, summary, products, chosen: tuple[date, date], before: tuple[date, date]
) -> None:  # type: ignore[no-untyped-def]
    charts.show(figures.daily_figure(_cells(now), *chosen), key="periods_daily")
    left, right = st.columns(2)
    charts.show(
        figures.comparison_figure(
            compare_periods(_groups(now, by_type), _groups(then, by_type)),
            "Por tipo: periodo elegido y anterior (S/)",
        ),
        key="periods_compare",
        where=left,
    )
    charts.show(
        figures.months_groups_figure(_groups(now, by_month), _groups(then, by_month), chosen, before),
        key="periods_months",
        where=right,
    )
    left, right = st.columns(2)
    charts.show(figures.mix_figure(mix_of(summary)), key="periods_mix", where=left)
    rates = rejection_rate(_cells(now))  # type: ignore[arg-type]  # cells stand for sales
    charts.show(figures.rejection_figure(rates), key="periods_rejections", where=right)
    left, right = st.columns(2)
    charts.show(figures.products_figure(products), key="periods_products_chart", where=left)
    customers = _groups(now, by_customer)
    charts.show(figures.customers_figure(customers), key="periods_customers", where=right)


main()
