"""Global discounts and charges (catalog 53) for facturas, boletas and notes.

Form fields (family ``documents``): ``allowances.discount_percent`` (a global discount ``02``, in the
IGV base, as a percent of the taxed lines' base; empty = none) and ``allowances.charge_percent`` (a
global charge ``49``, in the base, likewise).

Prepare: each percent becomes an entry built with :class:`connector.builders.Discount` /
:class:`~connector.builders.Charge` (``base`` = Σ ``total_base_igv`` of the ``10`` lines, ``factor`` =
percent / 100, ``monto`` = base × factor) appended to ``descuentos`` / ``cargos``, and ``totales`` are
recomputed by :func:`sunat.totals.compute_totals` (taxed = Σ - 02 + 49, SUNAT 3277; value 3278;
payable 3280)::

    "descuentos": [{"codigo": "02", "descripcion": "...", "monto": 100.0, "base": 1000.0, "factor": 0.1}],
    "totales": {"total_operaciones_gravadas": 900.0, "total_igv": 162.0, "total_venta": 1062.0, ...}

Validate (whatever built the payload): global discounts only with codes 02-06 and charges 45, 46, 49,
50 (catalog 53); each with an amount > 0 and, when a factor is given, amount = base × factor ± 0.01
(SUNAT 3290); a 02 / 49 needs taxed lines to apply to.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from connector import FieldError, FormField, hookimpl
from connector.builders import Charge, Discount
from plugins._blocks import ZERO, number, taxed_base, with_totals
from sunat import catalogs
from sunat.money import round2

SECTION = "Descuentos y cargos"
DISCOUNT = "allowances.discount_percent"
CHARGE = "allowances.charge_percent"
DISCOUNT_CODE = "02"
CHARGE_CODE = "49"
CENT = Decimal("0.01")


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The global discount and charge of the document form."""
    return [
        FormField(
            DISCOUNT,
            "Descuento global (% de la base gravada, código 02)",
            "number",
            help="Descuento que afecta la base imponible del IGV. Vacío: sin descuento global.",
            section=SECTION,
            min_value=0,
        ),
        FormField(
            CHARGE,
            "Cargo global (% de la base gravada, código 49)",
            "number",
            help="Cargo que afecta la base imponible del IGV (p. ej. un recargo). Vacío: sin cargo global.",
            section=SECTION,
            min_value=0,
        ),
    ]


@hookimpl(families="documents")
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Append the 02 discount / 49 charge of the form and recompute ``totales``."""
    discount, charge = number(values.get(DISCOUNT)), number(values.get(CHARGE))
    if not discount and not charge:
        return None
    base = taxed_base(payload)
    prepared = dict(payload)
    for key, percent, kind, code in (
        ("descuentos", discount, Discount, DISCOUNT_CODE),
        ("cargos", charge, Charge, CHARGE_CODE),
    ):
        if percent:
            entry = kind(code, base=base, factor=percent / 100).to_payload()
            prepared[key] = [*(dict(e) for e in payload.get(key) or []), entry]
    return with_totals(prepared)


def _check(entries: Any, key: str, codes: frozenset[str], problem: Any, taxed: Decimal) -> None:
    if not isinstance(entries, list):
        problem(key, f"{key} debe ser una lista.")
        return
    for index, entry in enumerate(entries):
        path = f"{key}.{index}"
        if not isinstance(entry, Mapping):
            problem(path, "Cada descuento o cargo debe ser un objeto.")
            continue
        code = str(entry.get("codigo") or "")
        if code not in codes:
            allowed = ", ".join(sorted(codes))
            problem(
                f"{path}.codigo", f"El código {code or '(vacío)'} no es global aquí (catálogo 53: {allowed})."
            )
            continue
        amount, base, factor = (
            number(entry.get("monto")),
            number(entry.get("base")),
            number(entry.get("factor")),
        )
        if amount is None or amount <= 0:
            problem(f"{path}.monto", "El monto del descuento o cargo debe ser mayor que 0.")
        elif factor is not None and base is not None and abs(round2(base * factor) - amount) > CENT:
            problem(
                f"{path}.monto",
                f"El monto debe ser base × factor = {round2(base * factor)} (se recibió {amount}) "
                "(SUNAT 3290).",
            )
        if factor is not None and not ZERO < factor <= 1:
            problem(f"{path}.factor", "El factor debe ser mayor que 0 y hasta 1 (100 %).")
        if code in (DISCOUNT_CODE, CHARGE_CODE) and taxed <= 0:
            problem(
                f"{path}.codigo",
                f"El código {code} afecta la base gravada: el comprobante no tiene líneas gravadas.",
            )


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """Global discount and charge rules checked before sending (see the module docstring)."""
    problems: list[FieldError] = []

    def problem(field: str, message: str) -> None:
        problems.append(FieldError(field, message))

    taxed = taxed_base(payload)
    if payload.get("descuentos") is not None:
        _check(payload["descuentos"], "descuentos", catalogs.GLOBAL_DISCOUNTS, problem, taxed)
    if payload.get("cargos") is not None:
        _check(payload["cargos"], "cargos", catalogs.GLOBAL_CHARGES, problem, taxed)
    return problems
