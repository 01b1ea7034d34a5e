"""Registro de ventas: a month's Registro de Ventas e Ingresos as SUNAT's PLE 14.1 TXT (and its 14.2
simplified form), the SIRE RVIE replacement zip, SIRE's adjustment zips for earlier periods and Excel
(:mod:`analysis.register`; its rules in ``docs/sales_register.md``, told to the accountant in
:data:`RULES`), its totals and warnings, the comparison with SUNAT's RVIE proposal uploaded by the
accountant, and the close in SIRE by SUNAT's API in order (proposal → differences → accept or replace →
preliminar, :mod:`analysis.sire`, ``docs/sire.md``) with every ticket's states and the record of what was
sent and when."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import os
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from analysis.register import PLE_FIELDS, Figures, Period, Reconciliation, SalesRegister, sales_register
from analysis.sales import summarize_sql
from analysis.sire import SIRE_URL_ENV, close_register, sire_urls
from connector import FacturadorError
from connector.closes import MonthCloses
from connector.sire import SireClient, SireCredentials, SireError, SireProgress, progress_path
from dashboard import figures
from dashboard.session import Active, forget_connection, month_closes, reader, require_connection, scoped
from dashboard.widgets import data_table, month_options, table_page
from sunat.calendar import peru_now
from sunat.catalogs import DOCUMENT_TYPES

REGISTERS = "_registers"
STATES = {"1": "1 · del periodo", "2": "2 · anulado", "8": "8 · periodo anterior", "9": "9 · corrección"}
#: How the register is made, as the page explains it to the accountant (beside the period).
RULES = (
    "Cada comprobante va en el registro del mes de su fecha de emisión. Si ese mes ya estaba cerrado "
    "(registro presentado) cuando el comprobante llegó, va al primer mes abierto con estado 8; si se "
    "anuló después del cierre, su mes no cambia y la corrección va con estado 9. Los anulados y "
    "rechazados del mes van en cero (estado 2). Las notas de crédito restan; las de un mes anterior "
    "van como descuento de la base y del IGV. Los importes en dólares se pasan a soles al tipo de "
    "cambio de cada comprobante."
)
#: Document numbers named in a line of the month's summary before "y N más".
NAMED = 12


def _register(
    active: Active, month: Period, closes: MonthCloses, *, refresh: bool, consolidate: bool
) -> SalesRegister:
    """The month's register, kept in the session (built again on refresh, when the option changes or
    when a month is closed or reopened)."""
    kept: dict[tuple[str, str, bool, str], SalesRegister] = st.session_state.setdefault(REGISTERS, {})
    key = (active.key, str(month), consolidate, repr(dict(closes)))
    if refresh or key not in kept:
        for stale in [k for k in kept if k[:3] == key[:3]]:  # made before a close: one month held, not two
            del kept[stale]
        kept[key] = sales_register(
            reader(active), month, consolidate_boletas=consolidate, fresh=refresh, closes=closes
        )
    return kept[key]


def _named(numbers: Sequence[str]) -> str:
    """Up to :data:`NAMED` numbers, then how many more."""
    shown = ", ".join(numbers[:NAMED])
    return shown + (f" y {len(numbers) - NAMED:,} más" if len(numbers) > NAMED else "")


def _contents(register: SalesRegister) -> None:
    """What the month's register holds and what it does not, before any file is downloaded."""
    own = [e for e in register.entries if e.in_ple and e.period == register.period]
    count = sum(1 if e.number_end is None else e.number_end - e.number + 1 for e in own)  # boletas summed
    zeroed = sum(1 for e in own if e.state == "2")
    earlier = {state: [e.source for e in register.entries if e.in_ple and e.state == state] for state in "89"}
    moved = register.moved_out()
    pending = register.pending()
    lines = [
        f"**En el registro:** {figures.plural(count, 'documento', 'documentos')} del mes"
        + (f" ({zeroed:,} anulados o rechazados, en cero)" if zeroed else "")
        + "."
    ]
    if earlier["8"]:
        lines.append(
            f"**De meses anteriores (estado 8):** {len(earlier['8']):,} que llegaron después del cierre "
            f"de su mes: {_named(earlier['8'])}."
        )
    if earlier["9"]:
        lines.append(
            f"**Correcciones (estado 9):** {len(earlier['9']):,} de meses cerrados, anulados después: "
            f"{_named(earlier['9'])}."
        )
    if moved:
        where = sorted({f"{e.moved_to.month:02d}/{e.moved_to.year}" for e in moved if e.moved_to})
        lines.append(
            f"**Fuera de este registro:** {len(moved):,} del mes llegaron después de su cierre y van al "
            f"registro de {', '.join(where)} (estado 8): {_named([e.source for e in moved])}."
        )
    else:
        lines.append("**Fuera de este registro:** ningún documento del mes.")
    if pending["cdr"]:
        lines.append(
            f"**Aún sin CDR:** {len(pending['cdr']):,} (no estarán en la propuesta de SUNAT): "
            f"{_named(pending['cdr'])}."
        )
    if pending["summary"]:
        lines.append(
            f"**Boletas sin resumen diario:** {len(pending['summary']):,}: {_named(pending['summary'])}."
        )
    if register.by_hand:
        lines.append(
            f"**Estado cambiado a mano:** {len(register.by_hand):,} (en el servicio, sin informar a SUNAT; "
            "sus líneas van con el estado que tienen ahora):"
        )
        lines.extend(f"  - {item.describe()}" for item in register.by_hand)
    with st.container(border=True, key="register_contents"):
        st.markdown("\n".join(line if line.startswith("  - ") else f"- {line}" for line in lines))


def _month_sales(active: Active, month: Period, *, refresh: bool) -> Figures:
    """The month's figures as Documentos shows them (value of sales, IGV, total in soles)."""
    whole = scoped(active, month.start, month.end, refresh=refresh)
    summary = whole.memo(
        ("register-sales",), lambda: summarize_sql(whole.run, whole.source, whole.parameters)
    )
    soles = summary.soles
    return Figures(soles.value, soles.igv, soles.total)


def _reconciliation(reconciled: Reconciliation) -> None:
    """The register's figures beside the month's sales, each difference named."""
    rows = [("Valor de venta", "value"), ("IGV", "igv"), ("Importe total", "total")]
    frame = pd.DataFrame(
        {
            "Cifra": [label for label, _ in rows],
            "Registro": [float(getattr(reconciled.register, name)) for _, name in rows],
            "Documentos (ventas del mes)": [float(getattr(reconciled.sales, name)) for _, name in rows],
            "Diferencia": [
                float(getattr(reconciled.register, name) - getattr(reconciled.sales, name))
                for _, name in rows
            ],
        }
    )
    with st.container(border=True, key="register_reconciliation"):
        st.markdown("**Cuadre con Documentos** (mismo mes, en soles)")
        data_table(
            frame,
            hide_index=True,
            key="register_reconciled",
            column_config={
                name: st.column_config.NumberColumn(name, format="%,.2f") for name in list(frame.columns)[1:]
            },
        )
        for difference in reconciled.differences:
            amounts = difference.figures
            st.markdown(
                f"- {difference.reason}: {_named(list(difference.documents))} — valor de venta "
                f"{figures.money(amounts.value)}, IGV {figures.money(amounts.igv)}, total "
                f"{figures.money(amounts.total)}."
            )
        left = reconciled.unexplained
        if reconciled.agrees:
            explained = " una vez explicadas las diferencias de arriba" if reconciled.differences else ""
            st.success(
                f"El registro cuadra con Documentos al céntimo{explained}.", icon=":material/task_alt:"
            )
        else:
            st.warning(
                f"Diferencia sin explicar: valor de venta {figures.money(left.value)}, IGV "
                f"{figures.money(left.igv)}, total {figures.money(left.total)}. Revisa los avisos."
            )


def _close(closes: MonthCloses, month: Period) -> None:
    """The month's close: when it was closed, or «Cerrar el mes» (documents of it that arrive afterwards
    go to the next open month's register, state 8) once the month has ended."""
    found = closes.record((month.year, month.month))
    if found is not None:
        source = {"manual": "a mano", "register": "registro presentado", "sire": "SIRE"}.get(
            found.source, found.source
        )
        note = f" · {found.note}" if found.note else ""
        st.caption(
            f"Mes cerrado el {found.closed_at:%d/%m/%Y %H:%M} ({source}{note}): lo que llega después va al "
            "primer mes abierto con estado 8."
        )
        return
    now = peru_now().replace(tzinfo=None)
    if now < dt.datetime.combine(month.end + dt.timedelta(days=1), dt.time()):
        st.caption("Mes en curso: se cierra cuando presentes su registro, después de fin de mes.")
        return
    with st.expander("Cerrar el mes (registro presentado)", icon=":material/lock:"):
        st.caption(
            "Anota que presentaste este registro: desde ese momento, un documento del mes que llegue "
            "después irá al registro del primer mes abierto con estado 8, y este registro no cambia."
        )
        note = st.text_input("Nota (opcional)", key="register_close_note", placeholder="PLE presentado")
        sure = st.checkbox(
            f"Presenté el registro de {month.month:02d}/{month.year}", key="register_close_sure"
        )
        if st.button("Cerrar el mes", key="register_close", disabled=not sure, icon=":material/lock:"):
            closes.close((month.year, month.month), now, source="manual", note=note)
            st.rerun()


def _lines_frame(register: SalesRegister, first: int, count: int) -> pd.DataFrame:
    """The table's columns of ``count`` of the register's PLE lines from ``first`` (amounts as numbers,
    document types and states spelled out: the files keep SUNAT's codes)."""
    shown = [
        "Fecha de emisión",
        "Tipo de comprobante",
        "Serie",
        "Número",
        "Número final",
        "Nro. doc. identidad",
        "Apellidos y nombres / razón social",
        "Base imponible gravada",
        "Descuento base imponible",
        "IGV / IPM",
        "Exonerado",
        "Inafecto",
        "Valor facturado exportación",
        "ICBPER",
        "Importe total",
        "Moneda",
        "Tipo de cambio",
        "Serie CP modificado",
        "Número CP modificado",
        "Estado",
    ]
    frame = register.ple_frame(shown, first=first, count=count)
    return frame.assign(
        **{"Tipo de comprobante": [DOCUMENT_TYPES.get(code, code) for code in frame["Tipo de comprobante"]]},
        Estado=[STATES.get(s, s) for s in frame["Estado"]],
    )


def _downloads(register: SalesRegister) -> None:
    left, middle, right = st.columns(3)
    left.download_button(
        "PLE 14.1 (TXT)",
        data=lambda: register.ple_bytes(),  # made when asked: 100,000 lines are 18 MB
        file_name=register.ple_name,
        mime="text/plain",
        icon=":material/download:",
        key="register_ple",
        on_click="ignore",
        width="stretch",
    )
    middle.download_button(
        "SIRE RVIE (ZIP)",
        data=lambda: register.sire_zip(),
        file_name=register.sire_name[:-4] + ".zip",
        mime="application/zip",
        icon=":material/download:",
        key="register_sire",
        on_click="ignore",
        width="stretch",
    )
    right.download_button(
        "Excel",
        data=lambda: register.excel_bytes(),
        file_name=f"registro_ventas_{register.period}.xlsx",
        mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        icon=":material/download:",
        key="register_excel",
        on_click="ignore",
        width="stretch",
    )
    adjustments = len(register.adjustment_rows())
    why = (
        f"{figures.plural(adjustments, 'línea', 'líneas')} de periodos anteriores (estados 8 y 9)."
        if adjustments
        else "Sin líneas de periodos anteriores (estados 8 y 9) este mes."
    )
    left, middle, right = st.columns(3)
    left.download_button(
        "PLE 14.2 simplificado (TXT)",
        data=lambda: register.ple_simplified_bytes(),
        file_name=register.ple_simplified_name,
        mime="text/plain",
        icon=":material/download:",
        key="register_ple_simplified",
        on_click="ignore",
        width="stretch",
        help="Registro de Ventas simplificado: las mismas líneas en los 26 campos del formato 14.2.",
    )
    for column, simplified, label, key in (
        (middle, False, "Ajustes SIRE 5.1 (ZIP)", "register_adjustments"),
        (right, True, "Ajustes SIRE 5.2 (ZIP)", "register_adjustments_simplified"),
    ):
        column.download_button(
            label,
            data=functools.partial(register.adjustment_zip, simplified=simplified),
            file_name=register.adjustment_name(simplified=simplified)[:-4] + ".zip",
            mime="application/zip",
            icon=":material/download:",
            key=key,
            on_click="ignore",
            width="stretch",
            disabled=not adjustments,
            help=why
            + (" Formato 14.2 (Anexo 5.2)." if simplified else " Formato 14.1 (Anexo 5.1).")
            + " Para periodos anteriores al SIRE.",
        )


def _compare(register: SalesRegister) -> None:
    with st.expander("Comparar con la propuesta de SUNAT (SIRE)", icon=":material/compare_arrows:"):
        st.caption(
            "Sube la propuesta del RVIE que exportaste del SIRE (TXT o el ZIP tal cual lo entrega SUNAT): "
            "se compara comprobante por comprobante con el archivo de este registro."
        )
        uploaded = st.file_uploader("Propuesta de SUNAT", type=["txt", "zip"], key="register_proposal")
        if uploaded is None:
            return
        try:
            result = register.compare_with_proposal(uploaded.getvalue())
        except Exception as exc:  # a file that is not a proposal
            st.error(f"No se pudo leer la propuesta: {exc}")
            return
        if result.matches:
            st.success(
                f"Coinciden los {result.common} comprobantes: sin diferencias.", icon=":material/task_alt:"
            )
        else:
            st.warning(
                f"{result.common} en ambos · {len(result.only_in_proposal)} solo en SUNAT · "
                f"{len(result.only_ours)} solo en el registro · {len(result.differences)} campos distintos."
            )
        st.code(result.report, language=None)


#: The session's record of what the last SIRE step said: (period, lines, alert kind, message).
SIRE_SHOWN = "_sire_shown"
SIRE_FIELDS: tuple[tuple[str, str, str, bool], ...] = (
    ("sire_client_id", "Client ID de la API (SOL)", "SIRE_CLIENT_ID", False),
    ("sire_client_secret", "Client secret", "SIRE_CLIENT_SECRET", True),
    ("sire_sol_user", "Usuario SOL", "SIRE_SOL_USER", False),
    ("sire_sol_password", "Clave SOL", "SIRE_SOL_PASSWORD", True),
)


def _sire_client(register: SalesRegister) -> tuple[SireClient, SalesRegister] | None:
    """A SIRE client of the credentials typed here (kept only in this session, never written) and the
    register under the RUC given (a month without documents does not name its issuer), or None while one
    is missing."""
    values: dict[str, str] = {}
    columns = st.columns(2)
    for index, (key, label, variable, secret) in enumerate(SIRE_FIELDS):
        column, value = columns[index % 2], os.environ.get(variable, "")
        if secret:
            values[key] = column.text_input(label, value=value, type="password", key=key)
        else:
            values[key] = column.text_input(label, value=value, key=key)
    ruc = st.text_input("RUC", value=register.ruc or os.environ.get("SIRE_RUC", ""), key="sire_ruc").strip()
    url = st.text_input(
        "SIRE (vacío: los servidores de SUNAT)",
        value=os.environ.get(SIRE_URL_ENV, ""),
        key="sire_url",
        placeholder="http://127.0.0.1:8000/sire (el simulador)",
    )
    if not all(values.values()) or not ruc:
        st.caption("Escribe el RUC y las credenciales de la API SIRE de la empresa (no se guardan).")
        return None
    if ruc != register.ruc:
        register = dataclasses.replace(register, ruc=ruc)
    token_base, api_base = sire_urls(url)
    credentials = SireCredentials(
        values["sire_client_id"],
        values["sire_client_secret"],
        ruc,
        values["sire_sol_user"],
        values["sire_sol_password"],
    )
    return SireClient(credentials, token_base=token_base, api_base=api_base), register


def _sire(register: SalesRegister, closes: MonthCloses, month: Period) -> None:
    """The close in SIRE by SUNAT's API, in order, with each ticket's states and what was sent when."""
    key = f"{month.year:04d}-{month.month:02d}"
    if closes.path is None:
        return
    progress = SireProgress(progress_path(closes.path))
    now = peru_now().replace(tzinfo=None)
    if now < dt.datetime.combine(month.end + dt.timedelta(days=2), dt.time()):
        return  # SUNAT offers a month's proposal from the 2nd of the next month
    with st.expander("Cerrar el mes en SIRE (API de SUNAT)", icon=":material/cloud_sync:"):
        st.caption(
            "1 · Pedir la propuesta de SUNAT y compararla con los libros · 2 · aceptarla o reemplazarla con "
            "el archivo RVIE de este registro · 3 · registrar el preliminar y ver su resumen. Cada ticket "
            "se sigue hasta el final; si algo se interrumpe, volver a pulsar continúa donde quedó."
        )
        events = progress.events(key)
        if events:
            st.markdown("**Lo enviado a SUNAT y cuándo**")
            data_table(
                pd.DataFrame({"Cuándo": [e["at"] for e in events], "Qué": [e["what"] for e in events]}),
                hide_index=True,
                key="sire_events",
            )
        record = closes.record(key)
        if record is not None and record.source == "sire":
            _sire_shown(key)
            st.success(f"Cerrado en SIRE el {record.closed_at:%d/%m/%Y %H:%M}: {record.note}")
            return
        made = _sire_client(register)
        if made is None:
            return
        sire, register = made
        compared = st.session_state.get("sire_compared") == key
        _sire_shown(key)
        ask, accept, replace = st.columns(3)
        action: str | None = None
        run = ask.button("1 · Pedir y comparar la propuesta", key="sire_compare", width="stretch")
        if accept.button(
            "2 · Aceptar la propuesta", key="sire_accept", disabled=not compared, width="stretch"
        ):
            run, action = True, "accept"
        if replace.button(
            "2 · Reemplazar con el registro", key="sire_replace", disabled=not compared, width="stretch"
        ):
            run, action = True, "replace"
        if not run:
            return
        lines: list[str] = []
        try:
            with sire, st.spinner("Hablando con SIRE…"):
                report = close_register(
                    register, sire, action=action, progress=progress, closes=closes, tell=lines.append
                )
        except SireError as exc:
            st.session_state[SIRE_SHOWN] = (key, lines, "error", str(exc))
        else:
            if report.done:
                said = (
                    "success",
                    "Mes cerrado en SIRE: el preliminar está registrado; generar el registro se hace en SOL.",
                )
            elif report.comparison is not None and report.comparison.matches:
                said = ("success", "La propuesta coincide con los libros: puedes aceptarla.")
            else:
                said = (
                    "warning",
                    "La propuesta difiere de los libros: revisa las diferencias, o reemplázala.",
                )
            st.session_state["sire_compared"] = key
            st.session_state[SIRE_SHOWN] = (key, report.lines, *said)
        st.rerun()  # the buttons again, enabled by what was just done; the lines shown below them


def _sire_shown(key: str) -> None:
    """What the last step said (its lines, every ticket's states) and how it ended."""
    shown = st.session_state.get(SIRE_SHOWN)
    if not shown or shown[0] != key:
        return
    _key, lines, kind, message = shown
    st.code("\n".join(lines), language=None)
    {"error": st.error, "success": st.success, "warning": st.warning}[kind](message)


def main() -> None:
    """Lay out the page."""
    active = require_connection()
    st.title("Registro de ventas", anchor=False)
    top, option, button = st.columns([2, 2, 1], vertical_alignment="bottom")
    month = top.selectbox(
        "Periodo", month_options(), format_func=lambda p: f"{p.month:02d}/{p.year}", key="register_month"
    )
    consolidate = option.toggle(
        "Resumir boletas menores a S/ 700 por día (PLE)", key="register_consolidate", value=False
    )
    refresh = button.button("Actualizar", icon=":material/refresh:", key="register_refresh", width="stretch")
    closes = month_closes(active)
    try:
        with st.spinner("Preparando el registro…"):
            register = _register(active, month, closes, refresh=refresh, consolidate=consolidate)
            sales = _month_sales(active, month, refresh=refresh)
    except FacturadorError as exc:
        forget_connection()
        st.error(f"No se pudo preparar el registro: {exc.message}")
        return
    st.caption(
        f"{register.name or active.tenant.name} · RUC {register.ruc or '—'} · "
        f"periodo {month.month:02d}/{month.year}. "
        "Importes en soles (cada documento en moneda extranjera a su tipo de cambio).",
        help=RULES,
    )
    lines = register.ple_count()  # the lines are made a table page at a time, and whole for the files
    totals = register.totals()
    cards = [
        ("Líneas PLE", f"{lines:,}"),
        ("Líneas RVIE", f"{register.sire_count():,}"),
        ("Avisos antes de presentar", f"{len(register.warnings):,}"),
        (
            "Base imponible",
            figures.money(totals["Base imponible gravada"] + totals["Descuento base imponible"]),
        ),
        ("IGV", figures.money(totals["IGV / IPM"] + totals["Descuento IGV / IPM"])),
        ("Importe total", figures.money(totals["Importe total"])),
    ]
    for row in (cards[:3], cards[3:]):  # three a row: amounts shown whole
        for column, (label, value) in zip(st.columns(3, border=True), row, strict=False):
            column.metric(label, value)
    _close(closes, month)
    _contents(register)
    _reconciliation(register.reconcile(sales))
    _downloads(register)
    if register.warnings:
        with st.expander(figures.plural(len(register.warnings), "aviso", "avisos") + " antes de presentar"):
            for warning in register.warnings:
                st.markdown(f"- {warning}")
    if not lines:
        st.info("Sin documentos en el periodo: el archivo PLE va vacío (indicador 0 en su nombre).")
    else:
        first, count = table_page(lines, key=f"register_table_page_{month}_{consolidate}")  # a month: its own
        data_table(
            _lines_frame(register, first, count),
            hide_index=True,
            key="register_lines",
            column_config={
                name: st.column_config.NumberColumn(name, format="%,.2f") for name in PLE_FIELDS[12:25]
            },
        )
        st.caption(f"Archivo PLE: `{register.ple_name}` · archivo RVIE: `{register.sire_name}`")
    _compare(register)
    _sire(register, closes, month)


main()
