"""Retenciones / Percepciones: issue a retention (20) or perception (40) of one paid document, list the
tenant's ones with their files, see the amounts retained or perceived per month, and the reversions
(RR) of the family.

The amounts are computed by the connector's builders (:mod:`connector.withholding`, through
:mod:`sunat.withholding`); the page shows them before sending, then SUNAT's answer.
"""

from __future__ import annotations

import functools
from datetime import date
from decimal import Decimal, InvalidOperation

import pandas as pd
import streamlit as st

from connector import FacturadorError
from connector.builders import Customer
from connector.withholding import Payment, Perception, Retention, WithholdingResource
from dashboard import charts, data
from dashboard.downloads import download_button
from dashboard.figures import money
from dashboard.session import Active, require_connection
from dashboard.widgets import data_table, failed
from dashboard.withholding import AMOUNT, monthly, monthly_figure
from sunat import withholding
from sunat.calendar import peru_today

FAMILIES = {"retentions": "Retenciones", "perceptions": "Percepciones"}
ONE = {"retentions": "retención", "perceptions": "percepción"}
PARTY = {"retentions": "Proveedor", "perceptions": "Cliente"}
NET = {"retentions": "Neto pagado", "perceptions": "Total cobrado"}
LAST = "withholding_last"


def _decimal(text: str) -> Decimal | None:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None
    return value if value > 0 else None


def _form(active: Active, family: str, resource: WithholdingResource) -> None:
    doc_type = withholding.RETENTION if family == "retentions" else withholding.PERCEPTION
    regimes = withholding.regimes(doc_type)
    with st.form(f"withholding_form_{family}"):
        left, right = st.columns(2)
        number = left.text_input(f"RUC del {PARTY[family].lower()}", key=f"wh_{family}_ruc")
        name = right.text_input("Razón social", key=f"wh_{family}_name")
        regime = left.selectbox(
            "Régimen",
            list(regimes),
            format_func=lambda c: f"{c} · {regimes[c][0]} ({regimes[c][1].normalize():f} %)",
            key=f"wh_{family}_regime",
        )
        related = right.text_input("Documento pagado (SERIE-NÚMERO)", value="F001-1", key=f"wh_{family}_doc")
        issued = left.date_input(
            "Emisión del documento",
            value=peru_today(),
            max_value=peru_today(),
            format="DD/MM/YYYY",
            key=f"wh_{family}_issued",
        )
        currency = right.selectbox("Moneda", ["PEN", "USD"], key=f"wh_{family}_currency")
        total = left.text_input("Total del documento", value="1000.00", key=f"wh_{family}_total")
        paid = right.text_input("Importe pagado", value="1000.00", key=f"wh_{family}_paid")
        rate = left.text_input("Tipo de cambio (si no es PEN)", value="", key=f"wh_{family}_rate")
        sent = st.form_submit_button("Emitir", type="primary")
    if not sent:
        return
    amount, payment = _decimal(total), _decimal(paid)
    factor = _decimal(rate) if rate.strip() else None
    problems = []
    if not number.strip() or not name.strip():
        problems.append(f"Indique el RUC y la razón social del {PARTY[family].lower()}.")
    if amount is None or payment is None:
        problems.append("El total y el importe pagado deben ser números mayores que 0.")
    if currency != "PEN" and factor is None:
        problems.append("Indique el tipo de cambio del documento en dólares.")
    if "-" not in related:
        problems.append("El documento pagado se escribe SERIE-NÚMERO (F001-1).")
    if problems:
        for problem in problems:
            st.error(problem, icon=":material/error:")
        return
    assert amount is not None and payment is not None and isinstance(issued, date)
    party = Customer.ruc(number.strip(), name.strip())
    payments = [
        Payment(
            "01",
            related.strip().upper(),
            issued=issued,
            total=amount,
            paid=payment,
            currency=currency,
            exchange_rate=factor,
        )
    ]
    builder = (
        Retention(supplier=party, regime=regime, payments=payments)
        if family == "retentions"
        else Perception(customer=party, regime=regime, payments=payments)
    )
    try:
        with st.spinner("Enviando a SUNAT…"):
            result = resource.issue(builder)
    except FacturadorError as exc:
        details = "".join(f"\n- {e.field}: {e.message}" for e in exc.field_errors)
        st.error(f"No se emitió: {exc.message}{details}", icon=":material/error:")
        return
    st.session_state[LAST] = result
    del active


def _last(family: str, resource: WithholdingResource) -> None:
    result = st.session_state.get(LAST)
    if result is None or not result.series.startswith("R" if family == "retentions" else "P"):
        return
    answer = result.response
    text = f"{result.number}: {answer.code} · {answer.description}" if answer else result.number
    (st.success if result.accepted else st.error)(text, icon=":material/receipt:")
    downloads = {"xml": resource.download_xml, "pdf": resource.download_pdf, "cdr": resource.download_cdr}
    for column, (kind, download) in zip(st.columns(3), downloads.items(), strict=True):
        download_button(
            column,
            kind,
            functools.partial(download, result.external_id),
            name=result.filename,
            key=f"wh_last_{kind}_{result.external_id}",
            disabled=kind == "cdr" and not result.links.get("cdr"),
        )


def _reversions(family: str, resource: WithholdingResource) -> None:
    """The family's reversions (RR): their summary, day, documents, ticket and SUNAT's state."""
    st.subheader("Reversiones (RR)", anchor=False)
    try:
        rows = resource.reversions.latest(fresh=True)
    except FacturadorError as exc:
        failed("No se pudo cargar las reversiones", exc)
        return
    if not rows:
        st.caption(f"No hay reversiones de {FAMILIES[family].lower()}.")
        return
    data_table(
        pd.DataFrame(
            [
                {
                    "Reversión": r.identifier,
                    "Fecha": r.date_of_issue.strftime("%d/%m/%Y") if r.date_of_issue else "",
                    "Comprobantes": r.documents,
                    "Ticket": r.ticket,
                    "Estado": r.state_type_description,
                    "Respuesta": r.response.description if r.response else "",
                }
                for r in rows
            ]
        ),
        hide_index=True,
        key=f"withholding_reversions_{family}",
    )


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Retenciones / Percepciones", anchor=False)
    family = (
        st.segmented_control(
            "Tipo",
            list(FAMILIES),
            format_func=FAMILIES.__getitem__,
            default="retentions",
            key="withholding_family",
        )
        or "retentions"
    )
    resource: WithholdingResource = getattr(active.client, family)
    with st.expander(f"Emitir una {ONE[family]}", expanded=False):
        _form(active, family, resource)
    _last(family, resource)
    try:
        records = resource.latest(fresh=True)
    except FacturadorError as exc:
        failed("No se pudo cargar la lista", exc)
        return
    if not records:
        st.info(f"No hay {FAMILIES[family].lower()} emitidas.")
        return
    frame = monthly(records)
    total = sum((r.total for r in records if r.state_type_id in ("05", "07")), Decimal(0))
    left, right = st.columns(2)
    left.metric(f"{AMOUNT[family]} (últimas {len(records)})", money(total))
    right.metric("Comprobantes aceptados", int(frame["Comprobantes"].sum()) if len(frame) else 0)
    charts.show(monthly_figure(frame, family), key=f"withholding_chart_{family}")
    data_table(
        pd.DataFrame(
            [
                {
                    "Número": r.number,
                    "Fecha": r.date_of_issue,
                    PARTY[family]: f"{r.party_name} ({r.party_number})",
                    "Régimen": f"{r.regime} · {r.percent.normalize():f} %",
                    AMOUNT[family]: float(r.total),
                    NET[family]: float(r.total_net),
                    "Estado": [data.state_label(r.state_type_id)],
                }
                for r in records
            ]
        ),
        hide_index=True,
        key=f"withholding_table_{family}",
        column_config={
            "Fecha": st.column_config.DateColumn("Fecha", format="DD/MM/YYYY"),
            "Estado": st.column_config.MultiselectColumn(
                "Estado",
                options=[style.label for style in data.STATES.values()],
                color=[style.color for style in data.STATES.values()],
            ),
        },
    )
    _reversions(family, resource)


main()
