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
from datetime import date, datetime, timedelta, timezone
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


#: Calendar days after its issue date SUNAT takes a boleta in a daily summary, or a document in a voided
#: communication or a voiding summary (later: 2957 for voiding, observation 4443 for declaring).
SENDING_DAYS = 7


def sending_deadline(issue_date: date) -> date:
    """The last day a document issued on ``issue_date`` may be declared in a summary or voided."""
    return issue_date + timedelta(days=SENDING_DAYS)
