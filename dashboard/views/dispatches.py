"""Guías page: the dispatch guides of a date range, a form to issue a sender's guide (09) (filled from
an accepted factura or boleta when one is picked), and for a picked guide: send it to SUNAT, follow its
ticket, download the XML, PDF and CDR, open the QR link.

Everything goes through ``client.dispatches`` (:mod:`connector.dispatches`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from decimal import Decimal

import pandas as pd
import streamlit as st

from connector import FacturadorError
from connector.dispatches import (
    Driver,
    GuideItem,
    GuideRecord,
    Party,
    Place,
    PrivateTransport,
    PublicTransport,
    SenderGuide,
)
from connector.models import DocumentRecord
from dashboard.downloads import download_button
from dashboard.session import Active, flash, require_connection, show_flash
from dashboard.widgets import data_table, failed
from sunat.calendar import peru_today

STATES = {"01": "Registrada", "03": "Enviada (en proceso)", "05": "Aceptada", "09": "Rechazada"}
GUIDE_TYPES = {"09": "Remitente", "31": "Transportista"}
MODES = {"02": "Transporte privado (conductor y vehículo)", "01": "Transporte público (transportista)"}


def _fill_from(record: DocumentRecord) -> None:
    """Fill the form with an accepted document's recipient and first line, and remember the document
    (its guide carries all its lines and cites it)."""
    items = [item for item in record.raw.get("items") or [] if isinstance(item, dict)]
    st.session_state["guide_customer_ruc"] = record.customer_number
    st.session_state["guide_customer_name"] = record.customer_name
    if items:
        st.session_state["guide_item"] = str(items[0].get("description") or "")
        st.session_state["guide_quantity"] = max(1, int(Decimal(str(items[0].get("quantity") or 1))))
    st.session_state["guide_document"] = record.external_id
    st.session_state["guide_document_label"] = f"{record.number} ({len(items)} línea(s))"


def _forget_document() -> None:
    st.session_state.pop("guide_document", None)
    st.session_state.pop("guide_document_label", None)


def _from_document(active: Active) -> None:
    """Pick an accepted factura or boleta of the last month to fill the form with."""
    st.subheader("Guía desde un comprobante aceptado", anchor=False)
    today = peru_today()
    try:
        rows = active.client.documents.list(today - timedelta(days=31), today, fresh=True, details=True)
    except FacturadorError as exc:
        st.error(f"No se pudo cargar los comprobantes: {exc.message}")
        return
    accepted = {
        r.external_id: r
        for r in rows
        if r.document_type_id in ("01", "03") and r.state_type_id in ("05", "07")
    }
    if not accepted:
        st.caption("No hay facturas ni boletas aceptadas en el último mes.")
        return

    def label(external_id: str) -> str:
        r = accepted[external_id]
        symbol = "US$" if r.currency_type_id == "USD" else "S/"
        issued = r.date_of_issue.strftime("%d/%m/%Y") if r.date_of_issue else ""
        return f"{r.number} · {issued} · {r.customer_name} · {symbol} {r.total:,.2f}"

    left, right = st.columns([3, 1])
    picked = left.selectbox(
        "Comprobante",
        list(accepted),
        format_func=label,
        index=None,
        key="guide_document_pick",
        placeholder="Elige una factura o boleta aceptada",
    )
    right.button(
        "Llenar la guía",
        key="guide_fill",
        disabled=picked is None,
        on_click=_fill_from,
        args=(accepted[picked],) if picked else (),
        icon=":material/input:",
    )


def _issue_form(active: Active) -> None:
    """The form of a sender's guide (09): recipient, places, transport, weight and one line; with a
    document picked, the guide takes its lines and cites it."""
    document = st.session_state.get("guide_document")
    if document:
        left, right = st.columns([3, 1])
        left.info(
            f"La guía se emite para el comprobante **{st.session_state.get('guide_document_label', '')}**: "
            "lleva sus líneas y lo cita como documento relacionado (el stock ya lo movió el comprobante).",
            icon=":material/link:",
        )
        right.button("Quitar comprobante", key="guide_forget", on_click=_forget_document)
    with st.form("guide_form", clear_on_submit=False):
        st.subheader("Emitir guía de remisión remitente", anchor=False)
        left, right = st.columns(2)
        customer_ruc = left.text_input("RUC del destinatario", key="guide_customer_ruc")
        customer_name = right.text_input("Razón social del destinatario", key="guide_customer_name")
        origin_ubigeo = left.text_input("Ubigeo de partida", value="150101", key="guide_origin_ubigeo")
        origin = right.text_input("Dirección de partida", key="guide_origin")
        delivery_ubigeo = left.text_input("Ubigeo de llegada", value="150101", key="guide_delivery_ubigeo")
        delivery = right.text_input("Dirección de llegada", key="guide_delivery")
        mode = st.radio(
            "Modalidad", list(MODES), format_func=MODES.__getitem__, horizontal=True, key="guide_mode"
        )
        left, right = st.columns(2)
        carrier_ruc = left.text_input("RUC del transportista (público)", key="guide_carrier_ruc")
        carrier_name = right.text_input("Razón social del transportista (público)", key="guide_carrier_name")
        driver_dni = left.text_input("DNI del conductor (privado)", key="guide_driver_dni")
        driver_names = right.text_input("Conductor: APELLIDOS, NOMBRES (privado)", key="guide_driver_names")
        licence = left.text_input("Licencia del conductor (privado)", key="guide_licence")
        plate = right.text_input("Placa del vehículo (privado)", key="guide_plate")
        weight = left.number_input("Peso bruto (kg)", min_value=0.001, value=1.0, key="guide_weight")
        description = right.text_input("Bien trasladado", key="guide_item")
        quantity = left.number_input("Cantidad", min_value=1, value=1, key="guide_quantity")
        submitted = st.form_submit_button("Emitir guía", type="primary", icon=":material/local_shipping:")
    if not submitted:
        return
    transport: PublicTransport | PrivateTransport
    if mode == "01":
        transport = PublicTransport(Party("6", carrier_ruc.strip(), carrier_name.strip()))
    else:
        transport = PrivateTransport(
            Driver("1", driver_dni.strip(), driver_names.strip(), licence.strip()), plate.strip()
        )
    start = Place(origin_ubigeo.strip(), origin.strip(), establishment="0000")
    end = Place(delivery_ubigeo.strip(), delivery.strip())
    try:
        if document:
            guide = active.client.dispatches.from_document(
                document, origin=start, delivery=end, transport=transport, weight=str(weight)
            )
        else:
            guide = SenderGuide(
                customer=Party("6", customer_ruc.strip(), customer_name.strip()),
                transport=transport,
                weight=str(weight),
                items=[GuideItem(description.strip() or "Bienes", int(quantity))],
                origin=start,
                delivery=end,
            )
        ref = active.client.dispatches.issue(guide)
    except FacturadorError as exc:
        details = "".join(f"\n- {e.field}: {e.message}" for e in exc.field_errors)
        st.error(f"No se emitió la guía: {exc.message}{details}", icon=":material/error:")
        return
    except ValueError as exc:  # the document is no longer one a guide can come from
        st.error(f"No se emitió la guía: {exc}", icon=":material/error:")
        return
    _forget_document()
    st.session_state["guide_picked"] = ref.external_id
    flash("success", f"Guía **{ref.number}** emitida (registrada, aún no enviada a SUNAT).")
    st.rerun()


def _actions(active: Active, frame: pd.DataFrame) -> None:
    """Send, follow and download the picked guide."""
    labels = {
        str(row.external_id): f"{row.number} · {row.customer_name} · {STATES.get(str(row.state_type_id), '')}"
        for row in frame.itertuples()
    }
    picked = st.selectbox(
        "Guía", list(labels), format_func=labels.__getitem__, key="guide_picked", placeholder="Elige una guía"
    )
    if not picked:
        return
    row = frame[frame["external_id"] == picked].iloc[0]
    left, middle, right = st.columns(3)
    if left.button(
        "Enviar a SUNAT", key="guide_send", disabled=row["state_type_id"] != "01", icon=":material/send:"
    ):
        try:
            sent = active.client.dispatches.send(picked)
            flash("success", sent.message)
        except FacturadorError as exc:
            flash("error", f"No se envió: {exc.message}")
        st.rerun()
    if middle.button(
        "Consultar ticket", key="guide_status", disabled=row["state_type_id"] == "01", icon=":material/sync:"
    ):
        try:
            status = active.client.dispatches.status(external_id=picked)
            kind = "info" if status.processing else ("success" if status.accepted else "error")
            flash(kind, status.message)
        except FacturadorError as exc:
            flash("error", f"No se pudo consultar: {exc.message}")
        st.rerun()
    if row["qr_url"]:
        right.link_button("Abrir QR de SUNAT", row["qr_url"], icon=":material/qr_code:")
    guides = active.client.dispatches
    downloads = {"xml": guides.download_xml, "pdf": guides.download_pdf, "cdr": guides.download_cdr}
    for place, (kind, download) in zip(st.columns(3), downloads.items(), strict=True):

        def fetch(download: Callable[[str], bytes] = download) -> bytes:
            return download(picked)

        download_button(
            place,
            kind,
            fetch,
            name=str(row["number"]),
            key=f"guide_download_{kind}",
            disabled=kind == "cdr" and row["state_type_id"] not in ("05", "09"),
        )


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Guías", anchor=False)
    st.caption(
        "Guías de remisión electrónicas: se emiten registradas, se envían a SUNAT y se sigue su ticket."
    )
    show_flash()
    today = peru_today()
    chosen = st.date_input(
        "Emitidas entre",
        value=(today - timedelta(days=7), today),
        max_value=today,
        format="DD/MM/YYYY",
        key="guide_range",
    )
    start, end = chosen if isinstance(chosen, tuple) and len(chosen) == 2 else (today, today)
    assert isinstance(start, date) and isinstance(end, date)
    offered = True
    try:
        records: list[GuideRecord] = active.client.dispatches.list(start, end)
    except FacturadorError as exc:
        failed("No se pudo cargar las guías", exc)
        records, offered = [], False
    frame = pd.DataFrame(
        [
            {
                "external_id": r.external_id,
                "number": r.number,
                "tipo": GUIDE_TYPES.get(r.document_type_id, r.document_type_id),
                "fecha": r.date_of_issue,
                "customer_name": r.customer_name,
                "state_type_id": r.state_type_id,
                "estado": STATES.get(r.state_type_id, r.state_type_id),
                "ticket": r.ticket,
                "qr_url": r.qr_url,
            }
            for r in records
        ],
        columns=[
            "external_id",
            "number",
            "tipo",
            "fecha",
            "customer_name",
            "state_type_id",
            "estado",
            "ticket",
            "qr_url",
        ],
    )
    if frame.empty:
        if offered:
            st.info("No hay guías en esas fechas.", icon=":material/info:")
    else:
        data_table(
            frame[["number", "tipo", "fecha", "customer_name", "estado", "ticket"]].rename(
                columns={
                    "number": "Número",
                    "tipo": "Tipo",
                    "fecha": "Fecha",
                    "customer_name": "Destinatario",
                    "estado": "Estado",
                    "ticket": "Ticket",
                }
            ),
            hide_index=True,
            column_config={"Fecha": st.column_config.DateColumn("Fecha", format="DD/MM/YYYY")},
        )
        _actions(active, frame)
    _from_document(active)
    _issue_form(active)


main()
