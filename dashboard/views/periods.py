"""Periodos: a month or a range, its totals by month, series, document type, product and customer
(valor de venta, IGV, ICBPER and total, in soles), compared with the previous period, and the charts an
analyst reads at a glance (sales by day and month against the previous period, mix by affectation, top
products and customers, rejection rate by day)."""

from __future__ import annotations

from datetime import date

import streamlit as st

from analysis.sales import (
    affectation_mix,
    by_customer,
    by_month,
    by_series,
    by_type,
    compare_months,
    compare_periods,
    group_totals,
    previous_period,
    product_totals,
    rejection_rate,
    summarize,
)
from connector import FacturadorError
from dashboard import figures
from dashboard.session import forget_connection, loaded, require_connection
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
        config["Variación %"] = st.column_config.NumberColumn("Variación %", format="%+.1f %%")
    data_table(frame, hide_index=True, column_config=config, key=key, width="stretch")


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
            now = loaded(active, start, end, details=True)
            then = loaded(active, *before, details=False)
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo cargar los documentos: {exc.message}")
        return
    sales, previous = now.all_sales, then.all_sales
    st.caption(
        f"{figures.comparison_text((start, end), before)}. Cifras en soles: cada documento en otra moneda "
        "convertido a su propio tipo de cambio; notas de crédito restan; anulados y rechazados no cuentan."
    )
    show_kpis(summarize(sales))
    if not sales:
        st.info(f"No hay documentos emitidos entre el {start:%d/%m/%Y} y el {end:%d/%m/%Y}.")
        return
    _charts(sales, previous, (start, end), before)
    st.subheader("Totales", anchor=False)
    tabs = st.tabs([*GROUPS, "Producto"])
    for tab, (name, key) in zip(tabs, GROUPS.items(), strict=False):
        with tab:
            groups, left_out = group_totals(sales, key)
            prev_groups, _ = group_totals(previous, key)
            compare = compare_months if key is by_month else compare_periods
            _table(figures.groups_frame(groups, compare(groups, prev_groups)), f"periods_{name}")
            if left_out:
                st.caption(f"Sin tipo de cambio (fuera de estos totales): {', '.join(left_out)}")
    with tabs[-1]:
        products, without_lines, left_out = product_totals(sales)
        if not now.has_details:
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
            if without_lines or left_out:
                st.caption(
                    f"{without_lines} documentos sin líneas; sin tipo de cambio: {', '.join(left_out)}"
                )


def _charts(sales, previous, chosen: tuple[date, date], before: tuple[date, date]) -> None:  # type: ignore[no-untyped-def]
    st.plotly_chart(figures.daily_figure(sales, *chosen), width="stretch", key="periods_daily")
    left, right = st.columns(2)
    left.plotly_chart(
        figures.comparison_figure(
            compare_periods(group_totals(sales, by_type)[0], group_totals(previous, by_type)[0]),
            "Por tipo: periodo elegido y anterior (S/)",
        ),
        width="stretch",
        key="periods_compare",
    )
    right.plotly_chart(
        figures.months_figure(sales, previous, chosen, before), width="stretch", key="periods_months"
    )
    left, right = st.columns(2)
    mix, _ = affectation_mix(sales)
    left.plotly_chart(figures.mix_figure(mix), width="stretch", key="periods_mix")
    right.plotly_chart(
        figures.rejection_figure(rejection_rate(sales)), width="stretch", key="periods_rejections"
    )
    left, right = st.columns(2)
    products, _, _ = product_totals(sales)
    left.plotly_chart(figures.products_figure(products), width="stretch", key="periods_products_chart")
    customers, _ = group_totals(sales, by_customer)
    right.plotly_chart(figures.customers_figure(customers), width="stretch", key="periods_customers")


main()
