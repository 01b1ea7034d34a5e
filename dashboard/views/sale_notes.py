"""Notas de venta / Cotizaciones page: a form whose line totals the connector's builders compute live
(:class:`~connector.backoffice.SaleNote`, :class:`~connector.backoffice.Quotation`), the quotations list
with its totals, the sale notes issued in this session, their PDFs, and the conversion of a sale note
into a factura or boleta with one action.

Everything goes through ``client.sale_notes``, ``client.quotations``, ``client.persons`` and
``client.items``. The service has no list of sale notes, so the page lists the ones this session issued.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import streamlit as st

from connector import FacturadorError
from connector.backoffice import NoteLine, Person, Product, Quotation, SaleNote, SaleNoteRef
from dashboard.downloads import download_button
from dashboard.session import Active, flash, require_connection, show_flash
from dashboard.widgets import refusal

KINDS = {"sale_note": "Nota de venta", "quotation": "Cotización"}
CPE = {"03": "Boleta", "01": "Factura"}
#: Line rows of the form.
ROWS = 4


def _book(active: Active) -> list[dict[str, Any]]:
    """The sale notes this session issued on the active tenant (newest first)."""
    books: dict[str, list[dict[str, Any]]] = st.session_state.setdefault("_sale_notes", {})
    return books.setdefault(active.key, [])


def _lines(products: dict[int, Product]) -> list[NoteLine]:
    """The line rows of the form that name a product, as builder lines (price 0: the product's)."""
    lines = []
    for row in range(ROWS):
        left, middle, right = st.columns([3, 1, 1])
        item = left.selectbox(
            f"Producto {row + 1}",
            list(products),
            index=None,
            format_func=lambda i: f"{products[i].code} · {products[i].description}",
            key=f"note_item_{row}",
            placeholder="Elige un producto",
        )
        quantity = middle.number_input("Cantidad", min_value=0.0, value=1.0, key=f"note_quantity_{row}")
        price = right.number_input(
            "Precio c/IGV",
            min_value=0.0,
            value=0.0,
            format="%.2f",
            key=f"note_price_{row}",
            help="0: el precio de venta del producto",
        )
        if item is None or quantity <= 0:
            continue
        product = products[item]
        unit_price = Decimal(str(price)) if price > 0 else product.sale_price
        lines.append(
            NoteLine(
                Decimal(str(quantity)),
                unit_price=unit_price,
                item_id=product.id,
                unit=product.unit or "NIU",
                affectation=product.affectation or "10",
            )
        )
    return lines


def _form(active: Active) -> None:
    """Customer, lines with their live totals, and the button that issues the note or quotation."""
    st.subheader("Nueva nota de venta o cotización", anchor=False)
    try:
        customers = {p.id: p for p in active.client.persons.records(fresh=True)}
        products = {p.id: p for p in active.client.items.search("", limit=100, fresh=True)}
    except FacturadorError as exc:
        st.error(refusal("No se pudo cargar clientes y productos", exc))
        return
    if not customers or not products:
        st.info(
            "Registra primero clientes y productos (páginas Clientes y Productos).", icon=":material/info:"
        )
        return
    left, right = st.columns(2)
    kind = left.radio(
        "Documento", list(KINDS), format_func=KINDS.__getitem__, horizontal=True, key="note_kind"
    )
    customer_id = right.selectbox(
        "Cliente",
        list(customers),
        format_func=lambda i: _person(customers[i]),
        key="note_customer",
    )
    lines = _lines(products)
    if not lines:
        st.caption("Elige al menos un producto.")
        return
    sheet: SaleNote | Quotation
    if kind == "sale_note":
        series = active.client.sale_notes.series()
        if not series:
            st.error("La empresa no tiene series de notas de venta.")
            return
        sheet = SaleNote(series_id=series[0].id, customer_id=customer_id, lines=lines)
    else:
        sheet = Quotation(customer_id=customer_id, lines=lines)
    amounts, totals = sheet.line_amounts(), sheet.totals()
    st.dataframe(
        [
            {
                "Producto": products[line.item_id].description if line.item_id else "",
                "Cantidad": str(a.quantity),
                "Valor unitario": str(a.unit_value),
                "IGV": str(a.igv),
                "Total": str(a.total),
            }
            for line, a in zip(lines, amounts, strict=True)
        ],
        hide_index=True,
    )
    cols = st.columns(3)
    cols[0].metric("Op. gravadas", f"S/ {totals.taxed:,.2f}")
    cols[1].metric("IGV", f"S/ {totals.igv:,.2f}")
    cols[2].metric("Total", f"S/ {totals.total:,.2f}")
    if not st.button(
        f"Emitir {KINDS[kind].lower()}", type="primary", key="note_issue", icon=":material/send:"
    ):
        return
    try:
        if isinstance(sheet, SaleNote):
            ref = active.client.sale_notes.issue(sheet)
        else:
            quotation = active.client.quotations.create(sheet)
    except FacturadorError as exc:
        st.error(refusal(f"No se emitió la {KINDS[kind].lower()}", exc), icon=":material/error:")
        return
    if isinstance(sheet, SaleNote):
        _book(active).insert(
            0, {"ref": ref, "customer": _person(customers[customer_id]), "total": totals.total, "cpe": None}
        )
        flash("success", f"Nota de venta **{ref.number}** emitida por S/ {totals.total:,.2f}.")
    else:
        flash("success", f"Cotización **{quotation.number}** registrada por S/ {quotation.total:,.2f}.")
    st.rerun()


def _person(person: Person) -> str:
    return f"{person.number} · {person.name}"


def _sale_notes(active: Active) -> None:
    """The sale notes of this session: PDF, and the factura or boleta made from one."""
    st.subheader("Notas de venta de esta sesión", anchor=False)
    book = _book(active)
    if not book:
        st.info("Aún no se emitieron notas de venta en esta sesión.", icon=":material/info:")
        return
    st.dataframe(
        [
            {
                "Número": e["ref"].number,
                "Cliente": e["customer"],
                "Total": str(e["total"]),
                "Comprobante": e["cpe"] or "",
            }
            for e in book
        ],
        hide_index=True,
    )
    numbers = [e["ref"].number for e in book]
    picked = st.selectbox("Nota de venta", numbers, key="note_picked")
    entry = book[numbers.index(picked)]
    ref: SaleNoteRef = entry["ref"]
    left, middle, right = st.columns(3)
    download_button(
        left,
        "pdf",
        lambda: active.client.sale_notes.download_pdf(ref.external_id),
        name=ref.number,
        key="note_pdf",
    )
    document_type = middle.radio(
        "Convertir en", list(CPE), format_func=CPE.__getitem__, horizontal=True, key="note_cpe_type"
    )
    if right.button(
        "Generar comprobante", key="note_convert", disabled=bool(entry["cpe"]), icon=":material/sync_alt:"
    ):
        try:
            result = active.client.sale_notes.generate_cpe(
                ref.id, document_type="01" if document_type == "01" else "03"
            )
        except FacturadorError as exc:
            st.error(refusal("No se generó el comprobante", exc), icon=":material/error:")
            return
        entry["cpe"] = result.number
        flash("success", f"{CPE[document_type]} **{result.number}** emitida desde la nota {ref.number}.")
        st.rerun()


def _quotations(active: Active) -> None:
    """The latest quotations with their totals, and the PDF of one."""
    st.subheader("Cotizaciones", anchor=False)
    search = st.text_input("Buscar por número o cliente", key="quotation_search")
    try:
        records = active.client.quotations.list(search.strip(), fresh=True)
    except FacturadorError as exc:
        st.error(refusal("No se pudo cargar las cotizaciones", exc))
        return
    if not records:
        st.info(
            "No hay cotizaciones." if not search else "No hay cotizaciones que coincidan.",
            icon=":material/info:",
        )
        return
    st.dataframe(
        [
            {
                "Número": r.number,
                "Fecha": r.date_of_issue,
                "Cliente": r.customer_name,
                "Moneda": r.currency,
                "Total": str(r.total),
                "Convertida": "Sí" if r.converted else "No",
            }
            for r in records
        ],
        hide_index=True,
    )
    st.metric("Total cotizado (listadas)", f"S/ {sum((r.total for r in records), Decimal(0)):,.2f}")
    by_number = {r.number: r for r in records}
    picked = st.selectbox("Cotización", list(by_number), key="quotation_picked")
    record = by_number[picked]
    download_button(
        st,
        "pdf",
        lambda: active.client.quotations.download_pdf(record.external_id),
        name=record.number,
        key="quotation_pdf",
    )


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Notas de venta / Cotizaciones", anchor=False)
    st.caption(
        "Notas de venta y cotizaciones con sus totales calculados al momento; una nota de venta se "
        "convierte en factura o boleta con un clic."
    )
    show_flash()
    _form(active)
    _sale_notes(active)
    _quotations(active)


main()
