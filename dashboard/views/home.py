"""Inicio: what needs attention today (alerts) and the month at a glance.

Alerts come from :func:`analysis.alerts.alerts` over the documents of the last
:data:`~analysis.alerts.LOOK_BACK_DAYS` days (:func:`dashboard.session.alert_scope`: boletas not declared
at any age within them, the same Resúmenes lists; facturas without a CDR, rejected documents, voidings
past SUNAT's deadline, each with its deadline), this service's lists of summaries and voided
communications (tickets in process) and what it stopped sending or asking about by itself, for a person
to settle ("needs a person"); real tenants have no such lists, and the page says so.
"""

from __future__ import annotations

from datetime import timedelta

import streamlit as st

from analysis.alerts import LOOK_BACK_DAYS, Alert, alerts
from analysis.sales import summarize_sql
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
            if "Total" in frame:
                config["Total"] = st.column_config.NumberColumn("Total", format="%,.2f")
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
    for index, alert in enumerate(alerts(watched, today, records, certificate, attention)):
        show_alert(alert, index)
    month = data.Scope(year.store, today.replace(day=1), today)
    st.subheader(f"Ventas del mes · {today:%m/%Y} (al {today:%d/%m})", anchor=False)
    show_kpis(year.memo(("month", today), lambda: summarize_sql(month.run, month.source, month.parameters)))


main()
