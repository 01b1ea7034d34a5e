"""The amount in words of legend 1000: ``CIENTO DIECIOCHO CON 00/100 SOLES`` (``docs/sunat_domain.md``,
legends)."""

from __future__ import annotations

import re
from decimal import Decimal

from num2words import num2words

from sunat.catalogs import CURRENCY_NAMES
from sunat.money import round2, to_decimal

__all__ = ["amount_in_words"]

# num2words writes "veintiuno mil", "ciento uno millones": before a noun the numeral loses its last
# vowel (apocope): "veintiún mil", "ciento un millones".
_APOCOPE = re.compile(r"\b(veinti)?uno(?= (?:mil|millón|millones|billón|billones)\b)")


def _integer_words(number: int) -> str:
    words = num2words(number, lang="es")
    return _APOCOPE.sub(lambda m: "veintiún" if m.group(1) else "un", words)


def amount_in_words(amount: Decimal, currency: str = "PEN") -> str:
    """``118`` -> ``"CIENTO DIECIOCHO CON 00/100 SOLES"``; cents are the amount rounded half up.

    The currency name comes from :data:`~sunat.catalogs.CURRENCY_NAMES` (the code itself
    for other currencies). Negative amounts raise :class:`ValueError`.
    """
    value = round2(to_decimal(amount))
    if value < 0:
        raise ValueError(f"a negative amount has no legend in words: {amount!r}")
    integer = int(value)
    cents = int((value - integer) * 100)
    name = CURRENCY_NAMES.get(currency, currency)
    return f"{_integer_words(integer).upper()} CON {cents:02d}/100 {name}"
