"""Retention (20) and perception (40) request bodies with today's dates, their amounts left for the
service to compute (``sunat.withholding``)."""

from __future__ import annotations

from typing import Any

from sunat.calendar import peru_today

SUPPLIER = {
    "codigo_tipo_documento_identidad": "6",
    "numero_documento": "20100070970",
    "apellidos_y_nombres_o_razon_social": "SUPERMERCADOS PERUANOS S.A.",
    "codigo_pais": "PE",
    "ubigeo": "150101",
    "direccion": "Av. 2 de Mayo",
}


def today() -> str:
    return peru_today().isoformat()


def retention(**changes: Any) -> dict[str, Any]:
    """A retention of two facturas (PEN and USD), amounts computed by the service."""
    body: dict[str, Any] = {
        "serie_documento": "R001",
        "numero_documento": "#",
        "fecha_de_emision": today(),
        "hora_de_emision": "10:11:11",
        "codigo_tipo_documento": "20",
        "datos_del_emisor": {"codigo_del_domicilio_fiscal": "0000"},
        "datos_del_proveedor": dict(SUPPLIER),
        "codigo_tipo_retencion": "01",
        "observaciones": "Pago de facturas",
        "documentos": [
            {
                "codigo_tipo_documento": "01",
                "serie_documento": "F001",
                "numero_documento": "3",
                "fecha_de_emision": today(),
                "codigo_tipo_moneda": "PEN",
                "total_documento": 400,
                "pagos": [{"fecha_de_pago": today(), "total_pago": 400, "codigo_tipo_moneda": "PEN"}],
                "fecha_de_retencion": today(),
            },
            {
                "codigo_tipo_documento": "01",
                "serie_documento": "F001",
                "numero_documento": "4",
                "fecha_de_emision": today(),
                "codigo_tipo_moneda": "USD",
                "total_documento": 200,
                "pagos": [{"fecha_de_pago": today(), "total_pago": 200, "codigo_tipo_moneda": "USD"}],
                "tipo_de_cambio": {
                    "codigo_tipo_moneda_referencia": "USD",
                    "codigo_tipo_moneda_objetivo": "PEN",
                    "factor": "3.752",
                    "fecha_tipo_de_cambio": today(),
                },
                "fecha_de_retencion": today(),
            },
        ],
    }
    body.update(changes)
    return body


def perception(**changes: Any) -> dict[str, Any]:
    """A perception of one factura in soles to a customer (regime 01, 2 %)."""
    body: dict[str, Any] = {
        "serie_documento": "P001",
        "numero_documento": "#",
        "fecha_de_emision": today(),
        "codigo_tipo_documento": "40",
        "datos_del_cliente_o_receptor": dict(SUPPLIER),
        "codigo_tipo_percepcion": "01",
        "documentos": [
            {
                "codigo_tipo_documento": "01",
                "serie_documento": "F001",
                "numero_documento": "10",
                "fecha_de_emision": today(),
                "codigo_tipo_moneda": "PEN",
                "total_documento": 1180,
                "pagos": [{"fecha_de_pago": today(), "total_pago": 1180, "codigo_tipo_moneda": "PEN"}],
                "fecha_de_percepcion": today(),
            }
        ],
    }
    body.update(changes)
    return body
