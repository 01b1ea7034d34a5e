"""The amount in words of legend 1000: ``CIENTO DIECIOCHO CON 00/100 SOLES`` (``docs/sunat_domain.md``,
legends)."""

from __future__ import annotations

import re
from decimal import Decimal

from sunat.catalogs import CURRENCY_NAMES
from sunat.money import round2, to_decimal

__all__ = ["amount_in_words"]

_UNITS = (
    "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis "
    "diecisiete dieciocho diecinueve veinte veintiuno veintidós veintitrés veinticuatro veinticinco "
    "veintiséis veintisiete veintiocho veintinueve"
).split()
_TENS = ("", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa")
_HUNDREDS = (
    "",
    "ciento",
    "doscientos",
    "trescientos",
    "cuatrocientos",
    "quinientos",
    "seiscientos",
    "setecientos",
    "ochocientos",
    "novecientos",
)
_MILLION = 1_000_000
#: Written here below a trillion (every amount of 12 integer digits); "billón" and beyond by num2words.
_LIMIT = _MILLION * _MILLION
# num2words writes "veintiuno billones": before a noun the numeral loses its last vowel (apocope).
_APOCOPE = re.compile(r"\b(veinti)?uno(?= (?:mil|millón|millones|billón|billones)\b)")


def _below_thousand(number: int, before_noun: bool) -> str:
    """1-999 in words; ``before_noun``: before "mil", "millón" or "millones", where a final "uno" loses
    its vowel (apocope: "veintiún mil", "ciento un millones")."""
    hundreds, rest = divmod(number, 100)
    if number == 100:
        return "cien"
    if rest < 30:
        tail = _UNITS[rest] if rest else ""
    else:
        tens, unit = divmod(rest, 10)
        tail = f"{_TENS[tens]} y {_UNITS[unit]}" if unit else _TENS[tens]
    if before_noun and tail.endswith("uno"):
        tail = tail[:-3] + ("ún" if tail == "veintiuno" else "un")
    if not hundreds:
        return tail
    return f"{_HUNDREDS[hundreds]} {tail}" if tail else _HUNDREDS[hundreds]


def _below_million(number: int, before_noun: bool = False) -> str:
    """1-999999 in words: "mil" alone for one thousand, "dos mil", "veintiún mil trescientos"."""
    thousands, rest = divmod(number, 1000)
    words: list[str] = []
    if thousands == 1:
        words.append("mil")
    elif thousands:
        words.append(f"{_below_thousand(thousands, True)} mil")
    if rest:
        words.append(_below_thousand(rest, before_noun))
    return " ".join(words)


def _integer_words(number: int) -> str:
    """A whole number in Spanish words, lower case ("un millón mil", "veintiún mil", "ciento uno")."""
    if number == 0:
        return "cero"
    if number >= _LIMIT:
        from num2words import num2words  # noqa: PLC0415 - beyond any amount: the library writes billones

        written = str(num2words(number, lang="es"))
        return _APOCOPE.sub(lambda m: "veintiún" if m.group(1) else "un", written)
    millions, rest = divmod(number, _MILLION)
    words: list[str] = []
    if millions == 1:
        words.append("un millón")
    elif millions:
        words.append(f"{_below_million(millions, True)} millones")
    if rest:
        words.append(_below_million(rest))
    return " ".join(words)


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
