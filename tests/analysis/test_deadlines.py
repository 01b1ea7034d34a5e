"""SUNAT's sending deadlines (``sunat/deadlines.py``) and the alerts that show each next to what is late:
boletas not declared (the one rule Inicio and Resúmenes share) and facturas without a CDR. Fixed dates:
nothing here reads today's."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from analysis.alerts import alerts, facturas_without_cdr, situation, undeclared_boletas, undeclared_title
from analysis.sales import sales_of
from sunat.deadlines import (
    FACTURA_SENDING_DAYS,
    SUMMARY_DAYS,
    VOIDING_DAYS,
    days_past,
    factura_deadline,
    summary_deadline,
    voiding_deadline,
)

TODAY = dt.date(2026, 11, 24)


def row(
    number: str, doc_type: str, day: str, state: str = "01", *, total: str = "118.00", **more: Any
) -> dict:  # type: ignore[type-arg]
    series, correlative = number.split("-")
    return {
        "number": number,
        "series": series,
        "correlative": int(correlative),
        "date_of_issue": day,
        "document_type_id": doc_type,
        "state_type_id": state,
        "currency_type_id": more.pop("currency", "PEN"),
        "total": total,
        "total_taxed": "100.00",
        "total_igv": "18.00",
        "has_cdr": more.pop("has_cdr", False),
        **more,
    }


def test_the_deadlines_and_their_resolutions() -> None:
    assert (FACTURA_SENDING_DAYS, SUMMARY_DAYS, VOIDING_DAYS) == (3, 7, 7)
    issued = dt.date(2026, 11, 28)
    assert factura_deadline(issued) == dt.date(2026, 12, 1)  # counted from the next day, across a month
    assert summary_deadline(issued) == voiding_deadline(issued) == dt.date(2026, 12, 5)
    assert days_past(dt.date(2026, 12, 1), dt.date(2026, 12, 1)) == 0
    assert days_past(dt.date(2026, 12, 1), dt.date(2026, 12, 4)) == 3
    assert days_past(dt.date(2026, 12, 1), dt.date(2026, 11, 30)) == 0
    assert situation(dt.date(2026, 11, 23), TODAY) == "Vencido hace 1 día"
    assert situation(TODAY, TODAY) == "Vence hoy"
    assert situation(dt.date(2026, 11, 26), TODAY) == "Quedan 2 días"


def test_the_one_rule_of_boletas_not_declared() -> None:
    sales = sales_of(
        [
            row("B001-1", "03", "2026-09-30"),  # two months back: still counted
            row("B001-2", "03", "2026-11-20"),
            row("BC01-1", "07", "2026-11-20", total="10.00"),  # a boleta's credit note
            row("B001-3", "03", "2026-11-20", currency="USD", total="50.00"),
            row("B001-4", "03", "2026-11-21", state="05"),  # declared
            row("B001-5", "03", "2026-11-24"),  # today's: declared at the day's close
            row("F001-1", "01", "2026-11-20"),  # a factura is never in a summary
            row("FC01-1", "07", "2026-11-20"),  # nor its note
        ]
    )
    pending = undeclared_boletas(sales, TODAY)
    assert [(d.day, d.boletas, d.notes) for d in pending] == [
        (dt.date(2026, 9, 30), 1, 0),
        (dt.date(2026, 11, 20), 2, 1),
    ]
    assert pending[1].totals == {"PEN": Decimal("128.00"), "USD": Decimal("50.00")}  # currencies apart
    assert pending[1].deadline == dt.date(2026, 11, 27) and pending[0].deadline == dt.date(2026, 10, 7)
    assert undeclared_title(pending, TODAY) == (
        "4 boletas o notas sin declarar de 2 días pasados (1 día fuera del plazo de 7 días)"
    )
    alert = next(a for a in alerts(sales, TODAY) if a.kind == "boletas")
    assert alert.title == undeclared_title(pending, TODAY) and alert.severity == "error"
    assert [r["Situación"] for r in alert.rows] == ["Vencido hace 48 días", "Quedan 3 días"]
    assert undeclared_boletas(sales, dt.date(2026, 9, 30)) == []  # nothing before that day


def test_facturas_without_a_cdr_show_their_deadline() -> None:
    sales = sales_of(
        [
            row("F001-7", "01", "2026-11-20"),  # sending closed on the 23rd
            row("FC01-2", "07", "2026-11-23"),  # until the 26th
            row("F001-8", "01", "2026-11-22", state="05", has_cdr=True),  # has its CDR
        ]
    )
    alert = facturas_without_cdr(sales, TODAY)
    assert alert.title == "2 facturas o notas sin CDR (1 fuera del plazo de 3 días)"
    assert alert.severity == "error" and "2108" in alert.action
    assert [(r["Número"], r["Plazo SUNAT"], r["Situación"]) for r in alert.rows] == [
        ("F001-7", dt.date(2026, 11, 23), "Vencido hace 1 día"),
        ("FC01-2", dt.date(2026, 11, 26), "Quedan 2 días"),
    ]
    on_time = facturas_without_cdr(sales[1:], TODAY)
    assert on_time.severity == "warning" and on_time.title == "1 factura o nota sin CDR"
