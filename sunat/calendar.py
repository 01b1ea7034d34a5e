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


#: Calendar days after its issue date SUNAT takes a boleta in a daily summary, or a document in a voided
#: communication or a voiding summary (later: 2957 for voiding, observation 4443 for declaring).
SENDING_DAYS = 7


def sending_deadline(issue_date: date) -> date:
    """The last day a document issued on ``issue_date`` may be declared in a summary or voided."""
    return issue_date + timedelta(days=SENDING_DAYS)
