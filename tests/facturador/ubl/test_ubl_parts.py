"""Number formatting and the tax helpers of the section builders."""

from __future__ import annotations

import dataclasses
from decimal import Decimal as D

import pytest

from facturador.ubl import parts, xsd
from facturador.ubl.invoice import build_and_sign
from tests.samples.documents import document, line


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("59", "59.00"),
        ("59.000000", "59.00"),
        ("0.5", "0.50"),
        ("8.4745762712", "8.4745762712"),
        ("0.84745762711864", "0.8474576271"),
        ("0.00000000005", "0.0000000001"),  # half up at the 10th decimal
        ("-0.000000000001", "0.00"),  # no negative zero
        ("1E+2", "100.00"),
    ],
)
def test_fmt_price(value, expected):
    assert parts.fmt_price(D(value)) == expected


@pytest.mark.parametrize(
    ("value", "expected"), [("2", "2"), ("2.000", "2"), ("1.50", "1.5"), ("1E+3", "1000")]
)
def test_fmt_quantity(value, expected):
    assert parts.fmt_quantity(D(value)) == expected


def test_fmt_decimal_percent():
    assert parts.fmt_decimal(D("18"), places=5) == "18.00"
    assert parts.fmt_decimal(D("10.5"), places=5) == "10.50"


def test_referential_value_of_free_lines_follows_either_convention():
    model_style = line(quantity="2", unit_value="30", affectation="13")
    assert (model_style.unit_value, model_style.unit_price) == (D(0), D(30))
    assert parts.referential_unit_value(model_style) == D(30)
    brief_style = line(quantity="2", unit_value="30", affectation="13", referential_in_unit_value=True)
    assert parts.referential_unit_value(brief_style) == D(30)
    neither = dataclasses.replace(model_style, unit_price=D(0))
    assert parts.referential_unit_value(neither) == D(30)  # value / quantity


def test_ivap_lines_get_a_1016_subtotal(identity):
    doc = document((line(quantity="10", unit_value="3.5", affectation="17", percent="4"),))
    subtotals = parts.header_subtotals(doc)
    assert [(s.scheme.id, s.taxable, s.tax) for s in subtotals] == [("1016", D("35.00"), D("1.40"))]
    assert parts.charged_tax(subtotals) == D("1.40")
    assert xsd.validate(build_and_sign(doc, identity).xml, "Invoice") == []


def test_header_subtotal_order_and_charged_tax():
    doc = document(
        (
            line(1),
            line(2, affectation="20", quantity="1", unit_value="10"),
            line(3, affectation="30", quantity="1", unit_value="10", percent="0"),
            line(4, affectation="21", quantity="1", unit_value="10", percent="0"),
            line(5, quantity="1", unit_value="0.1", icbper_per_unit="0.5"),
        )
    )
    subtotals = parts.header_subtotals(doc)
    assert [s.scheme.id for s in subtotals] == ["1000", "9996", "9997", "9998", "7152"]
    assert parts.charged_tax(subtotals) == doc.totals.igv + doc.totals.icbper


def test_clock_writes_a_time_as_strftime_does() -> None:
    import datetime as dt

    from facturador.ubl.parts import clock

    offset = dt.timezone(dt.timedelta(hours=-5))
    for moment in (
        dt.time(0, 0),
        dt.time(7, 5, 9, 123456),
        dt.time(23, 59, 59, 999999),
        dt.time(10, 11, 11, tzinfo=offset),
    ):
        assert clock(moment) == moment.strftime("%H:%M:%S")
