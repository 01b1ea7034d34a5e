"""Tickets page: every daily summary and voided communication of a date range, with its state, a button
to query SUNAT, and its XML and CDR.

They come from this service's lists (``client.summaries.list`` / ``client.voided.list``), joined with
what this session knows (:func:`dashboard.session.ticket_book`: the numbers of the documents
it voided or declared, the answers it asked for; :func:`dashboard.tickets.merge_entries`).
Real Facturador PRO tenants have no such list: then the page shows the session's own, and one sent
elsewhere can be added by its external id or ticket.
"""

from __future__ import annotations

import re
from datetime import date

import streamlit as st

from connector import FacturadorError, NotFoundError, SummaryRecord
from dashboard import ticket_box, tickets
from dashboard.session import (
    Active,
    flash,
    forget_connection,
    invalidate_documents,
    require_connection,
    show_flash,
    ticket_book,
    ticket_resource,
)
from dashboard.widgets import data_table, pick_range
from sunat.calendar import peru_today

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
PICK_NEXT = "_ticket_pick_next"
FAMILIES = {"summaries": "Resumen diario (RC)", "voided": "Comunicación de baja (RA)"}

COLUMN_CONFIG = {
    "created_at": st.column_config.DatetimeColumn("Enviado", format="DD/MM/YYYY HH:mm", width=120),
    "kind": st.column_config.TextColumn("Tipo", width=150),
    "identifier": st.column_config.TextColumn("Identificador", width=140),
    "day": st.column_config.DateColumn("Documentos del", format="DD/MM/YYYY", width=100),
    "documents": st.column_config.TextColumn("Documentos", width=160),
    "state": st.column_config.MultiselectColumn(
        "Estado",
        options=[s.label for s in tickets.TICKET_STATES.values()],
        color=[s.color for s in tickets.TICKET_STATES.values()],
        width=100,
    ),
    "code": st.column_config.TextColumn("Código", width=65),
    "description": st.column_config.TextColumn("Respuesta de SUNAT", width=230),
    "ticket": st.column_config.TextColumn("Ticket", width=120),
    "external_id": st.column_config.TextColumn(
        "Código en el servicio",
        width=120,
        help="El código con que el servicio guarda el resumen o la comunicación.",
    ),
}
#: SUNAT's answer beside the state, in view on a 1440 px screen; the documents and codes after it.
COLUMN_ORDER = [
    "created_at",
    "kind",
    "identifier",
    "day",
    "state",
    "code",
    "description",
    "documents",
    "ticket",
    "external_id",
]


def _range() -> tuple[date, date] | None:
    return pick_range(
        "Generados entre",
        "tickets_range",
        max_value=peru_today(),
        help="Fecha en que se generaron los resúmenes y comunicaciones de baja (por defecto, 30 días).",
    )


def _listed(active: Active, start: date, end: date, *, refresh: bool) -> list[SummaryRecord] | None:
    """The service's summaries and voided communications of the range, or ``None`` when the service
    has no such lists (real tenants)."""
    client = active.client
    try:
        return [
            *client.summaries.list(start, end, fresh=refresh),
            *client.voided.list(start, end, fresh=refresh),
        ]
    except NotFoundError:
        return None


def _query_pending(active: Active, pending: list[tickets.TicketEntry]) -> None:
    """Ask once for every ticket without an answer (no waiting)."""
    book = ticket_book(active)
    answered = 0
    for entry in pending:
        try:
            status = ticket_resource(active, entry.family).status(external_id=entry.external_id)
        except FacturadorError as exc:
            flash("error", f"No se pudo consultar el ticket {entry.ticket}: {exc.message}")
            return
        book.answer(entry, status, ticket_box.now())
        answered += not status.processing
    if answered:
        invalidate_documents()
    still = len(pending) - answered
    flash(
        "info" if still else "success",
        f"{answered} ticket(s) respondidos por SUNAT" + (f"; {still} aún en proceso." if still else "."),
    )


def _look_up(active: Active) -> None:
    """A form to add a summary or voided communication by its external id or ticket."""
    with st.expander("Buscar un resumen o comunicación de baja", icon=":material/search:"):
        with st.form("ticket_lookup", border=False):
            family = st.radio(
                "Tipo", list(FAMILIES), format_func=FAMILIES.__getitem__, horizontal=True, key="lookup_family"
            )
            handle = st.text_input(
                "Código en el servicio o número de ticket",
                key="lookup_handle",
                help="El código de la columna «Código en el servicio», o el ticket que dio SUNAT.",
            )
            submitted = st.form_submit_button("Buscar", icon=":material/search:")
        if not submitted:
            return
        handle = handle.strip()
        if not handle:
            st.error("Escribe el código externo o el ticket.")
            return
        by = {"external_id": handle} if _UUID.match(handle) else {"ticket": handle}
        try:
            status = ticket_resource(active, family).status(**by)
        except FacturadorError as exc:
            st.error(f"No se encontró: {exc.message}", icon=":material/error:")
            return
        if not status.external_id:  # a real tenant's "in process" answer does not say which summary
            kind, text = tickets.status_message(status)
            getattr(st, kind)(text)
            st.caption(
                "El servicio no dijo a qué resumen pertenece el ticket: "
                "búscalo de nuevo cuando SUNAT responda."
            )
            return
        book = ticket_book(active)
        known = book.get(status.external_id)
        if known is not None:
            book.update(status.external_id, status, ticket_box.now())
        else:
            book.add([tickets.entry_from_status(family, status, ticket_box.now())])  # type: ignore[arg-type]
        st.session_state[PICK_NEXT] = status.external_id  # picked on the next run (the widget exists)
        kind, text = tickets.status_message(status)
        flash(kind, text)
        st.rerun()


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Tickets", anchor=False)
    st.caption(
        "Resúmenes diarios y comunicaciones de baja: SUNAT los procesa después de recibirlos y responde "
        "por ticket (98 = en proceso)."
    )
    top, refresh_box = st.columns([5, 1], vertical_alignment="bottom")
    with top:
        picked = _range()
    refresh = refresh_box.button(
        "Actualizar",
        icon=":material/refresh:",
        width="stretch",
        key="tickets_refresh",
        help="Vuelve a pedir la lista al servicio (sin caché).",
    )
    show_flash()
    if picked is None:
        return
    start, end = picked
    book = ticket_book(active)
    try:
        records = _listed(active, start, end, refresh=refresh)
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo cargar la lista: {exc.message}")
        return
    if records is None:
        st.info(
            "Esta empresa no lista sus resúmenes ni sus comunicaciones de baja por su API: se muestran los "
            "enviados o buscados en esta sesión.",
            icon=":material/info:",
        )
        entries = book.ordered()
    else:
        entries = tickets.merge_entries(book.ordered(), records, (start, end))
    if not entries and records is None:
        st.caption("Esta sesión aún no envió ni buscó ninguno: usa **Resúmenes** y **Anular**, o busca uno.")
        _look_up(active)
        return
    if not entries:
        st.info(
            f"No hay resúmenes ni comunicaciones de baja generados entre el {start:%d/%m/%Y} y el "
            f"{end:%d/%m/%Y}. Usa las páginas **Resúmenes** y **Anular**, o busca uno por su código.",
            icon=":material/info:",
        )
        _look_up(active)
        return
    pending = [e for e in entries if not e.done]
    summary, button = st.columns([3, 1.4], vertical_alignment="bottom")
    counts = {state: sum(e.state == state for e in entries) for state in tickets.TICKET_STATES}
    summary.markdown(" · ".join(f"**{n}** {tickets.state_count_label(s, n)}" for s, n in counts.items() if n))
    if button.button(
        f"Consultar pendientes ({len(pending)})",
        key="tickets_query_pending",
        icon=":material/sync:",
        disabled=not pending,
        width="stretch",
    ):
        with st.spinner("Consultando…"):
            _query_pending(active, pending)
        st.rerun()
    data_table(
        tickets.tickets_frame(entries),
        hide_index=True,
        column_config=COLUMN_CONFIG,
        column_order=COLUMN_ORDER,
        key="tickets_table",
        height=min(420, 38 + 35 * len(entries)),
    )
    labels = {e.external_id: e.label for e in entries}
    wanted = st.session_state.pop(PICK_NEXT, None)
    if wanted in labels:
        st.session_state["ticket_pick"] = wanted
    if st.session_state.get("ticket_pick") not in labels:
        st.session_state["ticket_pick"] = entries[0].external_id
    chosen = st.selectbox("Ticket", list(labels), format_func=labels.__getitem__, key="ticket_pick")
    entry = next((e for e in entries if e.external_id == chosen), None)
    if entry is not None:
        ticket_box.show(active, entry, key="ticket")
    _look_up(active)


main()
