"""Real clients' conventions turned into SUNAT's: free lines known by their base, the bag tax outside."""

from __future__ import annotations

from decimal import Decimal

from sunat.totals import DocumentTotals, LineAmounts, check_line, sunat_line, sunat_totals

D = Decimal


def free_zeros() -> LineAmounts:
    return LineAmounts(D(2), D(0), D(0), "02", "13", D(100), D(18), D(18), D(0), D(0), D(0), D(0))


def test_free_line_known_by_its_base_gets_its_value_and_referential_unit() -> None:
    line = sunat_line(free_zeros())
    assert (line.value, line.unit_price, line.unit_value, line.taxes, line.total) == (D(100), D(50), 0, 0, 0)
    assert check_line(line, 0) == []
    assert check_line(free_zeros(), 0) != []  # as sent, SUNAT's formulas refuse it (3272)


def test_bag_line_outside_the_taxes_gets_the_bag_tax_in_taxes_total_and_price() -> None:
    sent = LineAmounts(
        D(4),
        D("0.1"),
        D("0.1175"),
        "01",
        "10",
        D("0.40"),
        D(18),
        D("0.07"),
        D(2),
        D("0.07"),
        D("0.40"),
        D("0.47"),
    )
    line = sunat_line(sent)
    assert (line.taxes, line.total, line.unit_price) == (D("2.07"), D("2.47"), D("0.6175"))
    assert check_line(line, 0, icbper_rate=D("0.50")) == []


def test_lines_and_totals_in_sunats_convention_are_unchanged() -> None:
    inside = LineAmounts(
        D(4),
        D("0.1"),
        D("0.6175"),
        "01",
        "10",
        D("0.40"),
        D(18),
        D("0.07"),
        D(2),
        D("2.07"),
        D("0.40"),
        D("2.47"),
    )
    assert sunat_line(inside) is inside
    totals = DocumentTotals(
        igv=D("18.07"), icbper=D(2), taxes=D("20.07"), value=D("100.40"), total=D("120.47")
    )
    assert sunat_totals(totals) is totals


def test_header_bag_tax_outside_the_taxes() -> None:
    sent = DocumentTotals(
        igv=D("18.07"),
        icbper=D(2),
        taxes=D("18.07"),
        value=D("100.40"),
        subtotal=D("118.47"),
        total=D("120.47"),
    )
    fixed = sunat_totals(sent)
    assert (fixed.taxes, fixed.subtotal, fixed.total) == (D("20.07"), D("120.47"), D("120.47"))
