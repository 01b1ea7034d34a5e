"""Inicio: what needs attention today (alerts) and the month at a glance.

Alerts come from :func:`analysis.alerts.alerts` over the documents of the last :data:`LOOK_BACK_DAYS`
days (boletas not declared at any age within them, facturas without a CDR, rejected documents, voidings
past SUNAT's deadline, documents whose credit notes take more than they carry) and this service's
lists of summaries and voided communications (tickets in process); real tenants have no such lists,
and the page says so.
"""

from __future__ import annotations

from datetime import timedelta

import streamlit as st

from analysis.alerts import ALERT_STATES, Alert, alerts
from analysis.sales import Sale, sales_of, summarize_sql
from connector import FacturadorError, NotFoundError, SummaryRecord
from dashboard import data, figures
from dashboard.session import Active, forget_connection, require_connection, scoped, show_flash
from dashboard.widgets import data_table, show_kpis
from sunat.calendar import peru_today

#: How far back the alerts look (a boleta never declared is found up to a year after its issue).
LOOK_BACK_DAYS = 366
DATE_COLUMNS = ("Fecha", "Fecha de emisión", "Plazo SUNAT", "Generado", "Documentos del", "Pedida el")
ICONS = {"error": ":material/error:", "warning": ":material/warning:", "info": ":material/info:"}


def _records(active: Active, start, end) -> list[SummaryRecord] | None:  # type: ignore[no-untyped-def]
    client = active.client
    try:
        return [*client.summaries.list(start, end), *client.voided.list(start, end)]
    except NotFoundError:
        return None


def show_alert(alert: Alert, index: int) -> None:
    """One alert: a colored box with its title and what to do, and its rows in an expander."""
    if alert.severity == "ok":
        st.success(alert.title, icon=":material/task_alt:")
        return
    box = {"error": st.error, "warning": st.warning, "info": st.info}[alert.severity]
    box(f"**{alert.title}.** {alert.action}", icon=ICONS[alert.severity])
    if alert.rows:
        with st.expander(f"Ver {figures.plural(alert.count, 'detalle', 'detalles')}", expanded=False):
            frame = figures.alert_frame(alert.rows)
            config = {
                column: st.column_config.DateColumn(column, format="DD/MM/YYYY")
                for column in frame.columns
                if column
                in ("Fecha", "Fecha de emisión", "Plazo SUNAT", "Generado", "Documentos del", "Pedida el")
            }
            for column in ("Total", "Notas de crédito", "Notas de débito", "Saldo"):
                if column in frame:
                    config[column] = st.column_config.NumberColumn(column, format="%,.2f")
            data_table(frame, hide_index=True, column_config=config, key=f"alert_{alert.kind}_{index}")


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Inicio", anchor=False)
    show_flash()
    today = peru_today()
    start = today - timedelta(days=LOOK_BACK_DAYS - 1)
    try:
        with st.spinner("Revisando documentos…"):
            year = scoped(active, start, today)
            records = _records(active, start, today)
            certificate = active.client.company.certificate()
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo cargar los documentos: {exc.message}")
        return
    st.subheader("Alertas", anchor=False)
    st.caption(f"Revisado: documentos emitidos del {start:%d/%m/%Y} al {today:%d/%m/%Y}.")
    for index, alert in enumerate(
        alerts(
            year.memo(("alerts",), lambda: _watched(year)),
            today,
            records,
            certificate,
            year.memo(("noted",), lambda: _noted(year)),
        )
    ):
        show_alert(alert, index)
    month = data.Scope(year.store, today.replace(day=1), today)
    st.subheader(f"Ventas del mes · {today:%m/%Y} (al {today:%d/%m})", anchor=False)
    show_kpis(year.memo(("month", today), lambda: summarize_sql(month.run, month.source, month.parameters)))


def _watched(year: data.Scope) -> list[Sale]:
    """The year's documents the alerts may be about (:data:`~analysis.alerts.ALERT_STATES`), read from
    the store: a few of a year's, not a million."""
    where, values = year.where()
    marks = ", ".join("?" for _ in ALERT_STATES)
    listed = year.store.listed(f"{where} AND state_type_id IN ({marks})", [*values, *sorted(ALERT_STATES)])
    return sales_of(listed.rows)


def _noted(year: data.Scope) -> list[Sale]:
    """The year's credit and debit notes and the documents they modify (of any date), for the alert on
    credit notes that take more than their document carries."""
    where, values = year.where()
    notes = sales_of(year.store.listed(f"{where} AND document_type_id IN ('07', '08')", values).rows)
    numbers = sorted({n.affected_number for n in notes if n.affected_number})
    if not numbers:
        return notes
    marks = ", ".join("?" for _ in numbers)
    originals = year.store.listed(f"document_type_id IN ('01', '03') AND number IN ({marks})", numbers)
    return [*notes, *sales_of(originals.rows)]


main()
