"""Money as :class:`~decimal.Decimal`: parsing at the edges and SUNAT's rounding (half up).

Amounts travel as ``n(12,2)`` (two decimals) and unit values/prices as ``n(12,10)`` in SUNAT's XML;
every rounding here is ROUND_HALF_UP, never banker's rounding, and floats are never used for arithmetic.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation

__all__ = ["TOLERANCE", "fmt2", "fmt_fixed", "quantize", "round2", "to_decimal"]

#: SUNAT's tolerance when it recomputes an amount (± 1.00, ``docs/sunat_domain.md``, money and rounding).
TOLERANCE = Decimal("1.00")

_CENT = Decimal("0.01")
#: Rounding needs room for every digit of the result: amounts of 12 integer digits, their products and
#: quotients (a unit value of 1e12 over a quantity of 1e-10) stay far below 80 significant digits, where
#: the default 28 would raise InvalidOperation.
_ROUNDING = Context(prec=80, rounding=ROUND_HALF_UP)
#: ``_ROUNDING.quantize(value, exp)`` is ``value.quantize(exp, ROUND_HALF_UP, _ROUNDING)`` (the context's
#: rounding), bound once: a tenth of round2's cost less, and a document rounds ~100 amounts.
_TO_SCALE = _ROUNDING.quantize
#: Passed by position: ``quantize(exp, context=...)`` by keyword costs ~0.45 µs more per call in CPython's
#: _decimal (keyword parsing), and a document rounds ~100 amounts.
_SCALES = {places: Decimal(1).scaleb(-places) for places in range(13)}
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")


def to_decimal(value: object) -> Decimal:
    """Turn an int, Decimal, float or numeric string into a finite Decimal.

    Floats go through ``repr`` (``0.1`` -> ``Decimal("0.1")``), strings are stripped and must be plain
    decimal numbers (``"118"``, ``"118.50"``, ``" 5 "``). Booleans, ``None``, NaN/Infinity, empty or
    non-numeric strings and any other type raise :class:`ValueError`.
    """
    if isinstance(value, bool):
        raise ValueError(f"a boolean is not an amount: {value!r}")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int):
        result = Decimal(value)
    elif isinstance(value, float):
        result = Decimal(repr(value))  # repr gives the shortest round-tripping text; nan/inf stay non-finite
    elif isinstance(value, str):
        text = value.strip()
        if not _NUMBER.fullmatch(text):
            raise ValueError(f"not a number: {value!r}")
        try:
            result = Decimal(text)
        except InvalidOperation as exc:  # pragma: no cover - the regex admits only valid literals
            raise ValueError(f"not a number: {value!r}") from exc
    else:
        raise ValueError(f"not a number: {value!r} ({type(value).__name__})")
    if not result.is_finite():
        raise ValueError(f"not a finite number: {value!r}")
    return result


def quantize(value: Decimal, places: int) -> Decimal:
    """Round ``value`` to ``places`` decimals, half up (``quantize(Decimal("2.345"), 2)`` -> ``2.35``)."""
    scale = _SCALES.get(places)
    if scale is not None and value.__class__ is Decimal and value.is_finite():  # the usual case
        return _TO_SCALE(value, scale)
    if places < 0:
        raise ValueError("places must be >= 0")
    return to_decimal(value).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP, _ROUNDING)


def round2(value: Decimal) -> Decimal:
    """Round to cents, half up: the rounding of every SUNAT amount."""
    if value.__class__ is Decimal and value.is_finite():  # the usual case, without to_decimal's checks
        return _TO_SCALE(value, _CENT)
    return to_decimal(value).quantize(_CENT, ROUND_HALF_UP, _ROUNDING)


def fmt2(value: object, *, grouped: bool = False) -> str:
    """Format an amount with exactly two decimals, half up: ``fmt2(118)`` -> ``"118.00"`` (never
    ``"-0.00"``); ``grouped`` puts commas between thousands (``"1,180.00"``), as the PDFs and the real
    services' lists print amounts."""
    if value.__class__ is Decimal and not grouped and value.is_finite():  # the XML's amounts: no conversion
        rounded = _TO_SCALE(value, _CENT)
        # str() of a Decimal with exponent -2 is never scientific: it is f"{rounded:f}", at a third the cost
        return str(rounded) if rounded else "0.00"
    return fmt_fixed(value, 2, grouped=grouped)


def fmt_fixed(value: object, places: int, *, grouped: bool = False) -> str:
    """Format a number with exactly ``places`` decimals, half up (``fmt_fixed("2.5", 4)`` -> ``"2.5000"``),
    never a negative zero; ``grouped`` puts commas between thousands."""
    rounded = quantize(to_decimal(value), places)
    if rounded == 0:
        rounded = abs(rounded)
    return f"{rounded:,f}" if grouped else f"{rounded:f}"
