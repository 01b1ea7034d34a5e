"""The months an accountant has closed: when each month's sales register was filed (or the month closed by
hand), kept beside the tenant's local store (:func:`connector.store.closes_path`) so the dashboard and
``facturador register`` read the same.

A month's register holds the month's documents; a document that arrives after its month was closed can
no longer go in the filed register, so it goes, as state 8, in the first later month still open when it
arrived (``docs/sales_register.md``). What decides is this record of the close, never the time a
document was inserted. Each close says where it came from (``source``): ``"manual"`` (the dashboard's
«Cerrar el mes», ``facturador register --close``), ``"register"`` (the register filed) or, later,
``"sire"`` (a period generated in SIRE); another source is a plain word of its own.

The file is JSON, one object per closed month, written whole (a temporary file renamed over it), so a
reader never sees half of it::

    {"closes": [{"period": "2026-10", "closed_at": "2026-11-12T09:30:00-05:00",
                 "source": "manual", "note": "PLE presentado"}]}
"""

from __future__ import annotations

import datetime as dt
import os
import re
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import orjson

from sunat.calendar import LIMA

__all__ = ["MonthClose", "MonthCloses", "lima"]

_PERIOD = re.compile(r"(\d{4})-(\d{2})")


def _period(value: str | dt.date | tuple[int, int]) -> str:
    """``"YYYY-MM"`` of a period given as ``"2026-10"``, ``"202610"``, a date in it or ``(2026, 10)``."""
    if isinstance(value, dt.date):
        return f"{value.year:04d}-{value.month:02d}"
    if isinstance(value, tuple):
        year, month = int(value[0]), int(value[1])
    else:
        text = str(value).strip()
        match = _PERIOD.fullmatch(text) or re.fullmatch(r"(\d{4})(\d{2})", text)
        if match is None:
            raise ValueError(f"a period is YYYY-MM or YYYYMM (got {value!r})")
        year, month = int(match.group(1)), int(match.group(2))
    if not 1 <= month <= 12 or not 2000 <= year <= 2100:
        raise ValueError(f"not a period: {year}-{month}")
    return f"{year:04d}-{month:02d}"


def _month_end(period: str) -> dt.datetime:
    """The first instant after ``period`` (``YYYY-MM``), Lima's wall clock."""
    year, month = int(period[:4]), int(period[5:])
    return dt.datetime(year + month // 12, month % 12 + 1, 1)


def lima(moment: dt.datetime) -> dt.datetime:
    """``moment`` as Lima's wall clock, naive (a naive ``moment`` is already Lima's)."""
    return moment if moment.tzinfo is None else moment.astimezone(LIMA).replace(tzinfo=None)


@dataclass(frozen=True)
class MonthClose:
    """One closed month: ``period`` (``YYYY-MM``), when it was closed (Lima's wall clock, naive), by what
    (``source``) and the accountant's note."""

    period: str
    closed_at: dt.datetime
    source: str = "manual"
    note: str = ""

    def to_json(self) -> dict[str, str]:
        """The object the file keeps (the time with Lima's offset)."""
        return {
            "period": self.period,
            "closed_at": self.closed_at.replace(tzinfo=LIMA).isoformat(),
            "source": self.source,
            "note": self.note,
        }

    @classmethod
    def from_json(cls, value: Mapping[str, object]) -> MonthClose:
        """One object of the file (a time without offset is Lima's)."""
        closed = lima(dt.datetime.fromisoformat(str(value["closed_at"])))
        source, note = str(value.get("source") or "manual"), str(value.get("note") or "")
        return cls(_period(str(value["period"])), closed, source, note)


class MonthCloses(Mapping[str, dt.datetime]):
    """A tenant's closed months, read from (and written to) ``path``; as a mapping, ``"YYYY-MM"`` → when
    it was closed (Lima's wall clock): what :func:`analysis.register.build_entries` takes. Without a
    ``path`` it lives in memory (tests, a register built from given closes)."""

    def __init__(self, path: str | Path | None = None, closes: Iterable[MonthClose] | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        self._closes: dict[str, MonthClose] = {}
        self._read()
        for close in closes or ():
            self._closes[close.period] = close

    def _read(self) -> None:
        """Read the file again (another process may have closed a month since)."""
        if self.path is None or not self.path.is_file():
            return
        try:
            found = orjson.loads(self.path.read_bytes())
            read = [MonthClose.from_json(item) for item in found.get("closes", [])]
        except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"the closes file {self.path} cannot be read: {exc}") from exc
        self._closes = {close.period: close for close in read}

    @classmethod
    def beside(cls, store_file: str | Path) -> MonthCloses:
        """The closes kept beside a local store's file (``<store>.closes.json``)."""
        return cls(Path(store_file).with_suffix(".closes.json"))

    def close(
        self,
        period: str | dt.date | tuple[int, int],
        at: dt.datetime,
        *,
        source: str = "manual",
        note: str = "",
    ) -> MonthClose:
        """Record ``period`` closed at ``at`` (aware, or naive Lima time) and keep the file. A month is
        closed once: closing it again keeps the first close (and returns it) — reopen it first to move
        its date. Raises :class:`ValueError` for a close before the month has ended, or an empty source."""
        month = _period(period)
        moment = lima(at)
        if moment < _month_end(month):
            raise ValueError(
                f"{month} cannot be closed at {moment:%d/%m/%Y %H:%M}: the month has not ended yet"
            )
        if not source.strip():
            raise ValueError("a close says where it came from (source)")
        with self._lock:
            self._read()
            found = self._closes.get(month)
            if found is not None:
                return found
            self._closes[month] = made = MonthClose(month, moment, source.strip(), note.strip())
            self._save()
        return made

    def reopen(self, period: str | dt.date | tuple[int, int]) -> MonthClose | None:
        """Forget ``period``'s close (the close it had, or ``None``): documents that arrive afterwards go in
        its register again."""
        month = _period(period)
        with self._lock:
            self._read()
            found = self._closes.pop(month, None)
            if found is not None:
                self._save()
        return found

    def record(self, period: str | dt.date | tuple[int, int]) -> MonthClose | None:
        """The close of ``period`` (``None`` while it is open)."""
        return self._closes.get(_period(period))

    def records(self) -> list[MonthClose]:
        """Every close, by period."""
        return [self._closes[key] for key in sorted(self._closes)]

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = orjson.dumps({"closes": [c.to_json() for c in self.records()]}, option=orjson.OPT_INDENT_2)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def __getitem__(self, period: str) -> dt.datetime:
        return self._closes[_period(period)].closed_at

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._closes))

    def __len__(self) -> int:
        return len(self._closes)
