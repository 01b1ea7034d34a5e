"""The issue date against SUNAT's day (``docs/sunat_domain.md``, dates and deadlines).

0306 an unreadable ``cbc:IssueDate``; 2329 more than 2 days ahead; 2108 a factura or one of its notes
sent more than 3 calendar days after its issue date (RS 000003-2023; contingency series are exempt).
"""

from __future__ import annotations

from datetime import date

from facturador.authority.reading import text
from facturador.authority.rules.context import Answer, Submission
from facturador.ubl.namespaces import CBC
from sunat.deadlines import FACTURA_SENDING_DAYS
from sunat.series import is_contingency_series

__all__ = ["issue_date"]


def issue_date(doc: Submission) -> None:
    """The issue date is readable, not in the future and, for facturas, not too old; keeps it."""
    value = text(doc.root, CBC("IssueDate")) or ""
    try:  # xsd:date may carry a time zone ("2025-01-10-05:00"): the date is the first 10 characters
        issued = date.fromisoformat(value[:10])
    except ValueError as exc:
        raise Answer("0306", f'cbc:IssueDate valor: "{value}"') from exc
    doc.issue_date = issued
    today = doc.today()
    if (issued - today).days > 2:
        raise Answer("2329", f'cbc:IssueDate valor: "{value}"')
    # facturas and their notes: 3 calendar days (RS 000003-2023); contingency (numeric) series exempt
    if doc.factura_family and not is_contingency_series(doc.file.series):
        if (today - issued).days > FACTURA_SENDING_DAYS:
            raise Answer("2108", f'cbc:IssueDate valor: "{value}"')
