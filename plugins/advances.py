"""Advances (*anticipos*) deducted by a final factura or boleta.

Form fields (family ``documents``, facturas and boletas): ``advances.number`` (the advance's series and
number, ``F001-9`` / ``B001-3``; empty = none), ``advances.amount`` (the value deducted, without IGV) and
``advances.total`` (the advance's total; empty = amount x 1.18, the IGV of a taxed advance).

Prepare, with :class:`connector.builders.Prepayment` and :class:`~connector.builders.Discount`::

    "anticipos": [{"numero": "F001-9", "codigo_tipo_documento": "02", "monto": 500.0, "total": 590.0}],
    "descuentos": [..., {"codigo": "04", "descripcion": "Anticipos", "monto": 500.0, "base": 500.0,
                         "factor": 1.0}],
    "totales": {..., "total_anticipos": 500.0}            # recomputed by sunat.totals.compute_totals

(``02`` for a factura series ``F...``, ``03`` for a boleta ``B...``).

Validate (whatever built the payload): only facturas and boletas deduct advances; each number
``SERIE-N`` once (SUNAT 3212) with its type (02 ↔ F, 03 ↔ B; 2521), an amount > 0 not above its total;
advances need a discount 04-06 of the same sum (3287) and a 04-06 needs advances (3282); the deducted
sum is ``totales.total_anticipos`` (2509).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from connector import FieldError, FormField, hookimpl
from connector.builders import Discount, Prepayment
from plugins._blocks import ZERO, number, with_totals
from sunat import catalogs
from sunat.rates import IGV_PERCENT
from sunat.totals import line_igv

SECTION = "Anticipos"
NUMBER = "advances.number"
AMOUNT = "advances.amount"
TOTAL = "advances.total"
ADVANCE_DISCOUNT = "04"
NUMBER_FORMAT = re.compile(r"^[FB][A-Z0-9]{3}-[0-9]{1,8}$")
TYPE_OF_SERIES = {"F": "02", "B": "03"}
CENT = Decimal("0.01")


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The advance section of the factura and boleta forms."""
    if document_type not in (None, "01", "03"):
        return []
    return [
        FormField(
            NUMBER,
            "Comprobante de anticipo (serie-número)",
            "text",
            help="F001-9 (factura de anticipo) o B001-3 (boleta). Vacío: sin anticipos.",
            section=SECTION,
        ),
        FormField(AMOUNT, "Monto deducido (sin IGV)", "number", section=SECTION, min_value=0, required=True),
        FormField(
            TOTAL,
            "Total del anticipo",
            "number",
            help="Vacío: el monto más el IGV.",
            section=SECTION,
            min_value=0,
        ),
    ]


@hookimpl(families="documents")
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Append the advance, its discount 04 and recompute ``totales`` (with ``total_anticipos``)."""
    advance = str(values.get(NUMBER) or "").strip().upper()
    if not advance:
        return None
    amount = number(values.get(AMOUNT)) or ZERO
    total = number(values.get(TOTAL))
    if total is None:
        total = amount + line_igv("10", amount, IGV_PERCENT)  # an advance is a taxed sale
    entry = Prepayment(advance, amount, total, doc_type=TYPE_OF_SERIES.get(advance[:1], "02")).to_payload()
    prepared: dict[str, Any] = {
        **payload,
        "anticipos": [*(dict(a) for a in payload.get("anticipos") or []), entry],
    }
    discounts = [dict(d) for d in payload.get("descuentos") or []]
    found = next((d for d in discounts if d.get("codigo") == ADVANCE_DISCOUNT), None)
    if found is None:
        discounts.append(Discount(ADVANCE_DISCOUNT, amount, amount, 1, "Anticipos").to_payload())
    else:  # one discount 04 for every advance
        deducted = (number(found.get("monto")) or ZERO) + amount
        found.update(Discount(ADVANCE_DISCOUNT, deducted, deducted, 1, "Anticipos").to_payload())
    prepared["descuentos"] = discounts
    return with_totals(prepared)


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """Advance rules checked before sending (see the module docstring)."""
    entries = payload.get("anticipos") or []
    discounts = payload.get("descuentos") or []
    advance_discounts = (
        [d for d in discounts if isinstance(d, Mapping) and d.get("codigo") in catalogs.PREPAYMENT_DISCOUNTS]
        if isinstance(discounts, list)
        else []
    )
    if not entries:
        if advance_discounts:
            return [
                FieldError(
                    "anticipos", "Un descuento 04-06 (anticipo) requiere el bloque anticipos (SUNAT 3282)."
                )
            ]
        return []
    if not isinstance(entries, list):
        return [FieldError("anticipos", "anticipos debe ser una lista.")]
    problems: list[FieldError] = []

    def problem(field: str, message: str) -> None:
        problems.append(FieldError(field, message))

    if payload.get("codigo_tipo_documento") not in ("01", "03"):
        problem("codigo_tipo_documento", "Solo una factura o boleta deduce anticipos.")
    seen: set[str] = set()
    deducted = ZERO
    for index, entry in enumerate(entries):
        path = f"anticipos.{index}"
        if not isinstance(entry, Mapping):
            problem(path, "Cada anticipo debe ser un objeto.")
            continue
        advance = str(entry.get("numero") or "")
        if not NUMBER_FORMAT.match(advance):
            problem(
                f"{path}.numero",
                f"El anticipo {advance or '(vacío)'} no tiene la forma SERIE-NÚMERO (F001-9).",
            )
        elif advance in seen:
            problem(f"{path}.numero", f"El anticipo {advance} está repetido (SUNAT 3212).")
        elif entry.get("codigo_tipo_documento") != TYPE_OF_SERIES[advance[0]]:
            problem(
                f"{path}.codigo_tipo_documento",
                f"El anticipo {advance} debe ser del tipo {TYPE_OF_SERIES[advance[0]]} (SUNAT 2521).",
            )
        seen.add(advance)
        amount, total = number(entry.get("monto")), number(entry.get("total"))
        if amount is None or amount <= 0:
            problem(f"{path}.monto", "El monto deducido del anticipo debe ser mayor que 0.")
            continue
        if total is not None and total < amount:
            problem(f"{path}.monto", f"El monto deducido ({amount}) supera el total del anticipo ({total}).")
        deducted += amount
    if not advance_discounts:
        problem("descuentos", "Los anticipos se deducen con un descuento global 04, 05 o 06 (SUNAT 3287).")
    else:
        discounted = sum((number(d.get("monto")) or ZERO for d in advance_discounts), ZERO)
        if abs(discounted - deducted) > CENT:
            problem(
                "descuentos", f"Los descuentos 04-06 ({discounted}) deben sumar los anticipos ({deducted})."
            )
    totals = payload.get("totales")
    declared = number(totals.get("total_anticipos")) if isinstance(totals, Mapping) else None
    if declared is None or abs(declared - deducted) > CENT:
        problem(
            "totales.total_anticipos",
            f"total_anticipos debe ser la suma de los anticipos ({deducted}) (SUNAT 2509).",
        )
    return problems
