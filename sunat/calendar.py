"""Peru's clock: SUNAT dates and deadlines are in Lima time (UTC-5, no daylight saving time)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

LIMA = timezone(timedelta(hours=-5), "America/Lima")


def peru_now() -> datetime:
    """The current time in Lima."""
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
