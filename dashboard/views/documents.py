"""Documents page: a date range of documents with filters, KPIs, charts, table, exports and actions.

Data work is done by the pure functions of :mod:`dashboard.data`; this script only lays out
widgets and calls the connector through :mod:`dashboard.session`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from decimal import Decimal

import pandas as pd
import streamlit as st

from connector import FacturadorError
from connector.models import StateChange
from dashboard import charts, data, exports, figures
from dashboard.downloads import download_button
from dashboard.session import (
    Active,
    flash,
    forget_connection,
    invalidate_documents,
    read_scope,
    require_connection,
    scoped,
    show_flash,
)
from dashboard.tickets import review
from dashboard.widgets import ask, confirm, data_table, pick_range, show_kpis

#: The memo key of a range's documents count: a range that has it was shown already.
COUNT = ("count",)
#: Set in the session once it drew the charts: its browser has plotly's code.
DRAWN = "_documents_charts_drawn"


def money(amount: float, currency: str) -> str:
    """``S/ 1,234.50`` style amount."""
    return figures.money(Decimal(str(amount)), currency)


def _range() -> tuple[date, date] | None:
    return pick_range(
        "Rango de fechas de emisión",
        "docs_range",
        help="Fechas de emisión, ambas incluidas (por defecto, los últimos 30 días).",
    )


def _filters(options: dict[str, list[str]]) -> data.Filters:
    states = data.ordered_states(options["states"])
    type_labels = data.labels_for(options["document_types"], "type")
    state_labels = data.labels_for(states, "state")
    cols = st.columns([1.2, 1.2, 1, 0.8, 1.6])
    types = cols[0].multiselect(
        "Tipo",
        options["document_types"],
        format_func=lambda c: type_labels.get(c, c),
        key="f_types",
        placeholder="Todos",
        select_all=False,  # Streamlit's «Select all» is in English; empty already means all
    )
    picked_states = cols[1].multiselect(
        "Estado",
        states,
        format_func=lambda c: state_labels.get(c, c),
        key="f_states",
        placeholder="Todos",
        select_all=False,
    )
    series = cols[2].multiselect(
        "Serie", options["series"], key="f_series", placeholder="Todas", select_all=False
    )
    currencies = cols[3].multiselect(
        "Moneda", options["currencies"], key="f_currencies", placeholder="Todas", select_all=False
    )
    customer = cols[4].text_input("Cliente", key="f_customer", placeholder="Nombre o RUC/DNI")
    return data.Filters(tuple(types), tuple(picked_states), tuple(series), tuple(currencies), customer)


class ChartSlots:
    """The page's three charts, laid out before the documents load with empty frames in their place
    (``loading``): the browser loads plotly's code while the service answers, and each chart is drawn
    in its frame as soon as it is computed. A range already read, in a session that drew the charts
    before (its browser has plotly's code), draws its charts at once, without frames: plotly drew each
    chart twice (a frame is another element). A new tab still gets the frames: they start plotly's
    code early (without them a warm new tab took longer, 5 of 5 runs)."""

    def __init__(self, *, loading: bool = True) -> None:
        self.daily = st.empty()
        left, right = st.columns(2)
        self.states, self.customers = left.empty(), right.empty()
        if not loading:
            return
        for slot, title, key in (
            (self.daily, figures.DAILY_TITLE, "loading_daily"),
            (self.states, "Documentos por estado", "loading_states"),
            (self.customers, figures.CUSTOMERS_TITLE, "loading_customers"),
        ):
            charts.show(figures.loading_figure(title), key=key, where=slot)

    def fill(self, view: figures.DocumentsView) -> None:
        """Draw the charts of ``view`` in their frames."""
        charts.show(view.daily, key="chart_daily", where=self.daily)
        charts.show(view.states, key="chart_states", where=self.states)
        charts.show(view.customers, key="chart_customers", where=self.customers)
        st.session_state[DRAWN] = True

    def clear(self) -> None:
        """Remove the frames (nothing to chart)."""
        for slot in (self.daily, self.states, self.customers):
            slot.empty()


COLUMN_CONFIG = {
    "date_of_issue": st.column_config.DateColumn("Fecha", format="DD/MM/YYYY", width=88),
    "number": st.column_config.TextColumn("Número", width=90),
    "document_type": st.column_config.TextColumn("Tipo", width=100),
    "customer_number": st.column_config.TextColumn("RUC/DNI", width=100),
    "customer_name": st.column_config.TextColumn("Cliente", width=140),
    "currency_type_id": st.column_config.TextColumn("Moneda", width=62),
    "total_igv": st.column_config.NumberColumn("IGV", format="accounting", width=85),
    "total": st.column_config.NumberColumn("Total", format="accounting", width=100),
    "state": st.column_config.MultiselectColumn(
        "Estado",
        options=[s.label for s in data.STATES.values()],
        color=[s.color for s in data.STATES.values()],
        width=100,
    ),
    "has_cdr": st.column_config.CheckboxColumn("CDR", width=50),
    "sale_note_number": st.column_config.TextColumn(
        "Nota de venta", width=95, help="La nota de venta de la que salió el documento."
    ),
}
#: Columns shown, sized to fit a laptop screen (1440 px: every one in view beside the sidebar, the
#: row-selection column too); «Nota de venta» only when a document of the table has one; every amount
#: is in the CSV/Excel exports.
COLUMN_ORDER = [
    "date_of_issue",
    "number",
    "document_type",
    "state",
    "customer_name",
    "customer_number",
    "currency_type_id",
    "total_igv",
    "total",
    "has_cdr",
    "sale_note_number",
]


def _table(table: pd.DataFrame) -> pd.Series | None:
    """Show the table; return the selected row (of ``table``) or ``None``."""
    event = data_table(
        table,
        hide_index=True,
        column_order=[
            name
            for name in COLUMN_ORDER
            if name != "sale_note_number"
            or ("sale_note_number" in table and table["sale_note_number"].fillna("").astype(bool).any())
        ],
        column_config=COLUMN_CONFIG,
        on_select="rerun",
        selection_mode="single-row",
        key="docs_table",
        height=min(420, 38 + 35 * max(1, len(table))),
    )
    rows = list(event.selection.rows) if event is not None else []
    if rows and rows[0] < len(table):
        return table.iloc[rows[0]]
    return None


def _exports(scope: data.Scope) -> None:
    """CSV and Excel of every document of the range and filters (built from the store when clicked)."""
    stem = f"documentos_{scope.start:%Y%m%d}_{scope.end:%Y%m%d}"
    left, right, _ = st.columns([1, 1, 4])
    left.download_button(
        "CSV",
        data=lambda: exports.csv_bytes(scope.rows()),
        file_name=f"{stem}.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",
        key="export_csv",
    )
    right.download_button(
        "Excel",
        data=lambda: exports.excel_bytes(scope.rows()),
        file_name=f"{stem}.xlsx",
        mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        icon=":material/download:",
        on_click="ignore",
        key="export_xlsx",
    )


#: The states a factura may still be sent in: registered, or sent without an answer. SUNAT answered the
#: others (accepted, observed, rejected: a number is answered once) or they are voided.
SENDABLE_STATES = frozenset({"01", "03"})


def _sendable(row: pd.Series) -> bool:
    """Whether sending makes sense: facturas and their notes (series F..., what /api/documents/send
    accepts) that SUNAT has not answered yet."""
    number = str(row["number"])
    return number[:1].upper() == "F" and str(row["state_type_id"]) in SENDABLE_STATES


def _send_help(row: pd.Series) -> str:
    if str(row["number"])[:1].upper() != "F":
        return (
            "Solo facturas y sus notas se envían una por una; las boletas se declaran en resúmenes diarios."
        )
    if _sendable(row):
        return "Envía (o reenvía) el XML firmado a SUNAT."
    return (
        f"SUNAT ya respondió este documento ({data.state_label(row['state_type_id'])}): no se envía otra vez."
    )


def _selected(active: Active, row: pd.Series) -> None:
    """Downloads and actions of the selected document."""
    ext = str(row["external_id"])
    code = str(row["state_type_id"])
    style = data.STATES.get(code)
    with st.container(border=True):
        head, badge = st.columns([4, 1])
        head.markdown(f"#### {row['number']} · {row['customer_name']}")
        badge.badge(data.state_label(code), color=style.badge if style else "gray")
        origin = str(row.get("sale_note_number") or "")
        st.caption(
            f"{row['document_type']} del {pd.Timestamp(row['date_of_issue']):%d/%m/%Y} · "
            f"{money(float(row['total']), str(row['currency_type_id']))} · `{ext}`"
            + (f" · de la nota de venta {origin}" if origin else "")
        )
        docs = active.client.documents
        c1, c2, c3, c4 = st.columns(4)
        name = str(row["number"])
        download_button(c1, "xml", lambda: docs.download_xml(ext), name=name, key="dl_xml", width="stretch")
        download_button(c2, "pdf", lambda: docs.download_pdf(ext), name=name, key="dl_pdf", width="stretch")
        download_button(
            c3,
            "cdr",
            lambda: docs.download_cdr(ext),
            name=name,
            key="dl_cdr",
            disabled=not bool(row["has_cdr"]),
            width="stretch",
            help=None if row["has_cdr"] else "Este documento aún no tiene CDR.",
        )
        if c4.button(
            "Enviar a SUNAT",
            key="send",
            icon=":material/send:",
            width="stretch",
            disabled=not _sendable(row),
            help=_send_help(row),
        ):
            try:
                result = docs.send(ext)
            except FacturadorError as exc:
                st.error(f"No se pudo enviar {row['number']}: {exc.message}")
            else:
                answer = (
                    f" SUNAT: {result.response.code} - {result.response.description}"
                    if result.response
                    else ""
                )
                flash(
                    "success", f"{row['number']} enviado: {data.state_label(result.state_type_id)}.{answer}"
                )
                invalidate_documents(pd.Timestamp(row["date_of_issue"]).date())
                st.rerun()
        _email(active, row)
        _state_changes(docs.state_changes, ext)
        s1, s2, s3 = st.columns([2, 3, 1], vertical_alignment="bottom")
        codes = list(data.STATES)
        new_state = s1.selectbox(
            "Cambiar estado a",
            codes,
            index=codes.index(code) if code in codes else 0,
            format_func=data.state_label,
            key="new_state",
        )
        reason = s2.text_input(
            "Motivo del cambio (obligatorio)",
            key="status_reason",
            max_chars=500,
            placeholder="Ej.: anulado en SUNAT desde el portal SOL",
        ).strip()
        asked = (ext, new_state, reason)
        if s3.button(
            "Actualizar estado…",
            key="update_status",
            width="stretch",
            disabled=new_state == code or not reason,
            help="Escribe el motivo: queda en el registro de cambios del documento." if not reason else None,
        ):
            ask("status", asked)
        warning = (
            f"El estado de {row['number']} pasa de {data.state_label(code)} a {data.state_label(new_state)} "
            "solo en el servicio: no se informa nada a SUNAT (para anular, usa la página Anular). "
            f"Motivo: «{reason}»."
        )
        one = pd.DataFrame([{**row.to_dict(), "document_type_id": row["document_type"]}])
        action = f"Sí, cambiar a {data.state_label(new_state)}"
        if confirm(
            "status", review(one), verb="cambiar el estado de", action=action, warning=warning, asked=asked
        ):
            try:
                docs.update_status(ext, new_state, reason)
            except FacturadorError as exc:
                st.error(f"No se pudo cambiar el estado: {exc.message}")
            else:
                flash("success", f"{row['number']}: estado cambiado a {data.state_label(new_state)}.")
                invalidate_documents(pd.Timestamp(row["date_of_issue"]).date())
                st.rerun()


#: How a delivery's state reads, and the alert that shows it.
EMAIL_STATES = {"queued": "en cola de envío", "sent": "enviado", "failed": "no enviado"}


def _email(active: Active, row: pd.Series) -> None:
    """Send (or resend) the document by e-mail to the customer, with the last delivery's state."""
    docs = active.client.documents
    ext = str(row["external_id"])
    try:
        sent = docs.email_deliveries(ext)
    except FacturadorError:
        sent = None
    last = sent[-1] if sent else None
    if last is not None:
        when = last.sent_at or last.created_at or ""
        said = (
            f"Último correo a {last.email}: {EMAIL_STATES.get(last.state, last.state)} ({when}, "
            f"{figures.plural(last.attempts, 'intento', 'intentos')})"
            + (f". {last.last_error}" if last.last_error else "")
        )
        show = {"sent": st.success, "failed": st.error}.get(last.state, st.info)
        show(said, icon=":material/mail:")
    e1, e2 = st.columns([4, 1], vertical_alignment="bottom")
    address = e1.text_input(
        "Correo del cliente",
        value=last.email if last else "",
        key=f"email_to_{ext}",
        max_chars=2000,
        placeholder="Vacío: el correo registrado del cliente; varios separados por comas",
    ).strip()
    if e2.button(
        "Reenviar por correo" if last else "Enviar por correo",
        key="email_send",
        icon=":material/mail:",
        width="stretch",
        help="Envía el PDF, el XML y (si SUNAT ya respondió) el CDR por el servidor de correo de la empresa.",
    ):
        try:
            if not int(row.get("id") or 0):
                raise ValueError("el servicio no dio el id de este documento")
            result = docs.email(int(row["id"]), address or None)
        except ValueError as exc:
            st.error(f"No se pudo enviar {row['number']} por correo: {exc}")
        except FacturadorError as exc:
            st.error(f"No se pudo enviar {row['number']} por correo: {exc.message}")
        else:
            state = EMAIL_STATES.get(result.state, result.state)
            flash("success", f"{row['number']}: correo a {result.email} {state}.")
            st.rerun()


def _state_changes(read: Callable[[str], list[StateChange] | None], ext: str) -> None:
    """The document's states set by hand (who, when in Lima's time, from, to, why), when it has any."""
    try:
        changes = read(ext)
    except FacturadorError:
        changes = None
    if not changes:
        return
    st.warning(
        f"Estado cambiado a mano {figures.plural(len(changes), 'vez', 'veces')} (no informado a SUNAT).",
        icon=":material/history:",
    )
    data_table(
        pd.DataFrame(
            [
                {
                    "Fecha (Lima)": f"{c.changed_at:%d/%m/%Y %H:%M}" if c.changed_at else "",
                    "Usuario": c.user_name,
                    "De": data.state_label(c.from_state),
                    "A": data.state_label(c.to_state),
                    "Motivo": c.reason or "(sin motivo)",
                }
                for c in changes
            ]
        ),
        hide_index=True,
        key=f"state_changes_{ext}",
    )


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Documentos", anchor=False)
    top, button = st.columns([5, 1], vertical_alignment="bottom")
    with top:
        picked = _range()
    refresh = button.button(
        "Actualizar",
        icon=":material/refresh:",
        width="stretch",
        key="refresh",
        help="Vuelve a pedir la lista al servicio (sin caché).",
    )
    if picked is None:
        return
    start, end = picked
    show_flash()
    filters_area, kpis_area = st.container(), st.container()
    read = None if refresh else read_scope(active, start, end)
    charts = ChartSlots(loading=read is None or not read.memoised(COUNT) or DRAWN not in st.session_state)
    try:
        with filters_area, st.spinner("Cargando documentos…"):
            whole = scoped(active, start, end, refresh=refresh)
            count = whole.memo(COUNT, whole.count)
    except FacturadorError as exc:
        charts.clear()
        forget_connection()
        st.error(f"No se pudo cargar la lista: {exc.message}")
        return
    if not count:
        charts.clear()
        st.info(f"No hay documentos emitidos entre el {start:%d/%m/%Y} y el {end:%d/%m/%Y}.")
        return
    with filters_area:
        filters = _filters(whole.memo(("options",), whole.options))
    scope = whole.with_filters(filters)
    view = whole.memo(("documents", filters), lambda: figures.documents_view(scope))
    with kpis_area:
        show_kpis(view.summary)
        by_hand = whole.memo(("by_hand", filters), scope.set_by_hand)
        if by_hand:
            st.caption(
                f"Las cifras incluyen {figures.plural(len(by_hand), 'documento', 'documentos')} con el "
                "estado cambiado a mano (no informado a SUNAT): "
                + "; ".join(item.describe() for item in by_hand[:20])
                + (f"; y {len(by_hand) - 20} más." if len(by_hand) > 20 else ".")
            )
    charts.fill(view)
    st.subheader(figures.plural(view.count, "documento", "documentos"), anchor=False)
    if view.count > len(view.table):
        st.caption(
            f"La tabla muestra los {len(view.table):,} más recientes; filtra para acotar, o descarga "
            "todos en CSV o Excel."
        )
    row = _table(view.table)
    _exports(scope)
    if row is None:
        st.caption(
            "Selecciona un documento en la tabla para descargar su XML, PDF o CDR, "
            "enviarlo o cambiar su estado."
        )
    else:
        _selected(active, row)


main()
