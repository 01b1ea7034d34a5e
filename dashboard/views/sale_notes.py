"""Notas de venta / Cotizaciones page: a form whose line totals the connector's builders compute live
(:class:`~connector.sale_notes.SaleNote`, :class:`~connector.quotations.Quotation`), the quotations list
with its totals and the conversion of one into a sale note, the sale notes of a date range with their
totals and the document each became, their PDFs, and the conversion of a sale note into a factura or
boleta with one action.

Everything goes through ``client.sale_notes``, ``client.quotations``, ``client.persons`` and
``client.items``.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import streamlit as st

from connector import FacturadorError
from connector.items import Product
from connector.persons import Person
from connector.quotations import Quotation
from connector.sale_notes import SaleNote
from connector.sheets import NoteLine
from dashboard import figures
from dashboard.downloads import download_button
from dashboard.session import Active, flash, require_connection, show_flash
from dashboard.widgets import data_table, failed, pick_range, refusal

KINDS = {"sale_note": "Nota de venta", "quotation": "Cotización"}
CPE = {"03": "Boleta", "01": "Factura"}
#: Line rows of the form.
ROWS = 4


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
                code=product.code,  # real tenants print the note from the line's own product data
                description=product.description,
                unit=product.unit or "NIU",
                affectation=product.affectation or "10",
                item_row=product.row or None,  # as listed: a real tenant needs no other look-up
            )
        )
    return lines


def _form(active: Active) -> None:
    """Customer, lines with their live totals, and the button that issues the note or quotation."""
    st.subheader("Nueva nota de venta o cotización", anchor=False)
    try:  # not fresh: every click reruns the page, and real tenants allow 60 requests a minute
        customers = {p.id: p for p in active.client.persons.list()}
        products = {p.id: p for p in active.client.items.search("", limit=100)}
    except FacturadorError as exc:
        failed("No se pudo cargar clientes y productos", exc)
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
        try:
            series = active.client.sale_notes.series()
        except FacturadorError as exc:
            failed("No se pudo cargar las series de notas de venta", exc)
            return
        if not series:
            st.error("La empresa no tiene series de notas de venta.")
            return
        sheet = SaleNote(series_id=series[0].id, customer_id=customer_id, lines=lines)
    else:
        sheet = Quotation(customer_id=customer_id, lines=lines)
    amounts, totals = sheet.line_amounts(), sheet.totals()
    data_table(
        [
            {
                "Producto": products[line.item_id].description if line.item_id else "",
                "Cantidad": float(a.quantity),
                "Valor unitario": float(a.unit_value),
                "IGV": float(a.igv),
                "Total": float(a.total),
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
        flash("success", f"Nota de venta **{ref.number}** emitida por S/ {totals.total:,.2f}.")
    else:
        flash("success", f"Cotización **{quotation.number}** registrada por S/ {quotation.total:,.2f}.")
    st.rerun()


def _person(person: Person) -> str:
    return f"{person.number} · {person.name}"


def _note_range() -> tuple[date, date] | None:
    """The issue dates of the listed sale notes (the last 30 days by default)."""
    return pick_range("Emitidas entre", "note_range", help="Fechas de emisión, ambas incluidas.")


def _sale_notes(active: Active) -> None:
    """The sale notes issued in a date range with their totals and the document each became; the PDF
    of one, and the factura or boleta made from it."""
    st.subheader("Notas de venta", anchor=False)
    picked_range = _note_range()
    if picked_range is None:
        return
    start, end = picked_range
    try:
        notes = active.client.sale_notes.list(start=start, end=end, fresh=True)
    except FacturadorError as exc:
        failed("No se pudo cargar las notas de venta", exc)
        return
    if not notes.complete:  # a real tenant answers only its latest notes, whatever the dates
        st.info(notes.note, icon=":material/info:")
    if not notes:
        if notes.complete:
            st.info(
                f"No hay notas de venta emitidas entre el {start:%d/%m/%Y} y el {end:%d/%m/%Y}.",
                icon=":material/info:",
            )
        return
    data_table(
        [
            {
                "Número": n.number,
                "Fecha": n.date_of_issue,
                "Cliente": n.customer_name,
                "Moneda": n.currency,
                "Total": float(n.total),
                "Comprobante": n.document,
                "Cotización": n.quotation,
            }
            for n in notes
        ],
        hide_index=True,
        column_config={"Fecha": st.column_config.DateColumn("Fecha", format="DD/MM/YYYY")},
    )
    converted = [n for n in notes if n.converted]
    cols = st.columns(3)
    listed = "" if notes.complete else ", las listadas"
    for column, currency in zip(cols[:2], ("PEN", "USD"), strict=True):
        amount = sum((n.total for n in notes if n.currency == currency), Decimal(0))
        if amount or currency == "PEN":
            column.metric(f"Total en notas ({currency}{listed})", figures.money(amount, currency))
    cols[2].metric("Convertidas en comprobante", f"{len(converted)} de {len(notes)}")
    by_number = {n.number: n for n in notes}
    picked = st.selectbox("Nota de venta", list(by_number), key="note_picked")
    note = by_number[picked]
    left, middle, right = st.columns(3)
    download_button(
        left,
        "pdf",
        lambda: active.client.sale_notes.download_pdf(note.external_id),
        name=note.number,
        key="note_pdf",
    )
    document_type = middle.radio(
        "Convertir en", list(CPE), format_func=CPE.__getitem__, horizontal=True, key="note_cpe_type"
    )
    if right.button(
        "Generar comprobante", key="note_convert", disabled=note.converted, icon=":material/sync_alt:"
    ):
        try:
            result = active.client.sale_notes.generate_cpe(
                note.id, document_type="01" if document_type == "01" else "03"
            )
        except FacturadorError as exc:
            st.error(refusal("No se generó el comprobante", exc), icon=":material/error:")
            return
        flash("success", f"{CPE[document_type]} **{result.number}** emitida desde la nota {note.number}.")
        st.rerun()
    if note.converted:
        st.caption(f"La nota {note.number} ya generó el comprobante {note.document}.")


def _quotations(active: Active) -> None:
    """The latest quotations with their totals, and the PDF of one."""
    st.subheader("Cotizaciones", anchor=False)
    search = st.text_input("Buscar por número o cliente", key="quotation_search")
    try:
        records = active.client.quotations.list(search.strip(), fresh=True)
    except FacturadorError as exc:
        failed("No se pudo cargar las cotizaciones", exc)
        return
    if not records:
        st.info(
            "No hay cotizaciones." if not search else "No hay cotizaciones que coincidan.",
            icon=":material/info:",
        )
        return
    data_table(
        [
            {
                "Número": r.number,
                "Fecha": r.date_of_issue,
                "Cliente": r.customer_name,
                "Moneda": r.currency,
                "Total": float(r.total),
                "Convertida": "Sí" if r.converted else "No",
                "Nota de venta": r.sale_note,
            }
            for r in records
        ],
        hide_index=True,
        column_config={"Fecha": st.column_config.DateColumn("Fecha", format="DD/MM/YYYY")},
    )
    st.metric("Total cotizado (listadas)", f"S/ {sum((r.total for r in records), Decimal(0)):,.2f}")
    by_number = {r.number: r for r in records}
    picked = st.selectbox("Cotización", list(by_number), key="quotation_picked")
    record = by_number[picked]
    left, right = st.columns(2)
    download_button(
        left,
        "pdf",
        lambda: active.client.quotations.download_pdf(record.external_id),
        name=record.number,
        key="quotation_pdf",
    )
    convertible = not record.converted and bool(record.lines) and record.customer_id is not None
    if right.button(
        "Convertir en nota de venta",
        key="quotation_convert",
        disabled=not convertible,
        icon=":material/sync_alt:",
        help="Emite una nota de venta con el cliente y las líneas de la cotización (una sola vez).",
    ):
        try:
            series = active.client.sale_notes.series()
            if not series:
                st.error("La empresa no tiene series de notas de venta.")
                return
            sheet = active.client.quotations.to_sale_note(record, series_id=series[0].id)
            ref = active.client.sale_notes.issue(sheet)
        except FacturadorError as exc:
            st.error(refusal("No se convirtió la cotización", exc), icon=":material/error:")
            return
        flash("success", f"Nota de venta **{ref.number}** emitida desde la cotización {record.number}.")
        st.rerun()
    if record.converted:
        st.caption(f"La cotización {record.number} ya se convirtió en la nota {record.sale_note or '—'}.")


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
