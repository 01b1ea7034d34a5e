"""Clientes page: search the customers (or suppliers) of the tenant, register one, or edit one.

Everything goes through ``client.persons`` (:mod:`connector.persons`).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from connector import FacturadorError
from connector.persons import Person
from dashboard.session import Active, flash, require_connection, show_flash
from dashboard.widgets import data_table, refusal
from sunat.catalogs import IDENTITY_TYPES

KINDS = {"customers": "Clientes", "suppliers": "Proveedores"}
#: The identity documents a person is usually registered with (catalog 06).
IDENTITIES = {code: IDENTITY_TYPES[code] for code in ("6", "1", "4", "7", "0")}


def _form(active: Active, kind: str, records: dict[int, Person]) -> None:
    """Register a person, or edit the one picked (its current values fill the form)."""
    options: list[int | None] = [None, *records]
    if st.session_state.get("person_edit") not in options:  # another type or search left it out
        st.session_state.pop("person_edit", None)
    picked = st.selectbox(
        "Editar",
        options,
        format_func=lambda p: "Nuevo registro" if p is None else f"{records[p].number} · {records[p].name}",
        key="person_edit",
    )
    current = records.get(picked) if picked is not None else None
    with st.form("person_form", clear_on_submit=False):
        st.subheader("Editar registro" if current else "Nuevo registro", anchor=False)
        left, right = st.columns(2)
        identity_codes = list(IDENTITIES)
        identity = left.selectbox(
            "Documento de identidad",
            identity_codes,
            index=identity_codes.index(current.identity_type)
            if current and current.identity_type in identity_codes
            else 0,
            format_func=IDENTITIES.__getitem__,
            key=f"person_identity_{picked}",
        )
        number = right.text_input(
            "Número", value=current.number if current else "", key=f"person_number_{picked}"
        )
        name = st.text_input(
            "Nombre o razón social", value=current.name if current else "", key=f"person_name_{picked}"
        )
        address = st.text_input(
            "Dirección", value=current.address if current else "", key=f"person_address_{picked}"
        )
        left, right = st.columns(2)
        email = left.text_input(
            "Correo", value=current.email if current else "", key=f"person_email_{picked}"
        )
        phone = right.text_input(
            "Teléfono", value=current.telephone if current else "", key=f"person_phone_{picked}"
        )
        submitted = st.form_submit_button("Guardar", type="primary", icon=":material/save:")
    if not submitted:
        return
    extra: dict[str, Any] = {
        k: v.strip() for k, v in (("address", address), ("email", email), ("telephone", phone)) if v.strip()
    }
    try:
        fields: dict[str, Any] = {
            "number": number.strip(),
            "name": name.strip(),
            "identity_type": identity,
            "person_type": "suppliers" if kind == "suppliers" else "customers",
            **extra,
        }
        persons = active.client.persons
        saved = persons.create(**fields) if picked is None else persons.update(picked, **fields)
    except FacturadorError as exc:
        st.error(refusal("No se guardó", exc), icon=":material/error:")
        return
    flash("success", f"**{saved.name}** ({saved.number}) guardado.")
    st.rerun()


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Clientes", anchor=False)
    st.caption("Clientes y proveedores de la empresa: búscalos por nombre o número, regístralos o edítalos.")
    show_flash()
    left, right = st.columns([1, 3])
    kind = left.radio("Tipo", list(KINDS), format_func=KINDS.__getitem__, horizontal=True, key="person_kind")
    search = right.text_input("Buscar por nombre o número", key="person_search")
    try:
        people: list[Person] = active.client.persons.list(
            "suppliers" if kind == "suppliers" else "customers", search.strip(), fresh=True
        )
    except FacturadorError as exc:
        st.error(refusal("No se pudo cargar la lista", exc))
        people = []
    if not people:
        st.info(
            "No hay registros que coincidan." if search else "Aún no hay registros.", icon=":material/info:"
        )
    else:
        data_table(
            [
                {
                    "Número": p.number,
                    "Nombre": p.name,
                    "Documento": IDENTITY_TYPES.get(p.identity_type, p.identity_type),
                    "Dirección": p.address,
                    "Correo": p.email,
                    "Teléfono": p.telephone,
                }
                for p in people
            ],
            hide_index=True,
        )
    _form(active, kind, {p.id: p for p in people})


main()
