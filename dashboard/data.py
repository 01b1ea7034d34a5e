"""Pure data functions of the dashboard: filters, KPIs, chart figures and exports over a DataFrame.

Everything here takes the DataFrame of ``client.documents.list(start, end).to_dataframe()`` (or a part of
it) and returns plain values, DataFrames, bytes or plotly figures. No Streamlit, no HTTP: these functions
are unit-tested directly and are what ``benchmarks/documents_page.py`` times.

Conventions of the analyst view:

* the figures an accountant reads (KPIs, totals, charts of amounts) are not here: they are Decimal,
  computed by :mod:`analysis.sales` and shown by :mod:`dashboard.figures`; this module filters,
  sorts, counts and exports the list.
* states are shown with their Spanish names and one color each (:data:`STATES`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import orjson
import pandas as pd
import plotly.graph_objects as go

from analysis.sales import CREDIT_NOTE, NOT_COUNTED
from connector.models import StateChange
from sunat.calendar import peru_today
from sunat.catalogs import DOCUMENT_TYPES, STATE_TYPES

if TYPE_CHECKING:
    from analysis.sales import SalesCell
    from connector.store import LocalStore

__all__ = [
    "AMOUNT_COLUMNS",
    "CREDIT_NOTE",
    "NOT_COUNTED_STATES",
    "STATES",
    "TABLE_ROWS",
    "Filters",
    "Scope",
    "StateStyle",
    "apply_filters",
    "counted",
    "default_range",
    "document_label",
    "empty_documents",
    "export_frame",
    "filter_options",
    "labels_for",
    "ordered_states",
    "state_color",
    "state_label",
    "state_totals",
    "state_totals_figure",
    "table_frame",
    "type_label",
]


#: Colors ``st.badge`` accepts.
BadgeColor = Literal["red", "orange", "yellow", "blue", "green", "violet", "gray", "grey", "primary"]


@dataclass(frozen=True)
class StateStyle:
    """How a document state is shown: Spanish label, chart/table color (hex), ``st.badge`` color.

    No emoji: the fonts of a server-side browser (and some desktops) lack them."""

    code: str
    label: str
    color: str
    badge: BadgeColor


#: The seven states of the service (``state_type_id``), each with its own label and color.
STATES: dict[str, StateStyle] = {
    s.code: s
    for s in (
        StateStyle("01", STATE_TYPES["01"], "#7f8c8d", "gray"),
        StateStyle("03", STATE_TYPES["03"], "#2f80ed", "blue"),
        StateStyle("05", STATE_TYPES["05"], "#27ae60", "green"),
        StateStyle("07", STATE_TYPES["07"], "#f2c94c", "yellow"),
        StateStyle("09", STATE_TYPES["09"], "#eb5757", "red"),
        StateStyle("11", STATE_TYPES["11"], "#9b51e0", "violet"),
        StateStyle("13", STATE_TYPES["13"], "#f2994a", "orange"),
    )
}
_UNKNOWN_COLOR = "#bdbdbd"

#: What counts in sales is the analysis' rule: credit notes subtract, rejected and voided documents are out.
NOT_COUNTED_STATES = NOT_COUNTED

#: Amount columns of the list DataFrame (float64), in the order of the table.
AMOUNT_COLUMNS = (
    "total_taxed",
    "total_exonerated",
    "total_unaffected",
    "total_exportation",
    "total_free",
    "total_igv",
    "total",
)

#: Spanish headers of the table and of the exports.
HEADERS: dict[str, str] = {
    "date_of_issue": "Fecha",
    "number": "Número",
    "document_type": "Tipo",
    "customer_number": "RUC/DNI",
    "customer_name": "Cliente",
    "currency_type_id": "Moneda",
    "total_taxed": "Gravado",
    "total_exonerated": "Exonerado",
    "total_unaffected": "Inafecto",
    "total_exportation": "Exportación",
    "total_free": "Gratuito",
    "total_igv": "IGV",
    "total": "Total",
    "state": "Estado",
    "external_id": "external_id",
}

_SHORT_TYPES = {"01": "Factura", "03": "Boleta", "07": "Nota de crédito", "08": "Nota de débito"}


# --------------------------------------------------------------------------------------------- states


def state_label(code: object) -> str:
    """Spanish name of a state code (``"05"`` -> ``"Aceptado"``); unknown codes are shown as they are."""
    text = "" if code is None or (isinstance(code, float) and pd.isna(code)) else str(code)
    style = STATES.get(text)
    return style.label if style else (f"Estado {text}" if text else "Sin estado")


def state_color(code: object) -> str:
    """Hex color of a state code, gray for an unknown one."""
    style = STATES.get(str(code))
    return style.color if style else _UNKNOWN_COLOR


def type_label(code: object, description: object = None) -> str:
    """Short Spanish name of a document type (``"01"`` -> ``"Factura"``)."""
    text = str(code)
    if text in _SHORT_TYPES:
        return _SHORT_TYPES[text]
    if description is not None and not pd.isna(description) and str(description):
        return str(description)
    return DOCUMENT_TYPES.get(text, text)


#: How the pages write a currency before an amount (``S/ 1,180.00``, never ``PEN 1,180.00``).
CURRENCY_SYMBOLS = {"PEN": "S/", "USD": "US$", "EUR": "€"}


def amount_text(amount: Any, currency: str) -> str:
    """``S/ 1,180.00``: an amount with its currency's symbol (the code for an unknown currency)."""
    return f"{CURRENCY_SYMBOLS.get(currency, currency)} {float(str(amount or 0)):,.2f}"


def document_label(row: pd.Series | dict[str, Any]) -> str:
    """One line naming a document: ``"F001-12 · ACME S.A.C. · S/ 118.00"``."""
    return (
        f"{row['number']} · {row.get('customer_name', '') or ''} · "
        f"{amount_text(row.get('total', 0), str(row.get('currency_type_id', '') or ''))}"
    )


# --------------------------------------------------------------------------------------------- ranges


def default_range(today: date | None = None, days: int = 30) -> tuple[date, date]:
    """The last ``days`` days up to today in Lima, both ends included."""
    end = today or peru_today()
    return end - timedelta(days=days - 1), end


# --------------------------------------------------------------------------------------------- frames


def empty_documents() -> pd.DataFrame:
    """An empty list DataFrame with the columns the dashboard reads (for a range without documents)."""
    frame = pd.DataFrame(
        {
            "id": pd.Series(dtype="int64"),
            "external_id": pd.Series(dtype="object"),
            "date_of_issue": pd.Series(dtype="datetime64[ns]"),
            "number": pd.Series(dtype="object"),
            "series": pd.Series(dtype="object"),
            "document_type_id": pd.Series(dtype="category"),
            "document_type_description": pd.Series(dtype="object"),
            "customer_name": pd.Series(dtype="object"),
            "customer_number": pd.Series(dtype="object"),
            "currency_type_id": pd.Series(dtype="category"),
            "state_type_id": pd.Series(dtype="category"),
            "state_type_description": pd.Series(dtype="object"),
            "has_xml": pd.Series(dtype="bool"),
            "has_pdf": pd.Series(dtype="bool"),
            "has_cdr": pd.Series(dtype="bool"),
        }
    )
    for column in AMOUNT_COLUMNS:
        frame[column] = pd.Series(dtype="float64")
    return frame


def text_column(df: pd.DataFrame, column: str) -> pd.Series:
    """A column as plain strings ('' for missing), whatever its dtype (category, object)."""
    if column not in df:
        return pd.Series("", index=df.index, dtype="object")
    return df[column].astype("object").where(df[column].notna(), "").astype(str)


def series_of(df: pd.DataFrame) -> pd.Series:
    """The series of each document: the ``series`` column, or the part of ``number`` before the dash."""
    if "series" in df:
        return text_column(df, "series")
    return text_column(df, "number").str.split("-", n=1).str[0]


def counted(df: pd.DataFrame) -> pd.Series:
    """Boolean mask of the documents that count in sales (neither rejected nor voided)."""
    return ~text_column(df, "state_type_id").isin(NOT_COUNTED_STATES)


# --------------------------------------------------------------------------------------------- filters


@dataclass(frozen=True)
class Filters:
    """What the analyst picked; an empty tuple means "all"."""

    document_types: tuple[str, ...] = ()
    states: tuple[str, ...] = ()
    series: tuple[str, ...] = ()
    currencies: tuple[str, ...] = ()
    customer: str = ""


def filter_options(df: pd.DataFrame) -> dict[str, list[str]]:
    """The values present in ``df`` for each filter, sorted (codes for types, states and currencies)."""
    return {
        "document_types": sorted(set(text_column(df, "document_type_id")) - {""}),
        "states": sorted(set(text_column(df, "state_type_id")) - {""}),
        "series": sorted(set(series_of(df)) - {""}),
        "currencies": sorted(set(text_column(df, "currency_type_id")) - {""}),
    }


def apply_filters(df: pd.DataFrame, filters: Filters) -> pd.DataFrame:
    """The rows of ``df`` that pass every filter; ``customer`` matches name or number, case-insensitive."""
    mask = pd.Series(True, index=df.index)
    if filters.document_types:
        mask &= text_column(df, "document_type_id").isin(filters.document_types)
    if filters.states:
        mask &= text_column(df, "state_type_id").isin(filters.states)
    if filters.series:
        mask &= series_of(df).isin(filters.series)
    if filters.currencies:
        mask &= text_column(df, "currency_type_id").isin(filters.currencies)
    needle = filters.customer.strip().casefold()
    if needle:
        names = text_column(df, "customer_name").str.casefold()
        numbers = text_column(df, "customer_number").str.casefold()
        mask &= names.str.contains(needle, regex=False) | numbers.str.contains(needle, regex=False)
    return df[mask]


# --------------------------------------------------------------------------------------------- in SQL

T = TypeVar("T")
#: Views (a page's figures for some filters) remembered per range.
MEMO_ENTRIES = 8
#: Rows the Documentos table shows at most (the newest of the range and filters; the exports hold all).
TABLE_ROWS = 2_000


@dataclass(frozen=True)
class Scope:
    """A date range of a tenant's documents and the filters picked, to be read in SQL: from the local
    store (``connector/store.py``), or an in-memory one holding the tenant's answer for the range (a
    client without a store) — the same queries either way. The pages get aggregates (hundreds of rows),
    never one Python object per document."""

    store: LocalStore
    start: date
    end: date
    filters: Filters = Filters()
    _memo: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)

    def memo(self, key: Hashable, build: Callable[[], T]) -> T:
        """What ``build()`` gives for this range and ``key`` (a page and its filters), built once while
        the range stays loaded: a rerun of the page reuses it."""
        if key not in self._memo:
            while len(self._memo) >= MEMO_ENTRIES:
                self._memo.pop(next(iter(self._memo)), None)
            self._memo[key] = build()
        return cast(T, self._memo[key])

    def memoised(self, key: Hashable) -> bool:
        """Whether :meth:`memo` holds ``key`` (a page then has it at once)."""
        return key in self._memo

    def where(self) -> tuple[str, list[Any]]:
        """The SQL condition over the store's ``documents`` columns, and its parameters."""
        parts: list[str] = ["date_of_issue BETWEEN ? AND ?"]
        values: list[Any] = [self.start, self.end]
        f = self.filters
        for column, picked in (
            ("document_type_id", f.document_types),
            ("state_type_id", f.states),
            ("series", f.series),
            ("currency_type_id", f.currencies),
        ):
            if picked:
                parts.append(f"coalesce({column}, '') IN ({', '.join('?' for _ in picked)})")
                values.extend(picked)
        needle = f.customer.strip().lower()
        if needle:
            parts.append(
                "(contains(lower(coalesce(customer_name, '')), ?) "
                "OR contains(lower(coalesce(customer_number, '')), ?))"
            )
            values.extend([needle, needle])
        return " AND ".join(parts), values

    @property
    def source(self) -> str:
        """The query of the scope's documents (for :func:`analysis.sales.sales_sql`), with
        :attr:`parameters`."""
        return f"SELECT * FROM documents WHERE {self.where()[0]}"

    @property
    def parameters(self) -> list[Any]:
        """The parameters of :attr:`source`."""
        return self.where()[1]

    def run(self, query: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Any query over the scope's store."""
        return self.store.fetch(query, parameters)

    def with_filters(self, filters: Filters) -> Scope:
        """The same range with ``filters``."""
        return Scope(self.store, self.start, self.end, filters, self._memo)

    def count(self) -> int:
        """How many documents it holds."""
        found = self.run(f"SELECT count(*) FROM ({self.source})", self.parameters)
        return int(found[0][0])

    def options(self) -> dict[str, list[str]]:
        """:func:`filter_options` of the scope (its filters ignored)."""
        whole = Scope(self.store, self.start, self.end)
        names = {
            "document_types": "document_type_id",
            "states": "state_type_id",
            "series": "series",
            "currencies": "currency_type_id",
        }
        lists = ", ".join(
            f"list(DISTINCT {column} ORDER BY {column}) FILTER (WHERE coalesce({column}, '') <> '')"
            for column in names.values()
        )
        found = whole.run(f"SELECT {lists} FROM ({whole.source})", whole.parameters)[0]
        return {name: [str(v) for v in values or ()] for name, values in zip(names, found, strict=True)}

    def rows(self) -> list[dict[str, Any]]:
        """The scope's documents as the tenant listed them (list rows, newest first): the exports'."""
        where, values = self.where()
        return self.store.listed(where, values).rows

    def documents(self, limit: int | None = None) -> pd.DataFrame:
        """The list DataFrame of the scope's documents (the newest ``limit`` of them)."""
        where, values = self.where()
        listed = self.store.listed(where, values, limit=limit)
        return listed.to_dataframe() if len(listed) else empty_documents()

    def table(self, limit: int = TABLE_ROWS) -> pd.DataFrame:
        """:func:`table_frame` of the newest ``limit`` documents."""
        return table_frame(self.documents(limit))

    def set_by_hand(self) -> list[ByHand]:
        """The scope's documents whose state was set by hand (their rows' ``state_changes``, written
        compact in the stored JSON text), by date and number, each with its latest change."""
        found = self.run(
            f"SELECT number, date_of_issue, state_type_id, raw FROM ({self.source}) "
            f"WHERE {_HAND_SET if getattr(self.store, 'schema', 1) >= 3 else _HAND_SET_TEXT} "
            "ORDER BY date_of_issue, number",
            self.parameters,
        )
        out = []
        for number, day, state, raw in found:
            changes = [c for c in orjson.loads(raw).get("state_changes") or [] if isinstance(c, dict)]
            if changes:
                out.append(ByHand(str(number), day, str(state), StateChange.from_wire(changes[-1])))
        return out


#: A stored row whose state was set by hand: its flag (a store of schema 3), or its JSON text's key.
_HAND_SET, _HAND_SET_TEXT = "hand_set", """contains(decode(raw), '"state_changes":[{')"""


@dataclass(frozen=True)
class ByHand:
    """A document whose state was set by hand, with its latest change."""

    number: str
    date_of_issue: date
    state: str
    change: StateChange

    def describe(self) -> str:
        """``F001-3 (Aceptado → Anulado, «motivo»)``."""
        reason = f", «{self.change.reason}»" if self.change.reason else ""
        return (
            f"{self.number} ({state_label(self.change.from_state)} → {state_label(self.change.to_state)}"
            f"{reason})"
        )


# --------------------------------------------------------------------------------------------- charts


def _in_currency(df: pd.DataFrame, currency: str | None) -> pd.DataFrame:
    return df if currency is None else df[text_column(df, "currency_type_id") == currency]


def state_totals(df: pd.DataFrame, currency: str | None = None) -> pd.DataFrame:
    """Documents and (unsigned) totals per state, in state-code order (``state``, ``label``, ...)."""
    part = _in_currency(df, currency)
    frame = pd.DataFrame(
        {"state": text_column(part, "state_type_id"), "total": part["total"].astype("float64").fillna(0.0)}
    )
    grouped = frame.groupby("state", sort=True).agg(total=("total", "sum"), documents=("total", "size"))
    grouped = grouped.reset_index()
    grouped.insert(1, "label", [state_label(code) for code in grouped["state"]])
    return grouped


def cell_state_totals(cells: Iterable[SalesCell]) -> pd.DataFrame:
    """:func:`state_totals` of a range's cells (:func:`analysis.sales.sales_cells`)."""
    totals: dict[str, list[Any]] = {}
    for cell in cells:
        entry = totals.setdefault(cell.state, [0.0, 0])
        entry[0] += float(cell.amounts.total)
        entry[1] += cell.documents
    states = sorted(totals)
    frame = pd.DataFrame(
        {
            "state": states,
            "total": [totals[s][0] for s in states],
            "documents": [totals[s][1] for s in states],
        }
    )
    frame.insert(1, "label", [state_label(code) for code in frame["state"]])
    return frame


def _layout(fig: go.Figure, title: str, *, legend: bool = True) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        height=360,
        showlegend=legend,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1},
    )
    return fig


def _no_data(fig: go.Figure) -> go.Figure:
    fig.add_annotation(
        text="Sin documentos en este rango", showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


_DAY_MS = 86_400_000
#: Bars of the categorical charts keep the width they would have with at least this many categories.
_MIN_SLOTS = 5


def state_totals_figure(df: pd.DataFrame, currency: str | None = None) -> go.Figure:
    """Bars of the number of documents per state, one color per state (counts: nothing is added across
    currencies); the hover gives each state's total when ``currency`` is chosen."""
    return state_counts_figure(state_totals(df, currency), currency)


def state_counts_figure(data: pd.DataFrame, currency: str | None = None) -> go.Figure:
    """:func:`state_totals_figure` of a :func:`state_totals` frame (:meth:`Scope.state_totals`)."""
    fig = go.Figure(
        go.Bar(
            x=data["label"],
            y=data["documents"],
            marker_color=[state_color(code) for code in data["state"]],
            text=[f"{n:,}" for n in data["documents"]],
            textposition="auto",
            hovertemplate="%{x}<br>%{y:,} documentos<extra></extra>",
        )
    )
    fig.update_xaxes(range=[-0.5, max(len(data), _MIN_SLOTS) - 0.5])
    suffix = f" ({currency})" if currency else ""
    _layout(fig, f"Documentos por estado{suffix}", legend=False)
    return _no_data(fig) if data.empty else fig


# --------------------------------------------------------------------------------------------- tables


def table_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The documents as the table shows them: Spanish type and state labels, newest first.

    Keeps the original column names (the page maps them to Spanish headers with ``column_config``) and
    adds ``document_type`` and ``state`` (a one-element list, for a colored label column);
    ``sale_note_number`` is the sale note the document was made from ('' when none).
    """
    out = pd.DataFrame(index=df.index)
    out["date_of_issue"] = pd.to_datetime(df["date_of_issue"]) if len(df) else df["date_of_issue"]
    out["number"] = text_column(df, "number")
    codes, descriptions = text_column(df, "document_type_id"), text_column(df, "document_type_description")
    pairs = list(zip(codes.tolist(), descriptions.tolist(), strict=True))
    type_labels = {pair: type_label(*pair) for pair in set(pairs)}  # a few types: labelled once each
    out["document_type"] = [type_labels[pair] for pair in pairs]
    out["customer_number"] = text_column(df, "customer_number")
    out["customer_name"] = text_column(df, "customer_name")
    out["currency_type_id"] = text_column(df, "currency_type_id")
    out["sale_note_number"] = text_column(df, "sale_note_number")  # '' when none or the tenant does not say
    for column in AMOUNT_COLUMNS:
        out[column] = df[column].astype("float64") if column in df else 0.0
    states = text_column(df, "state_type_id")
    codes = states.tolist()
    state_labels = {code: state_label(code) for code in set(codes)}
    out["state"] = [[state_labels[code]] for code in codes]  # a list per row: its own label column
    out["state_type_id"] = states
    out["external_id"] = text_column(df, "external_id")
    # the service's id of the document (what POST /api/document/email takes); 0 when not known
    out["id"] = pd.to_numeric(df["id"], errors="coerce").fillna(0).astype("int64") if "id" in df else 0
    for flag in ("has_xml", "has_pdf", "has_cdr"):
        out[flag] = df[flag].astype(bool) if flag in df else False
    if len(out):
        out = out.iloc[newest_first(df)]
    return out.reset_index(drop=True)


def correlatives(df: pd.DataFrame) -> pd.Series:
    """The numeric correlative of each document (``F001-638`` -> 638; missing -> 0)."""
    if "correlative" in df:
        values = pd.to_numeric(df["correlative"], errors="coerce")
    else:
        values = pd.to_numeric(text_column(df, "number").str.rpartition("-")[2], errors="coerce")
    return values.fillna(0).astype("int64")


def newest_first(df: pd.DataFrame) -> list[int]:
    """Positions of ``df``'s rows by issue date, series and *numeric* correlative, newest first
    (``F001-638`` before ``F001-552`` before ``F001-6``)."""
    if not len(df):
        return []
    keys = pd.DataFrame(
        {
            "date": pd.to_datetime(df["date_of_issue"]).to_numpy(),
            "series": series_of(df).to_numpy(),
            "correlative": correlatives(df).to_numpy(),
        }
    )
    ordered = keys.sort_values(["date", "series", "correlative"], ascending=False, kind="stable")
    return list(ordered.index)


def export_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The documents for CSV/Excel: Spanish headers, plain state names, dates as dates, no links."""
    table = table_frame(df)
    table["state"] = [labels[0] for labels in table["state"]]
    columns = [c for c in HEADERS if c in table]
    out = table[columns].rename(columns=HEADERS)
    if len(out):
        out["Fecha"] = pd.to_datetime(out["Fecha"]).dt.date
    return out


def ordered_states(codes: Iterable[str]) -> list[str]:
    """State codes in catalog order (for multiselect options)."""
    known = [code for code in STATES if code in set(codes)]
    return known + sorted(set(codes) - set(known))


def labels_for(codes: Sequence[str], kind: str) -> dict[str, str]:
    """Display labels of filter options: ``kind`` is ``"state"`` or ``"type"``; names only (``Aceptado``,
    ``Nota de crédito``), never the raw code an accountant does not read."""
    if kind == "state":
        return {code: state_label(code) for code in codes}
    return {code: type_label(code) for code in codes}
