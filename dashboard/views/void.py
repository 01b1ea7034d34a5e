"""Void page: pick accepted facturas and their notes for a voided communication (RA), or accepted boletas
and their notes for a daily summary with process 3 (RC), give the reason, review what will be voided
(count, dates, amounts) and confirm it, send, and follow the ticket.

The documents of a request share their issue date (``fecha_de_emision_de_documentos``), so the page
works on one day at a time. Candidates come from :func:`dashboard.tickets.voidable`; the
ticket is kept in the session's book (:func:`dashboard.session.ticket_book`) and shown with
:func:`dashboard.ticket_box.show`.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import streamlit as st

from connector import FacturadorError, TicketRef
from dashboard import ticket_box, tickets
from dashboard.figures import plural
from dashboard.session import (
    Active,
    day_documents,
    documents,
    flash,
    forget_connection,
    invalidate_documents,
    require_connection,
    show_flash,
)
from dashboard.widgets import ask, confirm
from sunat.calendar import peru_today

KINDS = {
    tickets.FACTURAS: "Facturas y sus notas · comunicación de baja",
    tickets.BOLETAS: "Boletas y sus notas · resumen diario (anulación)",
}
LAST = "void_last"  # external_id of the last request sent from this page
RESET = "_void_reset"
DEFAULT_REASON = "Anulación de la operación"


def _reset_form() -> None:
    """After a request was sent: forget the picked documents (they are no longer candidates)."""
    if st.session_state.pop(RESET, False):
        st.session_state.pop("void_docs", None)


def _recent_days(active: Active, group: str, today: date, place: Any) -> None:
    """A caption with the days of the voiding window that have documents of ``group`` to void."""
    start = today - timedelta(days=tickets.VOID_WINDOW_DAYS - 1)
    try:
        days = tickets.voidable_days(documents(active, start, today), group)
    except FacturadorError:
        return  # the day's own list below says what is wrong
    window = f"los últimos {tickets.VOID_WINDOW_DAYS} días"
    if days:
        listed = ", ".join(f"{day:%d/%m} ({count})" for day, count in days)
        place.caption(f"Días con documentos que se pueden anular en {window}: {listed}")
    else:
        place.caption(f"No hay documentos que se puedan anular en {window}.")


def _send(active: Active, group: str, day: date, picked: list[str], reason: str) -> TicketRef | None:
    """Send the request; ``None`` (and the service's message shown) when it was refused. The connector
    writes the date as the tenant reads it (Pro9 and Tukifac ``d-m-Y``, the others ``Y-m-d``)."""
    pairs = [(external_id, reason) for external_id in picked]
    try:
        with st.spinner("Enviando a SUNAT…"):
            if group == tickets.FACTURAS:
                ref = active.client.voided.void(day, pairs)
            else:
                ref = active.client.summaries.void(day, pairs)
    except FacturadorError as exc:
        details = "".join(f"\n- {e.message}" for e in exc.field_errors if e.message != exc.message)
        st.error(f"No se pudo enviar la anulación: {exc.message}{details}", icon=":material/error:")
        return None
    return ref


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    _reset_form()
    st.title("Anular documentos", anchor=False)
    st.caption(
        "Las facturas y sus notas se anulan con una **comunicación de baja**; las boletas y sus notas, con "
        "un **resumen diario** (proceso 3). Solo documentos aceptados por SUNAT, de un mismo día de emisión."
    )
    show_flash()
    group = st.segmented_control(
        "Qué anular", list(KINDS), format_func=KINDS.__getitem__, default=tickets.FACTURAS, key="void_kind"
    )
    group = group or tickets.FACTURAS
    today = peru_today()
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    day = left.date_input(
        "Fecha de emisión de los documentos",
        value=today,
        max_value=today,
        format="DD/MM/YYYY",
        key="void_day",
    )
    assert isinstance(day, date)
    problem = tickets.void_window_problem(day, today)
    if problem:
        right.warning(problem, icon=":material/schedule:")
    else:
        _recent_days(active, group, today, right)
    try:
        df = day_documents(active, day)
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo cargar los documentos: {exc.message}")
        return
    candidates = tickets.voidable(df, group)
    labels = {str(row["external_id"]): tickets.candidate_label(row) for _, row in candidates.iterrows()}
    numbers_of = dict(
        zip(candidates["external_id"].astype(str), candidates["number"].astype(str), strict=True)
    )
    what = "facturas ni notas de factura" if group == tickets.FACTURAS else "boletas ni notas de boleta"
    if not labels:
        st.info(f"No hay {what} aceptadas emitidas el {day:%d/%m/%Y}.", icon=":material/info:")
    picked = st.multiselect(
        "Documentos a anular",
        list(labels),
        format_func=lambda e: labels.get(e, e),
        key="void_docs",
        placeholder="Elige uno o más documentos aceptados" if labels else "Sin documentos para anular",
        disabled=not labels,
        select_all=False,  # one by one: "Select all" (in English) armed the voiding of a whole day
    )
    reason = st.text_input(
        "Motivo de la anulación",
        value=DEFAULT_REASON,
        max_chars=100,
        key="void_reason",
        help="Se informa a SUNAT en la comunicación de baja (obligatorio)."
        if group == tickets.FACTURAS
        else "Queda en la solicitud; el resumen diario no lo lleva a SUNAT.",
    )
    count = len(picked)
    asked = (group, day.isoformat(), tuple(picked), reason.strip())
    label = f"Anular {plural(count, 'documento', 'documentos')}…" if count else "Anular"
    if st.button(label, key="void_submit", type="primary", icon=":material/block:", disabled=not count):
        if not reason.strip():
            st.error("Indica el motivo de la anulación.", icon=":material/error:")
        else:
            ask("void", asked)
    warning = "La anulación no se puede deshacer: SUNAT da de baja estos comprobantes y dejan de valer. " + (
        f"La comunicación de baja lleva el motivo «{reason.strip()}»."
        if group == tickets.FACTURAS
        else "Las boletas se anulan con un resumen diario (proceso 3)."
    )
    action = f"Sí, anular {plural(count, 'documento', 'documentos')}"
    review = tickets.review(candidates, picked)
    if confirm("void", review, verb="anular", action=action, warning=warning, asked=asked):
        ref = _send(active, group, day, picked, reason.strip())
        if ref is not None:
            numbers = [numbers_of[e] for e in picked]
            entries = ticket_box.remember(
                active, ref, process=tickets.VOID, day=day, documents=numbers, last_key=LAST
            )
            st.session_state[RESET] = True
            flash(
                "success",
                f"{entries[0].kind} enviada: ticket **{ref.ticket}** ({', '.join(numbers)} por anular).",
            )
            invalidate_documents()
            st.rerun()
    ticket_box.show_last(active, last_key=LAST, title="Última anulación", key="void_ticket")


main()
