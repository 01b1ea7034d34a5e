"""Cargo transport subject to detraction (operation 1004) for facturas: the trip of the service.

Form fields (family ``documents``, facturas): ``cargo.detail`` (what is carried; empty = not a cargo
transport), ``cargo.origin_ubigeo`` / ``cargo.origin_address``, ``cargo.destination_ubigeo`` /
``cargo.destination_address`` (ubigeos of catalog 13, 6 digits), the three reference values
``cargo.service_value`` (valor referencial del servicio de transporte), ``cargo.effective_load_value``
(sobre la carga efectiva) and ``cargo.payload_value`` (sobre la carga útil nominal), and
``cargo.account`` (the Banco de la Nación account, when the detraction plugin did not give one).

Prepare (runs last, after :mod:`plugins.detraction`, whose block it completes)::

    "codigo_tipo_operacion": "1004",
    "detraccion": {"codigo_tipo_detraccion": "027", "porcentaje": 4, "monto": 47.2,
                   "codigo_metodo_pago": "001", "cuenta_bancaria": "00-068-123456",
                   "detalle_viaje": "...", "ubigeo_origen": "150101", "direccion_origen": "...",
                   "ubigeo_destino": "040101", "direccion_destino": "...",
                   "valor_referencial_servicio_transporte": 1100.0,
                   "valor_referencia_carga_efectiva": 900.0, "valor_referencial_carga_util": 950.0},
    "leyendas": [..., {"codigo": "2006", "valor": "Operación sujeta a detracción"}]

The service writes the trip on every line as ``cac:Delivery`` (SUNAT 3116-3126). Validate: with
operation 1004 every trip key is present (3116-3126), the ubigeos are in catalog 13, the values ≥ 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connector import FieldError, FormField, hookimpl
from plugins._blocks import number, to_pen, total_of, with_detraction_legend
from sunat import catalogs
from sunat.detraction import detraction_amount
from sunat.money import round2
from sunat.ubigeo import is_valid_ubigeo

SECTION = "Transporte de carga (detracción 1004)"
DETAIL = "cargo.detail"
ORIGIN_UBIGEO = "cargo.origin_ubigeo"
ORIGIN_ADDRESS = "cargo.origin_address"
DESTINATION_UBIGEO = "cargo.destination_ubigeo"
DESTINATION_ADDRESS = "cargo.destination_address"
SERVICE_VALUE = "cargo.service_value"
EFFECTIVE_LOAD_VALUE = "cargo.effective_load_value"
PAYLOAD_VALUE = "cargo.payload_value"
ACCOUNT = "cargo.account"

OPERATION = "1004"
GOODS_CODE = "027"  # catalog 54: servicio de transporte de carga (SUNAT 3129)
#: Form key -> ``detraccion`` key, with the SUNAT rule that requires it.
TRIP_KEYS: dict[str, tuple[str, str]] = {
    DETAIL: ("detalle_viaje", "3120"),
    ORIGIN_UBIGEO: ("ubigeo_origen", "3116"),
    ORIGIN_ADDRESS: ("direccion_origen", "3117"),
    DESTINATION_UBIGEO: ("ubigeo_destino", "3118"),
    DESTINATION_ADDRESS: ("direccion_destino", "3119"),
    SERVICE_VALUE: ("valor_referencial_servicio_transporte", "3124"),
    EFFECTIVE_LOAD_VALUE: ("valor_referencia_carga_efectiva", "3125"),
    PAYLOAD_VALUE: ("valor_referencial_carga_util", "3126"),
}
AMOUNT_KEYS = frozenset({SERVICE_VALUE, EFFECTIVE_LOAD_VALUE, PAYLOAD_VALUE})


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The trip section of the factura form."""
    if document_type not in (None, "01"):
        return []
    return [
        FormField(
            DETAIL, "Detalle del viaje", "text", help="Vacío: no es transporte de carga.", section=SECTION
        ),
        FormField(
            ORIGIN_UBIGEO, "Ubigeo de origen", "text", help="6 dígitos (catálogo 13).", section=SECTION
        ),
        FormField(ORIGIN_ADDRESS, "Dirección de origen", "text", section=SECTION),
        FormField(
            DESTINATION_UBIGEO, "Ubigeo de destino", "text", help="6 dígitos (catálogo 13).", section=SECTION
        ),
        FormField(DESTINATION_ADDRESS, "Dirección de destino", "text", section=SECTION),
        FormField(
            SERVICE_VALUE,
            "Valor referencial del servicio de transporte",
            "number",
            section=SECTION,
            min_value=0,
        ),
        FormField(
            EFFECTIVE_LOAD_VALUE,
            "Valor referencial sobre la carga efectiva",
            "number",
            section=SECTION,
            min_value=0,
        ),
        FormField(
            PAYLOAD_VALUE,
            "Valor referencial sobre la carga útil nominal",
            "number",
            section=SECTION,
            min_value=0,
        ),
        FormField(
            ACCOUNT,
            "Cuenta de detracciones (Banco de la Nación)",
            "text",
            help="Si la sección Detracción ya la indica, se usa esa.",
            section=SECTION,
        ),
    ]


@hookimpl(families="documents", trylast=True)
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Operation 1004 with the trip in ``detraccion`` (code 027) when ``cargo.detail`` is given."""
    if not str(values.get(DETAIL) or "").strip():
        return None
    old = payload.get("detraccion") if isinstance(payload.get("detraccion"), Mapping) else {}
    block: dict[str, Any] = dict(old or {})
    percent = catalogs.DETRACTION_TYPES[GOODS_CODE][1]
    block.update(
        codigo_tipo_detraccion=GOODS_CODE,
        porcentaje=float(percent),
        codigo_metodo_pago=str(block.get("codigo_metodo_pago") or "001"),
        cuenta_bancaria=str(block.get("cuenta_bancaria") or values.get(ACCOUNT) or "").strip(),
    )
    total, factor = total_of(payload), to_pen(payload)
    if total is not None and factor is not None:
        block["monto"] = float(detraction_amount(total, percent, factor))
    for key, (name, _rule) in TRIP_KEYS.items():
        value = values.get(key)
        if key in AMOUNT_KEYS:
            amount = number(value)
            if amount is not None:
                block[name] = float(round2(amount))
        elif str(value or "").strip():
            block[name] = str(value).strip()
    legends = with_detraction_legend(payload)
    return {**payload, "codigo_tipo_operacion": OPERATION, "detraccion": block, "leyendas": legends}


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """With operation 1004: every trip key (SUNAT 3116-3126), ubigeos of catalog 13, values ≥ 0."""
    if str(payload.get("codigo_tipo_operacion") or "") != OPERATION:
        return []
    block = payload.get("detraccion")
    if not isinstance(block, Mapping):
        return []  # the detraction plugin (and the service) report the missing block
    problems: list[FieldError] = []
    for key, (name, rule) in TRIP_KEYS.items():
        path = f"detraccion.{name}"
        value = block.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            problems.append(FieldError(path, f"Falta {name} del transporte de carga (SUNAT {rule})."))
        elif key in AMOUNT_KEYS:
            amount = number(value)
            if amount is None or amount < 0:
                problems.append(
                    FieldError(path, "El valor referencial debe ser un monto de 0 o más (SUNAT 3123).")
                )
        elif name.startswith("ubigeo") and not is_valid_ubigeo(str(value)):
            problems.append(FieldError(path, f"El ubigeo {value} no está en el catálogo 13 (SUNAT 4200)."))
    return problems
