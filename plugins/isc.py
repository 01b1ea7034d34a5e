"""ISC (Impuesto Selectivo al Consumo, scheme 2000) and other taxes (scheme 9999) on the lines of facturas,
boletas and notes.

Form fields (family ``documents``, section "ISC y otros tributos"): ``isc.system`` (catalog 08: ``01`` al
valor, ``02`` monto fijo, ``03`` precio de venta al público; empty = no ISC), ``isc.percent`` (the rate,
01 and 03), ``isc.per_unit`` (the fixed amount per unit, 02), ``isc.public_price`` (the public sale price
per unit, 03) and ``other_taxes.percent`` (other taxes as a percent of the line value; empty = none).

Prepare (``tryfirst``: before the plugins that read the totals): every onerous line that can carry them
(ISC: affectations 10, 20, 30; other taxes: all but exports and free lines) gets them by
:func:`sunat.totals.apply_line_taxes` (the ISC inside the IGV base, SUNAT 3272), and ``totales`` are
recomputed by :func:`sunat.totals.compute_totals` (``total_base_isc``, ``total_isc``,
``total_base_otros_impuestos``, ``total_otros_impuestos``; taxes 3294, payable 3280)::

    "items": [{..., "codigo_tipo_sistema_isc": "01", "total_base_isc": 50.0, "porcentaje_isc": 30,
               "total_isc": 15.0, "total_base_igv": 65.0, "total_igv": 11.7, "total_item": 76.7}]

Validate (whatever built the payload): each line's ISC and other taxes by :func:`sunat.totals.check_line`
(3223, 2373, 2041, 3104, 3108, 3109, 3272) and the header's totals of them (3296-3299).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from connector import FieldError, FormField, hookimpl
from plugins._blocks import line_amounts, number, with_totals
from sunat import catalogs
from sunat.money import TOLERANCE
from sunat.totals import Isc, LineAmounts, apply_line_taxes, check_line, compute_totals, has_isc

SECTION = "ISC y otros tributos"
SYSTEM = "isc.system"
PERCENT = "isc.percent"
PER_UNIT = "isc.per_unit"
PUBLIC_PRICE = "isc.public_price"
OTHER = "other_taxes.percent"
#: The line rules of sunat.totals.check_line this plugin answers for.
LINE_RULES = frozenset({"3223", "2373", "2041", "3104", "3108", "3109", "3272"})
HEADER_RULES = (
    ("total_base_isc", "isc_base", "3296"),
    ("total_base_otros_impuestos", "other_base", "3297"),
    ("total_isc", "isc", "3298"),
    ("total_otros_impuestos", "other", "3299"),
)


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The ISC and other taxes section of the document forms."""
    systems = tuple((code, f"{code} - {name}") for code, name in catalogs.ISC_SYSTEMS.items())
    return [
        FormField(
            SYSTEM,
            "Sistema de ISC (catálogo 08)",
            "select",
            options=(("", "— sin ISC —"), *systems),
            default="",
            help="Para cada ítem gravado, exonerado o inafecto; el ISC forma parte de la base del IGV.",
            section=SECTION,
        ),
        FormField(
            PERCENT, "Tasa del ISC (%)", "number", help="Sistemas 01 y 03.", section=SECTION, min_value=0
        ),
        FormField(
            PER_UNIT,
            "ISC por unidad (monto fijo)",
            "number",
            help="Sistema 02: monto por unidad vendida.",
            section=SECTION,
            min_value=0,
        ),
        FormField(
            PUBLIC_PRICE,
            "Precio de venta al público por unidad",
            "number",
            help="Sistema 03: la base del ISC es cantidad × este precio.",
            section=SECTION,
            min_value=0,
        ),
        FormField(
            OTHER,
            "Otros tributos (% del valor de venta)",
            "number",
            help="Tributo 9999, fuera de la base del IGV. Vacío: sin otros tributos.",
            section=SECTION,
            min_value=0,
        ),
    ]


def _isc(values: Mapping[str, Any]) -> Isc | None:
    system = str(values.get(SYSTEM) or "").strip()
    if not system:
        return None
    zero = Decimal("0")
    return Isc(
        system,
        percent=number(values.get(PERCENT)) or zero,
        per_unit=number(values.get(PER_UNIT)) or zero,
        public_price=number(values.get(PUBLIC_PRICE)) or zero,
    )


def _item(item: Mapping[str, Any], line: LineAmounts) -> dict[str, Any]:
    """``item`` with the amounts of ``line`` (after :func:`apply_line_taxes`)."""
    updated = {
        **item,
        "total_base_igv": float(line.igv_base),
        "total_igv": float(line.igv),
        "total_impuestos": float(line.taxes),
        "total_item": float(line.total),
        "precio_unitario": float(line.unit_price),
    }
    if has_isc(line):
        updated |= {
            "codigo_tipo_sistema_isc": line.isc_system,
            "total_base_isc": float(line.isc_base),
            "porcentaje_isc": float(line.isc_percent),
            "total_isc": float(line.isc),
        }
    if line.other_base or line.other:
        updated |= {
            "total_base_otros_impuestos": float(line.other_base),
            "porcentaje_otros_impuestos": float(line.other_percent),
            "total_otros_impuestos": float(line.other),
        }
    return updated


@hookimpl(families="documents", tryfirst=True)
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Add the form's ISC and other taxes to every line that can carry them and recompute ``totales``."""
    isc, other = _isc(values), number(values.get(OTHER))
    if isc is None and not other:
        return None
    items = []
    for item in payload.get("items") or []:
        if not isinstance(item, Mapping):
            items.append(item)
            continue
        line = line_amounts(item)
        affectation = line.affectation
        line_isc = isc if affectation in catalogs.ISC_AFFECTATIONS else None
        line_other = other if other and affectation != "40" and not catalogs.is_free(affectation) else None
        if (line_isc is None and line_other is None) or line.quantity <= 0:
            items.append(dict(item))
            continue
        try:
            items.append(_item(item, apply_line_taxes(line, line_isc, line_other)))
        except ValueError:  # an incomplete form (no rate, no amount per unit): validation names the field
            incomplete = dict(item)
            if line_isc is not None:
                incomplete |= {
                    "codigo_tipo_sistema_isc": line_isc.system,
                    "total_base_isc": float(line.value),
                    "porcentaje_isc": 0,
                    "total_isc": 0,
                }
            items.append(incomplete)
    return with_totals({**payload, "items": items})


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """ISC and other taxes checked before sending (see the module docstring)."""
    items = [item for item in payload.get("items") or [] if isinstance(item, Mapping)]
    lines = [line_amounts(item) for item in items]
    if not any(has_isc(line) or line.other_base or line.other for line in lines):
        return []
    problems = [
        FieldError(d.field, f"{d.message} (SUNAT {d.code})")
        for index, line in enumerate(lines)
        for d in check_line(line, index)
        if d.code in LINE_RULES
    ]
    totals = payload.get("totales")
    if isinstance(totals, Mapping):
        expected = compute_totals(lines)
        for key, name, code in HEADER_RULES:
            given = number(totals.get(key))
            want = getattr(expected, name)
            if (given is not None or want) and abs((given or Decimal("0")) - want) > TOLERANCE:
                problems.append(
                    FieldError(
                        f"totales.{key}",
                        f"totales.{key} debe ser {want} (se recibió {given}) (SUNAT {code}).",
                    )
                )
    return problems
