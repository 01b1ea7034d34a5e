"""Peru's clock: SUNAT dates and deadlines are in Lima time (UTC-5, no daylight saving time).

Every date and time of day the toolkit decides by (an issue date, Lima's midnight, a month's end, a
deadline) comes from :func:`peru_now`. Tests and operations can set that clock: with
``FACTURADOR_CLOCK`` in the environment (an ISO 8601 instant such as ``2026-12-31T23:30:00-05:00``; a
time without an offset is Lima's) the clock stands still at that instant, in this process and in every
process it starts (``facturador serve``, the dashboard). Timers and the database's own timestamps
(``created_at``, ``updated_at``) keep the real time.
"""

from __future__ import annotations

import os
from datetime import UTC, date, datetime, timedelta, timezone
from functools import lru_cache

LIMA = timezone(timedelta(hours=-5), "America/Lima")

#: The environment variable that fixes the clock (a testing and operations hook; unset: the real time).
CLOCK_VARIABLE = "FACTURADOR_CLOCK"


def peru_now() -> datetime:
    """The current time in Lima (the instant of ``FACTURADOR_CLOCK`` when it is set)."""
    fixed = os.environ.get(CLOCK_VARIABLE)
    if fixed:
        return fixed_instant(fixed)
    return datetime.now(LIMA)


def lima_stamp(moment: datetime | str | None) -> str | None:
    """A stored moment as real tenants answer it (Laravel's ``America/Lima``): Lima's wall clock,
    ``"YYYY-MM-DD HH:MM:SS"``. A moment without an offset is UTC — what the database's clock writes
    (``CURRENT_TIMESTAMP``, and SQLite's text of an aware time, kept in UTC) — so rows written before
    the service answered in Lima time read right; ``None``/empty stay ``None``."""
    if moment is None or moment == "":
        return None
    return lima_moment(moment).strftime("%Y-%m-%d %H:%M:%S")


def lima_moment(moment: datetime | str) -> datetime:
    """A stored moment (see :func:`lima_stamp`: without an offset it is UTC) in Lima's time zone."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment.strip().replace(" ", "T", 1))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(LIMA)


def peru_today() -> date:
    """Today's date in Lima (what SUNAT compares issue dates with)."""
    return peru_now().date()


@lru_cache(maxsize=8)
def fixed_instant(text: str) -> datetime:
    """The Lima time of ``FACTURADOR_CLOCK``'s ISO 8601 instant (one without an offset is Lima's)."""
    try:
        instant = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"{CLOCK_VARIABLE}={text!r} is not an ISO 8601 instant such as 2026-12-31T23:30:00-05:00"
        ) from None
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=LIMA)
    return instant.astimezone(LIMA)
