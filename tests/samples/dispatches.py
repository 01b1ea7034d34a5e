"""Dispatch guides for the GRE tests: a sender's guide (09) by public or private transport, and a carrier's
guide (31), as :class:`facturador.ubl.despatch.Dispatch` objects dated today (Lima)."""

from __future__ import annotations

import dataclasses
from datetime import time
from decimal import Decimal
from typing import Any

from facturador.model import Issuer
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
