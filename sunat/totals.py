"""SUNAT's amount rules in one place: compute a line and the header totals, and check given amounts.

Used by the service (check a client's JSON), the connector's builders (compute a payload) and the SUNAT
simulator (check an XML's amounts). Formulas and codes: ``docs/sunat_domain.md`` (line amounts, header
totals); conventions of Facturador PRO:

* onerous taxed line (10, IVAP 17): ``value = qty x unit_value``, ``igv_base = value``,
  ``igv = igv_base x percent / 100``, ``taxes = igv + icbper``, ``total = value + taxes``,
  ``unit_price = unit_value x (1 + rate)`` (price type 01);
* exonerated 20, unaffected 30, export 40: ``igv = 0``, ``taxes = icbper``, ``total = value + icbper``;
* free line (11-16, 21, 31-37): price type 02, ``unit_price`` = referential unit value, ``unit_value = 0``
  (``Price/PriceAmount`` is 0 in the XML), ``value = qty x referential``, ``igv`` informative for 11-16
  and 0 for the others, nothing charged: ``taxes = icbper``, ``total = icbper`` (normally 0);
* ICBPER (plastic bags): ``icbper = qty x rate``, part of the line's taxes and total;
* ISC (scheme 2000, catalog 08 system in ``isc_system``): ``isc = isc_base x isc_percent / 100`` (3108),
  and the IGV base includes it: ``igv_base = value + isc`` (3272); other taxes (scheme 9999):
  ``other = other_base x other_percent / 100`` (3109), outside the IGV base; both are part of the line's
  taxes and total. The header's taxed base stays the lines' values (3277), its taxes add ISC and other
  taxes (3294, 3296-3299).

Amounts are rounded to two decimals (half up); unit values and prices keep up to ten.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol, TypeVar

from sunat.catalogs import (
    AFFECTATIONS,
    CHARGE_CODES,
    ISC_AFFECTATIONS,
    ISC_SYSTEMS,
    bears_igv,
    is_free,
)
from sunat.frozen import one_store_init
from sunat.money import TOLERANCE, quantize, round2, to_decimal
from sunat.rates import IGV_PERCENT, IVAP_PERCENT, PERCEPTION_PERCENTS, RETENTION_PERCENT

__all__ = [
    "Allowance",
    "AllowanceLike",
    "Discrepancy",
    "DocumentTotals",
    "Isc",
    "LineAmounts",
    "LineLike",
    "TotalsLike",
    "apply_line_allowances",
    "apply_line_taxes",
    "check_allowance",
    "check_line",
    "check_line_exactly",
    "check_withholding",
    "check_totals",
    "compute_line",
    "isc_amount",
    "compute_totals",
    "line_igv",
    "line_igv_base",
    "line_taxes",
    "line_total",
    "line_unit_price",
    "line_value",
    "percent_of",
    "sunat_figures",
    "sunat_line",
    "sunat_totals",
]

ZERO = Decimal("0.00")
_UNIT_PLACES = 10
#: A line IGV may be 0 when its base is at most this (SUNAT 3111 only applies above it).
_IGV_ZERO_BASE = Decimal("0.06")
_IVAP_ONLY = frozenset({IVAP_PERCENT})
_HUNDRED = Decimal(100)  # a Decimal divisor: an int one is converted on every division


class AllowanceLike(Protocol):
    """A discount or charge of catalog 53 (line or global): ``amount = base x factor`` with a factor."""

    @property
    def code(self) -> str: ...
    @property
    def amount(self) -> Decimal: ...
    @property
    def base(self) -> Decimal: ...
    @property
    def factor(self) -> Decimal | None: ...


@dataclass(frozen=True)
class Allowance:
    """A discount or charge (``descuentos[]`` / ``cargos[]``): catalog 53 code, amount, base, factor."""

    code: str  # codigo (catalog 53)
    amount: Decimal  # monto
    base: Decimal = ZERO  # base
    factor: Decimal | None = None  # factor (0.10 = 10 %)

    @property
    def is_charge(self) -> bool:
        return self.code in CHARGE_CODES


def line_allowances(line: object) -> Sequence[AllowanceLike]:
    """The discounts and charges of a line (its ``allowances``; none when it has no such attribute)."""
    found: Sequence[AllowanceLike] = getattr(line, "allowances", ())
    return found


def _sum(allowances: Iterable[AllowanceLike], codes: Iterable[str]) -> Decimal:
    if not allowances:  # most lines and documents have none (an empty list or tuple)
        return ZERO
    wanted = frozenset(codes)
    return sum((a.amount for a in allowances if a.code in wanted), ZERO)


def _in_value(allowances: Sequence[AllowanceLike]) -> Decimal:
    """What a line's discounts and charges change in its value (and IGV base): charges 47 - discounts 00."""
    if not allowances:  # most lines
        return ZERO
    return _sum(allowances, ("47",)) - _sum(allowances, ("00",))


def _outside_value(allowances: Sequence[AllowanceLike]) -> Decimal:
    """What they add outside the value, in the total only: charges 48 - discounts 01."""
    if not allowances:
        return ZERO
    return _sum(allowances, ("48",)) - _sum(allowances, ("01",))


# A line's rules, each stated once: compute_line, apply_line_allowances, apply_line_taxes, sunat_figures and
# check_line (and the simulator's line reader) work out a line's amounts with these.


def percent_of(base: Decimal, percent: Decimal) -> Decimal:
    """``base x percent / 100`` to the cent, half up: an IGV (3103), ISC (3108), other taxes (3109), a
    perception (2798) or a retention (3263)."""
    return round2(base * percent / _HUNDRED)


def line_value(
    quantity: Decimal, unit: Decimal, allowances: Sequence[AllowanceLike], *, note: bool = False
) -> Decimal:
    """3271: a line's value is ``quantity x unit`` (its unit value; a free line's referential value) less its
    discounts 00 and with its charges 47; on a credit or debit note the unit value is already net of them."""
    return round2(quantity * unit) + (ZERO if note else _in_value(allowances))


def line_igv_base(value: Decimal, isc: Decimal) -> Decimal:
    """3272: a line's IGV base is its value with its ISC."""
    return value + isc


def line_igv(affectation: str, igv_base: Decimal, percent: Decimal) -> Decimal:
    """A line's IGV: ``igv_base x percent / 100`` for affectations 10-17 (3103; informative on the free
    11-16), none for the others (3110)."""
    return percent_of(igv_base, percent) if bears_igv(affectation) else ZERO


def line_taxes(
    affectation: str, igv: Decimal, icbper: Decimal, isc: Decimal = ZERO, other: Decimal = ZERO
) -> Decimal:
    """3292: the taxes a line charges: its IGV (not a free line's, which is informative), ISC, other taxes
    and ICBPER."""
    return (ZERO if is_free(affectation) else igv) + isc + other + icbper


def line_total(
    affectation: str, value: Decimal, taxes: Decimal, allowances: Sequence[AllowanceLike]
) -> Decimal:
    """3270: a line's total is its value and taxes, less its discounts 01 and with its charges 48; a free
    line's is only the taxes it charges."""
    return taxes if is_free(affectation) else value + taxes + _outside_value(allowances)


def line_unit_price(total: Decimal, quantity: Decimal) -> Decimal:
    """3270: the unit price with taxes (price type 01) is the line's total over its quantity."""
    return _unit(total / quantity)


class LineLike(Protocol):
    """Anything with the amounts of a line (:class:`LineAmounts`, the service's own line, ...)."""

    @property
    def quantity(self) -> Decimal: ...
    @property
    def unit_value(self) -> Decimal: ...
    @property
    def unit_price(self) -> Decimal: ...
    @property
    def price_type(self) -> str: ...
    @property
    def affectation(self) -> str: ...
    @property
    def igv_base(self) -> Decimal: ...
    @property
    def igv_percent(self) -> Decimal: ...
    @property
    def igv(self) -> Decimal: ...
    @property
    def icbper(self) -> Decimal: ...
    @property
    def taxes(self) -> Decimal: ...
    @property
    def value(self) -> Decimal: ...
    @property
    def total(self) -> Decimal: ...


class TotalsLike(Protocol):
    """Anything with the header totals of :class:`DocumentTotals`."""

    @property
    def export(self) -> Decimal: ...
    @property
    def taxed(self) -> Decimal: ...
    @property
    def unaffected(self) -> Decimal: ...
    @property
    def exonerated(self) -> Decimal: ...
    @property
    def free(self) -> Decimal: ...
    @property
    def igv(self) -> Decimal: ...
    @property
    def igv_free(self) -> Decimal: ...
    @property
    def icbper(self) -> Decimal: ...
    @property
    def taxes(self) -> Decimal: ...
    @property
    def value(self) -> Decimal: ...
    @property
    def subtotal(self) -> Decimal: ...
    @property
    def total(self) -> Decimal: ...


@dataclass(frozen=True)
class LineAmounts:
    """The amounts of one line, named as in the service (Spanish JSON key in comments)."""

    quantity: Decimal  # cantidad
    unit_value: Decimal  # valor_unitario (without IGV; 0 on free lines)
    unit_price: Decimal  # precio_unitario (with IGV; referential unit value on free lines)
    price_type: str  # codigo_tipo_precio (catalog 16)
    affectation: str  # codigo_tipo_afectacion_igv (catalog 07)
    igv_base: Decimal  # total_base_igv
    igv_percent: Decimal  # porcentaje_igv
    igv: Decimal  # total_igv
    icbper: Decimal  # total_impuestos_bolsa_plastica
    taxes: Decimal  # total_impuestos
    value: Decimal  # total_valor_item
    total: Decimal  # total_item
    allowances: tuple[Allowance, ...] = ()  # descuentos / cargos of the line (catalog 53: 00, 01, 47, 48)
    isc_system: str = ""  # codigo_tipo_sistema_isc (catalog 08)
    isc_base: Decimal = ZERO  # total_base_isc
    isc_percent: Decimal = ZERO  # porcentaje_isc
    isc: Decimal = ZERO  # total_isc
    other_base: Decimal = ZERO  # total_base_otros_impuestos
    other_percent: Decimal = ZERO  # porcentaje_otros_impuestos
    other: Decimal = ZERO  # total_otros_impuestos


@one_store_init  # made for every document checked
@dataclass(frozen=True)
class DocumentTotals:
    """Header totals (``totales``). ``igv`` includes the IVAP of 17 lines, also given apart in ``ivap``."""

    export: Decimal = ZERO  # total_exportacion
    taxed: Decimal = ZERO  # total_operaciones_gravadas
    unaffected: Decimal = ZERO  # total_operaciones_inafectas
    exonerated: Decimal = ZERO  # total_operaciones_exoneradas
    free: Decimal = ZERO  # total_operaciones_gratuitas
    igv: Decimal = ZERO  # total_igv
    igv_free: Decimal = ZERO  # total_igv_operaciones_gratuitas
    icbper: Decimal = ZERO  # total_impuestos_bolsa_plastica
    taxes: Decimal = ZERO  # total_impuestos
    value: Decimal = ZERO  # total_valor
    subtotal: Decimal = ZERO  # subtotal_venta
    total: Decimal = ZERO  # total_venta
    ivap_base: Decimal = ZERO  # base of the IVAP lines (17), part of ``value``
    ivap: Decimal = ZERO  # IVAP of the 17 lines, part of ``igv``
    discounts: Decimal = ZERO  # total_descuentos: AllowanceTotalAmount (line 01 + global 03)
    charges: Decimal = ZERO  # total_cargos: ChargeTotalAmount (line 48 + global 45, 46, 50)
    prepaid: Decimal = ZERO  # total_anticipos: PrepaidAmount
    isc_base: Decimal = ZERO  # total_base_isc
    isc: Decimal = ZERO  # total_isc
    other_base: Decimal = ZERO  # total_base_otros_impuestos
    other: Decimal = ZERO  # total_otros_impuestos


def _line_tax(line: object, name: str) -> Decimal:
    """An optional amount of a line (ISC, other taxes): 0 when the line has no such attribute."""
    found = getattr(line, name, None)
    return found if found.__class__ is Decimal or isinstance(found, Decimal) else ZERO


def has_isc(line: object) -> bool:
    """The line carries ISC (scheme 2000): a base, an amount (nonzero Decimals) or a system."""
    # asked of every line several times: its attributes are read as attributes (getattr, three calls,
    # only for a line of amounts that lacks them) and a zero, the usual case, is told without a call
    try:
        base, isc, system = line.isc_base, line.isc, line.isc_system  # type: ignore[attr-defined]
    except AttributeError:
        base, isc = getattr(line, "isc_base", None), getattr(line, "isc", None)
        system = getattr(line, "isc_system", "")
    if (base and isinstance(base, Decimal)) or (isc and isinstance(isc, Decimal)):
        return True
    return bool(system)


def has_other_taxes(line: object) -> bool:
    """The line carries other taxes (scheme 9999): a base or an amount (nonzero Decimals)."""
    try:
        base, other = line.other_base, line.other  # type: ignore[attr-defined]
    except AttributeError:  # as has_isc
        base, other = getattr(line, "other_base", None), getattr(line, "other", None)
    return bool((base and isinstance(base, Decimal)) or (other and isinstance(other, Decimal)))


@dataclass(frozen=True)
class Discrepancy:
    """An amount that does not match SUNAT's formula: where (service JSON path), which SUNAT code, values."""

    field: str
    code: str
    expected: Decimal
    actual: Decimal
    message: str


def _unit(value: Decimal) -> Decimal:
    """A unit value/price at up to ten decimals without trailing zeros, and at least two (``59.00``)."""
    cents = round2(value)
    if cents == value:  # the usual price (59, 11.80): what the ten-place rounding would give too
        return cents
    exact = quantize(value, _UNIT_PLACES)
    cents = round2(exact)
    return cents if cents == exact else exact.normalize()


def _unit_of(line: LineLike) -> Decimal:
    """What a line's value counts by the unit: its unit value, or a free line's referential value (its unit
    price, or a unit value a client sent in its place)."""
    return (line.unit_value or line.unit_price) if is_free(line.affectation) else line.unit_value


def compute_line(
    quantity: object,
    affectation: str,
    *,
    unit_value: object = None,
    unit_price: object = None,
    igv_percent: object = IGV_PERCENT,
    icbper_rate: object = Decimal("0"),
) -> LineAmounts:
    """The amounts of a line from its quantity and exactly one of ``unit_value`` / ``unit_price``.

    ``unit_value`` is without IGV, ``unit_price`` with IGV; on a free line either one is the referential
    unit value. From a price with IGV, ``qty x price`` is kept as the line total and split into value and
    IGV, so ``total = qty x price`` to the cent. IVAP lines (17) always use the IVAP rate (4 %).
    ``icbper_rate > 0`` marks a plastic-bag line: ``icbper = qty x rate``.
    """
    qty = to_decimal(quantity)
    if qty <= 0:
        raise ValueError(f"the quantity must be positive: {quantity!r}")
    if affectation not in AFFECTATIONS:
        raise ValueError(f"affectation {affectation!r} is not in catalog 07")
    if (unit_value is None) == (unit_price is None):
        raise ValueError("give exactly one of unit_value (without IGV) or unit_price (with IGV)")
    given = to_decimal(unit_value if unit_value is not None else unit_price)
    if given < 0:
        raise ValueError(f"a unit value or price cannot be negative: {given}")
    percent = IVAP_PERCENT if affectation == "17" else to_decimal(igv_percent)
    rate = percent / 100
    bag_rate = to_decimal(icbper_rate)
    if bag_rate < 0:
        raise ValueError(f"the ICBPER rate cannot be negative: {bag_rate}")
    icbper = round2(qty * bag_rate)

    if is_free(affectation):
        referential = _unit(given)
        value = round2(qty * referential)
        igv = line_igv(affectation, value, percent)
        return LineAmounts(
            qty, ZERO, referential, "02", affectation, value, percent, igv, icbper, icbper, value, icbper
        )

    if not bears_igv(affectation):  # 20, 30, 40
        unit = _unit(given)
        value = round2(qty * unit)
        return LineAmounts(
            qty, unit, unit, "01", affectation, value, percent, ZERO, icbper, icbper, value, value + icbper
        )

    if unit_value is not None:
        unit = _unit(given)
        price = _unit(unit * (1 + rate))
        value = round2(qty * unit)
        igv = line_igv(affectation, value, percent)
    else:
        price = _unit(given)
        unit = _unit(price / (1 + rate))
        gross = round2(qty * price)
        value = round2(gross / (1 + rate))
        igv = gross - value
    taxes = line_taxes(affectation, igv, icbper)
    return LineAmounts(
        qty, unit, price, "01", affectation, value, percent, igv, icbper, taxes, value, value + taxes
    )


def apply_line_allowances(line: LineAmounts, allowances: Sequence[Allowance]) -> LineAmounts:
    """A computed line (:func:`compute_line`) with its discounts and charges (catalog 53) applied.

    value = qty x unit value - discounts 00 + charges 47 (3271), IGV base = value, IGV = base x percent,
    taxes = IGV + ICBPER, total = value + taxes - discounts 01 + charges 48, unit price (type 01) =
    total / qty (3270). Free lines keep their amounts (only the allowances are attached).
    """
    if not allowances:
        return line
    if is_free(line.affectation):
        return dataclasses.replace(line, allowances=tuple(allowances))
    value = line.value + _in_value(allowances)
    igv = line_igv(line.affectation, value, line.igv_percent)
    taxes = line_taxes(line.affectation, igv, line.icbper)
    total = line_total(line.affectation, value, taxes, allowances)
    return dataclasses.replace(
        line,
        igv_base=value,
        value=value,
        igv=igv,
        taxes=taxes,
        total=total,
        unit_price=line_unit_price(total, line.quantity),
        allowances=tuple(allowances),
    )


@dataclass(frozen=True)
class Isc:
    """How a line's ISC is worked out (catalog 08): ``system`` 01 al valor (``percent`` of the line value),
    02 monto fijo (``per_unit`` amount per unit sold) or 03 al precio de venta al público (``percent`` of
    quantity x ``public_price``, the suggested retail price per unit)."""

    system: str
    percent: Decimal = ZERO
    per_unit: Decimal = ZERO
    public_price: Decimal = ZERO


_PERCENT_PLACES = 5  # Percent is n(3,5) (SUNAT 3102)
_PERCENT_LIMIT = Decimal("1000")


def isc_amount(isc: Isc, quantity: Decimal, value: Decimal) -> tuple[Decimal, Decimal, Decimal]:
    """(base, percent, amount) of a line's ISC; SUNAT checks ``amount = base x percent / 100`` (3108).

    01: base = the line value; 02: base = the line value, amount = qty x ``per_unit`` and the percent the
    effective rate (to five decimals, so the product stays within SUNAT's tolerance); 03: base = qty x
    ``public_price``. Raises ValueError for an unknown system or what SUNAT's formats cannot carry.
    """
    if isc.system not in ISC_SYSTEMS:
        raise ValueError(f"ISC system {isc.system!r} is not in catalog 08")
    if isc.system == "02":
        per_unit = to_decimal(isc.per_unit)
        if per_unit <= 0 or value <= 0:
            raise ValueError("ISC system 02 needs a positive amount per unit and a positive line value")
        amount = round2(quantity * per_unit)
        percent = quantize(amount * 100 / value, _PERCENT_PLACES)
        if percent >= _PERCENT_LIMIT:
            raise ValueError(f"the ISC of {amount} is {percent} % of the line value: above n(3,5)")
        return value, percent, amount
    percent = to_decimal(isc.percent)
    if percent <= 0 or percent >= _PERCENT_LIMIT:
        raise ValueError(f"the ISC percent must be above 0 and below 1000: {percent}")
    if isc.system == "03":
        public_price = to_decimal(isc.public_price)
        if public_price <= 0:
            raise ValueError("ISC system 03 needs the public sale price per unit")
        base = round2(quantity * public_price)
    else:
        base = value
    return base, percent, percent_of(base, percent)


def apply_line_taxes(line: LineAmounts, isc: Isc | None = None, other_percent: object = None) -> LineAmounts:
    """A computed line (after :func:`apply_line_allowances`) with ISC and/or other taxes (scheme 9999).

    ISC (:func:`isc_amount`) enters the IGV base: ``igv_base = value + isc`` (3272), ``igv = igv_base x
    percent``; other taxes are ``value x other_percent / 100`` (3109), outside the IGV base. taxes = IGV +
    ISC + other + ICBPER (3292), total = value + taxes - discounts 01 + charges 48, unit price (type 01) =
    total / qty (3270). ISC goes only on onerous 10, 20 and 30 lines, other taxes on onerous lines but
    exports (SUNAT 3223, 3107).
    """
    if isc is None and other_percent is None:
        return line
    if is_free(line.affectation):
        raise ValueError("ISC and other taxes are not supported on free lines")
    if isc is not None and line.affectation not in ISC_AFFECTATIONS:
        raise ValueError(f"ISC does not go with affectation {line.affectation} (SUNAT 3223)")
    if other_percent is not None and line.affectation == "40":
        raise ValueError("other taxes do not go with an export line (SUNAT 3107)")
    changes: dict[str, Any] = {}
    isc_tax = ZERO
    if isc is not None:
        base, percent, isc_tax = isc_amount(isc, line.quantity, line.value)
        changes |= {"isc_system": isc.system, "isc_base": base, "isc_percent": percent, "isc": isc_tax}
    other = ZERO
    if other_percent is not None:
        rate = to_decimal(other_percent)
        if rate <= 0 or rate >= _PERCENT_LIMIT:
            raise ValueError(f"the other taxes' percent must be above 0 and below 1000: {rate}")
        other = percent_of(line.value, rate)
        changes |= {"other_base": line.value, "other_percent": rate, "other": other}
    igv_base = line_igv_base(line.value, isc_tax)
    igv = line_igv(line.affectation, igv_base, line.igv_percent)
    taxes = line_taxes(line.affectation, igv, line.icbper, isc_tax, other)
    total = line_total(line.affectation, line.value, taxes, line.allowances)
    return dataclasses.replace(
        line,
        igv_base=igv_base,
        igv=igv,
        taxes=taxes,
        total=total,
        unit_price=line_unit_price(total, line.quantity),
        **changes,
    )


def compute_totals(
    lines: Iterable[LineLike], allowances: Iterable[AllowanceLike] = (), *, prepaid: object = ZERO
) -> DocumentTotals:
    """Header totals from the lines' own amounts (sums of what the lines say, not recomputed) and the
    global discounts and charges (``allowances``, catalog 53).

    As SUNAT's stylesheets sum them: taxed = Σ value of the 10 lines with an IGV base - 02 - 04 + 49
    (3277; their values, not their bases, which hold the ISC); IVAP base = Σ value of the 17 lines with a
    base (3293; the global amounts go there when the document has no 10 line); exonerated = Σ value of 20
    lines - 05, unaffected = Σ value of 30 lines - 06, export = Σ value of 40 lines; free = Σ value of free
    lines, igv_free = Σ their IGV; igv = Σ IGV of 10 and 17 lines + (49 - 02 - 04) x their rate; icbper =
    Σ ICBPER of every line; taxes = igv + icbper + ISC + other taxes (3294); value = Σ value of the onerous
    lines with a base - 02 + 49 (3278); subtotal = value + taxes (3279); isc_base / isc = Σ of the onerous
    lines' ISC (3296 / 3298), other_base / other = Σ of every line's other taxes (3297 / 3299); discounts
    = Σ line 01 + global 03 (3300); charges = Σ line 48 + global 45, 46, 50 (3301); total = subtotal +
    charges - discounts - ``prepaid`` (3280).
    """
    allowances = list(allowances)
    rate = None  # the IGV rate of the document: its first onerous IGV line's (18 % when it has none)
    line_discounts = line_charges = sold = ZERO
    export = taxed = unaffected = exonerated = free = igv = igv_free = icbper = ZERO
    ivap_base = ivap = isc_base = isc = other_base = other = ZERO
    for line in lines:  # one pass, the sums in locals: run on every document issued
        affectation = line.affectation
        if affectation not in AFFECTATIONS:
            raise ValueError(f"affectation {affectation!r} is not in catalog 07")
        # the optional amounts are 0 on most lines: a test of a Decimal costs a tenth of an addition
        if line.icbper:
            icbper += line.icbper
        if has_other_taxes(line):
            other_base += _line_tax(line, "other_base")
            other += _line_tax(line, "other")
        allowed = line_allowances(line)
        if allowed:
            line_discounts += _sum(allowed, ("01",))
            line_charges += _sum(allowed, ("48",))
        value = line.value
        if is_free(affectation):  # SUNAT leaves the ISC of free lines out of the header (3296, 3298)
            free += value
            igv_free += line.igv
            continue
        if has_isc(line):
            isc_base += _line_tax(line, "isc_base")
            isc += _line_tax(line, "isc")
        based = value if line.igv_base > ZERO else ZERO  # SUNAT counts the lines with a base
        sold += based
        if affectation == "10":
            taxed += based
            igv += line.igv
        elif affectation == "17":
            ivap_base += based
            ivap += line.igv
            igv += line.igv
        elif affectation == "20":
            exonerated += value
        elif affectation == "30":
            unaffected += value
        else:  # 40
            export += value
        if rate is None and bears_igv(affectation):
            rate = line.igv_percent / 100
    if rate is None:
        rate = IGV_PERCENT / 100
    if allowances:
        base_change = _sum(allowances, ("49",)) - _sum(allowances, ("02", "04"))
        value_change = _sum(allowances, ("49",)) - _sum(allowances, ("02",))
        sold += value_change
        if base_change:
            on_ivap = bool(ivap_base) and not taxed
            if on_ivap:
                ivap_base += base_change
                ivap += round2(base_change * rate)
            else:
                taxed += base_change
            igv += round2(base_change * rate)
        exonerated -= _sum(allowances, ("05",))
        unaffected -= _sum(allowances, ("06",))
        line_discounts += _sum(allowances, ("03",))
        line_charges += _sum(allowances, ("45", "46", "50"))
    igv, icbper, isc, other = round2(igv), round2(icbper), round2(isc), round2(other)
    taxes = igv + icbper + isc + other
    value = round2(sold)
    discounts = round2(line_discounts)
    charges = round2(line_charges)
    paid = round2(to_decimal(prepaid))
    # by position, in DocumentTotals' order: a call of more than 15 keywords makes Python build a dict
    return DocumentTotals(
        round2(export),  # export
        round2(taxed),  # taxed
        round2(unaffected),  # unaffected
        round2(exonerated),  # exonerated
        round2(free),  # free
        igv,  # igv
        round2(igv_free),  # igv_free
        icbper,  # icbper
        taxes,  # taxes
        value,  # value
        value + taxes,  # subtotal
        value + taxes + charges - discounts - paid,  # total
        round2(ivap_base),  # ivap_base
        round2(ivap),  # ivap
        discounts,  # discounts
        charges,  # charges
        paid,  # prepaid
        round2(isc_base),  # isc_base
        isc,  # isc
        round2(other_base),  # other_base
        other,  # other
    )


L = TypeVar("L", bound=LineLike)
T = TypeVar("T", bound=TotalsLike)


def sunat_line(line: L) -> L:
    """A line as real clients send it, in SUNAT's convention (same type, a dataclass; unchanged if already).

    * Free lines (11-16, 21, 31-37) sent with ``valor_unitario``, ``precio_unitario`` and
      ``total_valor_item`` 0 and the referential value only in ``total_base_igv``: the line value
      becomes that base and the referential unit value ``base / qty`` (carried in ``unit_price``).
    * The bag tax left out of the line's taxes (``total_impuestos`` = IGV only, ``total_item`` = value +
      IGV; a free line: 0 and 0): the ICBPER is added to both, as SUNAT counts it (3292, 3270), and a
      unit price without it becomes ``(value + taxes) / qty`` (PriceTypeCode 01 includes every tax).

    Anything else is left as sent, for :func:`check_line` to judge.
    """
    changes: dict[str, Decimal] = {}
    free = is_free(line.affectation)
    value = line.value
    if free and value == 0 and line.igv_base > 0:
        value = changes["value"] = line.igv_base
    if free and not (line.unit_value or line.unit_price) and value and line.quantity > 0:
        changes["unit_price"] = _unit(value / line.quantity)
    if line.icbper:
        charged = ZERO if free else line.igv + _line_tax(line, "isc") + _line_tax(line, "other")
        if round2(line.taxes) == round2(charged):
            changes["taxes"] = line.taxes + line.icbper
            if free and line.total == 0:
                changes["total"] = line.icbper
            elif not free and round2(line.total) == round2(value + line.taxes):
                changes["total"] = line.total + line.icbper
            gross = line.unit_price * line.quantity
            without = abs(gross - (value + line.taxes))
            if not free and line.quantity > 0 and without < abs(gross - (value + line.taxes + line.icbper)):
                changes["unit_price"] = _unit((value + line.taxes + line.icbper) / line.quantity)
    if not changes:
        return line
    replaced: L = dataclasses.replace(_as_dataclass(line), **changes)
    return replaced


def sunat_figures(line: L, *, note: bool = False) -> L:
    """A checked line with SUNAT's own figures (same type; unchanged when they already are).

    What a client sends within SUNAT's tolerance (± 1.00, :func:`check_line`) is accepted; the document
    then carries what SUNAT computes from the line's quantity, unit value, percents and allowances:
    value = qty x unit value (- 00 + 47 unless ``note``; free lines: x referential value), ISC = its base
    x percent, other taxes = their base x percent, IGV base = value + ISC, IGV = base x percent (10-17),
    taxes = IGV (not on free lines) + ISC + other + ICBPER, total = value + taxes - 01 + 48 (free lines:
    the taxes charged), unit price (01) = that total / qty. Bases of ISC and other taxes, percents and
    the ICBPER (checked exactly) stay as given.
    """
    free = is_free(line.affectation)
    allowances = line_allowances(line)
    value = line_value(line.quantity, _unit_of(line), allowances, note=note)
    with_isc, with_other = has_isc(line), has_other_taxes(line)
    isc = percent_of(_line_tax(line, "isc_base"), _line_tax(line, "isc_percent")) if with_isc else ZERO
    other = ZERO
    if with_other:
        other = percent_of(_line_tax(line, "other_base"), _line_tax(line, "other_percent"))
    igv_base = line_igv_base(value, isc)
    igv = line_igv(line.affectation, igv_base, line.igv_percent)
    taxes = line_taxes(line.affectation, igv, line.icbper, isc, other)
    total = line_total(line.affectation, value, taxes, allowances)
    figures: dict[str, Any] = {
        "value": value,
        "igv_base": igv_base,
        "igv": igv,
        "taxes": taxes,
        "total": total,
    }
    if with_isc:
        figures["isc"] = isc
    if with_other:
        figures["other"] = other
    if not free and line.price_type == "01" and line.quantity > 0:
        figures["unit_price"] = line_unit_price(total, line.quantity)
    changes = {name: amount for name, amount in figures.items() if getattr(line, name) != amount}
    if not changes:
        return line
    replaced: L = dataclasses.replace(_as_dataclass(line), **changes)
    return replaced


def sunat_totals(totals: T) -> T:
    """Header totals with the bag tax inside the taxes, as SUNAT counts them (3294, 3279).

    Real clients leave the ICBPER out of ``total_impuestos`` (= ``total_igv``) and, when they send it, of
    ``subtotal_venta`` (= value + IGV), while ``total_venta`` includes it: both get the ICBPER added.
    Totals already in SUNAT's convention come back unchanged.
    """
    charged = totals.igv + _line_tax(totals, "isc") + _line_tax(totals, "other")
    if not totals.icbper or round2(totals.taxes) != round2(charged):
        return totals
    changes = {"taxes": totals.taxes + totals.icbper}
    if round2(totals.subtotal) == round2(totals.value + charged):
        changes["subtotal"] = totals.subtotal + totals.icbper
    replaced: T = dataclasses.replace(_as_dataclass(totals), **changes)
    return replaced


def _as_dataclass(instance: Any) -> Any:
    if not dataclasses.is_dataclass(instance) or isinstance(instance, type):
        raise TypeError(f"expected a dataclass instance, not {type(instance).__name__}")
    return instance


def _show(amount: Decimal) -> str:
    """An amount with two decimals, or all its decimals when it has more (unit prices)."""
    return f"{round2(amount):f}" if amount == round2(amount) else f"{amount.normalize():f}"


def _differs(expected: Decimal, actual: Decimal, *, exact: bool = False) -> bool:
    if exact:
        return round2(expected) != round2(actual)
    return abs(actual - expected) > TOLERANCE


def _discrepancy(field: str, code: str, label: str, expected: Decimal, actual: Decimal) -> Discrepancy:
    message = f"{label} debe ser {_show(expected)} (se recibió {_show(actual)})"
    return Discrepancy(field, code, expected, actual, message)


def _percent(value: Decimal) -> str:
    return f"{value.normalize():f}"


def _percent_discrepancy(index: int, code: str, allowed: Iterable[Decimal], actual: Decimal) -> Discrepancy:
    options = sorted(allowed, reverse=True)
    expected = IGV_PERCENT if IGV_PERCENT in options else options[0]
    shown = " o ".join(_percent(p) for p in options)
    message = f"El porcentaje de IGV del ítem {index + 1} debe ser {shown} (se recibió {_percent(actual)})"
    return Discrepancy(f"items.{index}.porcentaje_igv", code, expected, actual, message)


def _allowance_key(allowance: AllowanceLike) -> str:
    return "cargos" if allowance.code in CHARGE_CODES else "descuentos"


def check_allowance(allowance: AllowanceLike, path: str, *, line: bool = False) -> list[Discrepancy]:
    """A discount or charge whose factor is given: ``amount = base x factor`` ± 1.00 (line 3290, global
    3307); ``path`` is where it is (``descuentos.0``). The amount cannot be negative (2955 / 2968)."""
    code = "3290" if line else "3307"
    if allowance.amount < 0:
        return [_discrepancy(f"{path}.monto", "2955" if line else "2968", "El monto", ZERO, allowance.amount)]
    factor = allowance.factor
    if factor is None or factor <= 0:
        return []
    expected = round2(allowance.base * factor)
    if _differs(expected, allowance.amount):
        label = f"El monto del cargo/descuento {allowance.code} (base x factor)"
        return [_discrepancy(f"{path}.monto", code, label, expected, allowance.amount)]
    return []


def check_withholding(
    code: str, percent: Decimal, amount: Decimal, base: Decimal, path: str
) -> list[Discrepancy]:
    """A perception (51-53) or retention (62) block: its percent is the code's rate and ``amount = base x
    percent / 100`` ± 1.00 (perception 2798, retention 3263); the base is above 0 (perception 3233)."""
    perception = code in PERCEPTION_PERCENTS
    rule = "2798" if perception else "3263"
    rate = PERCEPTION_PERCENTS.get(code, RETENTION_PERCENT)
    found = []
    if percent != rate:
        found.append(
            _discrepancy(f"{path}.porcentaje", rule, f"El porcentaje del código {code}", rate, percent)
        )
    if perception and base <= 0:
        found.append(_discrepancy(f"{path}.base", "3233", "La base de la percepción", base, base))
    expected = percent_of(base, rate)
    if _differs(expected, amount):
        found.append(
            _discrepancy(f"{path}.monto", rule, f"El monto (base x {_percent(rate)} %)", expected, amount)
        )
    return found


def check_line(
    line: LineLike,
    index: int,
    *,
    allowed_percents: frozenset[Decimal] = frozenset({IGV_PERCENT}),
    icbper_rate: Decimal | None = None,
    note: bool = False,
) -> list[Discrepancy]:
    """The discrepancies of :func:`check_line_exactly`."""
    return check_line_exactly(
        line, index, allowed_percents=allowed_percents, icbper_rate=icbper_rate, note=note
    )[0]


def check_line_exactly(
    line: LineLike,
    index: int,
    *,
    allowed_percents: frozenset[Decimal] = frozenset({IGV_PERCENT}),
    icbper_rate: Decimal | None = None,
    note: bool = False,
) -> tuple[list[Discrepancy], bool]:
    """The discrepancies of line ``index`` and whether it carries SUNAT's own figures already, to the
    last digit (then :func:`sunat_figures` gives it back unchanged: the caller need not ask; answered
    for lines without ISC or other taxes, ``False`` for those).

    The amounts of line ``index`` (0-based; messages say ``ítem index+1``) against SUNAT's line rules.

    Tolerance ± 1.00 (TOLERANCE) unless said otherwise. Rules and codes:

    * 3271 value = qty x unit value (free lines: x referential value);
    * 3272 IGV base = value;
    * 2993 IGV percent of a 10-17 line with base > 0 is not 0; 4438 it is an allowed rate
      (``allowed_percents``; IVAP lines: 4 %);
    * 3103 IGV of a 10-17 line = base x percent / 100; 3111 it is not 0 when the base exceeds 0.06;
    * 3110 IGV of a 20, 21, 30-37 or 40 line is 0;
    * 4318 ICBPER of a bag line = qty x ``icbper_rate`` exactly (skipped when ``icbper_rate`` is None);
    * 3292 line taxes = IGV (not for free lines) + ICBPER;
    * 3271 also: the value is net of the line's discounts 00 and includes its charges 47 (not on a
      credit or debit note, ``note``: there the unit value is already net); 3290 each
      discount or charge with a factor is base x factor;
    * 3270 line total = value + taxes - discounts 01 + charges 48 (free lines: ICBPER only), and for
      price type 01 the unit price
      = (value + taxes) / qty (not checked on free lines).
    """
    found: list[Discrepancy] = []

    def wrong(key: str, code: str, label: str, expected: Decimal, actual: Decimal) -> None:
        where, label = f"items.{index}.{key}", f"{label} del ítem {index + 1}"  # built only when wrong
        found.append(_discrepancy(where, code, label, expected, actual))

    # each rule compares within TOLERANCE (abs(actual - expected) > TOLERANCE is a discrepancy) unless it
    # says otherwise; the comparisons are written out and each figure is worked out once: a line is
    # checked ~10 times per document
    affectation = line.affectation
    free = is_free(affectation)
    allowances = line_allowances(line)
    for position, allowance in enumerate(allowances) if allowances else ():
        found += check_allowance(
            allowance, f"items.{index}.{_allowance_key(allowance)}.{position}", line=True
        )
    # each amount is first compared for equality, which is what SUNAT's own figures give and costs a
    # third of the tolerance test (a subtraction, abs and a comparison), only made when they differ
    value, igv_base, igv = line.value, line.igv_base, line.igv
    exact = True  # so far the line's amounts are SUNAT's own figures (see the docstring)
    expected_value = line_value(line.quantity, _unit_of(line), allowances, note=note)
    if value != expected_value:
        exact = False
        if abs(value - expected_value) > TOLERANCE:
            wrong("total_valor_item", "3271", "El valor de venta", expected_value, value)
    with_isc, with_other = has_isc(line), has_other_taxes(line)
    isc = _line_tax(line, "isc") if with_isc else ZERO
    other = _line_tax(line, "other") if with_other else ZERO
    expected_base = line_igv_base(value, isc)
    if igv_base != expected_base:
        exact = False
        if abs(igv_base - expected_base) > TOLERANCE:
            wrong("total_base_igv", "3272", "La base imponible", expected_base, igv_base)

    if bears_igv(affectation):
        allowed = _IVAP_ONLY if affectation == "17" else allowed_percents
        percent = line.igv_percent
        if (not percent and igv_base > ZERO) or percent not in allowed:
            found.append(_percent_discrepancy(index, "2993" if not percent else "4438", allowed, percent))
        expected_igv = line_igv(affectation, igv_base, percent)
        if igv != expected_igv:
            exact = False
            if igv == 0 and expected_igv != 0 and igv_base > _IGV_ZERO_BASE:
                wrong("total_igv", "3111", "El total de IGV", expected_igv, igv)
            elif abs(igv - expected_igv) > TOLERANCE:
                wrong("total_igv", "3103", "El total de IGV", expected_igv, igv)
    elif igv:  # a Decimal's truth
        exact = False
        wrong("total_igv", "3110", "El total de IGV", ZERO, igv)

    icbper = line.icbper
    if icbper_rate is not None and icbper:  # a Decimal's truth, not a comparison with the int 0
        expected_icbper = round2(line.quantity * icbper_rate)
        if expected_icbper != round2(icbper):  # exact, to the cent
            wrong("total_impuestos_bolsa_plastica", "4318", "El ICBPER", expected_icbper, icbper)

    if with_isc or with_other:
        found += _check_line_taxes(line, index)
        exact = False
    charged = line_taxes(affectation, igv, icbper, isc, other)
    taxes = line.taxes
    if taxes != charged:
        exact = False
        if abs(taxes - charged) > TOLERANCE:
            wrong("total_impuestos", "3292", "El total de impuestos", charged, taxes)
    # the total follows from the taxes given (a free line's from those it charges)
    total = line_total(affectation, value, charged if free else taxes, allowances)
    if line.total != total:
        exact = False
        if abs(line.total - total) > TOLERANCE:
            wrong("total_item", "3270", "El total", total, line.total)
    quantity = line.quantity
    if not free and line.price_type == "01" and quantity > ZERO:
        expected_price = line_unit_price(total, quantity)
        if line.unit_price != expected_price:
            exact = False
            if abs(line.unit_price - expected_price) > TOLERANCE:
                wrong("precio_unitario", "3270", "El precio unitario", expected_price, line.unit_price)
    return found, exact


def _check_line_taxes(line: LineLike, index: int) -> list[Discrepancy]:
    """ISC (scheme 2000) and other taxes (9999) of line ``index``, SUNAT's line rules:

    * 3223 ISC on a line that is not 10, 20 or 30 (nor free): IVAP (17) and exports (40) do not take it;
    * 2373 an ISC base without its system (TierRange), 2041 a system outside catalog 08;
    * 3104 an ISC base with a percent of 0; 3108 ISC = base x percent / 100 (± 1.00);
    * 3109 other taxes = base x percent / 100 (± 1.00).
    """
    n = index + 1
    path = f"items.{index}"
    found: list[Discrepancy] = []

    def add(key: str, code: str, label: str, expected: Decimal, actual: Decimal) -> None:
        found.append(_discrepancy(f"{path}.{key}", code, f"{label} del ítem {n}", expected, actual))

    if has_isc(line):
        system = str(getattr(line, "isc_system", "") or "")
        base = _line_tax(line, "isc_base")
        percent = _line_tax(line, "isc_percent")
        isc = _line_tax(line, "isc")
        if line.affectation not in ISC_AFFECTATIONS and not is_free(line.affectation):
            message = (
                f"El ítem {n} con afectación {line.affectation} no puede llevar ISC (solo gravado 10, "
                "exonerado 20 o inafecto 30)"
            )
            found.append(Discrepancy(f"{path}.codigo_tipo_sistema_isc", "3223", ZERO, isc, message))
        if base > 0 and not system:
            message = f"El ítem {n} lleva ISC sin el sistema de cálculo (catálogo 08)"
            found.append(Discrepancy(f"{path}.codigo_tipo_sistema_isc", "2373", ZERO, ZERO, message))
        elif system and system not in ISC_SYSTEMS:
            message = f"El sistema de ISC {system} del ítem {n} no existe en el catálogo 08 (01, 02, 03)"
            found.append(Discrepancy(f"{path}.codigo_tipo_sistema_isc", "2041", ZERO, ZERO, message))
        if base > 0 and percent == 0:
            add("porcentaje_isc", "3104", "El porcentaje de ISC (mayor que 0 con base)", percent, percent)
        expected = percent_of(base, percent)
        if _differs(expected, isc):
            add("total_isc", "3108", "El ISC (base x porcentaje)", expected, isc)
    if has_other_taxes(line):
        expected = percent_of(_line_tax(line, "other_base"), _line_tax(line, "other_percent"))
        other = _line_tax(line, "other")
        if _differs(expected, other):
            add("total_otros_impuestos", "3109", "Los otros tributos (base x porcentaje)", expected, other)
    return found


#: Header rules: (attribute, JSON key under ``totales``, SUNAT code, label).
_HEADER_RULES: tuple[tuple[str, str, str, str], ...] = (
    ("export", "total_exportacion", "3273", "El total de exportaciones"),
    ("taxed", "total_operaciones_gravadas", "3277", "El total de operaciones gravadas"),
    ("unaffected", "total_operaciones_inafectas", "3274", "El total de operaciones inafectas"),
    ("exonerated", "total_operaciones_exoneradas", "3275", "El total de operaciones exoneradas"),
    ("free", "total_operaciones_gratuitas", "3276", "El total de operaciones gratuitas"),
    ("igv", "total_igv", "3291", "El total de IGV"),
    ("igv_free", "total_igv_operaciones_gratuitas", "3302", "El IGV de las operaciones gratuitas"),
    ("icbper", "total_impuestos_bolsa_plastica", "3306", "El total de ICBPER"),
    ("taxes", "total_impuestos", "3294", "El total de impuestos"),
    ("value", "total_valor", "3278", "El total valor de venta"),
    ("subtotal", "subtotal_venta", "3279", "El subtotal de venta"),
    ("total", "total_venta", "3280", "El total de venta"),
)
#: Checked only when the totals carry them (the service's JSON has no IVAP totals).
_IVAP_RULES: tuple[tuple[str, str, str, str], ...] = (
    ("ivap_base", "total_base_ivap", "3293", "El total de operaciones con IVAP"),
    ("ivap", "total_ivap", "3295", "El total de IVAP"),
)


#: ISC and other taxes: checked only when the totals carry them.
_OTHER_TAX_RULES: tuple[tuple[str, str, str, str], ...] = (
    ("isc_base", "total_base_isc", "3296", "La base del ISC"),
    ("other_base", "total_base_otros_impuestos", "3297", "La base de otros tributos"),
    ("isc", "total_isc", "3298", "El total de ISC"),
    ("other", "total_otros_impuestos", "3299", "El total de otros tributos"),
)

#: Checked only when the totals carry them.
_ALLOWANCE_RULES: tuple[tuple[str, str, str, str], ...] = (
    ("discounts", "total_descuentos", "3300", "El total de descuentos"),
    ("charges", "total_cargos", "3301", "El total de cargos"),
    ("prepaid", "total_anticipos", "2509", "El total de anticipos"),
)


def check_totals(
    lines: Sequence[LineLike],
    totals: TotalsLike,
    *,
    allowances: Sequence[AllowanceLike] = (),
    charges: Decimal | None = None,
    discounts: Decimal | None = None,
    prepaid: Decimal = ZERO,
    computed: DocumentTotals | None = None,
    as_published: bool = False,
    note: bool = False,
) -> list[Discrepancy]:
    """The header totals against the sums of the lines (:func:`compute_totals`, or ``computed``: what it
    gave for these lines, allowances and ``prepaid``, when the caller has it), ± 1.00.

    ``as_published``: the taxes total and the payable amount are judged as SUNAT's published stylesheets
    judge an XML, from the header's own amounts: 3294 the taxes are the sum of the header's IGV, IVAP,
    ICBPER, ISC and other taxes; 3280 the payable amount is the tax-inclusive amount + ``charges`` -
    ``discounts`` - ``prepaid``, on a credit or debit note (``note``) the header's bases (taxed, IVAP,
    export, exonerated, unaffected) + those taxes + ``charges``. By default they are judged against what
    the lines add up to, as every other header amount (a client's JSON: each wrong total is named once).

    All IGV lines (10-16) must carry the same percent (4438, reported on the first line that differs).

    Codes: 3273 export, 3277 taxed, 3274 unaffected, 3275 exonerated, 3276 free, 3291 IGV, 3302 IGV of
    free lines, 3306 ICBPER (exact after rounding), 3294 taxes, 3278 value, 3279 subtotal (tax inclusive),
    3280 total payable (= subtotal + ``charges`` - ``discounts`` - ``prepaid``: the amounts given in the
    document, or by default those computed from the lines and the global ``allowances``). When ``totals``
    carries ``ivap_base`` / ``ivap`` they are checked too (3293 / 3295), and ``discounts`` / ``charges``
    (3300 / 3301); a nonzero ``prepaid`` (Σ of the advances) must equal ``prepaid`` (2509).
    Each global discount or charge with a factor is checked (3307).
    """
    found = []
    first_percent = None
    for index, line in enumerate(lines):  # one IGV rate per document (4438)
        if line.affectation != "17" and bears_igv(line.affectation) and line.igv_percent:  # not 0
            if first_percent is None:
                first_percent = line.igv_percent
            elif line.igv_percent != first_percent:
                found.append(_percent_discrepancy(index, "4438", (first_percent,), line.igv_percent))
    for position, allowance in enumerate(allowances):
        found += check_allowance(allowance, f"{_allowance_key(allowance)}.{position}")
    expected = computed if computed is not None else compute_totals(lines, allowances, prepaid=prepaid)
    added = expected.charges if charges is None else to_decimal(charges)
    taken = expected.discounts if discounts is None else to_decimal(discounts)
    if as_published:
        charged = totals.igv + totals.icbper + _line_tax(totals, "isc") + _line_tax(totals, "other")
        taxes = round2(charged)
        if note:
            bases = totals.taxed + _line_tax(totals, "ivap_base") + totals.export + totals.exonerated
            payable = round2(bases + totals.unaffected + charged + added)
        else:
            payable = round2(totals.subtotal + added - taken - to_decimal(prepaid))
    else:
        taxes = expected.taxes
        payable = expected.subtotal + added - taken - to_decimal(prepaid)
    rules = list(_HEADER_RULES[:-1])  # the payable total last, after what it is made of (SUNAT's order)
    rules += [rule for rule in _IVAP_RULES if getattr(totals, rule[0], None) is not None]
    rules += [rule for rule in _OTHER_TAX_RULES if getattr(totals, rule[0], None) is not None]
    rules += [rule for rule in _ALLOWANCE_RULES if getattr(totals, rule[0], None) is not None]
    if not getattr(totals, "prepaid", None):
        rules = [rule for rule in rules if rule[0] != "prepaid"]  # 2509 only when advances are given
    rules.append(_HEADER_RULES[-1])
    for name, key, code, label in rules:
        want = payable if name == "total" else taxes if name == "taxes" else getattr(expected, name)
        got = getattr(totals, name)
        if want != got and _differs(want, got, exact=name == "icbper"):  # equal: no rounding to test
            found.append(_discrepancy(f"totales.{key}", code, label, want, got))
    return found
