from decimal import Decimal

import pytest

from sunat.words import amount_in_words


@pytest.mark.parametrize(
    ("amount", "expected"),
    [
        ("118", "CIENTO DIECIOCHO CON 00/100 SOLES"),
        ("118.50", "CIENTO DIECIOCHO CON 50/100 SOLES"),
        ("1000000", "UN MILLÓN CON 00/100 SOLES"),
        ("21000", "VEINTIÚN MIL CON 00/100 SOLES"),
        ("31000", "TREINTA Y UN MIL CON 00/100 SOLES"),
        ("101000", "CIENTO UN MIL CON 00/100 SOLES"),
        ("21000000", "VEINTIÚN MILLONES CON 00/100 SOLES"),
        ("121000.75", "CIENTO VEINTIÚN MIL CON 75/100 SOLES"),
        ("0.5", "CERO CON 50/100 SOLES"),
        ("0", "CERO CON 00/100 SOLES"),
        ("100", "CIEN CON 00/100 SOLES"),
        ("101", "CIENTO UNO CON 00/100 SOLES"),
        ("21", "VEINTIUNO CON 00/100 SOLES"),
        ("1000", "MIL CON 00/100 SOLES"),
        ("1395", "MIL TRESCIENTOS NOVENTA Y CINCO CON 00/100 SOLES"),
        ("105.69", "CIENTO CINCO CON 69/100 SOLES"),
        ("94.4", "NOVENTA Y CUATRO CON 40/100 SOLES"),
        ("2000000", "DOS MILLONES CON 00/100 SOLES"),
        ("1001000", "UN MILLÓN MIL CON 00/100 SOLES"),
    ],
)
def test_amount_in_words_pen(amount, expected):
    assert amount_in_words(Decimal(amount)) == expected


def test_cents_are_rounded_half_up():
    assert amount_in_words(Decimal("10.005")) == "DIEZ CON 01/100 SOLES"
    assert amount_in_words(Decimal("10.994")) == "DIEZ CON 99/100 SOLES"
    assert amount_in_words(Decimal("99.995")) == "CIEN CON 00/100 SOLES"


def test_currencies():
    assert amount_in_words(Decimal("1000000.50"), "USD") == "UN MILLÓN CON 50/100 DÓLARES AMERICANOS"
    assert amount_in_words(Decimal("20"), "EUR") == "VEINTE CON 00/100 EUROS"
    assert amount_in_words(Decimal("20"), "XYZ") == "VEINTE CON 00/100 XYZ"


def test_accepts_other_numeric_inputs():
    assert amount_in_words(118) == "CIENTO DIECIOCHO CON 00/100 SOLES"
    assert amount_in_words("118.00") == "CIENTO DIECIOCHO CON 00/100 SOLES"


def test_negative_is_rejected():
    with pytest.raises(ValueError):
        amount_in_words(Decimal("-1"))
