"""Análisis comercial page: over a date range, sales by product and by customer (top N; documents plus
the sale notes not converted yet), the stock valuation (stock × cost and × sale price, per warehouse)
and the quotations converted into sale notes versus those still open.

Figures come from :mod:`dashboard.commerce` (pure functions, Decimal money); data from the connector:
``client.documents.list(..., details=True)``, ``client.sale_notes.list``, ``client.items.search`` and
``client.quotations.list``.
"""

from __future__ import annotations

from datetime import date

import streamlit as st

from connector import FacturadorError
from dashboard import charts, commerce, figures
from dashboard.session import Active, loaded, require_connection
from dashboard.widgets import data_table, pick_range, refusal

#: The stock table's columns, sized so the last («Valor a precio de venta») is in view at 1440 px.
STOCK_COLUMNS = {
    "Código": st.column_config.TextColumn("Código", width=80),
    "Producto": st.column_config.TextColumn("Producto", width=170),
    "Almacén": st.column_config.TextColumn("Almacén", width=110),
    "Moneda": st.column_config.TextColumn("Moneda", width=62),
    "Stock": st.column_config.NumberColumn("Stock", format="%,.2f", width=70),
    "Costo unitario": st.column_config.NumberColumn("Costo unitario", format="%,.2f", width=95),
    "Precio de venta": st.column_config.NumberColumn("Precio de venta", format="%,.2f", width=100),
    "Valor al costo": st.column_config.NumberColumn("Valor al costo", format="%,.2f", width=100),
    "Valor a precio de venta": st.column_config.NumberColumn(
        "Valor a precio de venta", format="%,.2f", width=150
    ),
}


def _range() -> tuple[date, date] | None:
    return pick_range(
        "Rango de fechas de emisión",
        "commerce_range",
        help="Fechas de emisión de documentos, notas de venta y cotizaciones, ambas incluidas.",
    )


def _sales(active: Active, start: date, end: date, top: int) -> None:
    st.subheader("Ventas por producto y por cliente", anchor=False)
    try:
        got = loaded(active, start, end, details=True)
        notes = active.client.sale_notes.list(start=start, end=end, details=True, fresh=True)
    except FacturadorError as exc:
        st.error(refusal("No se pudo cargar las ventas", exc))
        return
    if not notes.complete:  # real tenants answer only their latest notes
        st.info(f"{notes.note} Las cifras llevan solo esas notas de venta.", icon=":material/info:")
    view = commerce.sales_view(list(got.sales.values()), notes, top)
    st.caption(
        "Valor de venta en soles de facturas, boletas y notas (las de crédito restan; las rechazadas y "
        "anuladas no cuentan) más las notas de venta aún sin comprobante."
    )
    left, right = st.columns(2)
    charts.show(figures.products_figure(view.products, top), key="commerce_products", where=left)
    charts.show(figures.customers_figure(view.customers, top), key="commerce_customers", where=right)
    if view.products:
        data_table(figures.products_frame(view.products), hide_index=True, key="commerce_products_table")
    if view.customers:
        customers = figures.groups_frame(view.customers).rename(columns={"Grupo": "Cliente"})
        data_table(customers, hide_index=True, key="commerce_customers_table")
    if view.without_lines:
        st.caption(f"{figures.plural(view.without_lines, 'documento', 'documentos')} sin líneas listadas.")
    if view.unconverted:
        st.warning(
            "Sin tipo de cambio, fuera de las cifras en soles: " + ", ".join(view.unconverted[:10]),
            icon=":material/currency_exchange:",
        )


def _stock(active: Active) -> None:
    st.subheader("Valorización del stock", anchor=False)
    try:
        products = active.client.items.list(fresh=True)
    except FacturadorError as exc:
        st.error(refusal("No se pudo cargar los productos", exc))
        return
    values = commerce.stock_values(products)
    if not values:
        st.info("No hay productos con stock.", icon=":material/info:")
        return
    totals = commerce.stock_totals(values)
    cols = st.columns(min(4, len(totals) * 2))
    for index, ((warehouse, currency), (cost, price)) in enumerate(sorted(totals.items())):
        place = warehouse or "Almacén"
        cols[(2 * index) % len(cols)].metric(f"{place} · al costo", figures.money(cost, currency))
        cols[(2 * index + 1) % len(cols)].metric(
            f"{place} · a precio de venta", figures.money(price, currency)
        )
    charts.show(commerce.stock_figure(values), key="commerce_stock")
    data_table(
        commerce.stock_frame(values),
        hide_index=True,
        key="commerce_stock_table",
        column_config=STOCK_COLUMNS,
    )
    if not products.complete:
        st.caption(
            f"Se valorizan los primeros {len(products)} productos por descripción: este servicio no "
            "da los siguientes."
        )


def _quotations(active: Active, start: date, end: date) -> None:
    st.subheader("Cotizaciones convertidas y abiertas", anchor=False)
    try:
        quotations = active.client.quotations.list(start=start, end=end, fresh=True)
    except FacturadorError as exc:
        st.error(refusal("No se pudo cargar las cotizaciones", exc))
        return
    if not quotations.complete:  # real tenants answer only their latest quotations
        st.info(f"{quotations.note} Las cifras llevan solo esas cotizaciones.", icon=":material/info:")
    rows = commerce.conversions(quotations)
    if not rows:
        st.info("No hay cotizaciones en este rango.", icon=":material/info:")
        return
    for row in rows:
        cols = st.columns(3)
        cols[0].metric(
            f"Convertidas ({row.currency})",
            f"{row.converted} · {figures.money(row.converted_amount, row.currency)}",
        )
        cols[1].metric(
            f"Abiertas ({row.currency})", f"{row.open} · {figures.money(row.open_amount, row.currency)}"
        )
        cols[2].metric(f"Tasa de conversión ({row.currency})", f"{(row.rate or 0) * 100:.0f} %")
    charts.show(commerce.conversion_figure(rows), key="commerce_quotations")


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Análisis comercial", anchor=False)
    top, size = st.columns([4, 1], vertical_alignment="bottom")
    with top:
        picked = _range()
    n = size.number_input("Top N", min_value=3, max_value=50, value=10, step=1, key="commerce_top")
    if picked is None:
        return
    start, end = picked
    _sales(active, start, end, int(n))
    _stock(active)
    _quotations(active, start, end)


main()
