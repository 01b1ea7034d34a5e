"""ISC (scheme 2000, catalog 08) and other taxes (9999) in sunat.totals: computing, checking, summing."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from sunat.totals import (
    DocumentTotals,
    Isc,
    apply_line_taxes,
    check_line,
    check_totals,
    compute_line,
    compute_totals,
    isc_amount,
    sunat_totals,
)

D = Decimal


def codes(found: list) -> list[str]:
    return [d.code for d in found]


@pytest.mark.parametrize(
    ("isc", "expected"),
    [
        (Isc("01", percent=D("30")), (D("50.00"), D("30"), D("15.00"))),
        (Isc("02", per_unit=D("1.25")), (D("50.00"), D("25.00000"), D("12.50"))),
        (Isc("03", percent=D("30"), public_price=D("12")), (D("120.00"), D("30"), D("36.00"))),
    ],
)
def test_isc_amount_by_system(isc: Isc, expected: tuple[Decimal, Decimal, Decimal]) -> None:
    assert isc_amount(isc, D("10"), D("50.00")) == expected


def test_isc_amount_refuses_what_sunat_cannot_carry() -> None:
    with pytest.raises(ValueError, match="catalog 08"):
        isc_amount(Isc("04", percent=D("1")), D("1"), D("1"))
    with pytest.raises(ValueError, match="above 0"):
        isc_amount(Isc("01"), D("1"), D("1"))
    with pytest.raises(ValueError, match="public sale price"):
        isc_amount(Isc("03", percent=D("1")), D("1"), D("1"))
    with pytest.raises(ValueError, match=r"n\(3,5\)"):
        isc_amount(Isc("02", per_unit=D("100")), D("1"), D("1"))  # 10,000 % of the value


def test_apply_line_taxes_puts_the_isc_in_the_igv_base() -> None:
    line = apply_line_taxes(compute_line(10, "10", unit_value=5), Isc("01", percent=D("30")), D("2"))
    assert (line.isc_base, line.isc, line.igv_base, line.igv) == (
        D("50.00"),
        D("15.00"),
        D("65.00"),
        D("11.70"),
    )
    assert (line.other_base, line.other) == (D("50.00"), D("1.00"))  # outside the IGV base
    assert (line.taxes, line.total, line.unit_price) == (D("27.70"), D("77.70"), D("7.77"))
    assert check_line(line, 0) == []
    exonerated = apply_line_taxes(compute_line(1, "20", unit_value=20), Isc("01", percent=D("10")))
    assert (exonerated.igv_base, exonerated.igv, exonerated.total) == (D("22.00"), D("0.00"), D("22.00"))
    assert check_line(exonerated, 0) == []


@pytest.mark.parametrize("affectation", ["17", "40", "16"])
def test_isc_only_on_onerous_10_20_30_lines(affectation: str) -> None:
    kwargs = {"igv_percent": 4} if affectation == "17" else {}
    with pytest.raises(ValueError):
        apply_line_taxes(compute_line(1, affectation, unit_value=10, **kwargs), Isc("01", percent=D("10")))


def test_check_line_rules() -> None:
    good = apply_line_taxes(compute_line(10, "10", unit_value=5), Isc("01", percent=D("30")))
    assert "3108" in codes(check_line(dataclasses.replace(good, isc=D("20.00")), 0))
    assert "3104" in codes(check_line(dataclasses.replace(good, isc_percent=D("0")), 0))
    assert codes(check_line(dataclasses.replace(good, isc_system=""), 0)) == ["2373"]
    assert codes(check_line(dataclasses.replace(good, isc_system="05"), 0)) == ["2041"]
    assert "3272" in codes(check_line(dataclasses.replace(good, igv_base=D("50.00"), igv=D("9.00")), 0))
    ivap = dataclasses.replace(good, affectation="17", igv_percent=D("4"), igv=D("2.60"))
    assert "3223" in codes(check_line(ivap, 0))
    other = apply_line_taxes(compute_line(10, "10", unit_value=10), other_percent=D("5"))
    assert "3109" in codes(check_line(dataclasses.replace(other, other=D("8.00")), 0))


def test_totals_with_isc_and_other_taxes() -> None:
    lines = [
        apply_line_taxes(compute_line(10, "10", unit_value=5), Isc("01", percent=D("30"))),
        apply_line_taxes(compute_line(2, "10", unit_value=50), other_percent=D("5")),
    ]
    totals = compute_totals(lines)
    assert (totals.taxed, totals.igv) == (D("150.00"), D("29.70"))  # the taxed base: the values (3277)
    assert (totals.isc_base, totals.isc, totals.other_base, totals.other) == (
        D("50.00"),
        D("15.00"),
        D("100.00"),
        D("5.00"),
    )
    assert (totals.taxes, totals.total) == (D("49.70"), D("199.70"))
    assert check_totals(lines, totals) == []
    wrong = dataclasses.replace(totals, isc=D("25.00"), isc_base=D("80.00"), other=D("9.00"))
    assert set(codes(check_totals(lines, wrong))) == {"3296", "3298", "3299"}


def test_bag_tax_outside_the_taxes_with_isc() -> None:
    """Real clients' ICBPER convention still recognised when the taxes carry ISC: taxes = IGV + ISC."""
    given = DocumentTotals(igv=D("11.70"), isc=D("15.00"), icbper=D("0.50"), taxes=D("26.70"), value=D("50"))
    assert sunat_totals(given).taxes == D("27.20")
