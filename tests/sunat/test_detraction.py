"""The SPOT detraction amount: total × percent / 100 × exchange rate, in soles, rounded half up."""

from decimal import Decimal

import pytest

from sunat.detraction import detraction_amount


@pytest.mark.parametrize(
    ("total", "percent", "to_soles", "expected"),
    [
        ("1180.00", "12", "1", "141.60"),  # the docs' example: a service of S/ 1,180.00 at 12 %
        ("123.45", "10", "1", "12.35"),  # 12.345: half up, where banker's rounding gives 12.34
        ("123.45", "12", "1", "14.81"),  # 14.814 rounds down
        ("700.30", "1.5", "1", "10.50"),  # 10.5045: only the cents digit decides
        ("1000.05", "10", "1", "100.01"),  # 100.005 half up
        ("333.33", "4", "3.75", "50.00"),  # dollars: 49.9995 soles rounds up to 50.00
        ("1000.00", "4", "3.751", "150.04"),  # 150.04 exact
        ("0", "10", "1", "0.00"),
    ],
)
def test_the_amount_is_in_soles_rounded_half_up_to_cents(
    total: str, percent: str, to_soles: str, expected: str
) -> None:
    amount = detraction_amount(Decimal(total), Decimal(percent), Decimal(to_soles))
    assert amount == Decimal(expected)
    assert amount.as_tuple().exponent == -2


def test_soles_need_no_exchange_rate() -> None:
    assert detraction_amount(Decimal("1180"), Decimal("12")) == Decimal("141.60")


def test_the_order_of_the_product_does_not_change_the_cents() -> None:
    """Rate applied before or after the percent: the same amount (the connector once did it first)."""
    for cents in range(0, 100_000, 997):
        total = Decimal(cents) / 100
        for percent in (Decimal("4"), Decimal("10"), Decimal("12"), Decimal("1.5")):
            rate = Decimal("3.7465")
            assert detraction_amount(total, percent, rate) == detraction_amount(total * rate, percent)
