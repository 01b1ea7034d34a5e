"""Request bodies of ``POST /api/documents``, written from the API reference's field tables.

The JSON files in ``tests/data/`` are the scenarios of the reference's matrix (facturador-api.md §4.8)
with values of our own: a taxed factura (2 x 50.00 + IGV 18 % = 118.00, customer RUC 20487654320), a
boleta for a DNI customer with the same amounts, and a credit note of type 01 whose
``documento_afectado`` names an external id this service never issued (tests put in a real one). Every
loaded body is a fresh copy dated today in Lima, so a test may change it freely.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import cache
from pathlib import Path
from typing import Any

from sunat.calendar import peru_today

DATA = Path(__file__).resolve().parents[1] / "data"
#: The customer of the factura and credit note bodies (a RUC whose check digit verifies).
CUSTOMER_RUC = "20487654320"


@cache
def _text(name: str) -> str:
    return (DATA / f"{name}.json").read_text(encoding="utf-8")


def dated_today(loaded: dict[str, Any]) -> dict[str, Any]:
    """``loaded`` with its issue and due dates (when present) set to today in Lima."""
    today = peru_today().isoformat()
    for key in ("fecha_de_emision", "fecha_de_vencimiento"):
        if key in loaded:
            loaded[key] = today
    return loaded


def body(name: str, **overrides: Any) -> dict[str, Any]:
    """``tests/data/<name>.json`` dated today, with ``overrides`` applied (a fresh copy each call)."""
    loaded = dated_today(json.loads(_text(name)))
    loaded.update(overrides)
    return loaded


def invoice_body(**overrides: Any) -> dict[str, Any]:
    """A valid taxed factura F001 (2 x 50.00 + IGV = 118.00) dated today."""
    return body("taxed_invoice", **overrides)


def boleta_body(**overrides: Any) -> dict[str, Any]:
    """A valid boleta B001 for a DNI customer (118.00) dated today."""
    return body("boleta", **overrides)


def credit_note_body(affected_external_id: str | None = None, **overrides: Any) -> dict[str, Any]:
    """A credit note FC01 of type 01 cancelling 118.00, for the document ``affected_external_id``
    (by default an external id that was never issued)."""
    note = body("credit_note", **overrides)
    if affected_external_id is not None:
        note["documento_afectado"] = {"external_id": affected_external_id}
    return note


def full_invoice() -> dict[str, Any]:
    """A valid factura with every block the service reads: detraction, two instalments, a legend, the
    optional customer and item fields, actions and an unknown key (1,180.00; 47.20 withheld)."""
    due = (peru_today() + dt.timedelta(days=30)).isoformat()
    body = invoice_body(
        codigo_tipo_operacion="1001",
        factor_tipo_de_cambio=1,
        codigo_condicion_de_pago="02",
        detraccion={
            "codigo_tipo_detraccion": "008",
            "porcentaje": 4,
            "monto": 47.20,
            "codigo_metodo_pago": "001",
            "cuenta_bancaria": "00-068-123456",
        },
        cuotas=[
            {"fecha": due, "codigo_tipo_moneda": "PEN", "monto": 566.40, "codigo_metodo_de_pago": "01"},
            {"fecha": due, "codigo_tipo_moneda": "PEN", "monto": "566.40"},
        ],
        leyendas=[{"codigo": "2006", "valor": "Operación sujeta a detracción"}],
        acciones={"enviar_xml_firmado": True, "formato_pdf": "a4"},
        x_extra={"nota": "una clave desconocida se guarda", "lista": ["a", 1]},
    )
    body["datos_del_cliente_o_receptor"]["nombre_comercial"] = "Los Andes"
    item = body["items"][0]
    item.update(cantidad=20, total_base_igv=1000, total_igv=180, total_impuestos=180, total_valor_item=1000)
    item.update(total_item=1180, total_impuestos_bolsa_plastica=0)
    body["totales"].update(
        total_operaciones_gravadas=1000,
        total_igv=180,
        total_impuestos=180,
        total_valor=1000,
        total_venta=1180,
        total_pendiente_pago=1132.80,
    )
    return body
