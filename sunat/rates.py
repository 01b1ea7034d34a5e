"""Tax rates that depend on the date of the operation (``docs/sunat_domain.md``, rates).

Rates change by law; these functions are the one place that knows which rate applies on a date.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

__all__ = [
    "ALLOWED_IGV_PERCENTS",
    "IGV_PERCENT",
    "IVAP_PERCENT",
    "PERCEPTION_PERCENTS",
    "RETENTION_PERCENT",
    "icbper_rate",
    "igv_rate",
]

#: Standard IGV (16 % IGV + 2 % IPM), in percent.
IGV_PERCENT = Decimal("18")
#: IVAP (rice, affectation 17), in percent.
IVAP_PERCENT = Decimal("4")

#: IGV perception inside an invoice (operation 2001) by catalog 53 code: 51 internal sale 2 %, 52 fuel
#: 1 %, 53 a perception agent's special rate 0.5 %.
PERCEPTION_PERCENTS: dict[str, Decimal] = {"51": Decimal("2"), "52": Decimal("1"), "53": Decimal("0.5")}
#: IGV retention (catalog 53 code 62): 3 % since 2014-03-01.
RETENTION_PERCENT = Decimal("3")

#: Special rate for MYPE restaurants, hotels and tourist lodging (Ley 31556, from 2022-09-01): 10 %
#: through 2025, 10.5 % from 2026 (IPM raised by Ley 32387). (start, percent), newest last.
_SPECIAL_IGV_PERCENTS: tuple[tuple[date, Decimal], ...] = (
    (date(2022, 9, 1), Decimal("10")),
    (date(2026, 1, 1), Decimal("10.5")),
)

#: ICBPER per plastic bag, in soles, from the date shown (Ley 30884); none before 2019-08-01.
_ICBPER_RATES: tuple[tuple[date, Decimal], ...] = (
    (date(2019, 8, 1), Decimal("0.10")),
    (date(2020, 1, 1), Decimal("0.20")),
    (date(2021, 1, 1), Decimal("0.30")),
    (date(2022, 1, 1), Decimal("0.40")),
    (date(2023, 1, 1), Decimal("0.50")),
)


def _in_force(table: tuple[tuple[date, Decimal], ...], on: date) -> Decimal | None:
    current = None
    for start, value in table:
        if on >= start:
            current = value
    return current


def igv_rate(on: date) -> Decimal:
    """The standard IGV rate as a fraction (``Decimal("0.18")``) on a date."""
    return IGV_PERCENT / 100


def ALLOWED_IGV_PERCENTS(on: date) -> frozenset[Decimal]:
    """IGV percents a line may carry on a date: 18 always, plus the MYPE special rate when in force."""
    special = _in_force(_SPECIAL_IGV_PERCENTS, on)
    return frozenset({IGV_PERCENT} if special is None else {IGV_PERCENT, special})


def icbper_rate(on: date) -> Decimal:
    """The plastic-bag tax (ICBPER) per bag in soles on a date; ``0`` before the tax existed."""
    return _in_force(_ICBPER_RATES, on) or Decimal("0")
