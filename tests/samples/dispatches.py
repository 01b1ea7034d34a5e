"""Dispatch guides for the GRE tests: a sender's guide (09) by public or private transport, and a carrier's
guide (31), as :class:`facturador.ubl.despatch.Dispatch` objects dated today (Lima)."""

from __future__ import annotations

import dataclasses
from datetime import time
from decimal import Decimal
from typing import Any

from facturador.issued import Issuer
from facturador.ubl.despatch import Dispatch, DispatchDocument, DispatchLine, DispatchParty, Driver, Place
from sunat.calendar import peru_today

GRE_RUC = "20600995805"  # valid check digit
CUSTOMER = DispatchParty("6", "20100070970", "CLIENTE DESTINO S.A.C.")
CARRIER = DispatchParty("6", "20131312955", "TRANSPORTES LIMA S.A.C.", mtc="123456")
DRIVER = Driver("1", "12345678", "JUAN", "PEREZ GARCIA", "Q12345678")


def guide(mode: str = "01", doc_type: str = "09", number: int = 1, **changes: Any) -> Dispatch:
    """A guide that SUNAT accepts; ``changes`` replace fields to break it."""
    today = peru_today()
    issuer = Issuer(ruc=GRE_RUC, name="EMISOR DE GUIAS S.A.C.", address="Av. Principal 123", ubigeo="150101")
    private = doc_type == "31" or mode == "02"
    base = Dispatch(
        doc_type=doc_type,
        issuer=issuer,
        series="T001" if doc_type == "09" else "V001",
        number=number,
        issue_date=today,
        issue_time=time(8, 0),
        customer=CUSTOMER,
        origin=Place("150101", "Av. Principal 123, Lima", GRE_RUC if doc_type == "09" else "", "0000"),
        delivery=Place("150132", "Jr. Los Olivos 456, San Juan de Lurigancho"),
        start_date=today,
        gross_weight=Decimal("25.5"),
        weight_unit="KGM",
        lines=(DispatchLine(Decimal("10"), "NIU", "Mercadería trasladada", "ASD"),),
        transfer_reason="01" if doc_type == "09" else "",
        transfer_description="Venta" if doc_type == "09" else "",
        transport_mode=mode if doc_type == "09" else "",
        carrier=None if private else CARRIER,
        sender=DispatchParty("6", "20100070970", "REMITENTE S.A.C.") if doc_type == "31" else None,
        drivers=(DRIVER,) if private else (),
        vehicles=("ABC123",) if private else (),
        related=(DispatchDocument("01", "F001-1", "Factura", GRE_RUC),),
        issuer_mtc="MTC12345" if doc_type == "31" else "",
        vehicle_certificate="TUC1234567" if doc_type == "31" else "",
        freight_payer="Remitente" if doc_type == "31" else "",
    )
    return dataclasses.replace(base, **changes)


def dispatch_body(mode: str = "01", **changes: Any) -> dict[str, Any]:
    """A ``POST /api/dispatches`` body (reference §8.10, like its ``examples/dispatches.json``) dated
    today; ``changes`` replace top-level keys (``None`` removes one)."""
    today = peru_today().isoformat()
    body: dict[str, Any] = {
        "serie_documento": "T001",
        "numero_documento": "#",
        "fecha_de_emision": today,
        "hora_de_emision": "08:00:00",
        "codigo_tipo_documento": "09",
        "datos_del_emisor": {"codigo_del_domicilio_fiscal": "0000"},
        "datos_del_cliente_o_receptor": {
            "codigo_tipo_documento_identidad": "6",
            "numero_documento": "20100070970",
            "apellidos_y_nombres_o_razon_social": "CLIENTE DESTINO S.A.C.",
            "codigo_pais": "PE",
            "ubigeo": "150101",
            "direccion": "PJ. JORGE BASADRE NRO. 158",
        },
        "observaciones": "Traslado de mercadería por venta",
        "codigo_modo_transporte": mode,
        "codigo_motivo_traslado": "01",
        "descripcion_motivo_traslado": "Venta",
        "fecha_de_traslado": today,
        "indicador_de_transbordo": False,
        "unidad_peso_total": "KGM",
        "peso_total": 25.5,
        "numero_de_bultos": 3,
        "direccion_partida": {
            "ubigeo": "150101",
            "direccion": "Av. Principal 123, Lima",
            "codigo_del_domicilio_fiscal": "0000",
        },
        "direccion_llegada": {"ubigeo": "150132", "direccion": "Jr. Los Olivos 456, San Juan de Lurigancho"},
        "documento_relacionado": [
            {"numero": "F001-1", "ruc": "", "documento": {"id": "01", "descripcion": "Factura"}}
        ],
        "items": [
            {
                "codigo_interno": "ASD",
                "descripcion": "Mercadería trasladada",
                "unidad_de_medida": "NIU",
                "cantidad": 10,
            }
        ],
    }
    if mode == "01":
        body["transportista"] = {
            "codigo_tipo_documento_identidad": "6",
            "numero_documento": "20131312955",
            "apellidos_y_nombres_o_razon_social": "TRANSPORTES LIMA S.A.C.",
            "numero_mtc": "123456",
        }
    else:
        body["chofer"] = {
            "codigo_tipo_documento_identidad": "1",
            "numero_documento": "12345678",
            "nombres": "PEREZ GARCIA, JUAN",
            "numero_licencia": "Q12345678",
            "telefono": "999888777",
        }
        body["vehiculo"] = {"numero_de_placa": "ABC123", "modelo": "HINO 500", "marca": "HINO"}
        body["chofer_secundario"] = [
            {**body["chofer"], "numero_documento": "87654321", "numero_licencia": "Q87654321"}
        ]
        body["vehiculo_secundario"] = [{"numero_de_placa": "XYZ789"}]
    for key, value in changes.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return body


def carrier_body(**changes: Any) -> dict[str, Any]:
    """A ``POST /api/dispatch-carrier`` body (reference §8.11) dated today."""
    body = dispatch_body("02", serie_documento="V001", codigo_tipo_documento="31")
    for key in (
        "datos_del_cliente_o_receptor",
        "codigo_modo_transporte",
        "codigo_motivo_traslado",
        "descripcion_motivo_traslado",
    ):
        body.pop(key)
    body["datos_remitente"] = {
        "codigo_tipo_documento_identidad": "6",
        "descripcion_tipo_documento_identidad": "RUC",
        "numero_documento": "20100070970",
        "apellidos_y_nombres_o_razon_social": "REMITENTE S.A.C.",
    }
    body["datos_destinatario"] = {
        "codigo_tipo_documento_identidad": "6",
        "descripcion_tipo_documento_identidad": "RUC",
        "numero_documento": "20601030013",
        "apellidos_y_nombres_o_razon_social": "DESTINATARIO S.A.C.",
    }
    body["numero_mtc"] = "MTC12345"
    body["pagador_flete"] = {"indicador_pagador_flete": "Remitente"}
    body["vehiculo"]["certificado_habilitacion_vehicular"] = "TUC1234567"
    body["direccion_partida"].pop("codigo_del_domicilio_fiscal")
    body.update(changes)
    return body
