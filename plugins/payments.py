"""Payments received for the sale (``pagos``): not in the XML; the service stores, prints and lists them.

Form fields (family ``documents``, facturas and boletas): ``payments.method`` (the service's payment
methods, ``01`` cash, ``02`` credit card, ...; empty = no payment registered), ``payments.amount``
(empty = the document's total) and ``payments.reference`` (voucher or operation number).

Prepare (``trylast``: after the plugins that change the totals), with
:class:`connector.builders.Payment`::

    "pagos": [{"codigo_metodo_pago": "02", "codigo_destino_pago": "cash", "monto": 118.0,
               "referencia": "VOUCHER-1"}]

Validate (whatever built the payload): a known method, an amount > 0, and Σ ``pagos.monto`` not above
``totales.total_venta``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connector import FieldError, FormField, hookimpl
from connector.builders import Payment
from plugins._blocks import ZERO, number, total_of
from sunat import catalogs

SECTION = "Pagos recibidos"
METHOD = "payments.method"
AMOUNT = "payments.amount"
REFERENCE = "payments.reference"

#: The service's payment methods (``pagos[].codigo_metodo_pago``), from the one catalogue.
METHODS = catalogs.PAYMENT_METHODS


@hookimpl(families="documents")
def facturador_form_fields(document_type: str | None) -> list[FormField]:
    """The payment section of the factura and boleta forms."""
    if document_type not in (None, "01", "03"):
        return []
    return [
        FormField(
            METHOD,
            "Método de pago",
            "select",
            options=(
                ("", "— sin registrar pago —"),
                *((code, f"{code} - {name}") for code, name in METHODS.items()),
            ),
            default="",
            section=SECTION,
        ),
        FormField(
            AMOUNT,
            "Monto pagado",
            "number",
            help="Vacío: el importe total del comprobante.",
            section=SECTION,
            min_value=0,
        ),
        FormField(REFERENCE, "Referencia (voucher, n.º de operación)", "text", section=SECTION),
    ]


@hookimpl(families="documents", trylast=True)
def facturador_prepare_payload(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    """Append the payment of the form to ``pagos``."""
    method = str(values.get(METHOD) or "").strip()
    if not method:
        return None
    amount = number(values.get(AMOUNT))
    if amount is None:
        amount = total_of(payload) or ZERO
    entry = Payment(amount, method=method, reference=str(values.get(REFERENCE) or "").strip()).to_payload()
    return {**payload, "pagos": [*(dict(p) for p in payload.get("pagos") or []), entry]}


@hookimpl(families="documents")
def facturador_validate_payload(payload: dict[str, Any]) -> list[FieldError]:
    """Payment rules checked before sending (see the module docstring)."""
    if payload.get("pagos") is None:
        return []
    entries = payload["pagos"]
    if not isinstance(entries, list):
        return [FieldError("pagos", "pagos debe ser una lista.")]
    problems: list[FieldError] = []
    paid = ZERO
    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            problems.append(FieldError(f"pagos.{index}", "Cada pago debe ser un objeto."))
            continue
        method = str(entry.get("codigo_metodo_pago") or "")
        if method not in METHODS:
            problems.append(
                FieldError(
                    f"pagos.{index}.codigo_metodo_pago", f"El método de pago {method or '(vacío)'} no existe."
                )
            )
        amount = number(entry.get("monto"))
        if amount is None or amount <= 0:
            problems.append(FieldError(f"pagos.{index}.monto", "El monto pagado debe ser mayor que 0."))
        else:
            paid += amount
    total = total_of(payload)
    if total is not None and paid > total:
        problems.append(FieldError("pagos", f"Los pagos ({paid}) superan el importe total ({total})."))
    return problems
