"""Receivables count the debit notes of a sale on credit (issue 31: the demo's 4 were left out): a
debit note without payment terms of its own adds to the factura's last instalment (credit notes take
from it first, the two netted); one with its own instalments is owed on its own dates."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from analysis.receivables import open_instalments

D = Decimal


def _credit_factura() -> dict[str, Any]:
    return {
        "id": 1,
        "number": "F001-7",
        "document_type_id": "01",
        "state_type_id": "05",
        "date_of_issue": "2026-10-01",
        "currency_type_id": "PEN",
        "customer_number": "20100066603",
        "customer_name": "CLIENTE UNO S.A.C.",
        "total": "118.00",
        "payment_condition_id": "02",
        "fee": [{"date": "2026-10-31", "amount": "59.00"}, {"date": "2026-11-30", "amount": "59.00"}],
    }


def _note(number: str, doc_type: str, total: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": int(number.split("-")[1]) + 100,
        "number": number,
        "document_type_id": doc_type,
        "state_type_id": "05",
        "date_of_issue": "2026-10-20",
        "currency_type_id": "PEN",
        "customer_number": "20100066603",
        "customer_name": "CLIENTE UNO S.A.C.",
        "total": total,
        "payment_condition_id": "01",
        "fee": [],
        "affected_document": {"series": "F001", "number": 7},
        **extra,
    }


def _owed(rows: list[dict[str, Any]]) -> list[tuple[str, dt.date, Decimal]]:
    found, _ = open_instalments(rows)
    return [(i.document, i.due_date, i.amount) for i in found]


def test_a_debit_note_without_terms_adds_to_the_last_instalment() -> None:
    rows = [_credit_factura(), _note("FD01-3", "08", "11.80")]
    assert _owed(rows) == [
        ("F001-7", dt.date(2026, 10, 31), D("59.00")),
        ("F001-7", dt.date(2026, 11, 30), D("70.80")),
    ]


def test_debit_and_credit_notes_are_netted() -> None:
    rows = [_credit_factura(), _note("FD01-3", "08", "11.80"), _note("FC01-4", "07", "70.80")]
    assert _owed(rows) == [("F001-7", dt.date(2026, 10, 31), D("59.00"))]
    voided = [_credit_factura(), _note("FD01-3", "08", "11.80", state_type_id="11")]
    assert _owed(voided)[-1][2] == D("59.00")  # a voided debit note owes nothing


def test_a_debit_note_with_its_own_instalments_is_owed_on_its_dates() -> None:
    fee = [{"date": "2026-12-15", "amount": "11.80"}]
    rows = [_credit_factura(), _note("FD01-3", "08", "11.80", payment_condition_id="02", fee=fee)]
    assert _owed(rows) == [
        ("F001-7", dt.date(2026, 10, 31), D("59.00")),
        ("F001-7", dt.date(2026, 11, 30), D("59.00")),
        ("FD01-3", dt.date(2026, 12, 15), D("11.80")),
    ]


def test_a_debit_note_on_a_cash_sale_owes_nothing() -> None:
    cash = {**_credit_factura(), "payment_condition_id": "01", "fee": []}
    assert _owed([cash, _note("FD01-3", "08", "11.80")]) == []
