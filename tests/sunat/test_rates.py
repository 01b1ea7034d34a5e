from datetime import date
from decimal import Decimal

import pytest

from sunat.rates import ALLOWED_IGV_PERCENTS, IVAP_PERCENT, icbper_rate, igv_rate


def test_igv_rate():
    assert igv_rate(date(2018, 1, 1)) == Decimal("0.18")
    assert igv_rate(date(2026, 6, 1)) == Decimal("0.18")


@pytest.mark.parametrize(
    ("on", "expected"),
    [
        (date(2020, 1, 1), {Decimal("18")}),
        (date(2022, 8, 31), {Decimal("18")}),
        (date(2022, 9, 1), {Decimal("18"), Decimal("10")}),
        (date(2025, 12, 31), {Decimal("18"), Decimal("10")}),
        (date(2026, 1, 1), {Decimal("18"), Decimal("10.5")}),
        (date(2030, 1, 1), {Decimal("18"), Decimal("10.5")}),
    ],
)
def test_allowed_igv_percents(on, expected):
    allowed = ALLOWED_IGV_PERCENTS(on)
    assert isinstance(allowed, frozenset)
    assert allowed == expected


@pytest.mark.parametrize(
    ("on", "expected"),
    [
        (date(2019, 7, 31), "0"),
        (date(2019, 8, 1), "0.10"),
        (date(2019, 12, 31), "0.10"),
        (date(2020, 1, 1), "0.20"),
        (date(2021, 6, 1), "0.30"),
        (date(2022, 12, 31), "0.40"),
        (date(2023, 1, 1), "0.50"),
        (date(2026, 3, 1), "0.50"),
    ],
)
def test_icbper_rate(on, expected):
    assert icbper_rate(on) == Decimal(expected)


def test_ivap():
    assert Decimal("4") == IVAP_PERCENT
