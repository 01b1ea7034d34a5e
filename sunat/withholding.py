"""Retentions (20) and perceptions (40): the regime's rate and the amounts of each payment
(``docs/sunat_domain.md``, retention and perception receipts).

A retention agent keeps ``rate`` % of what it pays a supplier (catalog 23: 3 % or 6 %): the supplier
receives the payment minus the retention. A perception agent charges its customer ``rate`` % on top of
what it collects (catalog 22: 2 %, 1 %, 0.5 %): the customer pays the amount plus the perception. Both
are reported in soles: a payment in another currency is converted with the exchange rate first, then
each amount is rounded to cents half up. The issuer, the connector's builders and the simulator all
compute with these functions, so they agree to the cent.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sunat.catalogs import PERCEPTION_REGIMES, RETENTION_REGIMES
from sunat.money import round2

__all__ = [
    "PERCEPTION",
    "RETENTION",
    "WithholdingAmounts",
    "payment_amounts",
    "rate",
    "regimes",
]

RETENTION, PERCEPTION = "20", "40"
_HUNDRED = Decimal(100)


def regimes(doc_type: str) -> dict[str, tuple[str, Decimal]]:
    """The regimes of a retention (catalog 23) or perception (catalog 22): code -> (name, percent)."""
    if doc_type == RETENTION:
        return RETENTION_REGIMES
    if doc_type == PERCEPTION:
        return PERCEPTION_REGIMES
    raise ValueError(f"document type {doc_type!r} is neither a retention (20) nor a perception (40)")


def rate(doc_type: str, regime: str) -> Decimal:
    """The regime's rate in percent (``rate("20", "01")`` -> ``Decimal("3")``); KeyError when unknown."""
    return regimes(doc_type)[regime][1]


@dataclass(frozen=True)
class WithholdingAmounts:
    """One payment's amounts in soles: ``base`` (the payment converted), ``amount`` retained or perceived,
    ``net`` the supplier receives (retention: base - amount) or the customer pays (perception: base +
    amount)."""

    base: Decimal
    amount: Decimal
    net: Decimal


def payment_amounts(
    doc_type: str, regime: str, payment: Decimal, exchange_rate: Decimal = Decimal(1)
) -> WithholdingAmounts:
    """The amounts of a payment of ``payment`` (in the related document's currency) at ``exchange_rate``
    soles per unit of that currency (1 for soles)."""
    base = round2(payment * exchange_rate)
    amount = round2(base * rate(doc_type, regime) / _HUNDRED)
    net = base - amount if doc_type == RETENTION else base + amount
    return WithholdingAmounts(base, amount, net)
