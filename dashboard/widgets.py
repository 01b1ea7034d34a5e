"""Widgets several pages share: the KPI cards, the period picker (a month or a range), the range of issue
dates, the text of a refused request and what a page shows when a call fails."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from analysis.register import Period
from analysis.sales import SalesSummary
from connector import FacturadorError
from connector.errors import NotOfferedError
from dashboard import data, figures
from dashboard.tickets import Review
from sunat.calendar import peru_today

__all__ = [
    "ask",
    "confirm",
    "data_table",
    "failed",
    "linked_range",
    "month_options",
    "number_formats",
    "pick_period",
    "pick_range",
    "refusal",
    "show_cards",
    "show_kpis",
    "table_page",
]


#: Lines a long table shows at a time (:func:`table_page`): a month's 100,000 register lines are made,
#: sent and drawn a thousand at a time; the files offered beside the table hold them all.
TABLE_PAGE_LINES = 1_000

#: Cards a row: three leave every amount whole (S/ 15,110,275.77) from 1280 px on; six overlapped.
CARDS_A_ROW = 3


def show_cards(cards: Sequence[tuple[str, str] | figures.Kpi]) -> None:
    """Metric cards (label and value, or a :class:`figures.Kpi` with its help), :data:`CARDS_A_ROW` a
    row so that no amount is cut or runs into the next card."""
    for row in range(0, len(cards), CARDS_A_ROW):
        part = cards[row : row + CARDS_A_ROW]
        for column, card in zip(st.columns(CARDS_A_ROW, border=True), part, strict=False):
            if isinstance(card, figures.Kpi):
                column.metric(card.label, card.value, help=card.help)
            else:
                column.metric(*card)


def show_kpis(summary: SalesSummary) -> None:
    """The KPI cards, three a row so every amount is shown in full, and the figures per currency."""
    show_cards(figures.kpis(summary))
    lines = figures.currency_lines(summary)
    if len(lines) > 1 or summary.unconverted:
        st.caption("Por moneda, sin convertir: " + " — ".join(lines))


def month_options(today: dt.date | None = None, count: int = 24) -> list[Period]:
    """The last ``count`` months, this one first."""
    day = today or peru_today()
    months = []
    year, month = day.year, day.month
    for _ in range(count):
        months.append(Period(year, month))
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return months


def pick_range(
    label: str,
    key: str,
    *,
    help: str | None = None,  # noqa: A002 - Streamlit's own name for it
    value: tuple[dt.date, dt.date] | None = None,
    max_value: dt.date | None = None,
) -> tuple[dt.date, dt.date] | None:
    """Two issue dates (by default the link's ``?desde=AAAA-MM-DD&hasta=AAAA-MM-DD``, else the range
    last picked here in this session, else the last 30 days, :func:`data.default_range`), both
    included; ``None`` (with a hint) while only the first one is chosen.

    The range picked is kept in the session: Streamlit forgets a widget's value when its page is left,
    and an analyst coming back from another page through the sidebar finds the range they left."""
    kept = f"_{key}_kept"
    picked = st.date_input(
        label,
        value=value or linked_range() or st.session_state.get(kept) or data.default_range(),
        max_value=max_value,
        format="DD/MM/YYYY",
        key=key,
        help=help,
    )
    if isinstance(picked, tuple | list) and len(picked) == 2:
        st.session_state[kept] = (picked[0], picked[1])
        return picked[0], picked[1]
    st.info("Elige la fecha final del rango.")
    return None


def linked_range() -> tuple[dt.date, dt.date] | None:
    """The range of the page's link (``?desde=2026-01-01&hasta=2026-12-31``: a range to share or
    bookmark), or ``None`` when it has none or a date is unreadable or they are reversed."""
    try:
        start = dt.date.fromisoformat(st.query_params.get("desde", ""))
        end = dt.date.fromisoformat(st.query_params.get("hasta", ""))
    except ValueError:
        return None
    return (start, end) if start <= end else None


def pick_period(key: str) -> tuple[dt.date, dt.date] | None:
    """A month (default: this one, up to today) or a range of issue dates; ``None`` while a range is half
    chosen."""
    mode = st.segmented_control(
        "Periodo", ["Mes", "Rango"], default="Mes", key=f"{key}_mode", label_visibility="collapsed"
    )
    if mode == "Rango":
        today = peru_today()
        return pick_range("Rango de fechas de emisión", f"{key}_range", value=(today.replace(day=1), today))
    months = month_options()
    month = st.selectbox("Mes", months, format_func=lambda p: f"{p.month:02d}/{p.year}", key=f"{key}_month")
    return month.start, min(month.end, peru_today())  # this month: up to today, the days it has so far


def failed(what: str, exc: FacturadorError, place: Any = st) -> None:
    """Show why a call failed: the one sentence of a tenant that does not offer the endpoint (real
    tenants lack some lists), or the refusal (:func:`refusal`) as an error."""
    if isinstance(exc, NotOfferedError):
        place.info(exc.message, icon=":material/info:")
    else:
        place.error(refusal(what, exc), icon=":material/error:")


def refusal(what: str, exc: FacturadorError) -> str:
    """``what`` and the service's reason, one line per refused field (``No se guardó: ...``)."""
    details = "".join(
        f"\n- {e.field}: {e.message}" if e.field else f"\n- {e.message}" for e in exc.field_errors
    )
    return f"{what}: {exc.message}{details}"


def confirm(
    key: str,
    review: Review,
    *,
    verb: str,
    action: str,
    warning: str,
    asked: object,
) -> bool:
    """The second step of an irreversible or bulk action: once its first button set ``asked`` (any value
    naming what was asked: the day and the documents), show what it will do (``review``: the documents,
    their count, dates and totals) and a warning, and require a checked box and a second button. True
    when confirmed; a changed request (``asked`` no longer what the review was made for) or «Cancelar»
    drops the review."""
    state = f"{key}_asked"
    if st.session_state.get(state) not in (None, asked):
        st.session_state.pop(state, None)
    if st.session_state.get(state) is None:
        return False
    with st.container(border=True, key=f"{key}_review"):
        st.markdown(f"**Revisa antes de {verb}**")
        for line in review.lines(verb):
            st.markdown(line)
        st.dataframe(
            review.frame,
            hide_index=True,
            key=f"{key}_review_table",
            column_config={"Total": st.column_config.NumberColumn("Total", format="%,.2f")},
            height=min(300, 38 + 35 * max(1, review.count)),
        )
        st.warning(warning, icon=":material/warning:")
        these = "este documento" if review.count == 1 else f"estos {review.count:,} documentos"
        sure = st.checkbox(f"Sí, quiero {verb} {these}", key=f"{key}_sure")
        left, right = st.columns(2)
        confirmed = left.button(
            action, key=f"{key}_confirm", type="primary", disabled=not sure, width="stretch"
        )
        if right.button("Cancelar", key=f"{key}_cancel", width="stretch"):
            st.session_state.pop(state, None)
            st.session_state.pop(f"{key}_sure", None)
            st.rerun()
    if confirmed:
        st.session_state.pop(state, None)
        st.session_state.pop(f"{key}_sure", None)
    return confirmed


def ask(key: str, asked: object) -> None:
    """Record that the first button of ``key``'s action was pressed for ``asked`` (see :func:`confirm`)."""
    st.session_state[f"{key}_asked"] = asked


#: Words of a column's name that say it holds money: shown with thousands separators and two decimals.
MONEY_WORDS = (
    "total", "valor", "igv", "icbper", "isc", "importe", "precio", "costo", "monto", "pendiente",
    "vencido", "vencer", "días", "retenido", "percibido", "pagado", "gravado", "exonerado", "inafecto",
    "exportación", "gratuito", "anterior", "saldo", "cotizado",
)  # fmt: skip


def number_formats(frame: pd.DataFrame) -> dict[str, Any]:
    """How each numeric column of ``frame`` is shown, one way on every page: money (by its name,
    :data:`MONEY_WORDS`) as ``3,528,226.08``; other numbers as whole numbers with separators when every
    value is whole (``131,440``, never ``17.0``), else with two decimals."""
    config: dict[str, Any] = {}
    for name in frame.columns:
        values = frame[name]
        if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        label = str(name)
        if any(word in label.casefold() for word in MONEY_WORDS):
            shown = "%,.2f"
        else:
            whole = values.dropna()
            shown = "%,d" if bool(((whole % 1) == 0).all()) else "%,.2f"
        config[label] = st.column_config.NumberColumn(label, format=shown)
    return config


def data_table(data: Any, *, column_config: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """``st.dataframe`` of ``data`` (a DataFrame, or rows as dicts) with the numbers formatted as
    :func:`number_formats` says (what ``column_config`` gives wins); what ``st.dataframe`` answers."""
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    return st.dataframe(frame, column_config={**number_formats(frame), **(column_config or {})}, **kwargs)


def table_page(total: int, *, key: str, lines: int = TABLE_PAGE_LINES) -> tuple[int, int]:
    """Which of ``total`` lines a long table shows: ``(first, count)``, 0-based; all of them when they
    fit in one page of ``lines``, else a page picked with a number box (the page's lines captioned)."""
    if total <= lines:
        return 0, total
    pages = -(-total // lines)
    page = st.number_input(
        f"Página de la tabla (de {pages:,})", min_value=1, max_value=pages, value=1, step=1, key=key
    )
    first = (int(page) - 1) * lines
    count = min(lines, total - first)
    st.caption(
        f"Líneas {first + 1:,} a {first + count:,} de {total:,}, {lines:,} por página; "
        "los archivos (PLE, RVIE, Excel) tienen todas."
    )
    return first, count
