"""The alert on documents whose credit notes take more than they carry (issue 31): a real tenant may
hold some (this service refuses such a note now); the alert names each with its notes and balance."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from analysis.alerts import alerts, over_credited
from analysis.sales import sales_of

D = Decimal


def _row(
    number: str, doc_type: str, total: str, *, affected: str = "", state: str = "05", currency: str = "USD"
) -> dict[str, Any]:
    series, correlative = number.split("-")
    row: dict[str, Any] = {
        "id": abs(hash(number)) % 10_000,
        "external_id": f"ext-{number}",
        "number": number,
        "date_of_issue": "2026-11-20",
        "document_type_id": doc_type,
        "state_type_id": state,
        "currency_type_id": currency,
        "exchange_rate_sale": "3.750",
        "customer_number": "20100066603",
        "customer_name": "CLIENTE UNO S.A.C.",
        "total": total,
    }
    if affected:
        a_series, a_number = affected.split("-")
        row["affected_document"] = {"document_type_id": "01", "series": a_series, "number": int(a_number)}
    return row


def test_a_factura_credited_below_zero_is_named_with_its_balance() -> None:
    rows = [
        _row("F001-998", "01", "960.00"),
        _row("FC01-10", "07", "960.00", affected="F001-998"),
        _row("FC01-11", "07", "480.00", affected="F001-998"),
        # one that fits: 100 + 20 debited - 120 credited = 0
        _row("F001-999", "01", "100.00"),
        _row("FD01-3", "08", "20.00", affected="F001-999"),
        _row("FC01-12", "07", "120.00", affected="F001-999"),
        # a rejected note does not count
        _row("F001-1000", "01", "50.00"),
        _row("FC01-13", "07", "50.00", affected="F001-1000"),
        _row("FC01-14", "07", "50.00", affected="F001-1000", state="09"),
    ]
    alert = over_credited(sales_of(rows))
    assert alert.severity == "error" and alert.count == 1, alert
    [row] = alert.rows
    assert row["Número"] == "F001-998" and row["Moneda"] == "USD"
    assert (row["Total"], row["Notas de crédito"], row["Notas de débito"], row["Saldo"]) == (
        D("960.00"),
        D("1440.00"),
        D("0"),
        D("-480.00"),
    )
    assert row["Notas"] == "FC01-10, FC01-11"


def test_nothing_to_report_and_notes_of_documents_not_listed() -> None:
    rows = [_row("FC01-10", "07", "960.00", affected="F001-1"), _row("F001-2", "01", "10.00")]
    assert over_credited(sales_of(rows)).severity == "ok"


def test_the_alerts_take_the_notes_apart() -> None:
    import datetime as dt

    rows = [_row("F001-998", "01", "960.00"), _row("FC01-10", "07", "1000.00", affected="F001-998")]
    today = dt.date(2026, 12, 5)
    kinds = {a.kind: a.severity for a in alerts([], today, noted=sales_of(rows))}
    assert kinds["over_credited"] == "error"
    assert {a.kind: a.severity for a in alerts([], today)}["over_credited"] == "ok"
