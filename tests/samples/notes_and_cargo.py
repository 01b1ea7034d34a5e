"""Bodies of ``POST /api/documents`` for the cargo transport detraction (operation 1004) and for notes
that carry instalments (credit note type 13, a debit note on credit), dated today.

Amounts by hand: the cargo factura is 1 x 1,000.00 + IGV 18 % = 1,180.00, detraction 4 % (catalog 54
code 027, servicio de transporte de carga) = 47.20 in soles. A credit note of type 13 changes no amount
(total 0.00, SUNAT 3315): one line of 0.00 and the factura's new instalments, here 59.00 + 59.00 of the
118.00 sample factura on credit. The debit note on credit charges 11.80 (10.00 + IGV 1.80) in one
instalment of 11.80.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sunat.calendar import peru_today
from tests.samples.bodies import credit_note_body, invoice_body

ACCOUNT = "00-068-123456"


def due(days: int) -> str:
    """A due date ``days`` after today in Lima."""
    return (peru_today() + dt.timedelta(days=days)).isoformat()


def cuota(fecha: str, monto: Any, moneda: str = "PEN") -> dict[str, Any]:
    return {"fecha": fecha, "codigo_tipo_moneda": moneda, "monto": monto}


def trip(**changes: Any) -> dict[str, Any]:
    """The trip keys of ``detraccion`` (reference §4.5): Lima (150101) to Arequipa (040101)."""
    keys: dict[str, Any] = {
        "detalle_viaje": "Traslado de 12 t de cemento en camión ABC-123",
        "direccion_origen": "Av. Argentina 2050, Cercado de Lima",
        "ubigeo_origen": "150101",
        "direccion_destino": "Av. Parra 300, Arequipa",
        "ubigeo_destino": "040101",
        "valor_referencial_servicio_transporte": 1100,
        "valor_referencia_carga_efectiva": 900,
        "valor_referencial_carga_util": 950,
    }
    keys.update(changes)
    return keys


def cargo_invoice(**trip_changes: Any) -> dict[str, Any]:
    """A cargo transport service of 1,000.00 + IGV = 1,180.00, operation 1004, detraction 4 % = 47.20."""
    body = invoice_body(codigo_tipo_operacion="1004")
    item = body["items"][0]
    item.update(
        codigo_interno="FLETE-LIM-AQP",
        descripcion="Servicio de transporte de carga Lima - Arequipa",
        codigo_producto_sunat="78101802",
        unidad_de_medida="ZZ",
        cantidad=1,
        valor_unitario=1000,
        precio_unitario=1180,
        total_base_igv=1000,
        total_igv=180,
        total_impuestos=180,
        total_valor_item=1000,
        total_item=1180,
    )
    body["totales"].update(
        total_operaciones_gravadas=1000,
        total_igv=180,
        total_impuestos=180,
        total_valor=1000,
        total_venta=1180,
    )
    body["detraccion"] = {
        "codigo_tipo_detraccion": "027",
        "porcentaje": 4,
        "monto": 47.20,
        "codigo_metodo_pago": "001",
        "cuenta_bancaria": ACCOUNT,
        **trip(**trip_changes),
    }
    return body


def credit_invoice() -> dict[str, Any]:
    """The 118.00 sample factura on credit: two instalments of 59.00 (30 and 60 days)."""
    return invoice_body(codigo_condicion_de_pago="02", cuotas=[cuota(due(30), 59), cuota(due(60), 59)])


def zero_item() -> dict[str, Any]:
    """The line of an adjustment note: nothing is credited (0.00)."""
    return {
        "codigo_interno": "AJUSTE",
        "descripcion": "Ajuste de fechas de pago de las cuotas",
        "unidad_de_medida": "ZZ",
        "cantidad": 1,
        "valor_unitario": 0,
        "codigo_tipo_precio": "01",
        "precio_unitario": 0,
        "codigo_tipo_afectacion_igv": "10",
        "total_base_igv": 0,
        "porcentaje_igv": 18,
        "total_igv": 0,
        "total_impuestos": 0,
        "total_valor_item": 0,
        "total_item": 0,
    }


def adjustment_note(affected_external_id: str | None = None, cuotas: Any = None) -> dict[str, Any]:
    """Credit note type 13 of a factura on credit: total 0.00, new instalments 59.00 (45 and 90 days)."""
    body = credit_note_body(
        affected_external_id,
        codigo_tipo_nota="13",
        motivo_o_sustento_de_nota="Ajuste de las fechas de pago de las cuotas",
        codigo_condicion_de_pago="02",
        cuotas=[cuota(due(45), 59), cuota(due(90), 59)] if cuotas is None else cuotas,
    )
    body["items"] = [zero_item()]
    body["totales"] = {
        "total_operaciones_gravadas": 0,
        "total_igv": 0,
        "total_impuestos": 0,
        "total_valor": 0,
        "total_venta": 0,
    }
    return body


def debit_note_on_credit(affected_external_id: str | None = None) -> dict[str, Any]:
    """Debit note FD01 type 01 (intereses por mora): 10.00 + IGV 1.80 = 11.80 in one instalment."""
    body = credit_note_body(
        affected_external_id,
        serie_documento="FD01",
        codigo_tipo_documento="08",
        codigo_tipo_nota="01",
        motivo_o_sustento_de_nota="Intereses por mora, pagaderos a 30 días",
        codigo_condicion_de_pago="02",
        cuotas=[cuota(due(30), "11.80")],
    )
    item = body["items"][0]
    item.update(
        codigo_interno="INT-MORA",
        descripcion="Intereses por mora",
        unidad_de_medida="ZZ",
        cantidad=1,
        valor_unitario=10,
        precio_unitario="11.80",
        total_base_igv=10,
        total_igv="1.80",
        total_impuestos="1.80",
        total_valor_item=10,
        total_item="11.80",
    )
    item.pop("codigo_producto_sunat", None)
    body["totales"] = {
        "total_operaciones_gravadas": 10,
        "total_igv": "1.80",
        "total_impuestos": "1.80",
        "total_valor": 10,
        "total_venta": "11.80",
    }
    return body
