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


def _num2words_with_apocope(number: int) -> str:
    """What the legend was written with before it had its own writer: num2words, then the apocope."""
    import re

    from num2words import num2words

    words = num2words(number, lang="es")
    apocope = re.compile(r"\b(veinti)?uno(?= (?:mil|millón|millones|billón|billones)\b)")
    return apocope.sub(lambda m: "veintiún" if m.group(1) else "un", words)


def test_whole_numbers_are_written_as_num2words_wrote_them():
    import random

    from sunat.words import _integer_words

    rng = random.Random(22)
    numbers = [*range(0, 3000), *range(3000, 1_100_000, 997)]
    numbers += [rng.randrange(10**digits) for digits in range(4, 13) for _ in range(300)]
    leading = (1, 2, 21, 31, 100, 101, 121, 999)
    numbers += [a * 10**k + b for a in leading for k in (3, 6, 9) for b in (0, 1, 21)]
    numbers += [10**12, 21 * 10**12 + 21_000]  # beyond every amount: still num2words'
    for number in numbers:
        assert _integer_words(number) == _num2words_with_apocope(number), number
