"""SUNAT's deadlines for sending electronic documents, in calendar days counted from the day after the
issue date (Lima's date): the one place the service's authority simulator, the analysis alerts and the
dashboard read them from (sources and what was checked: ``docs/sunat_domain.md``, «Deadlines»).

* **A factura and its notes**: on the issue date or up to **3** calendar days after it — Resolución de
  Superintendencia N.° 000003-2023/SUNAT (published 05/01/2023, for facturas issued from that day on),
  which amended RS 097-2012/SUNAT (SEE – Del contribuyente), 182-2016/SUNAT (SEE – SFS) and
  117-2017/SUNAT (SEE – OSE) and replaced the 1 day set by RS 000193-2020/SUNAT. Later, SUNAT rejects
  it (2108 «Presentación fuera de fecha») and it is not a factura.
* **A boleta and its notes, in a daily summary**: up to **7** calendar days after the issue date — RS
  097-2012/SUNAT as amended by RS 114-2019/SUNAT; SUNAT's validation rules of the daily summary
  (version 20260212) observe a later one (4443 «El comprobante fue informado fuera del plazo
  establecido»: ReferenceDate more than 7 days before the summary is received).
* **Voiding** (a voided communication, or a daily summary with status 3): up to **7** days after the
  issue date; later SUNAT rejects the line (2957).
"""

from __future__ import annotations

from datetime import date, timedelta

__all__ = [
    "FACTURA_SENDING_DAYS",
    "SUMMARY_DAYS",
    "VOIDING_DAYS",
    "days_past",
    "factura_deadline",
    "summary_deadline",
    "voiding_deadline",
]

#: Calendar days after its issue date a factura (or one of its notes) may still reach SUNAT
#: (RS 000003-2023/SUNAT).
FACTURA_SENDING_DAYS = 3
#: Calendar days after its issue date a boleta (or one of its notes) may be declared in a daily summary
#: (RS 097-2012/SUNAT as amended by RS 114-2019/SUNAT; observation 4443 past it).
SUMMARY_DAYS = 7
#: Calendar days after its issue date a document may be voided (error 2957 past it).
VOIDING_DAYS = 7


def factura_deadline(issue_date: date) -> date:
    """The last day a factura (or factura note) issued on ``issue_date`` may reach SUNAT."""
    return issue_date + timedelta(days=FACTURA_SENDING_DAYS)


def summary_deadline(issue_date: date) -> date:
    """The last day a boleta (or boleta note) issued on ``issue_date`` may go in a daily summary."""
    return issue_date + timedelta(days=SUMMARY_DAYS)


def voiding_deadline(issue_date: date) -> date:
    """The last day a document issued on ``issue_date`` may be voided."""
    return issue_date + timedelta(days=VOIDING_DAYS)


def days_past(deadline: date, today: date) -> int:
    """How many days ``today`` is past ``deadline`` (0 on the deadline or before it)."""
    return max((today - deadline).days, 0)
