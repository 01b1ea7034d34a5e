"""Detraction (SPOT, *Sistema de Pago de Obligaciones Tributarias*) for facturas.

Form fields (family ``documents``, facturas): ``detraction.code`` (catalog 54 good or service; empty =
no detraction), ``detraction.percent`` (empty = the catalog's rate), ``detraction.account`` (the
supplier's Banco de la Nación account) and ``detraction.payment_method`` (catalog 59, default ``001``).

Prepare: when ``detraction.code`` is given, the payload gets (``docs/scenarios.md``)::

    "codigo_tipo_operacion": "1001",          # kept when it already is 1002, 1003 or 1004
    "detraccion": {"codigo_tipo_detraccion": "037", "porcentaje": 12, "monto": 141.6,
                   "codigo_metodo_pago": "001", "cuenta_bancaria": "00-000-123456"},
    "leyendas": [..., {"codigo": "2006", "valor": "Operación sujeta a detracción"}]

``monto`` = ``total_venta`` × ``porcentaje`` / 100, in soles (× ``factor_tipo_de_cambio`` for other
currencies), two decimals. Legend 2006 is added by the client: the real services do not add it.

Validate (whatever built the payload): a factura (01); operation 1001–1004 with the block and the
block only with them (SUNAT 3127/3128); goods code in catalog 54 (3033) and the one the operation
requires (1002 → 004, 1003 → 028, 1004 → 027; 3129); percent in (0, 100]; amount > 0 and within
± 1.00 of total × percent (PEN); the account (3034); payment method in catalog 59. Operations up to
S/ 700 are not subject to detraction by law, but SUNAT does not check it: that, and a missing legend
2006 (observation 4265), give a :class:`DetractionWarning` instead of blocking.
Cargo transport (1004) needs trip details (``detalle_viaje``, ubigeos ...) this plugin does not fill.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from connector import FieldError, FormField, hookimpl
from plugins._blocks import number, to_pen, total_of, with_detraction_legend
from sunat import catalogs
from sunat.detraction import detraction_amount
from sunat.money import TOLERANCE, round2

SECTION = "Detracción"
CODE = "detraction.code"
PERCENT = "detraction.percent"
ACCOUNT = "detraction.account"
PAYMENT_METHOD = "detraction.payment_method"

DETRACTION_OPERATION = "1001"
#: Operations up to this amount (soles) are not subject to detraction (tax law, not an XML rule).
THRESHOLD = Decimal("700")
#: Goods code each special detraction operation requires (SUNAT 3129).
REQUIRED_CODE = {"1002": "004", "1003": "028", "1004": "027"}


class DetractionWarning(UserWarning):
    """Something SUNAT accepts but that is probably a mistake (amount up to S/ 700, no legend 2006)."""


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The detraction section of the factura form."""
    if document_type not in (None, "01"):
        return []
    goods = tuple(
        (code, f"{code} - {description} ({rate.normalize():f} %)")
        for code, (description, rate) in catalogs.DETRACTION_TYPES.items()
    )
    means = tuple((code, f"{code} - {description}") for code, description in catalogs.PAYMENT_MEANS.items())
    return [
        FormField(
            CODE,
            "Bien o servicio sujeto a detracción (catálogo 54)",
            "select",
            options=(("", "— sin detracción —"), *goods),
            default="",
            help="Operación sujeta a detracción (1001). Aplica a operaciones mayores a S/ 700.",
            section=SECTION,
        ),
        FormField(
            PERCENT,
            "Porcentaje de detracción",
            "number",
            help="Vacío: la tasa del catálogo 54 para el bien o servicio elegido.",
            section=SECTION,
            min_value=0,
        ),
        FormField(
            ACCOUNT,
            "Cuenta de detracciones (Banco de la Nación)",
            "text",
            help="Cuenta del proveedor en el Banco de la Nación donde el cliente deposita la detracción.",
            section=SECTION,
            required=True,
        ),
        FormField(
            PAYMENT_METHOD,
            "Medio de pago (catálogo 59)",
            "select",
            options=means,
            default="001",
            section=SECTION,
        ),
    ]


@hookimpl(families="documents")
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Add operation 1001, the ``detraccion`` block and legend 2006 when ``detraction.code`` is set."""
    code = str(values.get(CODE) or "").strip()
    if not code:
        return None
    percent = number(values.get(PERCENT))
    if percent is None or percent == 0:
        percent = catalogs.DETRACTION_TYPES[code][1] if code in catalogs.DETRACTION_TYPES else Decimal(0)
    block: dict[str, Any] = {
        "codigo_tipo_detraccion": code,
        "porcentaje": float(percent),
        "codigo_metodo_pago": str(values.get(PAYMENT_METHOD) or "001"),
        "cuenta_bancaria": str(values.get(ACCOUNT) or "").strip(),
    }
    total, factor = total_of(payload), to_pen(payload)
    if total is not None and factor is not None:
        block["monto"] = float(detraction_amount(total, percent, factor))
    operation = payload.get("codigo_tipo_operacion")
    if operation not in catalogs.DETRACTION_OPERATION_TYPES:
        operation = DETRACTION_OPERATION
    legends = with_detraction_legend(payload)
    return {**payload, "codigo_tipo_operacion": operation, "detraccion": block, "leyendas": legends}


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """Detraction rules checked before sending (see the module docstring)."""
    block = payload.get("detraccion")
    operation = str(payload.get("codigo_tipo_operacion") or "")
    if not block:
        if operation in catalogs.DETRACTION_OPERATION_TYPES:
            return [
                FieldError(
                    "detraccion",
                    f"La operación {operation} está sujeta a detracción: falta el bloque detraccion "
                    "(SUNAT 3127).",
                )
            ]
        return []
    if not isinstance(block, Mapping):
        return [FieldError("detraccion", "El bloque detraccion debe ser un objeto.")]
    problems: list[FieldError] = []

    def problem(field: str, message: str) -> None:
        problems.append(FieldError(field, message))

    if payload.get("codigo_tipo_documento") != "01":
        problem("codigo_tipo_documento", "La detracción solo se aplica a facturas (tipo de documento 01).")
    if operation not in catalogs.DETRACTION_OPERATION_TYPES:
        problem(
            "codigo_tipo_operacion",
            f"Con detracción el tipo de operación debe ser 1001, 1002, 1003 o 1004 (se recibió "
            f"{operation or 'ninguno'}) (SUNAT 3128).",
        )
    code = str(block.get("codigo_tipo_detraccion") or "")
    if code not in catalogs.DETRACTION_TYPES:
        problem(
            "detraccion.codigo_tipo_detraccion",
            f"El código de bien o servicio {code or '(vacío)'} no está en el catálogo 54 (SUNAT 3033).",
        )
    elif operation in REQUIRED_CODE and code != REQUIRED_CODE[operation]:
        problem(
            "detraccion.codigo_tipo_detraccion",
            f"La operación {operation} requiere el código {REQUIRED_CODE[operation]} (SUNAT 3129).",
        )
    percent = number(block.get("porcentaje"))
    if percent is None or not 0 < percent <= 100:
        problem("detraccion.porcentaje", "El porcentaje de detracción debe ser mayor que 0 y hasta 100.")
    amount = number(block.get("monto"))
    total, factor = total_of(payload), to_pen(payload)
    if amount is None or amount <= 0:
        hint = "" if factor is not None else " (en otra moneda indique factor_tipo_de_cambio)"
        problem(
            "detraccion.monto", f"El monto de la detracción en soles debe ser mayor que 0{hint} (SUNAT 3035)."
        )
    elif percent is not None and total is not None and factor is not None:
        expected = detraction_amount(total, percent, factor)
        if abs(expected - amount) > TOLERANCE:
            problem(
                "detraccion.monto",
                f"El monto de la detracción debe ser {expected} (total {total} × {percent.normalize():f} %"
                f"{'' if factor == 1 else f' × {factor}'}), se recibió {amount}.",
            )
    if not str(block.get("cuenta_bancaria") or "").strip():
        problem(
            "detraccion.cuenta_bancaria",
            "Falta la cuenta de detracciones del Banco de la Nación (SUNAT 3034).",
        )
    if str(block.get("codigo_metodo_pago") or "") not in catalogs.PAYMENT_MEANS:
        problem("detraccion.codigo_metodo_pago", "El medio de pago no está en el catálogo 59.")

    if not problems:
        legends = payload.get("leyendas") or []
        if not any(isinstance(item, Mapping) and item.get("codigo") == "2006" for item in legends):
            warnings.warn(
                "Detracción sin la leyenda 2006 'Operación sujeta a detracción' (SUNAT la observa: 4265).",
                DetractionWarning,
                stacklevel=2,
            )
        if total is not None and factor is not None and total * factor <= THRESHOLD:
            warnings.warn(
                f"El total S/ {round2(total * factor)} no supera S/ {THRESHOLD}: la operación no está sujeta "
                "a detracción por ley (SUNAT no lo valida).",
                DetractionWarning,
                stacklevel=2,
            )
    return problems
