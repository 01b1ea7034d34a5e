"""The builders with issue 11's blocks: totals by sunat.totals, payloads the live service accepts."""

from __future__ import annotations

from decimal import Decimal

import httpx

from connector.builders import (
    Attribute,
    Charge,
    Customer,
    Discount,
    Guide,
    Invoice,
    Line,
    Payment,
    Prepayment,
    Related,
)
from tests.common import issue

D = Decimal
CUSTOMER = Customer.ruc("20487654320", "DISTRIBUIDORA LOS ANDES S.A.C.")


def test_discounts_charges_payments_and_references(acme: httpx.Client) -> None:
    invoice = Invoice(
        customer=CUSTOMER,
        lines=[
            Line(
                "Termo 1 L",
                2,
                unit_value=50,
                discounts=[Discount("00", base=100, factor="0.10")],
                attributes=[Attribute("5010", "Numero de Placa", "ABC-123")],
            ),
            Line("Termo 2 L", 1, unit_value=80, discounts=[Discount("01", 4.72)]),
        ],
        discounts=[Discount("03", 5)],
        charges=[Charge("46", base=170, factor="0.10")],
        guides=[Guide("T001-9")],
        related=[Related("OC-77")],
        payments=[Payment(100), Payment(50, method="02", reference="V-1")],
    )
    totals = invoice.totals()
    # lines: 90.00 + IGV 16.20; 80.00 + IGV 14.40 - 4.72 (01); global 03 5.00, charge 46 17.00
    assert (totals.taxed, totals.igv, totals.value) == (D("170.00"), D("30.60"), D("170.00"))
    assert (totals.discounts, totals.charges) == (D("9.72"), D("17.00"))
    assert totals.total == D("170.00") + D("30.60") + D("17.00") - D("9.72")
    payload = invoice.to_payload()
    assert payload["totales"]["total_descuentos"] == 9.72 and payload["totales"]["total_cargos"] == 17.0
    assert payload["items"][0]["total_valor_item"] == 90.0 and payload["items"][0]["precio_unitario"] == 53.1
    issued = issue(acme, invoice.to_payload(), accepted=True)
    assert issued["data"]["number"].startswith("F001-")


def test_prepayment_adds_its_discount_04(acme: httpx.Client) -> None:
    prepaid = Invoice(customer=CUSTOMER, lines=[Line("Anticipo", 1, unit_value=100)])
    advance = issue(acme, prepaid.to_payload(), accepted=True)
    final = Invoice(
        customer=CUSTOMER,
        lines=[Line("Termo", 10, unit_value=50)],
        prepayments=[Prepayment(advance["data"]["number"], 100, 118)],
    )
    payload = final.to_payload()
    assert payload["descuentos"][0]["codigo"] == "04" and payload["descuentos"][0]["monto"] == 100.0
    totals = final.totals()
    assert (totals.taxed, totals.igv, totals.prepaid, totals.total) == (
        D("400.00"),
        D("72.00"),
        D("100.00"),
        D("472.00"),
    )
    issue(acme, final.to_payload(), accepted=True)
