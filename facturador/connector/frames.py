"""Document lists as pandas DataFrames, built column by column from the raw rows (no per-row objects).

Kept apart from :mod:`facturador.connector.models` so pandas is imported only when a DataFrame is asked
for (pandas comes with the ``connector`` extra).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pandas as pd

from facturador.connector.models import AMOUNT_KEYS

__all__ = ["CATEGORY_COLUMNS", "DOCUMENT_COLUMNS", "documents_frame"]

#: Columns of :func:`documents_frame`, in order.
DOCUMENT_COLUMNS = (
    "id",
    "external_id",
    "date_of_issue",
    "number",
    "series",
    "correlative",
    "document_type_id",
    "document_type_description",
    "customer_name",
    "customer_number",
    "currency_type_id",
    *AMOUNT_KEYS,
    "state_type_id",
    "state_type_description",
    "has_xml",
    "has_pdf",
    "has_cdr",
    "download_xml",
    "download_pdf",
    "download_cdr",
)
CATEGORY_COLUMNS = (
    "series",
    "document_type_id",
    "document_type_description",
    "currency_type_id",
    "state_type_id",
    "state_type_description",
)
_DMY_START = re.compile(r"\d{1,2}-\d{1,2}-\d{4}")
_TRUE_TEXT = ("1", "true", "si", "sí", "yes")
#: Keys read from each raw row, in one pass (the frame's columns).
_RAW_KEYS = DOCUMENT_COLUMNS


def _objects(values: Sequence[Any]) -> pd.Series:
    return pd.Series(values, dtype=object)


def _text(values: pd.Series) -> pd.Series:
    """Text column (pandas ``string``), numbers sent as numbers turned into text."""
    return values.astype("string")


def _dates(values: pd.Series) -> pd.Series:
    """``Y-m-d`` (a time part is ignored) or ``d-m-Y`` / ``d/m/Y``; unreadable -> NaT.

    The format of the first value is tried first on the whole column, the other one on what is left.
    """
    text = values.astype("string").str.slice(0, 10).str.replace("/", "-", regex=False)
    first = text.dropna()
    formats = ["%Y-%m-%d", "%d-%m-%Y"]
    if len(first) and _DMY_START.match(str(first.iloc[0])):
        formats.reverse()
    parsed = pd.to_datetime(text, format=formats[0], errors="coerce")
    missing = parsed.isna() & text.notna()
    if missing.any():
        parsed[missing] = pd.to_datetime(text[missing].str.strip(), format=formats[1], errors="coerce")
    return parsed.astype("datetime64[ns]")


def _amounts(values: pd.Series) -> pd.Series:
    """Numbers or numeric strings (``"1,234.50"`` too) as float64; missing -> 0.0."""
    numbers = pd.to_numeric(values, errors="coerce")
    missing = numbers.isna() & values.notna()
    if missing.any():
        cleaned = values[missing].astype(str).str.replace(",", "", regex=False).str.strip()
        numbers[missing] = pd.to_numeric(cleaned, errors="coerce")
    return numbers.fillna(0.0).astype("float64")


def _flag(value: Any) -> bool:
    return value.strip().lower() in _TRUE_TEXT if isinstance(value, str) else bool(value)


def _flags(values: pd.Series) -> pd.Series:
    """Booleans; real tenants may send 0/1 or "1"/"true"."""
    if all(type(v) is bool for v in values):
        return values.astype(bool)
    return values.map(_flag).astype(bool)


def _integers(values: pd.Series) -> pd.Series:
    return pd.to_numeric(values, errors="coerce").astype("Int64")


def documents_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """The DataFrame of list rows (see :meth:`DocumentList.to_dataframe
    <facturador.connector.models.DocumentList.to_dataframe>` for the dtypes).

    Every row is read once into a tuple; each column is then converted with vectorised pandas
    operations (20,000 rows: about a quarter of a second on a small machine).
    """
    tuples = [tuple(map(row.get, _RAW_KEYS)) for row in rows]
    columns_of = zip(*tuples, strict=True) if tuples else ((),) * len(_RAW_KEYS)
    raw = {key: _objects(column) for key, column in zip(_RAW_KEYS, columns_of, strict=True)}
    number = _text(raw["number"])
    series, correlative = raw["series"], raw["correlative"]
    no_series = series.isna() | (series == "")
    if no_series.any() or correlative.isna().any():  # real tenants: only "F001-26"
        head_tail = number.str.rpartition("-")
        series = series.where(~no_series, head_tail[0])
        correlative = correlative.where(correlative.notna(), head_tail[2])

    columns: dict[str, Any] = {
        "id": _integers(raw["id"]),
        "external_id": _text(raw["external_id"]),
        "date_of_issue": _dates(raw["date_of_issue"]),
        "number": number,
        "series": series.astype("string").astype("category"),
        "correlative": _integers(correlative),
    }
    for key in ("document_type_id", "document_type_description"):
        columns[key] = raw[key].astype("string").astype("category")
    for key in ("customer_name", "customer_number"):
        columns[key] = _text(raw[key])
    columns["currency_type_id"] = raw["currency_type_id"].astype("string").astype("category")
    for key in AMOUNT_KEYS:
        columns[key] = _amounts(raw[key])
    for key in ("state_type_id", "state_type_description"):
        columns[key] = raw[key].astype("string").astype("category")
    for key in ("has_xml", "has_pdf", "has_cdr"):
        columns[key] = _flags(raw[key])
    for key in ("download_xml", "download_pdf", "download_cdr"):
        columns[key] = _text(raw[key].fillna(""))
    return pd.DataFrame(columns)
