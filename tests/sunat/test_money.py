from decimal import Decimal

import pytest

from sunat.money import TOLERANCE, fmt2, fmt_fixed, quantize, round2, to_decimal


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (118, Decimal("118")),
        (Decimal("118.50"), Decimal("118.50")),
        ("118", Decimal("118")),
        ("118.50", Decimal("118.50")),
        (" 5 ", Decimal("5")),
        ("-3.5", Decimal("-3.5")),
        ("+7", Decimal("7")),
        (".5", Decimal("0.5")),
        ("5.", Decimal("5")),
        (0.1, Decimal("0.1")),
        (1.15, Decimal("1.15")),
        (59.0, Decimal("59.0")),
        (1e-05, Decimal("0.00001")),
        (-0.0, Decimal("-0.0")),
        (10**20, Decimal("100000000000000000000")),
    ],
)
def test_to_decimal_accepts_numbers(value, expected):
    result = to_decimal(value)
    assert isinstance(result, Decimal)
    assert result == expected


def test_to_decimal_float_goes_through_repr_not_binary():
    assert to_decimal(0.1) == Decimal("0.1")
    assert to_decimal(0.1) != Decimal(0.1)
    assert str(to_decimal(2.675)) == "2.675"


@pytest.mark.parametrize(
    "value",
    [
        True,
        False,
        None,
        "",
        "   ",
        "abc",
        "1,5",
        "1_000",
        "1e3",
        "NaN",
        "nan",
        "Infinity",
        "-inf",
        "sNaN",
        float("nan"),
        float("inf"),
        float("-inf"),
        Decimal("NaN"),
        Decimal("Infinity"),
        [1],
        {"a": 1},
        (1,),
        b"1",
        object(),
    ],
)
def test_to_decimal_rejects(value):
    with pytest.raises(ValueError):
        to_decimal(value)


def test_to_decimal_error_is_clear():
    with pytest.raises(ValueError, match="not a number: 'abc'"):
        to_decimal("abc")
    with pytest.raises(ValueError, match="boolean"):
        to_decimal(True)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2.345", "2.35"),
        ("2.344", "2.34"),
        ("2.335", "2.34"),  # half up, not half even
        ("2.325", "2.33"),
        ("-2.345", "-2.35"),
        ("0.005", "0.01"),
        ("0.004999", "0.00"),
        ("118", "118.00"),
    ],
)
def test_round2_half_up(value, expected):
    assert str(round2(Decimal(value))) == expected


def test_quantize_places():
    assert quantize(Decimal("4.23728813559322"), 10) == Decimal("4.2372881356")
    assert quantize(Decimal("2.5"), 0) == Decimal("3")
    assert quantize(Decimal("1.23456"), 4) == Decimal("1.2346")
    with pytest.raises(ValueError):
        quantize(Decimal("1"), -1)


def test_fmt2():
    assert fmt2(118) == "118.00"
    assert fmt2(Decimal("118.5")) == "118.50"
    assert fmt2("0.005") == "0.01"
    assert fmt2(Decimal("1E+3")) == "1000.00"
    assert fmt2(Decimal("-0.004")) == "0.00"
    assert fmt2("-1.5") == "-1.50"


def test_fmt2_grouped_and_fmt_fixed():
    assert fmt2(Decimal("1180"), grouped=True) == "1,180.00"
    assert fmt2(Decimal("-1234567.005"), grouped=True) == "-1,234,567.01"
    assert fmt2(Decimal("-0.001"), grouped=True) == "0.00"
    assert fmt_fixed("2.5", 4) == "2.5000"
    assert fmt_fixed(Decimal("1.23456785"), 6) == "1.234568"
    assert fmt_fixed(0, 0) == "0"


def test_tolerance():
    assert Decimal("1.00") == TOLERANCE
