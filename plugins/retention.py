"""IGV retention (``retencion``, catalog 53 code 62, 3 %) the customer, a retention agent, practises on
a factura or boleta.

Form field (family ``documents``): ``retention.apply`` (a checkbox).

Prepare (``trylast``: after the plugins that change the totals)::

    "retencion": {"codigo": "62", "porcentaje": 3.0, "base": 1180.0, "monto": 35.4}

``base`` is ``total_venta`` and ``monto`` = base × 3 / 100 (SUNAT writes it as ``AllowanceCharge`` 62).

Validate (whatever built the payload): a customer with RUC (SUNAT 3262); code 62 with its rate and
amount (3263, by :func:`sunat.totals.check_withholding`); a base not above the total (3264).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connector import FieldError, FormField, hookimpl
from plugins._blocks import number, total_of
from sunat.money import round2
from sunat.rates import RETENTION_PERCENT
from sunat.totals import check_withholding

SECTION = "Retención"
APPLY = "retention.apply"
CODE = "62"


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The retention section of the factura and boleta forms."""
    if document_type not in (None, "01", "03"):
        return []
    return [
        FormField(
            APPLY,
            f"El cliente retiene el IGV ({RETENTION_PERCENT.normalize():f} %, código 62)",
            "checkbox",
            default=False,
            help="Solo para clientes con RUC designados agentes de retención.",
            section=SECTION,
        )
    ]


@hookimpl(families="documents", trylast=True)
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Add the ``retencion`` block on the final total when ``retention.apply`` is set."""
    if values.get(APPLY) is not True:
        return None
    block: dict[str, Any] = {"codigo": CODE, "porcentaje": float(RETENTION_PERCENT)}
    total = total_of(payload)
    if total is not None:
        block["base"] = float(round2(total))
        block["monto"] = float(round2(total * RETENTION_PERCENT / 100))
    return {**payload, "retencion": block}


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """Retention rules checked before sending (see the module docstring)."""
    if payload.get("retencion") is None:
        return []
    block = payload["retencion"]
    if not isinstance(block, Mapping):
        return [FieldError("retencion", "El bloque retencion debe ser un objeto.")]
    problems: list[FieldError] = []
    customer = payload.get("datos_del_cliente_o_receptor")
    identity = customer.get("codigo_tipo_documento_identidad") if isinstance(customer, Mapping) else None
    if str(identity) != "6":
        problems.append(
            FieldError(
                "retencion", "La retención la practica un cliente con RUC, agente de retención (SUNAT 3262)."
            )
        )
    if payload.get("codigo_tipo_documento") not in ("01", "03"):
        problems.append(FieldError("codigo_tipo_documento", "La retención va en facturas y boletas."))
    if str(block.get("codigo") or "") != CODE:
        problems.append(FieldError("retencion.codigo", "La retención del IGV es el código 62 (catálogo 53)."))
        return problems
    percent, amount, base = (number(block.get(key)) for key in ("porcentaje", "monto", "base"))
    if percent is None or amount is None or base is None:
        missing = [k for k, v in (("porcentaje", percent), ("monto", amount), ("base", base)) if v is None]
        return problems + [
            FieldError(f"retencion.{key}", f"Falta retencion.{key} (un número).") for key in missing
        ]
    problems += [
        FieldError(d.field, d.message) for d in check_withholding(CODE, percent, amount, base, "retencion")
    ]
    total = total_of(payload)
    if total is not None and base > round2(total):
        problems.append(
            FieldError(
                "retencion.base",
                f"La base de la retención ({base}) supera el importe total ({total}) (SUNAT 3264).",
            )
        )
    return problems
