"""SUNAT's «cronograma de obligaciones mensuales»: the day each month's declaration (IGV-Renta, Formulario
Virtual 621) falls due, by the last digit of the taxpayer's RUC, read from data files.

One JSON file per year, ``sunat/data/cronograma_<year>.json`` (a new year's table is a new file, no code)::

    {"year": 2026, "verified": false, "source": {...},
     "columns": ["0", "1", "2-3", "4-5", "6-7", "8-9", "buenos"],
     "business_day": {"0": 11, ...},            # optional: the rule the dates follow
     "holidays": ["2026-01-01", ...],           # optional: the national holidays the rule counts
     "periods": {"2026-01": {"0": "2026-02-16", "1": "2026-02-17", ..., "buenos": "2026-02-24"}}}

A column names the last digits it covers (``"2-3"``: 2 and 3); ``"buenos"`` is the «buenos contribuyentes»
column; ``"uesp"``, when a table has it, the Unidades Ejecutoras del Sector Público. ``verified`` says
whether the dates were checked against SUNAT's own text: :class:`DueDate` carries it, so a page can say
so. What was and was not verified for each year: ``docs/sunat_domain.md``, «Cronograma».
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = [
    "GOOD_TAXPAYERS",
    "DueDate",
    "Schedule",
    "ScheduleError",
    "business_day",
    "due_date",
    "schedule",
    "schedule_years",
]

#: The column of the «buenos contribuyentes» (one date for every digit).
GOOD_TAXPAYERS = "buenos"
_FILE = re.compile(r"cronograma_(\d{4})\.json")
_PERIOD = re.compile(r"(\d{4})-?(\d{2})")


class ScheduleError(LookupError):
    """No table covers the period (its year is not published in ``sunat/data``), or the input is wrong."""


@dataclass(frozen=True)
class DueDate:
    """When a period's monthly declaration is due for one RUC: the date, the column it was read from,
    whether the year's table was verified against SUNAT's text, and the table's source."""

    period: str
    date: dt.date
    column: str
    verified: bool
    source: str

    def days_left(self, today: dt.date) -> int:
        """Days from ``today`` to the due date (negative once it has passed)."""
        return (self.date - today).days


@dataclass(frozen=True)
class Schedule:
    """One year's table, as its file holds it."""

    year: int
    columns: tuple[str, ...]
    periods: dict[str, dict[str, dt.date]]
    verified: bool
    source: dict[str, str]
    business_day: dict[str, int]
    holidays: frozenset[dt.date]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Schedule:
        """A table from its file's object (raises :class:`ScheduleError` when it is not well formed)."""
        try:
            columns = tuple(str(c) for c in data["columns"])
            periods = {
                str(period): {str(col): dt.date.fromisoformat(str(day)) for col, day in row.items()}
                for period, row in data["periods"].items()
            }
            table = cls(
                year=int(data["year"]),
                columns=columns,
                periods=periods,
                verified=bool(data.get("verified", False)),
                source={str(k): str(v) for k, v in (data.get("source") or {}).items()},
                business_day={str(k): int(v) for k, v in (data.get("business_day") or {}).items()},
                holidays=frozenset(dt.date.fromisoformat(str(d)) for d in data.get("holidays") or ()),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ScheduleError(f"a cronograma table is not well formed: {exc}") from exc
        for period, row in periods.items():
            if set(row) != set(columns):
                raise ScheduleError(
                    f"cronograma {table.year}: {period} lacks columns {set(columns) - set(row)}"
                )
        return table

    def column_of(self, digit: str, *, good_taxpayer: bool = False) -> str:
        """The column a last digit falls in (``"2-3"`` for 3), or :data:`GOOD_TAXPAYERS`."""
        if good_taxpayer:
            if GOOD_TAXPAYERS not in self.columns:
                raise ScheduleError(f"the {self.year} cronograma has no buenos contribuyentes column")
            return GOOD_TAXPAYERS
        for column in self.columns:
            bounds = column.split("-")
            if all(part.isdigit() for part in bounds) and int(bounds[0]) <= int(digit) <= int(bounds[-1]):
                return column
        raise ScheduleError(f"the {self.year} cronograma has no column for the digit {digit}")

    def source_text(self) -> str:
        """The source in one line (the rule and where the dates come from)."""
        parts = [self.source.get("rule", ""), self.source.get("dates", "")]
        text = "; ".join(part for part in parts if part)
        return text + ("" if self.verified else " (sin verificar con el texto oficial)")


@lru_cache(maxsize=1)
def _tables() -> dict[int, Schedule]:
    found: dict[int, Schedule] = {}
    for entry in resources.files("sunat.data").iterdir():
        match = _FILE.fullmatch(entry.name)
        if match is None:
            continue
        table = Schedule.from_json(json.loads(entry.read_text(encoding="utf-8")))
        if table.year != int(match.group(1)):
            raise ScheduleError(f"{entry.name} holds the year {table.year}")
        found[table.year] = table
    return found


def schedule_years() -> list[int]:
    """The years with a table in ``sunat/data``."""
    return sorted(_tables())


def schedule(year: int) -> Schedule:
    """The table of ``year`` (:class:`ScheduleError` when SUNAT's table of that year is not in the data)."""
    table = _tables().get(int(year))
    if table is None:
        have = ", ".join(map(str, schedule_years())) or "none"
        raise ScheduleError(
            f"no cronograma de obligaciones mensuales for {year} (tables: {have}); add "
            f"sunat/data/cronograma_{year}.json from SUNAT's resolution"
        )
    return table


def _period(value: str | dt.date | tuple[int, int]) -> str:
    if isinstance(value, dt.date):
        return f"{value.year:04d}-{value.month:02d}"
    if isinstance(value, tuple):
        return f"{int(value[0]):04d}-{int(value[1]):02d}"
    match = _PERIOD.fullmatch(str(value).strip())
    if match is None or not 1 <= int(match.group(2)) <= 12:
        raise ScheduleError(f"a period is YYYY-MM (got {value!r})")
    return f"{match.group(1)}-{match.group(2)}"


def due_date(
    ruc: str | int, period: str | dt.date | tuple[int, int], *, good_taxpayer: bool = False
) -> DueDate:
    """When ``period``'s (``"2026-10"``) monthly declaration is due for ``ruc`` (an 11-digit RUC, or just
    its last digit); ``good_taxpayer``: the «buenos contribuyentes» column."""
    text = str(ruc).strip()
    if not text.isdigit() or len(text) not in (1, 11):
        raise ScheduleError(f"a RUC has 11 digits (got {ruc!r})")
    month = _period(period)
    table = schedule(int(month[:4]))
    column = table.column_of(text[-1], good_taxpayer=good_taxpayer)
    row = table.periods.get(month)
    if row is None:
        raise ScheduleError(f"the {table.year} cronograma has no row for {month}")
    return DueDate(month, row[column], column, table.verified, table.source_text())


def business_day(day: dt.date, holidays: frozenset[dt.date]) -> int:
    """Which business day of its month ``day`` is (weekends and ``holidays`` do not count); 0 when ``day``
    itself is not a business day."""
    if day.weekday() >= 5 or day in holidays:
        return 0
    count = 0
    current = day.replace(day=1)
    while current <= day:
        count += current.weekday() < 5 and current not in holidays
        current += dt.timedelta(days=1)
    return count
