"""Peru's clock: SUNAT dates and deadlines are in Lima time (UTC-5, no daylight saving time)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

LIMA = timezone(timedelta(hours=-5), "America/Lima")


def peru_now() -> datetime:
    """The current time in Lima."""
    return datetime.now(LIMA)


def peru_today() -> date:
    """Today's date in Lima (what SUNAT compares issue dates with)."""
    return peru_now().date()
