"""Cuentas por cobrar: the instalments of sales on credit still owed, due and overdue amounts by customer
and age (0–30, 31–60, 61–90, over 90 days), from the documents' ``cuotas``
(:mod:`analysis.receivables`). The service records no collections: every instalment counts as unpaid,
less the credit notes on its factura."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import streamlit as st

from analysis.receivables import AGES, aging, open_instalments, stored_rows
from connector import FacturadorError
from connector.store import LocalStore
from dashboard import figures
from dashboard.session import LIST_TTL, Active, forget_connection, loaded, local_store, require_connection
from dashboard.widgets import data_table, show_cards
from sunat.calendar import peru_today

#: How far back the page looks for credit sales.
LOOK_BACK_DAYS = 366


@st.cache_resource(ttl=LIST_TTL, max_entries=32, show_spinner=False)
def _stored(key: str, start: date, end: date, _store: LocalStore) -> tuple[list[dict[str, Any]], bool]:
    """The credit sales and credit notes of tenant ``key``'s range out of its store (cached as the
    loaded lists are: by key and range, shared read-only between its sessions)."""
    return stored_rows(_store, start, end)


def _credit_rows(active: Active, start: date, end: date) -> tuple[Sequence[Mapping[str, Any]], bool]:
    """The rows the page reads and whether they carry their instalments: from the local store only the
    credit sales and credit notes (synced first, as every page's load), else the range's list."""
    store = local_store(active)
    if store is None:
        got = loaded(active, start, end, details=True)
        return got.rows, got.has_details
    store.forget(st.session_state.pop("_documents_changed_days", ()))
    fresh = bool(st.session_state.pop("_documents_stale", False))
    report = store.sync(start, end, client=active.client, full=fresh)
    if fresh or report.rows:
        _stored.clear(active.key, start, end, store)  # this entry only: its documents changed
    return _stored(active.key, start, end, store)


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Cuentas por cobrar", anchor=False)
    today = peru_today()
    start = today - timedelta(days=LOOK_BACK_DAYS - 1)
    try:
        with st.spinner("Cargando ventas al crédito…"):
            documents, has_details = _credit_rows(active, start, today)
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo cargar los documentos: {exc.message}")
        return
    st.caption(
        f"Ventas al crédito emitidas del {start:%d/%m/%Y} al {today:%d/%m/%Y}, al {today:%d/%m/%Y}. "
        "El servicio no registra cobros: cada cuota cuenta como pendiente, menos las notas de crédito "
        "de su factura (aplicadas a las últimas cuotas) y más sus notas de débito (en sus propias cuotas, "
        "o con la última cuota si no las tienen). Anulados y rechazados no deben nada."
    )
    if documents and not has_details:
        st.info(
            "Este servicio no envía las cuotas de los documentos en sus listas: las cuentas por cobrar no "
            "están disponibles.",
            icon=":material/info:",
        )
        return
    items, _ = open_instalments(documents)
    if not items:
        st.success("No hay cuotas pendientes de ventas al crédito.", icon=":material/task_alt:")
        return
    rows = aging(items, today)
    for currency in sorted({r.currency for r in rows}, key=lambda c: (c != "PEN", c)):
        mine = [r for r in rows if r.currency == currency]
        totals = {age: sum((r.buckets[age] for r in mine), Decimal(0)) for age in AGES}
        st.subheader(f"En {currency}", anchor=False)
        show_cards(
            [
                ("Total por cobrar", figures.money(sum(totals.values(), Decimal(0)), currency)),
                *((age, figures.money(totals[age], currency)) for age in AGES),
            ]
        )
        amount = st.column_config.NumberColumn(format="%,.2f")
        data_table(
            figures.aging_frame(mine),
            hide_index=True,
            key=f"aging_{currency}",
            column_config={name: amount for name in (*AGES, "Vencido", "Total")},
        )
    with st.expander(figures.plural(len(items), "cuota pendiente", "cuotas pendientes")):
        data_table(
            figures.instalments_frame(items, today),
            hide_index=True,
            key="instalments",
            column_config={
                "Emisión": st.column_config.DateColumn(format="DD/MM/YYYY"),
                "Vence": st.column_config.DateColumn(format="DD/MM/YYYY"),
                "Pendiente": st.column_config.NumberColumn(format="%,.2f"),
            },
        )


main()
