"""IGV del mes: the sales side of the month's Formulario Virtual 621 (PDT 621), box by box
(:func:`analysis.igv.monthly_igv`), made from the same month's sales register so that both agree line
for line; each box opens to the documents behind its figure."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import pandas as pd
import streamlit as st

from analysis.igv import MonthlyIgv, monthly_igv
from analysis.register import Period, RegisterEntry, sales_register
from connector import FacturadorError
from dashboard import figures
from dashboard.data import type_label
from dashboard.session import Active, forget_connection, month_closes, reader, require_connection
from dashboard.widgets import data_table, month_options, show_cards

DECLARATIONS = "_igv_declarations"
IN_BOX, TOTAL = "Importe en la casilla (S/)", "Importe total (S/)"
STATES = {"1": "Del periodo", "2": "Anulado / rechazado", "8": "Periodo anterior", "9": "Corrección"}
#: Boxes of the form's sales side the documents cannot fill, and why.
NOT_FILLED = (
    (
        "127",
        "Exportaciones embarcadas en el período",
        "la fecha de embarque está en la DAM, no en la factura",
    ),
    (
        "154 / 155",
        "Ventas gravadas Ley N.° 31556 (tasa reducida)",
        "la tasa de IGV de cada documento no viene en la lista; si la empresa está en ese régimen, su base "
        "va allí y no en la 100",
    ),
    ("160 – 163", "Ventas y descuentos Ley N.° 27037 (Amazonía)", "no aplica fuera de ese régimen"),
    ("109 / 112", "Otras ventas no gravadas", "no se distinguen en la lista de documentos"),
)


def _declaration(active: Active, month: Period, *, refresh: bool) -> MonthlyIgv:
    """The month's boxes, kept in the session (made again on refresh)."""
    kept: dict[tuple[str, str, str], MonthlyIgv] = st.session_state.setdefault(DECLARATIONS, {})
    closes = month_closes(active)  # the register page's: the same lines
    key = (active.key, str(month), repr(dict(closes)))
    if refresh or key not in kept:
        kept[key] = monthly_igv(sales_register(reader(active), month, fresh=refresh, closes=closes))
    return kept[key]


def documents_frame(
    lines: Sequence[RegisterEntry], amounts: Sequence[Decimal] | None = None, label: str = IN_BOX
) -> pd.DataFrame:
    """The documents behind a figure: date, type, number, customer, currency and rate, and (with
    ``amounts``) what each puts in the box, in soles (a column named ``label``)."""
    frame = pd.DataFrame(
        {
            "Fecha": [e.date for e in lines],
            "Tipo": [type_label(e.document_type) for e in lines],
            "Número": [e.source for e in lines],
            "Cliente": [e.customer_name for e in lines],
            "Moneda": [e.currency for e in lines],
            "Tipo de cambio": [float(e.rate) if e.rate is not None else None for e in lines],
            "Estado": [STATES.get(e.state, e.state) for e in lines],
        }
    )
    if amounts is not None:
        frame.insert(3, label, [float(a) for a in amounts])
    return frame


def _table(frame: pd.DataFrame, key: str) -> None:
    data_table(
        frame,
        hide_index=True,
        key=key,
        column_config={
            "Fecha": st.column_config.DateColumn("Fecha", format="DD/MM/YYYY"),
            IN_BOX: st.column_config.NumberColumn(IN_BOX, format="%,.2f"),
            TOTAL: st.column_config.NumberColumn(TOTAL, format="%,.2f"),
            "Tipo de cambio": st.column_config.NumberColumn("Tipo de cambio", format="%.3f"),
        },
        height=min(400, 38 + 35 * max(len(frame), 1)),
    )


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("IGV del mes · Formulario 621", anchor=False)
    top, button = st.columns([4, 1], vertical_alignment="bottom")
    month = top.selectbox(
        "Periodo", month_options(), format_func=lambda p: f"{p.month:02d}/{p.year}", key="igv_month"
    )
    refresh = button.button("Actualizar", icon=":material/refresh:", key="igv_refresh", width="stretch")
    try:
        with st.spinner("Preparando el registro del mes…"):
            declaration = _declaration(active, month, refresh=refresh)
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo preparar el mes: {exc.message}")
        return
    st.caption(
        f"{active.tenant.name} · periodo {month.month:02d}/{month.year}. Ventas del Formulario Virtual "
        "N.° 621 (IGV – Renta mensual), casilla por casilla, a partir de las mismas líneas del Registro de "
        "ventas del mes: importes en soles, cada documento en moneda extranjera a su tipo de cambio."
    )
    cards = [(f"Casilla {box.number} · {box.name}", figures.money(box.amount)) for box in declaration.boxes]
    cards.append(("Casilla 131 · IGV de las ventas (101 − 103)", figures.money(declaration.output_igv)))
    show_cards(cards)
    st.subheader("Documentos de cada casilla", anchor=False)
    for box in declaration.boxes:
        count = figures.plural(len(box.lines), "documento", "documentos")
        with st.expander(f"Casilla {box.number} · {figures.money(box.amount)} · {count}"):
            st.caption(box.rule)
            split = box.by_document_type()
            if len(split) > 1:
                st.caption(
                    " · ".join(
                        f"{type_label(kind)}: {figures.money(amount)}" for kind, amount in split.items()
                    )
                )
            if box.lines:
                _table(documents_frame(box.lines, box.line_amounts), key=f"igv_box_{box.number}")
            else:
                st.caption("Ningún documento del mes va en esta casilla.")
    foreign = declaration.foreign
    if foreign:
        st.info(
            f"{figures.plural(len(foreign), 'documento', 'documentos')} en moneda extranjera, convertidos "
            "a soles a su propio tipo de cambio (columna «Tipo de cambio»).",
            icon=":material/currency_exchange:",
        )
    outside = [o for o in declaration.outside if o.amount]
    if outside:
        with st.expander("Importes del mes que no van en las casillas de ventas del 621"):
            for extra in outside:
                st.markdown(f"**{extra.name} · {figures.money(extra.amount)}.** {extra.why}")
                _table(documents_frame(extra.lines, extra.line_amounts), key=f"igv_outside_{extra.name}")
    if declaration.earlier:
        with st.expander(
            f"{figures.plural(len(declaration.earlier), 'línea', 'líneas')} de periodos anteriores en el "
            "registro de este mes (estados 8 y 9)"
        ):
            st.caption(
                "Corrigen la declaración del mes en que se emitieron (una rectificatoria de ese 621), no "
                "la de este mes."
            )
            earlier = declaration.earlier
            _table(documents_frame(earlier, [e.total for e in earlier], TOTAL), key="igv_earlier")
    if declaration.voided:
        voided = figures.plural(
            len(declaration.voided), "documento anulado o rechazado", "documentos anulados o rechazados"
        )
        st.caption(f"{voided} del mes: en el registro con importes en cero, en ninguna casilla.")
    own = figures.plural(len(declaration.own), "línea", "líneas")
    st.caption(
        f"Cuadra con el Registro de ventas del mes: {own} "
        f"del periodo por {figures.money(declaration.total)} (casillas 100 + 101 − 102 − 103 + 106 + 105 "
        "y los importes fuera de ellas)."
    )
    with st.expander("Casillas de ventas que los documentos no llenan"):
        for number, name, why in NOT_FILLED:
            st.markdown(f"- **{number} · {name}**: {why}.")


main()
