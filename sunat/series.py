"""Series and numbers (``docs/sunat_domain.md``, documents and series): what a series looks like per document
type, contingency series and the sending group (``01`` facturas and their notes, ``02`` boletas and their
notes)."""

from __future__ import annotations

import re

__all__ = [
    "MAX_NUMBER",
    "SERIES_PATTERNS",
    "document_group",
    "is_contingency_series",
    "is_valid_number",
    "is_valid_series",
    "note_group",
]

_CONTINGENCY = r"\d{4}"

#: Series an issuer's own system may use per document type (SUNAT 1001 when it does not match; SUNAT's
#: portal series E001/EB01/EG01 are left out). Four-digit series are physical (contingency) ones.
SERIES_PATTERNS: dict[str, re.Pattern[str]] = {
    "01": re.compile(rf"F[A-Z0-9]{{3}}|{_CONTINGENCY}"),
    "03": re.compile(rf"B[A-Z0-9]{{3}}|{_CONTINGENCY}"),
    "07": re.compile(rf"[FBS][A-Z0-9]{{3}}|{_CONTINGENCY}"),
    "08": re.compile(rf"[FBS][A-Z0-9]{{3}}|{_CONTINGENCY}"),
    "09": re.compile(rf"T[A-Z0-9]{{3}}|{_CONTINGENCY}"),
    "20": re.compile(rf"R[A-Z0-9]{{3}}|{_CONTINGENCY}"),
    "31": re.compile(rf"V[A-Z0-9]{{3}}|{_CONTINGENCY}"),
    "40": re.compile(rf"P[A-Z0-9]{{3}}|{_CONTINGENCY}"),
}

#: Highest correlative number of a series (8 digits).
MAX_NUMBER = 99_999_999


def is_valid_series(doc_type: str, series: str) -> bool:
    """True when ``series`` fits the document type (``F001`` for 01, ``B001`` for 03, ``0001``...)."""
    pattern = SERIES_PATTERNS.get(doc_type)
    return pattern is not None and isinstance(series, str) and pattern.fullmatch(series) is not None


def is_contingency_series(series: str) -> bool:
    """A contingency (physical) series is exactly four digits, e.g. ``0001``."""
    return isinstance(series, str) and re.fullmatch(_CONTINGENCY, series) is not None


def note_group(series: str, affected_doc_type: str | None) -> str:
    """The group of a credit/debit note: the affected document's (``01`` factura, else ``02``).

    Without the affected type the series decides: ``B...`` -> ``02``, anything else -> ``01``.
    """
    if affected_doc_type:
        return "01" if affected_doc_type == "01" else "02"
    return "02" if series.startswith("B") else "01"


def document_group(doc_type: str, series: str, affected_doc_type: str | None = None) -> str:
    """Sending group of a sales document: ``01`` (factura and its notes) or ``02`` (boleta and its notes)."""
    if doc_type == "01":
        return "01"
    if doc_type == "03":
        return "02"
    if doc_type in ("07", "08"):
        return note_group(series, affected_doc_type)
    raise ValueError(f"document type {doc_type!r} has no sending group (only 01, 03, 07, 08)")


def is_valid_number(number: int) -> bool:
    """A correlative is an integer from 1 to 99 999 999."""
    return isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= MAX_NUMBER
