"""The lines and totals of a sales document against SUNAT's formulas (:mod:`sunat.totals`).

Every line and header amount a client sends is checked with SUNAT's tolerances
(:func:`check_amounts`); header totals a client leaves out are taken from the lines
(:func:`header_totals`); the document then carries SUNAT's own figures (:func:`with_sunat_figures`).
The line rules that are not amounts (price type of free lines, export and IVAP affectations) and the
ISC and other taxes of the items (:data:`~facturador.domain.document_schema.ISC_FIELDS`: 3108, 3109,
3104, 2373, 2041, 3223, 3272, 3296-3299 through ``sunat.totals``) are checked here too.
"""

from __future__ import annotations

import datetime as dt
import operator
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from facturador.domain.document_schema import AMOUNT
from facturador.errors import FieldError, field_error, validation_error
from facturador.issued import AllowanceCharge, Line, Prepayment, Totals
from sunat import catalogs
from sunat import totals as sunat_totals
from sunat.money import round2
from sunat.rates import ALLOWED_IGV_PERCENTS, icbper_rate

CENT = Decimal("0.01")


#: The ``totales`` key of each :class:`~facturador.issued.Totals` amount, in Totals' order.
_TOTALS_KEYS = {
    "export": "total_exportacion",
    "taxed": "total_operaciones_gravadas",
    "unaffected": "total_operaciones_inafectas",
    "exonerated": "total_operaciones_exoneradas",
    "free": "total_operaciones_gratuitas",
    "igv": "total_igv",
    "igv_free": "total_igv_operaciones_gratuitas",
    "icbper": "total_impuestos_bolsa_plastica",
    "taxes": "total_impuestos",
    "value": "total_valor",
    "subtotal": "subtotal_venta",
    "total": "total_venta",
    "discounts": "total_descuentos",
    "charges": "total_cargos",
    "prepaid": "total_anticipos",
    "isc_base": "total_base_isc",
    "isc": "total_isc",
    "other_base": "total_base_otros_impuestos",
    "other": "total_otros_impuestos",
}


assert tuple(_TOTALS_KEYS) == tuple(Totals.__dataclass_fields__)
_AMOUNT_LIMIT = Decimal(10) ** AMOUNT.integer_digits


def header_totals(values: Mapping[str, Any], computed: sunat_totals.DocumentTotals) -> Totals:
    """Header totals; optional ones the client leaves out are taken from ``computed`` (the lines, the
    global discounts and charges and the advances: ``sunat.totals.compute_totals``), and must fit
    n(12,2). ``subtotal_venta`` defaults to value + taxes."""
    amounts = []  # in Totals' order (that of _TOTALS_KEYS), passed by position: 19 keywords build a dict
    for name, key in _TOTALS_KEYS.items():
        given = values[key]
        if given is None:
            if name == "subtotal":
                given = values["total_valor"] + values["total_impuestos"]
            else:
                given = getattr(computed, name)
            if abs(given) >= _AMOUNT_LIMIT:
                raise field_error(
                    f"totales.{key}",
                    f"El campo totales.{key} calculado de los ítems ({round2(given)}) está fuera de rango: "
                    f"admite hasta {AMOUNT.integer_digits} dígitos enteros.",
                )
        amounts.append(given)
    return Totals(*amounts)


def _item_path(line: Line) -> str:
    """Where a line is in the body (``items.0``): built only for an error."""
    return f"items.{line.index - 1}"


def check_line_rules(doc_type: str, operation_type: str, lines: tuple[Line, ...]) -> None:
    """Price types and affectations: free lines by a referential value (02) and only they, exports of
    affectation 40 and only in export operations, IVAP (17) lines alone in their document."""
    for line in lines:
        free = catalogs.is_free(line.affectation)
        if free and line.price_type != "02":
            raise field_error(
                f"{_item_path(line)}.codigo_tipo_precio",
                f"El ítem {line.index} es gratuito (afectación {line.affectation}): "
                "codigo_tipo_precio debe ser 02.",
                "INVALID_FIELD",
            )
        if not free and line.price_type == "02":
            raise field_error(
                f"{_item_path(line)}.codigo_tipo_precio",
                f"El ítem {line.index} es oneroso: codigo_tipo_precio 02 es solo para ítems gratuitos.",
                "INVALID_FIELD",
            )
        if operation_type in catalogs.EXPORT_OPERATION_TYPES and line.affectation != "40" and not free:
            raise field_error(
                f"{_item_path(line)}.codigo_tipo_afectacion_igv",
                "En una operación de exportación los ítems deben tener afectación 40.",
                "INVALID_FIELD",
            )
        if (
            line.affectation == "40"
            and operation_type
            and operation_type not in catalogs.EXPORT_OPERATION_TYPES
        ):
            raise field_error(
                f"{_item_path(line)}.codigo_tipo_afectacion_igv",
                "La afectación 40 (exportación) requiere un tipo de operación de exportación (0200-0208).",
                "INVALID_FIELD",
            )
        if line.affectation == "17" and any(other.affectation != "17" for other in lines):
            raise field_error(
                f"{_item_path(line)}.codigo_tipo_afectacion_igv",
                "Un comprobante con IVAP (afectación 17, venta de arroz pilado) lleva solo ítems con "
                "afectación 17.",
                "INVALID_FIELD",
            )


def check_isc_lines(operation_type: str, lines: tuple[Line, ...]) -> None:
    """ISC and other taxes: not on free lines (not supported: SUNAT leaves their ISC out of the header),
    and an export operation takes no other taxes (SUNAT 3107). Their amounts are checked with the rest of
    the line (``sunat.totals.check_line``: 3223, 2373, 3104, 3108, 3109, 3272)."""
    for line in lines:
        isc, other = sunat_totals.has_isc(line), sunat_totals.has_other_taxes(line)
        if not (isc or other):  # most lines
            continue
        p = f"items.{line.index - 1}"
        if catalogs.is_free(line.affectation):
            raise field_error(
                f"{p}.{'total_isc' if isc else 'total_otros_impuestos'}",
                f"El ítem {line.index} es gratuito (afectación {line.affectation}): el servicio no admite "
                "ISC ni otros tributos en ítems gratuitos.",
                "INVALID_FIELD",
            )
        if other and operation_type in catalogs.EXPORT_OPERATION_TYPES:
            raise field_error(
                f"{p}.total_otros_impuestos",
                "Una exportación no lleva otros tributos (regla SUNAT 3107).",
                "INVALID_FIELD",
            )


def advances_total(prepayments: tuple[Prepayment, ...]) -> Decimal:
    """PrepaidAmount: Σ of the advances' ``monto``."""
    return sum((prepayment.amount for prepayment in prepayments), Decimal("0"))


def check_prepaid_amount(totals: Totals) -> None:
    """The advances cannot exceed what the invoice is worth before them (the payable would be negative)."""
    if totals.prepaid and totals.prepaid > totals.subtotal + totals.charges - totals.discounts:
        raise field_error(
            "totales.total_anticipos",
            f"Los anticipos ({round2(totals.prepaid)}) no pueden ser mayores que el importe de la factura "
            f"({round2(totals.subtotal + totals.charges - totals.discounts)}); regla SUNAT 3280.",
            "INVALID_FIELD",
        )


def check_amounts(
    lines: tuple[Line, ...],
    totals: Totals,
    issue_date: dt.date,
    allowances: tuple[AllowanceCharge, ...],
    prepayments: tuple[Prepayment, ...] = (),
    *,
    note: bool = False,
    computed: sunat_totals.DocumentTotals | None = None,
) -> tuple[bool, ...]:
    """Every line and header amount against SUNAT's formulas and tolerances (``sunat.totals``);
    ``computed`` is what ``compute_totals`` gave for these lines, when the caller has it. Returns, per
    line, whether it carries SUNAT's own figures already (``sunat.totals.check_line_exactly``), for
    :func:`with_sunat_figures`."""
    percents = ALLOWED_IGV_PERCENTS(issue_date)
    rate = icbper_rate(issue_date)
    discrepancies = []
    exact = []
    for i, line in enumerate(lines):
        found, line_exact = sunat_totals.check_line_exactly(
            line, i, allowed_percents=percents, icbper_rate=rate, note=note
        )
        discrepancies += found
        exact.append(line_exact)
    discrepancies += sunat_totals.check_totals(
        lines, totals, allowances=allowances, prepaid=advances_total(prepayments), computed=computed
    )
    if discrepancies:
        errors = [FieldError(d.field, f"{d.message} (regla SUNAT {d.code})") for d in discrepancies]
        first = discrepancies[0]
        raise validation_error(
            f"Los montos no cuadran: {first.message} (regla SUNAT {first.code})"
            + (f" (y {len(discrepancies) - 1} diferencia(s) más)" if len(discrepancies) > 1 else ""),
            "TOTALS_MISMATCH",
            errors,
        )
    return tuple(exact)


def with_sunat_figures(
    lines: tuple[Line, ...],
    computed: sunat_totals.DocumentTotals,
    allowances: tuple[AllowanceCharge, ...],
    prepayments: tuple[Prepayment, ...],
    *,
    note: bool,
    exact: tuple[bool, ...] = (),
) -> tuple[tuple[Line, ...], Totals]:
    """The checked lines and totals with SUNAT's own figures: amounts a client sent within SUNAT's
    tolerance are accepted (:func:`check_amounts`) and the document carries what SUNAT computes
    (``sunat.totals.sunat_figures`` per line, ``compute_totals`` for the header: ``computed``, the
    client's lines' totals, when SUNAT's lines are the client's).

    Not applied when the body carries instalments, a detraction, a perception, a retention or payments:
    their amounts were derived by the client from its own total (Σ cuotas = total - detraction to the
    cent, SUNAT 3319; the perception's base = the total, 2797), which a cent of difference would break,
    so such a document keeps the client's figures (already within SUNAT's tolerance). When every line is
    SUNAT's to the cent the lines are kept and only the header is summed from them: lines sold by a price
    with IGV keep their totals (a sale note's lines of 11.80 and 6.00 stay 17.80 in the factura made of
    it, where SUNAT's IGV of each line would give 17.79). ``exact``: what :func:`check_amounts` returned for
    these lines (a line SUNAT's already needs no figuring)."""
    known = exact or (False,) * len(lines)  # the lines check_amounts found SUNAT's to the last digit
    if len(known) != len(lines):
        raise ValueError("exact must say, for each line, whether it is SUNAT's already")
    if not all(known):  # else every line is SUNAT's already, and so are the totals computed from them
        figured = tuple(
            line if same else sunat_totals.sunat_figures(line, note=note)
            for line, same in zip(lines, known, strict=True)
        )
        if not all(_within_a_cent(given, sunat) for given, sunat in zip(lines, figured, strict=True)):
            computed = sunat_totals.compute_totals(figured, allowances, prepaid=advances_total(prepayments))
            return figured, Totals(*_TOTALS_OF(computed))
        # else a price with IGV kept to the cent is a rounding, not a correction: the lines are kept
    return lines, Totals(*_TOTALS_OF(computed))


#: The header totals of a :class:`sunat.totals.DocumentTotals` that :class:`Totals` carries, in its order.
_TOTALS_OF = operator.attrgetter(*Totals.__dataclass_fields__)


_FIGURES = ("value", "igv_base", "igv", "isc", "other", "taxes", "total")


def _within_a_cent(given: Line, sunat: Line) -> bool:
    """Every amount of the line ``given`` is SUNAT's to the cent (± 0.01)."""
    if given is sunat:  # sunat_figures found nothing to change
        return True
    return all(abs(getattr(given, name) - getattr(sunat, name)) <= CENT for name in _FIGURES)
