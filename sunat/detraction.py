"""Detraction (SPOT, *Sistema de Pago de Obligaciones Tributarias*): the amount a factura withholds.

Under the SPOT (TUO of Decreto Legislativo 940, D.S. 155-2004-EF, and Resolución de Superintendencia
183-2004/SUNAT) the customer of a good or service listed in catalog 54 deposits a percentage of the
operation's total (IGV included) in the supplier's Banco de la Nación account. The deposit is in soles:
an operation in another currency is converted with the exchange rate. The XML carries that amount,
rounded to cents half up, as ``PaymentTerms[ID=Detraccion]/Amount`` in PEN. The connector's builders
and the detraction plugins all compute it with :func:`detraction_amount`, so they agree to the cent.
"""

from __future__ import annotations

from decimal import Decimal

from sunat.money import round2

__all__ = ["detraction_amount"]

_ONE = Decimal(1)


def detraction_amount(total: Decimal, percent: Decimal, to_soles: Decimal = _ONE) -> Decimal:
    """The detraction in soles: ``total`` × ``percent`` / 100 × ``to_soles`` (the exchange rate from the
    document's currency; 1 for soles), rounded to cents half up."""
    return round2(total * percent / 100 * to_soles)
