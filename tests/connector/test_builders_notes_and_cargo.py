"""The builders with the cargo transport detraction (1004) and instalments on notes: the payloads the
live service accepts, with the detraction and the pending amount computed from sunat's totals."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import httpx
import pytest

from connector.builders import (
    CargoTrip,
    CreditNote,
    Customer,
    DebitNote,
    Detraction,
    Instalment,
    Invoice,
    Line,
)
from sunat.calendar import peru_today
from tests.common import issue

D = Decimal
CUSTOMER = Customer.ruc("20487654320", "DISTRIBUIDORA LOS ANDES S.A.C.")
TRIP = CargoTrip(
    "Traslado de 12 t de cemento",
    "150101",
    "Av. Argentina 2050, Lima",
    "040101",
    "Av. Parra 300, Arequipa",
    service_value=1100,
    effective_load_value=900,
    payload_value=950,
)


def due(days: int) -> dt.date:
    return peru_today() + dt.timedelta(days=days)


def test_cargo_invoice_on_credit(acme: httpx.Client) -> None:
    invoice = Invoice(
        customer=CUSTOMER,
        lines=[Line("Flete Lima - Arequipa", 1, unit_value=1000, unit="ZZ")],
        detraction=Detraction("027", 4, "00-068-123456", trip=TRIP),
        instalments=[Instalment(due(30), "566.40"), Instalment(due(60), "566.40")],
    )
    assert invoice.operation == "1004"
    assert invoice.pending_amount() == D("1132.80")  # 1,180.00 less 4 % = 47.20
    payload = invoice.to_payload()
    block = payload["detraccion"]
    assert block["monto"] == 47.2 and block["ubigeo_destino"] == "040101"
    assert block["valor_referencial_servicio_transporte"] == 1100.0
    assert payload["codigo_condicion_de_pago"] == "02" and len(payload["cuotas"]) == 2
    assert payload["leyendas"] == [{"codigo": "2006", "valor": "Operación sujeta a detracción"}]
    issue(acme, payload, accepted=True)


def test_detraction_without_trip_is_1001() -> None:
    invoice = Invoice(
        customer=CUSTOMER,
        lines=[Line("Consultoría", 1, unit_value=1000, unit="ZZ")],
        detraction=Detraction("037", 12, "00-068-123456"),
    )
    assert invoice.operation == "1001" and invoice.to_payload()["detraccion"]["monto"] == 141.6
    with pytest.raises(ValueError, match="exchange rate"):
        Invoice(
            customer=CUSTOMER,
            currency="USD",
            lines=[Line("Consultoría", 1, unit_value=1000, unit="ZZ")],
            detraction=Detraction("037", 12, "00-068-123456"),
        ).to_payload()


def test_notes_with_instalments(acme: httpx.Client) -> None:
    factura = Invoice(
        customer=CUSTOMER,
        lines=[Line("Termo 1 L", 2, unit_value=50)],
        instalments=[Instalment(due(30), 59), Instalment(due(60), 59)],
    )
    affected = issue(acme, factura.to_payload(), accepted=True)["data"]["external_id"]
    adjustment = CreditNote(
        customer=CUSTOMER,
        lines=[Line("Ajuste de fechas de pago", 1, unit_value=0, unit="ZZ")],
        affected_external_id=affected,
        note_type="13",
        reason="Nuevas fechas de pago",
        instalments=[Instalment(due(45), 59), Instalment(due(90), 59)],
    )
    assert adjustment.totals().total == 0
    issue(acme, adjustment.to_payload(), accepted=True)
    debit = DebitNote(
        customer=CUSTOMER,
        lines=[Line("Intereses por mora", 1, unit_value=10, unit="ZZ")],
        affected_external_id=affected,
        reason="Intereses por mora",
        instalments=[Instalment(due(30), "11.80")],
    )
    issue(acme, debit.to_payload(), accepted=True)
