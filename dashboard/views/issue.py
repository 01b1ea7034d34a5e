"""Issue page: a factura, boleta, credit or debit note from a form, with live totals and plugin sections.

The form becomes a connector builder (:func:`dashboard.issuing.build_document`), which
computes every amount with ``sunat``; plugin sections come from
``client.plugin_manager.form_fields("documents", doc_type)`` and their values go to
``client.documents.issue(builder, form_values=...)``. Errors of the service are shown under the widgets
they name (:func:`dashboard.issuing.route_errors`). A block's section (global discounts and charges,
advances, payments, perception, retention, line discounts and charges, item attributes, related documents
and guides, cargo transport) appears only for a tenant that enables its plugin in the
tenants file (``plugins = ["plugins.allowances", ...]``); when a section changes the total it is said
under the totals.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pandas as pd
import streamlit as st

from connector import FacturadorError
from connector.documents import new_idempotency_key
from connector.forms import FormField
from dashboard import data, issuing
from dashboard.downloads import download_button
from dashboard.session import Active, invalidate_documents, loaded, require_connection
from dashboard.widgets import data_table
from sunat.calendar import peru_today
from sunat.catalogs import UNITS

ERRORS = "issue_errors"  # {"slots": {slot: [messages]}, "fingerprint": str}
RESULT = "issue_result"  # {"kind": code, "result": IssueResult}
ATTEMPTED = "issue_attempted"
MANUAL = "__manual__"
KEY = "issue_key"  # (idempotency key, fingerprint of the payload it was made for, its issue time)
PREFILLED = "_note_prefilled"  # (affected external id, kind, note type) the form was filled from
LOCKED = "_note_locked"  # item columns the note type does not let the user change


# --------------------------------------------------------------------------------------------- errors


def _fingerprint(payload: dict[str, Any] | None, values: dict[str, Any]) -> str:
    """What the form would send, to tell whether stored service errors still apply to it."""
    body = dict(payload or {})
    body.pop("hora_de_emision", None)  # changes every second
    return json.dumps([body, values], sort_keys=True, default=str)


class Errors:
    """Places for error messages under the widgets they are about.

    Widgets call :meth:`show` as they render, which leaves an empty placeholder for their slot; once the
    whole form is read (and so what it would send is known) :meth:`fill` writes the messages that apply
    into those placeholders. A slot without a placeholder goes to the general one.
    """

    def __init__(self) -> None:
        self.places: dict[str, Any] = {}

    def show(self, slot: str) -> None:
        """Leave the place of ``slot``'s messages right where it is called (under its widget)."""
        self.places[slot] = st.empty()

    def fill(self, slots: dict[str, list[str]]) -> None:
        """Write the messages of every slot into its place (or the general place)."""
        pending: dict[str, list[str]] = {}
        for slot, messages in slots.items():
            target = slot if slot in self.places else issuing.GENERAL
            pending.setdefault(target, []).extend(messages)
        for slot, messages in pending.items():
            place = self.places.get(slot)
            if place is None:
                continue
            with place.container():
                for message in messages:
                    st.error(message, icon=":material/error:")


# --------------------------------------------------------------------------------------------- widgets


def _kind() -> issuing.Kind:
    code = st.segmented_control(
        "Comprobante",
        list(issuing.KINDS),
        format_func=lambda c: issuing.KINDS[c].name,
        default="01",
        required=True,
        key="issue_kind",
    )
    return issuing.KINDS[code or "01"]


def _affected(active: Active, kind: issuing.Kind, form: issuing.DocumentForm, errors: Errors) -> None:
    """The affected document of a note: a factura/boleta of the last 90 days (the note then starts from
    it: customer, currency and lines, editable as the note type allows), or typed by hand."""
    start, end = data.default_range(days=90)
    try:
        recent = loaded(active, start, end, details=True)
    except FacturadorError:
        recent = None
    frame = recent.frame if recent is not None else data.empty_documents()
    usable = frame["document_type_id"].astype(str).isin(["01", "03"]) & data.counted(frame)
    candidates = frame[usable]
    candidates = candidates.iloc[data.newest_first(candidates)].head(500)
    labels = {str(r["external_id"]): data.document_label(r) for _, r in candidates.iterrows()}
    positions = {str(r["external_id"]): int(index) for index, r in candidates.iterrows()}
    options = [*labels, MANUAL]
    picked = st.selectbox(
        "Documento afectado",
        options,
        format_func=lambda v: "Escribir serie y número…" if v == MANUAL else labels.get(v, v),
        key="note_affected",
        help="Facturas y boletas de los últimos 90 días (sin rechazadas ni anuladas); "
        "o escribe la serie y el número.",
    )
    row: dict[str, Any] = {}
    if picked == MANUAL:
        left, right = st.columns([2, 1])
        form.affected_number = left.text_input(
            "Serie y número", key="note_affected_number", placeholder="F001-123"
        )
        form.affected_type = right.selectbox(
            "Tipo", ["01", "03"], format_func=lambda c: data.type_label(c), key="note_affected_type"
        )
    else:
        form.affected_external_id = str(picked)
        if recent is not None and str(picked) in positions:
            row = recent.rows[positions[str(picked)]]
        form.affected_type = str(row.get("document_type_id") or "01")
    errors.show("note.affected")
    types_of_note = issuing.NOTE_TYPES[kind.code]
    left, right = st.columns([1, 2])
    with left:
        form.note_type = st.selectbox(
            "Tipo de nota",
            list(types_of_note),
            format_func=lambda c: f"{c} · {types_of_note[c]}",
            key=f"note_type_{kind.code}",
        )
        errors.show("note.type")
    with right:
        form.reason = st.text_input(
            "Motivo o sustento", key="note_reason", placeholder="Anulación de la operación"
        )
        errors.show("note.reason")
    if row:
        _start_from(row, kind.code, form.note_type)


def _start_from(row: dict[str, Any], kind: str, note_type: str) -> None:
    """Fill the form from the affected document when it (or the note type) was just chosen."""
    marker = (str(row.get("external_id")), kind, note_type)
    items, locked = issuing.note_items(list(row.get("items") or []), kind, note_type)
    st.session_state[LOCKED] = locked
    if st.session_state.get(PREFILLED) == marker:
        return
    st.session_state[PREFILLED] = marker
    st.session_state["cust_number"] = str(row.get("customer_number") or "")
    st.session_state["cust_name"] = str(row.get("customer_name") or "")
    identity = str(row.get("customer_identity_document_type_id") or "")
    if identity in issuing.IDENTITY_CHOICES:
        st.session_state[f"cust_identity_{kind}"] = identity
    st.session_state["issue_currency"] = str(row.get("currency_type_id") or "PEN")
    if row.get("items") is not None:
        st.session_state["issue_items_initial"] = items
        st.session_state.pop("issue_items", None)  # the editor starts again from the new rows


#: The padrón's warning of each RUC the form asked about (``None``: nothing to say, or no answer).
PADRON_WARNINGS = "issue_padron_warnings"


def _padron_warning(active: Active, identity_type: str, number: str) -> None:
    """Warn under the customer when SUNAT's padrón gives its RUC as not ACTIVO or not HABIDO (the
    tenant's ``services/ruc``, asked once per number; a tenant without the route says nothing)."""
    number = (number or "").strip()
    if identity_type != "6" or len(number) != 11 or not number.isdigit():
        return
    seen: dict[str, str | None] = st.session_state.setdefault(PADRON_WARNINGS, {})
    if number not in seen:
        try:
            seen[number] = active.client.persons.lookup(number).warning
        except FacturadorError:
            seen[number] = None
    if seen[number]:
        st.warning(f"{seen[number]} Revise antes de emitirle.", icon=":material/report:")


#: SUNAT's rate of each issue date the form showed (``None``: the tenant has none).
SUNAT_RATES = "issue_sunat_rates"


def _sunat_rate(active: Active, day: dt.date) -> None:
    """SUNAT's rate of the issue date under the exchange-rate box (the tenant's services/exchange, asked
    once per date)."""
    known: dict[dt.date, Any] = st.session_state.setdefault(SUNAT_RATES, {})
    if day not in known:
        try:
            known[day] = active.client.company.exchange_rate(day)
        except FacturadorError:
            known[day] = None
    found = known[day]
    if found is not None:
        on = found.published.strftime("%d/%m/%Y")
        st.caption(f"SUNAT {on}: compra {found.purchase:f} · venta {found.sale:f}")


def _customer(
    kind: issuing.Kind, form: issuing.DocumentForm, errors: Errors, active: Active | None = None
) -> None:
    st.markdown("##### Cliente")
    c1, c2, c3 = st.columns([1, 1, 2])
    identities = list(issuing.IDENTITY_CHOICES)
    with c1:
        form.identity_type = st.selectbox(
            "Tipo de documento",
            identities,
            index=identities.index(kind.identity_type),
            format_func=lambda c: f"{c} · {issuing.IDENTITY_CHOICES[c]}",
            key=f"cust_identity_{kind.code}",
        )
        errors.show("customer.identity_type")
    with c2:
        form.customer_number = st.text_input("Número", key="cust_number", placeholder="20100066603")
        errors.show("customer.number")
    with c3:
        form.customer_name = st.text_input("Nombre o razón social", key="cust_name")
        errors.show("customer.name")
    c4, c5 = st.columns([3, 2])
    with c4:
        form.customer_address = st.text_input("Dirección", key="cust_address")
        errors.show("customer.address")
    with c5:
        form.customer_email = st.text_input("Correo electrónico", key="cust_email")
        errors.show("customer.email")
    if active is not None:
        _padron_warning(active, form.identity_type, form.customer_number)


ITEM_CONFIG = {
    "descripcion": st.column_config.TextColumn(issuing.ITEM_COLUMNS["descripcion"], width=240, required=True),
    # quantity and price: text over an object column, read exactly in Python (issuing.read_number): a
    # number cell turns «−50» into 50 or 5.00, and a text column over a float column drops «−2» or «1,5»
    # (the grid casts the edit to the column's dtype) and the cell shows its former value
    "cantidad": st.column_config.TextColumn(
        issuing.ITEM_COLUMNS["cantidad"],
        default="1",
        required=True,
        width=85,
        help="Cifras y punto decimal: 1.5.",
    ),
    "precio": st.column_config.TextColumn(
        issuing.ITEM_COLUMNS["precio"],
        width=110,
        help="Con IGV (o sin IGV si desactivas «Precios con IGV»). Cifras y punto decimal: 1250.50.",
    ),
    "afectacion": st.column_config.SelectboxColumn(
        issuing.ITEM_COLUMNS["afectacion"],
        options=list(issuing.AFFECTATION_CHOICES),
        format_func=lambda c: f"{c} · {issuing.AFFECTATION_CHOICES.get(str(c), str(c))}",
        default="10",
        required=True,
        width=190,
    ),
    "unidad": st.column_config.SelectboxColumn(
        issuing.ITEM_COLUMNS["unidad"],
        options=list(UNITS),
        format_func=lambda c: f"{c} · {UNITS.get(str(c), str(c))}",
        default="NIU",
        required=True,
        width=110,
    ),
    "codigo": st.column_config.TextColumn(issuing.ITEM_COLUMNS["codigo"], width=80),
    "bolsa": st.column_config.CheckboxColumn(
        issuing.ITEM_COLUMNS["bolsa"],
        default=False,
        width=100,
        help="Bolsas de plástico: se agrega el ICBPER.",
    ),
}


def _items(form: issuing.DocumentForm, errors: Errors) -> None:
    st.markdown("##### Ítems")
    form.prices_include_igv = st.toggle(
        "Precios con IGV",
        value=True,
        key="issue_prices_igv",
        help="Desactívalo para escribir valores unitarios sin IGV.",
    )
    if "issue_items_initial" not in st.session_state:
        st.session_state["issue_items_initial"] = issuing.blank_items()
    locked = st.session_state.get(LOCKED, []) if form.kind in ("07", "08") else []
    if locked:
        st.caption("El tipo de nota fija las columnas en gris (se toman del documento afectado).")
    form.items = st.data_editor(
        st.session_state["issue_items_initial"],
        key="issue_items",
        num_rows="fixed" if locked else "dynamic",
        disabled=locked or False,
        column_config=ITEM_CONFIG,
        hide_index=True,
        width="stretch",
        placeholder="",
    )
    errors.show("items")


def _totals(builder: Any, form: issuing.DocumentForm) -> None:
    """Line amounts and header totals computed by the builder (sunat.totals)."""
    shown = issuing.preview(builder)
    descriptions = [str(row["descripcion"]).strip() for _, row in issuing.item_rows(form.items)]
    with st.expander("Importes que se firmarán, por ítem", expanded=True):
        data_table(shown.lines_frame(descriptions), hide_index=True, width="stretch")
    totals = shown.totals
    figures = [
        ("Op. gravadas", totals.taxed),
        ("Op. exoneradas", totals.exonerated),
        ("Op. inafectas", totals.unaffected),
    ]
    if totals.export:
        figures.append(("Exportación", totals.export))
    if totals.free:
        figures.append(("Op. gratuitas", totals.free))
    figures.append(("IGV", totals.igv))
    if totals.icbper:
        figures.append(("ICBPER", totals.icbper))
    figures.append(("Total", totals.total))
    symbol = {"PEN": "S/", "USD": "US$"}.get(form.currency, form.currency)
    for column, (label, amount) in zip(st.columns(len(figures)), figures, strict=True):
        column.metric(label, f"{symbol} {amount:,.2f}")


def _plugin_field(field: FormField, errors: Errors) -> Any:
    """Render one plugin field; return its value."""
    key = f"plugin:{field.key}"
    help_text = field.help or None
    value: Any
    if field.kind == "text":
        value = st.text_input(field.label, value=str(field.default or ""), help=help_text, key=key)
    elif field.kind == "number":
        value = st.number_input(
            field.label,
            value=None if field.default is None else float(field.default),
            min_value=field.min_value,
            help=help_text,
            key=key,
        )
    elif field.kind == "date":
        value = st.date_input(field.label, value=field.default, format="DD/MM/YYYY", help=help_text, key=key)
    elif field.kind == "select":
        codes = [code for code, _ in field.options]
        names = dict(field.options)
        index = (
            codes.index(str(field.default))
            if field.default is not None and str(field.default) in codes
            else 0
        )
        value = st.selectbox(
            field.label, codes, index=index, format_func=lambda c: names.get(c, c), help=help_text, key=key
        )
    elif field.kind == "checkbox":
        value = st.checkbox(field.label, value=bool(field.default), help=help_text, key=key)
    else:  # table
        value = _plugin_table(field, key, help_text)
    errors.show(key)
    return value


def _section_totals(builder: Any, payload: dict[str, Any], form: issuing.DocumentForm, box: Any) -> None:
    """Say the total to pay when a plugin section (global discounts, charges, advances) changed it."""
    final = (payload.get("totales") or {}).get("total_venta")
    if final is None or Decimal(str(final)) == issuing.preview(builder).totals.total:
        return
    symbol = {"PEN": "S/", "USD": "US$"}.get(form.currency, form.currency)
    with box:
        st.info(
            f"Total con los descuentos, cargos y anticipos de las secciones de abajo: **{symbol} "
            f"{Decimal(str(final)):,.2f}** (ver la vista previa del JSON).",
            icon=":material/calculate:",
        )


def _option_labels(options: tuple[tuple[str, str], ...]) -> Callable[[Any], str]:
    """``format_func`` showing the label of each option value."""
    names = dict(options)
    return lambda value: names.get(str(value), str(value))


def _plugin_table(field: FormField, key: str, help_text: str | None) -> pd.DataFrame:
    initial_key = f"{key}:initial"
    if initial_key not in st.session_state:
        rows = list(field.default or [])
        columns = {c.key: [row.get(c.key) for row in rows] for c in field.columns}
        frame = pd.DataFrame(columns)
        for column in field.columns:
            if column.kind == "number":
                frame[column.key] = pd.to_numeric(frame[column.key], errors="coerce").astype("float64")
            elif column.kind == "date":
                frame[column.key] = pd.to_datetime(frame[column.key], errors="coerce").dt.date
            elif column.kind == "checkbox":
                frame[column.key] = frame[column.key].fillna(False).astype(bool)
            else:
                frame[column.key] = frame[column.key].astype("object")
        st.session_state[initial_key] = frame
    config: dict[str, Any] = {}
    for column in field.columns:
        if column.kind == "number":
            config[column.key] = st.column_config.NumberColumn(
                column.label, min_value=column.min_value, help=column.help or None
            )
        elif column.kind == "date":
            config[column.key] = st.column_config.DateColumn(
                column.label, format="DD/MM/YYYY", help=column.help or None
            )
        elif column.kind == "select":
            config[column.key] = st.column_config.SelectboxColumn(
                column.label,
                options=[c for c, _ in column.options],
                format_func=_option_labels(column.options),
            )
        elif column.kind == "checkbox":
            config[column.key] = st.column_config.CheckboxColumn(column.label)
        else:
            config[column.key] = st.column_config.TextColumn(column.label, help=column.help or None)
    st.caption(field.label + (f" — {help_text}" if help_text else ""))
    return st.data_editor(
        st.session_state[initial_key],
        key=key,
        num_rows="dynamic",
        column_config=config,
        hide_index=True,
        width="stretch",
    )


def _plugins(fields: list[FormField], errors: Errors, errors_open: set[str]) -> dict[str, Any]:
    """Plugin sections (one expander per section, open when it has errors); return ``{key: value}``."""
    values: dict[str, Any] = {}
    sections: dict[str, list[FormField]] = {}
    for field in fields:
        sections.setdefault(field.section or "Otros datos", []).append(field)
    for section, members in sections.items():
        open_it = f"section:{section}" in errors_open or any(
            f"plugin:{f.key}" in errors_open for f in members
        )
        with st.expander(section, expanded=open_it, icon=":material/extension:"):
            errors.show(f"section:{section}")
            for field in members:
                values[field.key] = _plugin_field(field, errors)
    return values


# --------------------------------------------------------------------------------------------- result


def _reset() -> None:
    """Start a new document: forget the result, the errors and the form's values."""
    for key in list(st.session_state):
        if str(key).startswith(("issue_items", "cust_", "note_", "plugin:", "issue_series_")):
            del st.session_state[key]
    for key in (RESULT, ERRORS, ATTEMPTED, KEY, PREFILLED, LOCKED, "note_affected"):
        st.session_state.pop(key, None)


def _result(active: Active) -> bool:
    """Show the last issued document, as SUNAT left it; True when there is one (the form stays hidden
    until «Nuevo documento»: clicking «Emitir» again can never issue a second one)."""
    stored = st.session_state.get(RESULT)
    if not stored:
        return False
    result = stored["result"]
    kind = issuing.KINDS.get(stored["kind"])  # every kind is feminine: factura, boleta, nota
    name = kind.name if kind else "Comprobante"
    answer = result.response
    said = issuing.outcome(
        name,
        result.number,
        result.state_type_id,
        answer.code if answer else "",
        answer.description if answer else "",
    )
    style = data.STATES.get(result.state_type_id)
    icons = {"success": ":material/task_alt:", "warning": ":material/warning:", "error": ":material/cancel:"}
    with st.container(border=True, key="issue_result_box"):
        getattr(st, said.kind)(
            f"**{said.headline}** {said.next_step}".strip(), icon=icons.get(said.kind, ":material/info:")
        )
        left, right = st.columns([3, 1])
        with left:
            st.markdown(f"### {result.number}")
            st.badge(
                data.state_label(result.state_type_id)
                if style
                else (result.state_description or result.state_type_id),
                color=style.badge if style else "gray",
            )
            if answer is not None:
                st.markdown(f"**Respuesta de SUNAT** · código `{answer.code}`: {answer.description}")
                for note in answer.notes:
                    st.caption(f"• {note}")
            if result.was_duplicate:
                st.caption(
                    "El servicio reconoció un reintento: devolvió este mismo comprobante, sin emitir otro."
                )
            st.caption(f"external_id `{result.external_id}` · hash `{result.hash}`")
            docs = active.client.documents
            ext = result.external_id
            d1, d2, d3, d4 = st.columns(4)
            download_button(d1, "xml", lambda: docs.download_xml(ext), name=result.number, key="result_xml")
            download_button(d2, "pdf", lambda: docs.download_pdf(ext), name=result.number, key="result_pdf")
            download_button(
                d3,
                "cdr",
                lambda: docs.download_cdr(ext),
                name=result.number,
                key="result_cdr",
                disabled=not result.links.get("cdr"),
            )
            d4.button(
                "Nuevo documento", on_click=_reset, key="issue_new", icon=":material/add:", type="primary"
            )
        with right:
            if result.qr_png:
                st.image(result.qr_png, caption="QR", width=170)
    return True


def _submission(fingerprint: str, issue_time: dt.time) -> tuple[str, dt.time]:
    """The idempotency key of this submission and the issue time it was first sent with: both kept while
    the form sends the same payload (a double click, a retry after a timeout: the body's
    ``hora_de_emision`` would move on with the clock and the service answer the retry 409), new ones
    when the user changed it."""
    kept = st.session_state.get(KEY)
    if kept is None or kept[1] != fingerprint:
        kept = (new_idempotency_key(), fingerprint, issue_time)
        st.session_state[KEY] = kept
    return str(kept[0]), kept[2]


# --------------------------------------------------------------------------------------------- page


def main() -> None:
    """Lay out the page.

    Containers are created in the order they appear and filled in the order the values are needed:
    the send toggle is read before the builder is made, the totals are drawn after it.
    """
    active = require_connection()
    st.title("Emitir comprobante", anchor=False)
    if _result(active):
        return
    stored: dict[str, Any] = st.session_state.get(ERRORS) or {}
    kind = _kind()
    form = issuing.DocumentForm(kind=kind.code)
    errors = Errors()

    head = st.columns([1, 1, 1, 1])
    if kind.is_note:
        st.markdown("##### Documento que modifica")
        _affected(active, kind, form, errors)
    default_series = issuing.NOTE_SERIES.get((kind.code, form.affected_type), kind.series)
    with head[0]:
        form.series = st.text_input(
            "Serie",
            value=default_series,
            key=f"issue_series_{kind.code}_{form.affected_type}"
            if kind.is_note
            else f"issue_series_{kind.code}",
            max_chars=4,
        )
        errors.show("series")
    with head[1]:
        today = peru_today()
        form.issue_date = st.date_input(
            "Fecha de emisión",
            value=today,
            format="DD/MM/YYYY",
            key="issue_date",
            min_value=today - timedelta(days=3),
            max_value=today + timedelta(days=3),
        )
        errors.show("issue_date")
    with head[2]:
        form.currency = st.selectbox("Moneda", ["PEN", "USD"], key="issue_currency")
        errors.show("currency")
    with head[3]:
        if form.currency != "PEN":
            rate = st.number_input(
                "Tipo de cambio",
                min_value=0.0,
                value=None,
                step=0.001,
                format="%.3f",
                key="issue_rate",
                help="Vacío: este servicio toma la venta de SUNAT del día de emisión (un tenant real, 1).",
            )
            form.exchange_rate = rate or None
            if isinstance(form.issue_date, dt.date):
                _sunat_rate(active, form.issue_date)
    _customer(kind, form, errors, active)
    _items(form, errors)
    totals_box = st.container()
    plugins_box = st.container()
    options_box = st.container()

    with options_box:
        form.send = st.toggle(
            "Enviar a SUNAT al emitir",
            value=True,
            key="issue_send",
            help="Desactívalo para emitir sin enviar (luego se envía desde Documentos). "
            "Las boletas se declaran en el resumen diario.",
        )
    builder = None
    local: dict[str, list[str]] = {}
    try:
        builder = issuing.build_document(form)
    except issuing.FormProblems as exc:
        local = dict(exc.problems)
    if builder is not None:
        with totals_box:
            _totals(builder, form)

    fields = active.client.plugin_manager.form_fields("documents", kind.code)
    with plugins_box:
        values = (
            issuing.plugin_values(_plugins(fields, errors, set(stored.get("slots", {})))) if fields else {}
        )

    payload: dict[str, Any] | None = None
    if builder is not None:
        try:
            payload = active.client.plugin_manager.prepare_payload("documents", builder.to_payload(), values)
        except Exception as exc:  # a plugin refusing a half-filled section
            local.setdefault("plugins", []).append(str(exc))
    if builder is not None and payload is not None:
        _section_totals(builder, payload, form, totals_box)
    with options_box:
        with st.expander("Vista previa del JSON", icon=":material/data_object:"):
            if payload is not None:
                st.json(payload, expanded=2)
            else:
                st.caption("Completa el formulario para ver el JSON que se enviará.")
        errors.show(issuing.GENERAL)

    fingerprint = _fingerprint(payload, values)
    if st.button(f"Emitir {kind.name.lower()}", type="primary", key="issue_submit", icon=":material/send:"):
        st.session_state[ATTEMPTED] = True
        st.session_state.pop(RESULT, None)
        st.session_state.pop(ERRORS, None)
        stored = {}
        if builder is not None and payload is not None:
            key, issue_time = _submission(fingerprint, builder.issue_time)
            builder = dataclasses.replace(builder, issue_time=issue_time)
            try:
                with st.spinner("Emitiendo…"):
                    result = active.client.documents.issue(builder, form_values=values, idempotency_key=key)
                    # kept before any other Streamlit call: a second click interrupts this run only at the
                    # next one, and then finds the result (the form is not shown again)
                    st.session_state[RESULT] = {"kind": kind.code, "result": result}
            except FacturadorError as exc:
                sections: dict[str, list[str]] = {}
                for field in fields:
                    sections.setdefault(field.section or "Otros datos", []).append(field.key)
                owners = issuing.block_owners(
                    lambda body, vals: active.client.plugin_manager.prepare_payload("documents", body, vals),
                    builder.to_payload(),
                    values,
                    sections,
                )
                routed = issuing.route_errors(
                    exc.field_errors, [f.key for f in fields], owners=owners, message=exc.message
                )
                if any(slot != issuing.GENERAL for slot in routed):  # say so where the user is looking
                    routed.setdefault(issuing.GENERAL, []).insert(
                        0, "No se emitió el comprobante: revisa los campos marcados."
                    )
                st.session_state[ERRORS] = {"slots": routed, "fingerprint": fingerprint}
                st.rerun()  # again, with the plugin sections the errors name open
            else:
                st.session_state.pop(ATTEMPTED, None)
                invalidate_documents()
                st.rerun()

    # The errors that apply now: the form's own problems once the user tried to submit, and the
    # service's answer while the form still sends the same payload.
    slots: dict[str, list[str]] = {}
    if st.session_state.get(ATTEMPTED):
        for slot, messages in local.items():
            slots.setdefault(slot, []).extend(messages)
    if stored.get("fingerprint") == fingerprint:
        for slot, messages in stored.get("slots", {}).items():
            slots.setdefault(slot, []).extend(m for m in messages if m not in slots[slot])
    errors.fill(slots)


main()
