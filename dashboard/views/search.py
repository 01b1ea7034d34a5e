"""Buscar: find a document by its number (F001-123), the customer's RUC/DNI or an amount, and check it
against the authority's record (state and CDR code), as SUNAT's consulta de validez does."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal, InvalidOperation

import streamlit as st

from analysis.sales import Sale
from connector import DocumentRecord, FacturadorError
from connector.consult import check_document
from dashboard import data, figures
from dashboard.downloads import download_button
from dashboard.session import Active, forget_connection, loaded, require_connection
from dashboard.widgets import data_table
from sunat.calendar import peru_today

LOOK_BACK_DAYS = 366
_NUMBER = re.compile(r"^\s*([A-Za-z0-9]{4})\s*-\s*0*(\d{1,8})\s*$")


def matches(sales: list[Sale], text: str) -> list[Sale]:
    """Documents whose number is ``text`` (``F001-123``, leading zeros ignored), whose customer's document
    starts with it (RUC/DNI digits), or whose total is it (an amount)."""
    text = text.strip()
    number = _NUMBER.match(text)
    if number:
        series, correlative = number.group(1).upper(), int(number.group(2))
        return [s for s in sales if s.series.upper() == series and s.correlative == correlative]
    if text.isdigit() and len(text) >= 6:
        return [s for s in sales if s.customer_number.startswith(text)]
    try:
        amount = Decimal(text.replace(",", "").replace("S/", "").replace("US$", "").strip())
    except InvalidOperation:
        needle = text.casefold()
        return [s for s in sales if needle in s.customer_name.casefold()] if len(needle) >= 3 else []
    return [s for s in sales if s.amounts.total == amount]


def _result(active: Active, record: DocumentRecord) -> None:
    style = data.STATES.get(record.state_type_id)
    with st.container(border=True, key="search_result"):
        head, badge = st.columns([4, 1])
        head.markdown(f"#### {record.number} · {record.customer_name}")
        badge.badge(data.state_label(record.state_type_id), color=style.badge if style else "gray")
        st.caption(
            f"{data.type_label(record.document_type_id)} del {record.date_of_issue:%d/%m/%Y} · "
            f"{figures.money(record.total, record.currency_type_id)} · `{record.external_id}`"
        )
        docs = active.client.documents
        c1, c2, c3, c4 = st.columns(4)
        ext = record.external_id
        download_button(c1, "pdf", lambda: docs.download_pdf(ext), name=record.number, key="search_pdf")
        download_button(c2, "xml", lambda: docs.download_xml(ext), name=record.number, key="search_xml")
        if c4.button(
            "Consultar en SUNAT", key="search_check", icon=":material/verified_user:", type="primary"
        ):
            with st.spinner("Consultando…"):
                result = check_document(active.client, record)
            (st.success if result.consistent else st.error)(
                f"**{result.verdict}.** {result.message}", icon=":material/fact_check:"
            )
            if result.cdr is not None:
                st.markdown(
                    f"CDR de **{result.cdr.document or record.number}** · código `{result.cdr.code}` · "
                    f"{result.cdr.description}"
                )
                for note in result.cdr.notes:
                    st.caption(f"• {note}")
        c3.caption("")


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Buscar un documento", anchor=False)
    text = st.text_input(
        "Número, RUC/DNI del cliente o importe",
        key="search_text",
        placeholder="F001-123 · 20601030013 · 1180.00",
    )
    today = peru_today()
    start = today - timedelta(days=LOOK_BACK_DAYS - 1)
    if not text.strip():
        st.caption(f"Busca entre los documentos emitidos del {start:%d/%m/%Y} al {today:%d/%m/%Y}.")
        return
    try:
        got = loaded(active, start, today)
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo cargar los documentos: {exc.message}")
        return
    found = matches(got.all_sales, text)
    if not found:
        st.info(
            f"No se encontró «{text.strip()}» entre los documentos del {start:%d/%m/%Y} al {today:%d/%m/%Y}."
        )
        return
    frame = got.frame.loc[[s.position for s in found]]
    table = data.table_frame(frame)
    st.subheader(figures.plural(len(found), "documento encontrado", "documentos encontrados"), anchor=False)
    event = data_table(
        table,
        hide_index=True,
        column_order=[
            "date_of_issue",
            "number",
            "document_type",
            "state",
            "customer_name",
            "customer_number",
            "currency_type_id",
            "total",
        ],
        column_config={
            "date_of_issue": st.column_config.DateColumn("Fecha", format="DD/MM/YYYY"),
            "number": st.column_config.TextColumn("Número"),
            "document_type": st.column_config.TextColumn("Tipo"),
            "state": st.column_config.MultiselectColumn(
                "Estado",
                options=[s.label for s in data.STATES.values()],
                color=[s.color for s in data.STATES.values()],
            ),
            "customer_name": st.column_config.TextColumn("Cliente"),
            "customer_number": st.column_config.TextColumn("RUC/DNI"),
            "currency_type_id": st.column_config.TextColumn("Moneda"),
            "total": st.column_config.NumberColumn("Total", format="%,.2f"),
        },
        on_select="rerun",
        selection_mode="single-row",
        key="search_table",
    )
    rows = list(event.selection.rows) if event is not None else []
    position = rows[0] if rows and rows[0] < len(table) else (0 if len(table) == 1 else None)
    if position is None:
        st.caption("Elige un documento para consultarlo en SUNAT y descargar sus archivos.")
        return
    number = str(table.iloc[position]["number"])
    chosen = next(s for s in found if s.number == number)
    _result(active, DocumentRecord.from_row(got.rows[chosen.position]))


main()
