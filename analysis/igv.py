"""The sales side of a month's IGV declaration (Formulario Virtual N.° 621 «IGV – Renta mensual», the
PDT 621), box by box, from the lines of the same month's sales register.

Every figure is the sum of the register's PLE 14.1 lines of the month
(:class:`~analysis.register.SalesRegister`, amounts already in soles at each document's own rate, credit
notes negative), so the declaration and the register agree line for line: each line's amounts go to one
box per column, and what the boxes do not take is named (ICBPER, ISC and other charges, declared
elsewhere; lines of earlier periods, states 8 and 9, which correct that month's declaration). Box numbers
and names follow SUNAT's «Ayuda para el registro del Formulario Virtual N.° 621» and the form's
constancia (``docs/igv_declaration.md``):

* 100 / 101 «Ventas netas gravadas» base and IGV: field 14 and 16 of the month's lines (credit notes on
  this month's documents already subtract; debit notes add);
* 102 / 103 «Descuentos concedidos y/o devoluciones de ventas»: credit notes on documents of earlier
  months (fields 15 and 17), written positive as the form asks;
* 106 «Exportaciones facturadas en el período»: field 13, net of its notes;
* 105 «Ventas no gravadas (sin considerar exportaciones)»: exonerated and unaffected (fields 18 and 19);
* 131 the IGV of sales: 101 − 103.

Box 127 (exports shipped in the period) needs the customs declaration's date, 154/155 the reduced rate of
Ley 31556, 160–163 the Amazonía law: none is in a document list, and the page says so.

::

    from analysis.igv import monthly_igv
    from analysis.register import sales_register

    declaration = monthly_igv(sales_register(client, "2026-11"))
    declaration.box("101").amount, declaration.box("101").lines  # the IGV and the lines behind it
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from analysis.register import Period, RegisterEntry, SalesRegister
from sunat.money import round2

__all__ = ["BOXES", "Box", "MonthlyIgv", "Outside", "monthly_igv"]

ZERO = Decimal("0.00")


def _cents(value: Decimal) -> Decimal:
    """An amount as its register line writes it (to the cent, half up): the totals add the same."""
    return round2(value) if value else ZERO


@dataclass(frozen=True)
class _BoxRule:
    number: str
    name: str
    rule: str
    amount: Callable[[RegisterEntry], Decimal]


#: The sales boxes the register fills, in the form's order: number, name, what goes in it, and each
#: line's amount in it.
BOXES: tuple[_BoxRule, ...] = (
    _BoxRule(
        "100",
        "Ventas netas gravadas (base imponible)",
        "Base imponible de las facturas, boletas y notas del mes; las notas de crédito sobre documentos "
        "del mismo mes restan aquí.",
        lambda e: _cents(e.taxed),
    ),
    _BoxRule(
        "101",
        "Ventas netas gravadas (IGV)",
        "IGV de esos mismos documentos.",
        lambda e: _cents(e.igv),
    ),
    _BoxRule(
        "102",
        "Descuentos concedidos y/o devoluciones de ventas (base imponible)",
        "Notas de crédito del mes sobre ventas de meses anteriores (ya declaradas): su base, en positivo.",
        lambda e: -_cents(e.taxed_discount),
    ),
    _BoxRule(
        "103",
        "Descuentos concedidos y/o devoluciones de ventas (IGV)",
        "El IGV de esas notas de crédito, en positivo.",
        lambda e: -_cents(e.igv_discount),
    ),
    _BoxRule(
        "106",
        "Exportaciones facturadas en el período",
        "Valor facturado de exportación, neto de sus notas.",
        lambda e: _cents(e.export),
    ),
    _BoxRule(
        "105",
        "Ventas no gravadas (sin considerar exportaciones)",
        "Operaciones exoneradas e inafectas, netas de sus notas.",
        lambda e: _cents(e.exonerated) + _cents(e.unaffected),
    ),
)


@dataclass(frozen=True)
class _OutsideRule:
    name: str
    why: str
    amount: Callable[[RegisterEntry], Decimal]


#: What the register's lines carry that no sales box of the 621 takes.
OUTSIDE: tuple[_OutsideRule, ...] = (
    _OutsideRule(
        "ICBPER",
        "El impuesto a las bolsas de plástico se declara aparte (el agente de percepción lo declara y "
        "paga con su propio formulario), no en las casillas de ventas del 621.",
        lambda e: _cents(e.icbper),
    ),
    _OutsideRule(
        "ISC",
        "El ISC se declara aparte; las listas del servicio no lo separan (va en «otros cargos»).",
        lambda e: _cents(e.isc),
    ),
    _OutsideRule(
        "Otros tributos y cargos",
        "Lo que el total lleva además de base, IGV, exportación, exonerado, inafecto e ICBPER (cargos, "
        "ISC): no es base del IGV.",
        lambda e: _cents(e.other),
    ),
)


@dataclass(frozen=True)
class Box:
    """One box of the form: its number, name and rule, its figure and the register lines behind it (those
    whose amount in it is not zero)."""

    number: str
    name: str
    rule: str
    amount: Decimal
    lines: tuple[RegisterEntry, ...]
    line_amounts: tuple[Decimal, ...]

    def by_document_type(self) -> dict[str, Decimal]:
        """The figure split by the lines' document type (``"01"`` facturas, ``"03"`` boletas, ``"07"``
        credit notes, negative in 100/101, ``"08"`` debit notes ...): what the notes did to it."""
        split: dict[str, Decimal] = {}
        for entry, amount in zip(self.lines, self.line_amounts, strict=True):
            split[entry.document_type] = split.get(entry.document_type, ZERO) + amount
        return dict(sorted(split.items()))


@dataclass(frozen=True)
class Outside:
    """An amount of the month's lines that no sales box takes, why, and its lines."""

    name: str
    why: str
    amount: Decimal
    lines: tuple[RegisterEntry, ...]
    line_amounts: tuple[Decimal, ...]


@dataclass(frozen=True)
class MonthlyIgv:
    """The sales side of a month's Formulario Virtual 621, made from the month's register."""

    period: Period
    boxes: tuple[Box, ...]
    outside: tuple[Outside, ...]
    #: The month's own lines (state 1, and 2 at zero), in the register's order.
    own: tuple[RegisterEntry, ...]
    #: The month's lines with no amount: voided or rejected documents (state 2).
    voided: tuple[RegisterEntry, ...]
    #: Lines of earlier periods in this register (states 8 and 9): they correct that month's 621.
    earlier: tuple[RegisterEntry, ...]
    #: The month's lines in another currency, converted at their own rate.
    foreign: tuple[RegisterEntry, ...]

    def box(self, number: str) -> Box:
        """The box ``number`` (``"100"``); :class:`KeyError` for a box this page does not fill."""
        for box in self.boxes:
            if box.number == number:
                return box
        raise KeyError(f"casilla {number}: no es una casilla de ventas que el registro llene")

    @property
    def output_igv(self) -> Decimal:
        """Box 131, the IGV of sales: 101 − 103."""
        return self.box("101").amount - self.box("103").amount

    @property
    def total(self) -> Decimal:
        """What the month's own lines add up to (their field 25, each to the cent): the boxes 100 + 101 −
        102 − 103 + 106 + 105 plus what no box takes, up to a line's own rounding."""
        return sum((_cents(e.total) for e in self.own), ZERO)


def _gathered(
    entries: Sequence[RegisterEntry], amount: Callable[[RegisterEntry], Decimal]
) -> tuple[Decimal, tuple[RegisterEntry, ...], tuple[Decimal, ...]]:
    lines, amounts = [], []
    total = ZERO
    for entry in entries:
        value = amount(entry)
        if value:
            lines.append(entry)
            amounts.append(value)
            total += value
    return total, tuple(lines), tuple(amounts)


def monthly_igv(register: SalesRegister) -> MonthlyIgv:
    """The boxes of ``register``'s month: its PLE lines of the month itself go to the boxes (a line with no
    amount, state 2, to :attr:`MonthlyIgv.voided`), its lines of earlier periods to
    :attr:`MonthlyIgv.earlier`. Consolidated boletas count as their line does."""
    lines = [e for e in register.entries if e.in_ple]
    own = [e for e in lines if e.period == register.period]
    boxes = []
    for rule in BOXES:
        total, found, amounts = _gathered(own, rule.amount)
        boxes.append(Box(rule.number, rule.name, rule.rule, total, found, amounts))
    outside = []
    for extra in OUTSIDE:
        total, found, amounts = _gathered(own, extra.amount)
        outside.append(Outside(extra.name, extra.why, total, found, amounts))
    return MonthlyIgv(
        period=register.period,
        boxes=tuple(boxes),
        outside=tuple(outside),
        own=tuple(own),
        voided=tuple(e for e in own if e.state == "2"),
        earlier=tuple(e for e in lines if e.period != register.period),
        foreign=tuple(e for e in own if e.currency != "PEN"),
    )
