"""Cartera de empresas: every company of the tenants file for one month
(:func:`analysis.portfolio.portfolio`): its close, its pending work and SUNAT's due date by the last digit
of its RUC, one row per company sorted by what is due first; a company that cannot be reached is flagged
in its row and the others show."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from analysis.portfolio import NOT_AVAILABLE, CompanyRow, Portfolio, portfolio
from analysis.register import Period
from dashboard import figures
from dashboard.session import configured_tenants, tenant_key
from dashboard.widgets import data_table, month_options

KEPT = "_portfolio"
#: Columns that mix counts with «no disponible»: shown as text.
MIXED = ("Diferencias de validez", "Certificado (días)")


def frame(found: Portfolio) -> pd.DataFrame:
    """The page's table: one row per company, the unknowns as «—» or «no disponible»."""
    table = pd.DataFrame(found.table())
    if table.empty:
        return table
    for column in MIXED:
        table[column] = [NOT_AVAILABLE if v is None else str(v) for v in table[column]]
    for column in ("Boletas sin declarar", "Facturas sin CDR", "Días"):
        table[column] = table[column].astype("Int64")
    table["Vence"] = pd.to_datetime(table["Vence"])
    return table


def _computed(month: Period, tenants: dict[str, Any], refresh: bool) -> Portfolio:
    kept: dict[tuple[str, ...], Portfolio] = st.session_state.setdefault(KEPT, {})
    key = (str(month), *(tenant_key(tenant) for tenant in tenants.values()))
    if refresh or key not in kept:
        bar = st.progress(0.0, text="Consultando las empresas…")

        def heard(done: int, total: int, row: CompanyRow) -> None:
            state = "lista" if row.reachable else "sin respuesta"
            bar.progress(done / total, text=f"{done} de {total} empresas · {row.name}: {state}")

        kept[key] = portfolio(month, tenants, progress=heard)
        bar.empty()
    return kept[key]


def main() -> None:
    """Lay out the page."""
    st.title("Cartera de empresas", anchor=False)
    tenants, problem = configured_tenants()
    if problem:
        st.error(problem)
        return
    top, button = st.columns([4, 1], vertical_alignment="bottom")
    month = top.selectbox(
        "Periodo", month_options(), format_func=lambda p: f"{p.month:02d}/{p.year}", key="portfolio_month"
    )
    refresh = button.button("Actualizar", icon=":material/refresh:", key="portfolio_refresh", width="stretch")
    found = _computed(month, tenants, refresh)
    companies = figures.plural(len(found.rows), "empresa", "empresas")
    st.caption(
        f"Periodo {month.month:02d}/{month.year} · {companies} del archivo de empresas, por fecha de "
        f"vencimiento de la declaración mensual (cronograma de SUNAT por el último dígito del RUC) · "
        f"consultadas en {found.seconds:.1f} s."
    )
    for row in found.unreachable:
        st.warning(f"**{row.name}** no respondió: {row.message}", icon=":material/cloud_off:")
    table = frame(found)
    if table.empty:
        st.info("El archivo de empresas no tiene empresas.")
        return
    data_table(
        table,
        hide_index=True,
        key="portfolio_table",
        column_config={
            "Vence": st.column_config.DateColumn("Vence", format="DD/MM/YYYY"),
            "Días": st.column_config.NumberColumn(
                "Días", help="Días hasta el vencimiento (negativo: vencido)"
            ),
            "Conexión": st.column_config.TextColumn("Conexión", width="large"),
        },
        height=min(720, 38 + 35 * len(table)),
    )
    notes = sorted({row.due_note for row in found.rows if row.due_note})
    for note in notes:
        st.caption(f"Vencimiento no disponible: {note}")
    sources = sorted({row.due.source for row in found.rows if row.due is not None})
    if sources:
        st.caption("Fuente de las fechas: " + " · ".join(sources))
    st.caption(
        "«no disponible»: el cierre en SIRE y la verificación de validez aún no informan a esta página; el "
        "certificado, solo las empresas de este servicio."
    )


main()
