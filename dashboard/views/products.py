"""Productos page: search the products of the tenant, register or edit one, and for a picked product its
stock per warehouse, its kardex and a form to put stock in or take it out.

Everything goes through ``client.items`` (:mod:`connector.items`) and ``client.inventory``
(:mod:`connector.inventory`).
"""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import streamlit as st

from connector import FacturadorError
from connector.inventory import KardexMove
from connector.items import Product
from dashboard import figures
from dashboard.session import Active, flash, require_connection, show_flash
from dashboard.widgets import data_table, failed, refusal
from sunat.catalogs import AFFECTATIONS, INVENTORY_INPUT_TYPES, INVENTORY_OUTPUT_TYPES

UNITS = {
    "NIU": "Unidad (bienes)",
    "ZZ": "Unidad (servicios)",
    "KGM": "Kilogramo",
    "LTR": "Litro",
    "BX": "Caja",
}
MOVES = {"input": "Entrada", "output": "Salida"}


def _create_form(active: Active) -> None:
    """Register a product with its initial stock."""
    with st.form("item_form", clear_on_submit=False):
        st.subheader("Nuevo producto", anchor=False)
        left, right = st.columns(2)
        code = left.text_input("Código interno", key="item_code")
        description = right.text_input("Descripción", key="item_description")
        price = left.number_input(
            "Precio de venta (con IGV)", min_value=0.0, value=0.0, step=0.1, format="%.2f", key="item_price"
        )
        stock = right.number_input("Stock inicial", min_value=0.0, value=0.0, key="item_stock")
        unit = left.selectbox("Unidad", list(UNITS), format_func=UNITS.__getitem__, key="item_unit")
        affectation = right.selectbox(
            "Afectación IGV", list(AFFECTATIONS), format_func=AFFECTATIONS.__getitem__, key="item_affectation"
        )
        submitted = st.form_submit_button("Registrar producto", type="primary", icon=":material/add_box:")
    if not submitted:
        return
    try:
        product = active.client.items.create(
            code=code.strip(),
            description=description.strip(),
            sale_price=Decimal(str(price)),
            unit=unit,
            affectation=affectation,
            stock=Decimal(str(stock)),
        )
    except FacturadorError as exc:
        st.error(refusal("No se registró el producto", exc), icon=":material/error:")
        return
    st.session_state["item_picked"] = product.id
    flash("success", f"Producto **{product.code}** · {product.description} registrado.")
    st.rerun()


def _edit_form(active: Active, product: Product) -> None:
    """Edit the description and price of the picked product."""
    with st.form("item_edit_form"):
        st.subheader("Editar producto", anchor=False)
        left, right = st.columns(2)
        code = left.text_input("Código interno", value=product.code, key=f"item_edit_code_{product.id}")
        description = right.text_input(
            "Descripción", value=product.description, key=f"item_edit_description_{product.id}"
        )
        price = left.number_input(
            "Precio de venta",
            min_value=0.0,
            value=float(product.sale_price),
            format="%.2f",
            key=f"item_edit_price_{product.id}",
        )
        submitted = st.form_submit_button("Guardar cambios", icon=":material/save:")
    if not submitted:
        return
    try:
        saved = active.client.items.update(
            product.id, code=code.strip(), description=description.strip(), sale_price=Decimal(str(price))
        )
    except FacturadorError as exc:
        st.error(refusal("No se guardó el producto", exc), icon=":material/error:")
        return
    flash("success", f"Producto **{saved.code}** actualizado.")
    st.rerun()


def _move_form(active: Active, product: Product) -> None:
    """Put stock of the picked product in or take it out of a warehouse."""
    st.subheader("Entrada / salida de inventario", anchor=False)
    kind = st.radio(
        "Movimiento", list(MOVES), format_func=MOVES.__getitem__, horizontal=True, key="move_kind"
    )
    types = INVENTORY_INPUT_TYPES if kind == "input" else INVENTORY_OUTPUT_TYPES
    with st.form("move_form"):
        left, middle, right = st.columns(3)
        transaction = left.selectbox(
            "Tipo de operación",
            list(types),
            format_func=lambda c: f"{c} · {types[c]}",
            key=f"move_type_{kind}",
        )
        quantity = middle.number_input("Cantidad", min_value=0.0, value=1.0, key="move_quantity")
        warehouses = {w.warehouse_id: w.description for w in product.warehouses}
        warehouse = right.selectbox(
            "Almacén",
            [None, *warehouses],
            format_func=lambda w: "Almacén principal" if w is None else warehouses[w],
            key="move_warehouse",
        )
        submitted = st.form_submit_button("Registrar movimiento", icon=":material/swap_vert:")
    if not submitted:
        return
    move = active.client.inventory.add if kind == "input" else active.client.inventory.remove
    try:
        message = move(product.code, Decimal(str(quantity)), transaction=transaction, warehouse_id=warehouse)
    except FacturadorError as exc:
        st.error(refusal("No se registró el movimiento", exc), icon=":material/error:")
        return
    flash("success", message or f"{MOVES[kind]} registrada.")
    st.rerun()


def _detail(active: Active, product: Product) -> None:
    """Stock per warehouse and kardex of the picked product, then its forms."""
    st.subheader(f"{product.code} · {product.description}", anchor=False)
    left, right = st.columns([1, 2])
    left.metric("Stock total", figures.quantity(product.stock))
    with left:
        data_table(
            pd.DataFrame(
                {
                    "Almacén": [w.description for w in product.warehouses],
                    "Stock": [float(w.stock) for w in product.warehouses],
                }
            ),
            hide_index=True,
            key="item_warehouses",
        )
    try:
        moves: list[KardexMove] = active.client.inventory.kardex(product.id, fresh=True)
    except FacturadorError as exc:
        failed("No se pudo cargar el kárdex", exc, right)
        moves = []
    right.caption("Kárdex")
    with right:
        data_table(
            pd.DataFrame(
                {
                    # the service's time (UTC) in Lima's
                    "Fecha": pd.to_datetime([m.date for m in moves], errors="coerce", utc=True)
                    .tz_convert("America/Lima")
                    .tz_localize(None),
                    "Operación": [m.transaction_description or m.transaction for m in moves],
                    "Cantidad": [float(m.quantity) for m in moves],
                    "Saldo": [float(m.balance) for m in moves],
                    "Detalle": [m.description for m in moves],
                }
            ),
            hide_index=True,
            key="item_kardex",
            column_config={"Fecha": st.column_config.DatetimeColumn("Fecha", format="DD/MM/YYYY HH:mm")},
        )
    _move_form(active, product)
    _edit_form(active, product)


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Productos", anchor=False)
    st.caption("Productos de la empresa: búscalos, regístralos o edítalos, y mueve su stock con su kárdex.")
    show_flash()
    search = st.text_input("Buscar por descripción o código", key="item_search")
    try:
        products: list[Product] = active.client.items.search(search.strip(), limit=100, fresh=True)
    except FacturadorError as exc:
        st.error(refusal("No se pudo cargar los productos", exc))
        products = []
    by_id = {p.id: p for p in products}
    if not products:
        st.info(
            "No hay productos que coincidan." if search else "Aún no hay productos.", icon=":material/info:"
        )
    else:
        data_table(
            [
                {
                    "Código": p.code,
                    "Descripción": p.description,
                    "Unidad": p.unit,
                    "Moneda": p.currency,
                    "Precio": float(p.sale_price),
                    "Stock": float(p.stock),
                }
                for p in products
            ],
            hide_index=True,
            key="item_table",
        )
        if st.session_state.get("item_picked") not in by_id:
            st.session_state.pop("item_picked", None)
        picked = st.selectbox(
            "Producto",
            list(by_id),
            index=None,
            format_func=lambda i: f"{by_id[i].code} · {by_id[i].description}",
            key="item_picked",
            placeholder="Elige un producto para ver su stock y kárdex",
        )
        if picked is not None:
            _detail(active, by_id[picked])
    _create_form(active)


main()
