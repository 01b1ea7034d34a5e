"""Summaries page: declare a day's pending boletas and boleta notes (state 01) to SUNAT with a daily
summary (RC, process 1), after reviewing and confirming what it declares, and follow its ticket.

Boletas are not sent one by one: the service declares every registered boleta and boleta note of the
chosen issue date (500 per summary). The page shows the past days that still have some, with SUNAT's
deadline of each (:func:`analysis.alerts.undeclared_boletas` over the documents Inicio's alerts read: both
pages count the same), and what the chosen day would declare.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pandas as pd
import streamlit as st

from analysis.alerts import LOOK_BACK_DAYS, situation, undeclared_boletas, undeclared_title
from connector import FacturadorError
from dashboard import data, figures, ticket_box, tickets
from dashboard.figures import plural
from dashboard.session import (
    Active,
    alert_scope,
    day_documents,
    flash,
    forget_connection,
    invalidate_documents,
    require_connection,
    show_flash,
)
from dashboard.widgets import ask, confirm, data_table
from sunat.calendar import peru_today

LAST = "summary_last"


def _totals_text(totals: dict[str, Decimal]) -> str:
    return " · ".join(figures.money(amount, currency) for currency, amount in sorted(totals.items()))


def _pending_days(active: Active, today: date, *, refresh: bool) -> None:
    """The past days with boletas or notes still to declare (the rule and the documents of Inicio's
    alert), each with SUNAT's deadline; ``refresh`` asks the service again."""
    try:
        _, watched = alert_scope(active, today, refresh=refresh)
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo cargar los documentos: {exc.message}")
        return
    pending = undeclared_boletas(watched, today)
    if not pending:
        st.success("Todas las boletas de días pasados están declaradas.", icon=":material/task_alt:")
        return
    st.warning(f"**{undeclared_title(pending, today)}.**", icon=":material/schedule:")
    st.caption(f"Revisado: boletas y notas emitidas en los últimos {LOOK_BACK_DAYS} días, como en Inicio.")
    table = pd.DataFrame(
        {
            "Fecha de emisión": [day.day for day in reversed(pending)],
            "Boletas": [day.boletas for day in reversed(pending)],
            "Notas": [day.notes for day in reversed(pending)],
            "Documentos": [day.documents for day in reversed(pending)],
            "Total": [_totals_text(day.totals) for day in reversed(pending)],
            "Plazo SUNAT": [day.deadline for day in reversed(pending)],
            "Situación": [situation(day.deadline, today) for day in reversed(pending)],
        }
    )
    data_table(
        table,
        hide_index=True,
        key="summary_days",
        column_config={
            "Fecha de emisión": st.column_config.DateColumn("Fecha de emisión", format="DD/MM/YYYY"),
            "Plazo SUNAT": st.column_config.DateColumn("Plazo SUNAT", format="DD/MM/YYYY"),
        },
        height=min(300, 38 + 35 * len(table)),
    )


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Resúmenes diarios", anchor=False)
    st.caption(
        "Las boletas y sus notas se informan a SUNAT en un **resumen diario** por fecha de emisión; "
        "SUNAT responde con un ticket que se consulta luego."
    )
    show_flash()
    today = peru_today()
    head, button = st.columns([5, 1], vertical_alignment="bottom")
    head.subheader("Días pasados con boletas por declarar", anchor=False)
    refresh = button.button(
        "Actualizar",
        icon=":material/refresh:",
        width="stretch",
        key="summary_refresh",
        help="Vuelve a pedir la lista al servicio (sin caché).",
    )
    _pending_days(active, today, refresh=refresh)

    st.subheader("Declarar un día", anchor=False)
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    day = left.date_input(
        "Fecha de emisión de las boletas",
        value=today,
        max_value=today,
        format="DD/MM/YYYY",
        key="summary_day",
    )
    assert isinstance(day, date)
    problem = tickets.void_window_problem(day, today, declaring=True)
    if problem:
        right.warning(problem, icon=":material/schedule:")
    try:
        df = day_documents(active, day)
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo cargar los documentos: {exc.message}")
        return
    pending = tickets.pending_declaration(df)
    boletas = int((pending["document_type_id"].astype(str) == "03").sum()) if len(pending) else 0
    notes = len(pending) - boletas
    m1, m2, m3 = st.columns(3)
    m1.metric("Boletas por declarar", boletas)
    m2.metric("Notas por declarar", notes)
    m3.metric(
        "Ya declaradas o anuladas", int((tickets.document_groups(df) == tickets.BOLETAS).sum()) - len(pending)
    )
    if len(pending):
        table = data.table_frame(pending)
        data_table(
            table,
            hide_index=True,
            column_order=["number", "document_type", "customer_name", "currency_type_id", "total", "state"],
            column_config={
                "number": st.column_config.TextColumn("Número"),
                "document_type": st.column_config.TextColumn("Tipo"),
                "customer_name": st.column_config.TextColumn("Cliente"),
                "currency_type_id": st.column_config.TextColumn("Moneda"),
                "total": st.column_config.NumberColumn("Total", format="accounting"),
                "state": st.column_config.MultiselectColumn(
                    "Estado",
                    options=[s.label for s in data.STATES.values()],
                    color=[s.color for s in data.STATES.values()],
                ),
            },
            key="summary_pending",
            height=min(300, 38 + 35 * len(table)),
        )
    else:
        st.info(
            f"No hay boletas ni notas registradas (01) emitidas el {day:%d/%m/%Y}.", icon=":material/info:"
        )
    count = len(pending)
    what = plural(count, "documento", "documentos")
    label = f"Declarar {what} del {day:%d/%m/%Y}…" if count else "Declarar"
    asked = (day.isoformat(), tuple(str(e) for e in pending["external_id"]))
    if st.button(label, key="summary_submit", type="primary", icon=":material/outbox:", disabled=not count):
        ask("summary", asked)
    warning = (
        "Un resumen enviado no se retira: SUNAT recibe estas boletas y notas como emitidas ese día (si "
        "alguna tuviera un error, después se anula con otro resumen)."
    )
    if confirm(
        "summary",
        tickets.review(pending),
        verb="declarar",
        action=f"Sí, declarar {what}",
        warning=warning,
        asked=asked,
    ):
        try:
            with st.spinner("Enviando el resumen a SUNAT…"):
                ref = active.client.summaries.declare(day)
        except FacturadorError as exc:
            st.error(f"No se pudo enviar el resumen: {exc.message}", icon=":material/error:")
        else:
            numbers = [str(n) for n in pending["number"]]
            entries = ticket_box.remember(
                active, ref, process=tickets.DECLARE, day=day, documents=numbers, last_key=LAST
            )
            parts = f" en {len(entries)} resúmenes" if len(entries) > 1 else ""
            flash("success", f"Resumen diario enviado{parts}: ticket **{ref.ticket}** ({what}).")
            invalidate_documents()
            st.rerun()
    ticket_box.show_last(active, last_key=LAST, title="Último resumen", key="summary_ticket")


main()
