"""The builders with ISC (catalog 08 systems 01, 02, 03) and other taxes (9999): amounts by sunat.totals
(the same figures as the hand-worked bodies of tests/samples/isc.py), payloads the live service accepts."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

from connector.builders import Customer, Invoice, Isc, Line, Receipt
from tests.common import issue

D = Decimal
CUSTOMER = Customer.ruc("20487654320", "DISTRIBUIDORA LOS ANDES S.A.C.")


def test_one_line_of_each_isc_system_and_other_taxes(acme: httpx.Client) -> None:
    invoice = Invoice(
        customer=CUSTOMER,
        lines=[
            Line("Cerveza caja x 12", 10, unit_value=5, isc=Isc("01", percent=D("30"))),
            Line("Pisco 750 ml", 6, unit_value=20, isc=Isc("02", per_unit=D("1.50"))),
            Line("Cigarrillos x 20", 10, unit_value=8, isc=Isc("03", percent=D("30"), public_price=D("12"))),
            Line("Servicio con tributo", 10, unit_value=10, other_taxes_percent=5),
        ],
    )
    lines = invoice.line_amounts()
    # (ISC base, ISC, IGV base, IGV, total) as worked out by hand in tests/samples/isc.py
    assert [(a.isc_base, a.isc, a.igv_base, a.igv, a.total) for a in lines[:3]] == [
        (D("50.00"), D("15.00"), D("65.00"), D("11.70"), D("76.70")),
        (D("120.00"), D("9.00"), D("129.00"), D("23.22"), D("152.22")),
        (D("120.00"), D("36.00"), D("116.00"), D("20.88"), D("136.88")),
    ]
    assert lines[1].isc_percent == D("7.5") and lines[1].isc_system == "02"
    assert (lines[3].other, lines[3].igv_base, lines[3].total) == (D("5.00"), D("100.00"), D("123.00"))
    totals = invoice.totals()
    assert (totals.taxed, totals.isc_base, totals.isc) == (D("350.00"), D("290.00"), D("60.00"))
    assert (totals.other_base, totals.other) == (D("100.00"), D("5.00"))
    assert totals.igv == D("11.70") + D("23.22") + D("20.88") + D("18.00")
    assert totals.total == D("76.70") + D("152.22") + D("136.88") + D("123.00")
    payload = invoice.to_payload()
    assert payload["items"][2]["codigo_tipo_sistema_isc"] == "03"
    assert payload["items"][2]["total_base_isc"] == 120.0 and payload["items"][2]["total_isc"] == 36.0
    assert payload["totales"]["total_isc"] == 60.0 and payload["totales"]["total_otros_impuestos"] == 5.0
    body = issue(acme, payload, accepted=True)  # a factura goes to SUNAT at once
    assert body["success"] is True


def test_isc_boleta(acme: httpx.Client) -> None:
    receipt = Receipt(
        customer=Customer.dni("45678912", "ROSA QUISPE MAMANI"),
        lines=[Line("Gaseosa 3 L", 4, unit_value="7.50", isc=Isc("01", percent=17))],
    )
    # 30.00; ISC 17 % = 5.10; IGV 18 % of 35.10 = 6.32; total 41.42
    assert receipt.totals().total == D("41.42")
    issue(acme, receipt.to_payload())  # a boleta waits for its daily summary


def test_isc_needs_a_unit_value_and_an_allowed_line() -> None:
    with pytest.raises(ValueError, match="unit_value"):
        Line("Cerveza", 1, unit_price=7, isc=Isc("01", percent=30))
    with pytest.raises(ValueError, match="catalog 08"):
        Invoice(customer=CUSTOMER, lines=[Line("X", 1, unit_value=1, isc=Isc("09", percent=1))]).totals()
    with pytest.raises(ValueError, match="3223"):
        line = Line("Arroz", 1, unit_value=1, affectation="17", isc=Isc("01", percent=1))
        Invoice(customer=CUSTOMER, lines=[line]).totals()
