"""IGV perception charged on a sale (``percepcion``, operation 2001) for facturas and boletas.

Form field (family ``documents``): ``perception.code`` (catalog 53: ``51`` internal sale 2 %, ``52``
fuel 1 %, ``53`` special rate 0.5 %; empty = no perception).

Prepare (``trylast``: after the plugins that change the totals): operation ``2001`` and::

    "percepcion": {"codigo": "51", "porcentaje": 2.0, "base": 1180.0, "monto": 23.6}

``base`` is ``total_venta`` in soles (× ``factor_tipo_de_cambio`` for other currencies) and ``monto`` =
base × rate / 100; the service adds legend 2000 and the ``Percepcion`` payment terms.

Validate (whatever built the payload): operation 2001 with the block (SUNAT 3093) and the block only
with it (3308); sold cash, no ``cuotas`` (3330); the code's rate and amount (2798, by
:func:`sunat.totals.check_withholding`), a base above 0 (3233) and not above the total in soles (2797).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connector import FieldError, FormField, hookimpl
from plugins._blocks import number, to_pen, total_of
from sunat import catalogs
from sunat.money import round2
from sunat.rates import PERCEPTION_PERCENTS
from sunat.totals import check_withholding

SECTION = "Percepción"
CODE = "perception.code"
OPERATION = "2001"


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The perception section of the factura and boleta forms."""
    if document_type not in (None, "01", "03"):
        return []
    regimes = tuple(
        (code, f"{code} - {catalogs.CHARGE_DISCOUNT_TYPES[code]} ({rate.normalize():f} %)")
        for code, rate in PERCEPTION_PERCENTS.items()
    )
    return [
        FormField(
            CODE,
            "Régimen de percepción (catálogo 53)",
            "select",
            options=(("", "— sin percepción —"), *regimes),
            default="",
            help="Operación sujeta a percepción (2001), al contado; montos en soles.",
            section=SECTION,
        )
    ]


@hookimpl(families="documents", trylast=True)
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Set operation 2001 and the ``percepcion`` block when ``perception.code`` is chosen."""
    code = str(values.get(CODE) or "").strip()
    if not code:
        return None
    rate = PERCEPTION_PERCENTS.get(code)
    block: dict[str, Any] = {"codigo": code}
    if rate is not None:
        block["porcentaje"] = float(rate)
    total, factor = total_of(payload), to_pen(payload)
    if rate is not None and total is not None and factor is not None:
        base = round2(total * factor)
        block["base"] = float(base)
        block["monto"] = float(round2(base * rate / 100))
    return {**payload, "codigo_tipo_operacion": OPERATION, "percepcion": block}


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """Perception rules checked before sending (see the module docstring)."""
    block = payload.get("percepcion")
    operation = str(payload.get("codigo_tipo_operacion") or "")
    if block is None:
        if operation == OPERATION:
            return [FieldError("percepcion", "La operación 2001 requiere el bloque percepcion (SUNAT 3093).")]
        return []
    if not isinstance(block, Mapping):
        return [FieldError("percepcion", "El bloque percepcion debe ser un objeto.")]
    problems: list[FieldError] = []
    if operation != OPERATION:
        problems.append(
            FieldError(
                "codigo_tipo_operacion", "La percepción solo corresponde a la operación 2001 (SUNAT 3308)."
            )
        )
    if payload.get("codigo_tipo_documento") not in ("01", "03"):
        problems.append(FieldError("codigo_tipo_documento", "La percepción va en facturas y boletas."))
    if payload.get("cuotas") or payload.get("codigo_condicion_de_pago") == "02":
        problems.append(
            FieldError("percepcion", "La percepción solo se consigna en ventas al contado (SUNAT 3330).")
        )
    code = str(block.get("codigo") or "")
    if code not in PERCEPTION_PERCENTS:
        problems.append(
            FieldError(
                "percepcion.codigo", f"El código {code or '(vacío)'} no es de percepción (51, 52, 53)."
            )
        )
        return problems
    percent, amount, base = (number(block.get(key)) for key in ("porcentaje", "monto", "base"))
    if percent is None or amount is None or base is None:
        missing = [k for k, v in (("porcentaje", percent), ("monto", amount), ("base", base)) if v is None]
        problems += [
            FieldError(f"percepcion.{key}", f"Falta percepcion.{key} (un número).") for key in missing
        ]
        return problems
    problems += [
        FieldError(d.field, d.message) for d in check_withholding(code, percent, amount, base, "percepcion")
    ]
    total, factor = total_of(payload), to_pen(payload)
    if total is not None and factor is not None and base > round2(total * factor):
        problems.append(
            FieldError(
                "percepcion.base",
                f"La base de la percepción ({base}) supera el importe total en soles "
                f"({round2(total * factor)}) (SUNAT 2797).",
            )
        )
    return problems
