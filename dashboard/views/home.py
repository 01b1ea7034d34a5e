"""Inicio: what needs attention today (alerts) and the month at a glance.

Alerts come from :func:`analysis.alerts.alerts` over the documents of the last
:data:`~analysis.alerts.LOOK_BACK_DAYS` days (:func:`dashboard.session.alert_scope`: boletas not declared
at any age within them, the same Resúmenes lists; facturas without a CDR, rejected documents, voidings
past SUNAT's deadline, each with its deadline; documents whose credit notes take more than they carry),
this service's lists of summaries and voided communications (tickets in process) and what it stopped
sending or asking about by itself, for a person to settle ("needs a person"); real tenants have no such
lists, and the page says so.
"""

from __future__ import annotations

from datetime import timedelta

import streamlit as st

from analysis.alerts import LOOK_BACK_DAYS, Alert, alerts
from analysis.sales import Sale, sales_of, summarize_sql
from connector import FacturadorError, NotFoundError, SummaryRecord
from dashboard import data, figures
from dashboard.session import Active, alert_scope, forget_connection, require_connection, show_flash
from dashboard.widgets import data_table, show_kpis
from sunat.calendar import peru_today

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
            year, watched = alert_scope(active, today)
            records = _records(active, start, today)
            certificate = active.client.company.certificate()
            attention = active.client.company.attention()
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo cargar los documentos: {exc.message}")
        return
    st.subheader("Alertas", anchor=False)
    st.caption(f"Revisado: documentos emitidos del {start:%d/%m/%Y} al {today:%d/%m/%Y}.")
    noted = year.memo(("noted",), lambda: _noted(year))
    for index, alert in enumerate(alerts(watched, today, records, certificate, attention, noted)):
        show_alert(alert, index)
    month = data.Scope(year.store, today.replace(day=1), today)
    st.subheader(f"Ventas del mes · {today:%m/%Y} (al {today:%d/%m})", anchor=False)
    show_kpis(year.memo(("month", today), lambda: summarize_sql(month.run, month.source, month.parameters)))


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
