"""Sales figures against hand-computed values: credit notes subtract, voided and rejected documents are out,
PEN and USD are never added without converting each document at its own rate."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D
from typing import Any

from analysis import sales
from analysis.sales import Amounts, by_customer, by_month, by_series, by_type, group_totals, summarize

DAY = dt.date(2026, 3, 5)


def row(
    number: str, doc_type: str, state: str = "05", currency: str = "PEN", **amounts: Any
) -> dict[str, Any]:
    """A list row as this service sends it (amounts as strings with two decimals)."""
    base = {
        "number": number,
        "date_of_issue": amounts.pop("day", DAY).isoformat(),
        "document_type_id": doc_type,
        "state_type_id": state,
        "currency_type_id": currency,
        "exchange_rate_sale": str(amounts.pop("rate", "1")),
        "customer_number": amounts.pop("customer", "20555555556"),
        "customer_name": amounts.pop("name", "CLIENTE DEMO S.A."),
    }
    for key in (
        "total_taxed",
        "total_exonerated",
        "total_unaffected",
        "total_exportation",
        "total_free",
        "total_igv",
        "total_plastic_bag_taxes",
        "total",
    ):
        base[key] = f"{D(str(amounts.pop(key.removeprefix('total_'), 0))):.2f}"
    assert not amounts, amounts
    return base


ROWS = [
    row("F001-1", "01", taxed=100, igv=18, total=118),
    row("B001-1", "03", "01", customer="45781236", taxed=50, igv=9, plastic_bag_taxes="0.50", total="59.50"),
    row("FC01-1", "07", taxed=20, igv="3.60", total="23.60"),
    row("F001-2", "01", "11", taxed=1000, igv=180, total=1180),  # voided
    row("F001-3", "01", "09", taxed=500, igv=90, total=590),  # rejected
    row("F001-4", "01", currency="USD", rate="3.725", taxed=500, igv=90, total=590),
    row("FC01-2", "07", currency="USD", rate="3.712", taxed=100, igv=18, total=118),
    row("F001-5", "01", currency="USD", taxed=200, igv=36, total=236),  # no rate: "1" is no rate
    row("B001-2", "03", customer="-", exonerated=85, total=85),
    row("F001-6", "01", currency="USD", rate="3.80", exportation=1000, total=1000, customer="900123456"),
]


def test_per_currency_figures_are_net_and_exclude_voided_and_rejected() -> None:
    summary = summarize(sales.sales_of(ROWS))
    assert (summary.listed, summary.excluded, summary.counted) == (10, 2, 8)
    pen = summary.per_currency["PEN"]
    assert (pen.taxed, pen.exonerated, pen.igv, pen.icbper, pen.total) == (
        D("130.00"),
        D("85.00"),
        D("23.40"),
        D("0.50"),
        D("238.90"),
    )
    assert pen.value == D("215.00") and pen.documents == 4
    usd = summary.per_currency["USD"]
    assert (usd.taxed, usd.export, usd.igv, usd.total, usd.documents) == (
        D("600.00"),
        D("1000.00"),
        D("108.00"),
        D("1708.00"),
        4,
    )
    assert summary.currencies == ["PEN", "USD"]


def test_soles_consolidate_each_document_at_its_own_rate() -> None:
    summary = summarize(sales.sales_of(ROWS))
    soles = summary.soles
    # 130 + 500 x 3.725 - 100 x 3.712; IGV 23.40 + 90 x 3.725 - 18 x 3.712 (66.816 -> 66.82)
    assert soles.taxed == D("1621.30")
    assert soles.igv == D("291.83")
    assert soles.export == D("3800.00")
    assert soles.value == D("5506.30")
    assert soles.total == D("5798.63") == soles.value + soles.igv + soles.icbper
    assert summary.unconverted == ["F001-5"]  # USD without a rate: never added as if it were soles
    assert summary.rates == {"F001-4": D("3.725"), "FC01-2": D("3.712"), "F001-6": D("3.80")}
    assert summary.rate_range() == (D("3.712"), D("3.80"))


def test_a_converted_document_adds_up_in_soles() -> None:
    (sale,) = sales.sales_of(
        [row("F001-9", "01", currency="USD", rate="3.333", taxed="10.01", igv="1.80", total="11.81")]
    )
    soles = sale.in_soles()
    assert soles is not None
    assert (soles.taxed, soles.igv) == (D("33.36"), D("6.00"))  # 33.36333 and 5.9994, half up
    assert soles.total == D("39.36")  # the sum of the parts (11.81 x 3.333 = 39.36273 too)


def test_groups_by_type_series_customer_and_month() -> None:
    all_sales = sales.sales_of(ROWS)
    types, left_out = group_totals(all_sales, by_type)
    assert left_out == ["F001-5"]
    totals = {g.label: g.amounts.total for g in types}
    # facturas: 118 + 2197.75 + 3800; boletas 59.50 + 85; notes -23.60 - 438.02
    assert totals == {"Factura": D("6115.75"), "Boleta": D("144.50"), "Nota de crédito": D("-461.62")}
    series = {g.key: g.amounts.documents for g in group_totals(all_sales, by_series)[0]}
    assert series == {"B001": 2, "F001": 3, "FC01": 2}
    customers = {g.key: g.label for g in group_totals(all_sales, by_customer)[0]}
    assert customers["-"] == "Clientes varios (sin documento)"
    (month,) = group_totals(all_sales, by_month)[0]
    assert month.label == "03/2026" and month.amounts.total == D("5798.63")


def test_previous_period_and_comparison() -> None:
    assert sales.previous_period(dt.date(2026, 3, 1), dt.date(2026, 3, 31)) == (
        dt.date(2026, 2, 1),
        dt.date(2026, 2, 28),
    )
    assert sales.previous_period(dt.date(2026, 1, 1), dt.date(2026, 3, 31)) == (
        dt.date(2025, 10, 1),
        dt.date(2025, 12, 31),
    )
    assert sales.previous_period(dt.date(2026, 3, 10), dt.date(2026, 3, 16)) == (
        dt.date(2026, 3, 3),
        dt.date(2026, 3, 9),
    )
    # a month so far (1-26 November) against the same days of the month before, like with like
    assert sales.previous_period(dt.date(2026, 11, 1), dt.date(2026, 11, 26)) == (
        dt.date(2026, 10, 1),
        dt.date(2026, 10, 26),
    )
    assert sales.previous_period(dt.date(2026, 3, 1), dt.date(2026, 3, 30)) == (  # February has 28
        dt.date(2026, 2, 1),
        dt.date(2026, 2, 28),
    )
    now = sales.sales_of([row("F001-1", "01", taxed=200, igv=36, total=236)])
    before = sales.sales_of(
        [row("F001-0", "01", day=dt.date(2026, 2, 5), taxed=160, igv="28.80", total="188.80")]
    )
    (comparison,) = sales.compare_periods(group_totals(now, by_type)[0], group_totals(before, by_type)[0])
    assert (comparison.current, comparison.previous, comparison.change) == (
        D("200.00"),
        D("160.00"),
        D("40.00"),
    )
    assert comparison.percent == D("25.0")
    # a base that is not positive gives no percentage: credit notes from −100 to −150 grew by half, and
    # «−50 %» would read as a fall; from −100 to +50, or from nothing, no percentage means anything
    for current, previous in (("-150", "-100"), ("50", "-100"), ("10", "0")):
        assert sales.Comparison("07", "Nota de crédito", D(current), D(previous)).percent is None
    assert sales.Comparison("01", "Factura", D("-20"), D("80")).percent == D("-125.0")
    # by month: March against February (the same place in each period), never against nothing
    (month,) = sales.compare_months(group_totals(now, by_month)[0], group_totals(before, by_month)[0])
    assert (month.label, month.current, month.previous) == ("03/2026", D("200.00"), D("160.00"))


def test_affectation_mix_and_rejection_rate() -> None:
    mix, left_out = sales.affectation_mix(sales.sales_of(ROWS))
    assert mix["Gravado"] == D("1621.30") and mix["Exonerado"] == D("85.00")
    assert mix["Exportación"] == D("3800.00") and mix["Inafecto"] == D("0")
    rates = sales.rejection_rate(sales.sales_of(ROWS))
    (day,) = rates
    # facturas and their notes judged: F001-1,-2(voided),-3(rejected),-4,-6 and FC01-1,-2, F001-5
    assert (day.judged, day.rejected, day.rate) == (8, 1, D("12.5"))


def test_product_totals_from_lines_subtract_returns_and_skip_gifts() -> None:
    def item(code: str, quantity: str, value: str, igv: str, affectation: str = "10") -> dict[str, Any]:
        total = str(D(value) + D(igv))
        return {
            "internal_id": code,
            "description": f"Producto {code}",
            "unit_type_id": "NIU",
            "quantity": quantity,
            "affectation_igv_type_id": affectation,
            "total_value": value,
            "total_igv": igv,
            "total": total,
        }

    invoice = row("F001-1", "01", taxed=150, igv=27, total=177) | {
        "items": [
            item("P1", "2", "100.00", "18.00"),
            item("P2", "1", "50.00", "9.00"),
            item("G1", "1", "15.00", "0", "15"),
        ]
    }
    dollars = row("F001-2", "01", currency="USD", rate="3.75", taxed=10, igv="1.80", total="11.80") | {
        "items": [item("P1", "1", "10.00", "1.80")]
    }
    note = row("FC01-1", "07", taxed=50, igv=9, total=59) | {"items": [item("P1", "1", "50.00", "9.00")]}
    plain = row("F001-3", "01", taxed=1, igv="0.18", total="1.18")  # a real tenant's row: no items
    products, without_lines, left_out = sales.product_totals(sales.sales_of([invoice, dollars, note, plain]))
    by_code = {p.code: p for p in products}
    assert by_code["P1"].quantity == D("2") and by_code["P1"].value == D("87.50")  # 100 + 37.50 - 50
    assert by_code["P1"].documents == 3
    assert by_code["G1"].value == D("0")  # a gift is not a sale
    assert [p.code for p in products][:2] == ["P1", "P2"]
    assert (without_lines, left_out) == (1, [])


def test_amounts_add_and_scale() -> None:
    one = Amounts(taxed=D("10"), igv=D("1.80"), total=D("11.80"), documents=1)
    assert (one + one).total == D("23.60") and (one + one).documents == 2
    assert one.scaled(-1).total == D("-11.80") and one.scaled(-1).documents == 1
