"""Tolerant readers for what real tenants send: ``d-m-Y`` or ``Y-m-d`` dates, numeric strings,
0/1 booleans; and the parts of an answer every family reads the same way (its ``data``, its ``links``,
the rows of a list)."""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import re
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

from connector.errors import ServerError
from sunat.money import to_decimal

__all__ = [
    "coerce_date",
    "data_of",
    "exchange_rate_of",
    "first_of",
    "gc_paused",
    "links_of",
    "parse_bool",
    "parse_date",
    "parse_datetime",
    "parse_decimal",
    "rate_or_none",
    "rows_of",
    "split_number",
    "text",
]

_YMD = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_DMY = re.compile(r"(\d{1,2})[-/](\d{1,2})[-/](\d{4})")
_ZERO = Decimal("0")
#: What this service sends: ``"118.00"``, ``"-5"`` (read straight, without the tolerant path's work).
_PLAIN = re.compile(r"-?\d+(?:\.\d+)?")


def parse_date(value: object) -> dt.date | None:
    """A date from ``Y-m-d`` (P9, this service), ``d-m-Y`` (P5 lists) or ``d/m/Y``, ignoring a time
    part; ``date``/``datetime`` pass through; empty or unreadable values give ``None``."""
    if type(value) is str and len(value) == 10 and value[4] == "-" and value[7] == "-":
        try:  # the common "2026-03-05": the same date the patterns below read, a list's worth faster
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    try:
        match = _YMD.match(text)
        if match:
            year, month, day = (int(g) for g in match.groups())
            return dt.date(year, month, day)
        match = _DMY.match(text)
        if match:
            day, month, year = (int(g) for g in match.groups())
            return dt.date(year, month, day)
    except ValueError:
        return None
    return None


def parse_datetime(value: object) -> dt.datetime | None:
    """A timestamp as Lima's wall clock (naive): ``"YYYY-MM-DD HH:MM:SS"`` (or ISO with ``T``, fractions
    of a second dropped) is already Lima's time, as real tenants write it (Laravel's ``America/Lima``);
    one carrying its offset (``-05:00``, ``+00:00``, ``Z``) is converted to Lima's. ``None`` when
    unreadable."""
    if not isinstance(value, str) or len(value) < 19:
        return None
    try:
        naive = dt.datetime.fromisoformat(value[:19].replace(" ", "T"))
    except ValueError:
        return None
    zone = _OFFSET.search(value, 19)
    if zone is None:
        return naive
    if zone.group(0) == "Z":
        offset = dt.timedelta(0)
    else:
        sign = -1 if zone.group(1) == "-" else 1
        offset = sign * dt.timedelta(hours=int(zone.group(2)), minutes=int(zone.group(3) or 0))
    return naive - offset + _LIMA_OFFSET


#: The offset a timestamp may end with (after its seconds and their fraction): ``Z``, ``±HH:MM``, ``±HHMM``.
_OFFSET = re.compile(r"Z$|([+-])(\d{2}):?(\d{2})?$")
_LIMA_OFFSET = dt.timedelta(hours=-5)  # Peru keeps no daylight saving time


def coerce_date(value: dt.date | str, name: str) -> dt.date:
    """A date argument given as a :class:`~datetime.date` (a ``datetime`` gives its date) or a string
    :func:`parse_date` reads (``YYYY-MM-DD``, ``DD-MM-YYYY``); raise :class:`ValueError` naming the
    argument ``name`` otherwise."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    parsed = parse_date(value)
    if parsed is None:
        raise ValueError(f"{name} must be a date or a 'YYYY-MM-DD' string (got {value!r})")
    return parsed


def parse_decimal(value: object, default: Decimal = _ZERO) -> Decimal:
    """An amount from a number or a numeric string (``"118.00"``, ``"1,234.50"``, ``" 5 "``);
    ``None``/empty/unreadable give ``default``."""
    if type(value) is str and _PLAIN.fullmatch(value):
        return Decimal(value)  # a plain number: what the tolerant path below would give, faster
    if value is None or isinstance(value, bool):
        return default
    if isinstance(value, str):
        value = value.strip().replace(",", "")
        if not value:
            return default
    try:
        return to_decimal(value)
    except ValueError:
        return default


def parse_bool(value: object) -> bool:
    """``True``/``1``/``"1"``/``"true"`` are true; everything else is false."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "si", "sí", "yes")
    return bool(value)


def split_number(number: str) -> tuple[str, int | None]:
    """``"F001-26"`` -> ``("F001", 26)``; a number without a dash gives ``(number, None)``."""
    series, sep, correlative = (number or "").rpartition("-")
    if not sep:
        return number or "", None
    try:
        return series, int(correlative)
    except ValueError:
        return series, None


def exchange_rate_of(row: Mapping[str, Any]) -> Decimal | None:
    """The exchange rate of a list row (``exchange_rate_sale``), or ``None`` when the row has none or
    only the placeholder 1 of a document in soles (a rate of 1 is never a foreign currency's)."""
    return rate_or_none(parse_decimal(row.get("exchange_rate_sale"), Decimal(0)))


def rate_or_none(value: Decimal | None) -> Decimal | None:
    """An exchange rate as read (a store's typed column: ``None`` when empty), or ``None`` when it is
    none (0, negative) or the placeholder 1 (see :func:`exchange_rate_of`)."""
    return value if value is not None and value > 0 and value != 1 else None


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a list's worth of objects is built.

    Building 20,000 records (or sales, or register entries) next to the 20,000 parsed rows they come
    from makes the collector walk every one of those rows several times over, for nothing: these
    objects hold no reference cycles. Reference counting still frees everything as usual; the
    collector is switched back on at the end (if it was on: another thread pausing it too is fine)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def text(value: object) -> str:
    """A text field: ``""`` for ``None``, else the value as a string."""
    return "" if value is None else str(value)


def data_of(body: Any, url: str | None = None, *, required: str | None = None) -> Mapping[str, Any]:
    """The ``data`` object of a successful answer (with a non-empty ``required`` key, when named);
    :class:`~connector.errors.ServerError` when the answer has none."""
    data = body.get("data") if isinstance(body, Mapping) else None
    if not isinstance(data, Mapping) or (required is not None and not data.get(required)):
        missing = "data" if required is None else f"data.{required}"
        raise ServerError(
            f"La respuesta del servicio no trae '{missing}'.",
            status=200,
            body=dict(body) if isinstance(body, Mapping) else body,
            url=url,
        )
    return data


def links_of(body: Any, *, keep_empty: bool = True) -> dict[str, str]:
    """The ``links`` of an answer or a row as text (``{}`` without them); ``keep_empty=False`` leaves
    out the links not there yet (a guide's CDR before SUNAT answers)."""
    links = body.get("links") if isinstance(body, Mapping) else None
    if not isinstance(links, Mapping):
        return {}
    return {str(key): text(value) for key, value in links.items() if keep_empty or value}


def rows_of(body: Any, url: str | None = None, status: int | None = None) -> list[dict[str, Any]]:
    """The rows of a list answer: ``{"data": [...]}``, or the bare array some real endpoints answer;
    :class:`~connector.errors.ServerError` when it has neither."""
    rows = body.get("data") if isinstance(body, Mapping) else body
    if not isinstance(rows, list):
        raise ServerError("La lista del servicio no trae 'data'.", status=status, body=body, url=url)
    return [row for row in rows if isinstance(row, dict)]


def first_of(value: Any) -> Mapping[str, Any]:
    """The first object of a list field (``documents``, ``sale_notes`` of a row), ``{}`` when none."""
    return value[0] if isinstance(value, list) and value and isinstance(value[0], Mapping) else {}
