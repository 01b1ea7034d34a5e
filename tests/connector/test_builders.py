"""Builders: the wire payload, with amounts equal to what ``sunat.totals`` computes and checks."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

import pytest

from connector.builders import CreditNote, Customer, DebitNote, Invoice, Line, Receipt
from sunat.money import to_decimal
from sunat.rates import icbper_rate
from sunat.totals import LineAmounts, check_line, check_totals, compute_line, compute_totals

CUSTOMER = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.", email="pagos@xyz.pe")
DAY = dt.date(2026, 3, 10)

MIXED = [
    Line("Taxed by price", 3, unit_price="19.90"),
    Line("Taxed by value", "2.5", unit_value="7.3333"),
    Line("Exonerated", 4, unit_price="2.35", affectation="20"),
    Line("Unaffected", 1, unit_value=12, affectation="30"),
    Line("Free", 2, unit_price=15, affectation="13"),
    Line("Free unaffected", 1, unit_price=3, affectation="35"),
    Line("Bags", 2, unit_price="0.10", bag_tax=True),
]


def read_line(item: dict) -> LineAmounts:
    """A payload item back as sunat's LineAmounts (free lines: the referential value is valor_unitario)."""
    d = to_decimal
    return LineAmounts(
        d(item["cantidad"]),
        d(item["valor_unitario"]),
        d(item["precio_unitario"]),
        item["codigo_tipo_precio"],
        item["codigo_tipo_afectacion_igv"],
        d(item["total_base_igv"]),
        d(item["porcentaje_igv"]),
        d(item["total_igv"]),
        d(item.get("total_impuestos_bolsa_plastica", 0)),
        d(item["total_impuestos"]),
        d(item["total_valor_item"]),
        d(item["total_item"]),
    )


def test_payload_totals_equal_sunat_and_pass_its_checks() -> None:
    invoice = Invoice(customer=CUSTOMER, lines=MIXED, issue_date=DAY, issue_time=dt.time(9, 30))
    payload = json.loads(json.dumps(invoice.to_payload()))  # through the JSON edge
    lines = [read_line(item) for item in payload["items"]]
    for index, line in enumerate(lines):
        assert check_line(line, index, icbper_rate=icbper_rate(DAY)) == []
    expected = compute_totals(line.amounts(DAY) for line in MIXED)
    totals = payload["totales"]
    for key, name in [
        ("total_operaciones_gravadas", "taxed"),
        ("total_operaciones_exoneradas", "exonerated"),
        ("total_operaciones_inafectas", "unaffected"),
        ("total_operaciones_gratuitas", "free"),
        ("total_igv_operaciones_gratuitas", "igv_free"),
        ("total_igv", "igv"),
        ("total_impuestos_bolsa_plastica", "icbper"),
        ("total_impuestos", "taxes"),
        ("total_valor", "value"),
        ("subtotal_venta", "subtotal"),
        ("total_venta", "total"),
    ]:
        assert Decimal(str(totals[key])) == getattr(expected, name), key

    class Totals:
        export = Decimal(str(totals["total_exportacion"]))
        taxed = Decimal(str(totals["total_operaciones_gravadas"]))
        unaffected = Decimal(str(totals["total_operaciones_inafectas"]))
        exonerated = Decimal(str(totals["total_operaciones_exoneradas"]))
        free = Decimal(str(totals["total_operaciones_gratuitas"]))
        igv = Decimal(str(totals["total_igv"]))
        igv_free = Decimal(str(totals["total_igv_operaciones_gratuitas"]))
        icbper = Decimal(str(totals["total_impuestos_bolsa_plastica"]))
        taxes = Decimal(str(totals["total_impuestos"]))
        value = Decimal(str(totals["total_valor"]))
        subtotal = Decimal(str(totals["subtotal_venta"]))
        total = Decimal(str(totals["total_venta"]))

    assert check_totals(lines, Totals()) == []
    assert invoice.totals() == expected


def test_header_and_customer() -> None:
    invoice = Invoice(
        customer=CUSTOMER,
        lines=[Line("A", 1, unit_price=1)],
        issue_date=DAY,
        issue_time=dt.time(9, 30, 5),
        number=42,
        purchase_order="OC-1",
        pdf_format="ticket",
        send=False,
        extra={"informacion_adicional": "Caja 1", "codigo_tipo_moneda": "PEN"},
    )
    payload = invoice.to_payload()
    assert payload["serie_documento"] == "F001" and payload["numero_documento"] == "42"
    assert payload["fecha_de_emision"] == "2026-03-10" and payload["hora_de_emision"] == "09:30:05"
    assert payload["codigo_tipo_documento"] == "01" and payload["codigo_tipo_operacion"] == "0101"
    assert payload["fecha_de_vencimiento"] == "2026-03-10"  # NOT NULL on real tenants
    assert payload["numero_orden_de_compra"] == "OC-1"
    assert payload["acciones"] == {"enviar_xml_firmado": False, "formato_pdf": "ticket"}
    assert payload["informacion_adicional"] == "Caja 1"
    assert payload["datos_del_cliente_o_receptor"] == {
        "codigo_tipo_documento_identidad": "6",
        "numero_documento": "20601030013",
        "apellidos_y_nombres_o_razon_social": "EMPRESA XYZ S.A.C.",
        "codigo_pais": "PE",
        "correo_electronico": "pagos@xyz.pe",
    }
    assert "leyendas" not in payload and "factor_tipo_de_cambio" not in payload
    assert invoice.to_payload() == payload and invoice.to_payload() is not payload
    due = Invoice(customer=CUSTOMER, lines=[Line("A", 1, unit_price=1)], due_date=DAY + dt.timedelta(days=30))
    assert due.to_payload()["fecha_de_vencimiento"] == "2026-04-09"


def test_defaults_are_today_in_lima() -> None:
    from sunat.calendar import peru_today

    receipt = Receipt(customer=Customer.dni("46027862", "ANA"), lines=[Line("A", 1, unit_price=1)])
    payload = receipt.to_payload()
    assert receipt.document_type == "03" and payload["serie_documento"] == "B001"
    assert payload["numero_documento"] == "#"
    assert payload["fecha_de_emision"] == peru_today().isoformat()
    assert len(payload["hora_de_emision"]) == 8


def test_amounts_are_json_numbers_with_two_decimals_and_units_with_up_to_ten() -> None:
    payload = Invoice(
        customer=CUSTOMER, lines=[Line("A", 3, unit_price="10.01")], issue_date=DAY
    ).to_payload()
    item = payload["items"][0]
    assert item["precio_unitario"] == 10.01 and item["valor_unitario"] == 8.4830508475
    assert item["total_valor_item"] == 25.45 and item["total_igv"] == 4.58 and item["total_item"] == 30.03
    for value in (*item.values(), *payload["totales"].values()):
        assert not isinstance(value, Decimal)
    assert all(len(str(v).split(".")[-1]) <= 2 for v in payload["totales"].values())


def test_icbper_rate_follows_the_issue_date() -> None:
    bag = [Line("Bolsa", 10, unit_price="0.10", bag_tax=True)]
    old = Invoice(customer=CUSTOMER, lines=bag, issue_date=dt.date(2021, 6, 1)).to_payload()
    new = Invoice(customer=CUSTOMER, lines=bag, issue_date=DAY).to_payload()
    assert old["items"][0]["total_impuestos_bolsa_plastica"] == 3.0
    assert new["items"][0]["total_impuestos_bolsa_plastica"] == 5.0
    assert new["totales"]["total_impuestos_bolsa_plastica"] == 5.0


def test_special_igv_rate() -> None:
    line = Line("Menú", 1, unit_price="110.50", igv_percent="10.5")
    assert line.amounts(DAY) == compute_line(1, "10", unit_price="110.50", igv_percent="10.5")
    item = Invoice(customer=CUSTOMER, lines=[line], issue_date=DAY).to_payload()["items"][0]
    assert item["porcentaje_igv"] == 10.5 and item["total_valor_item"] == 100.0


def test_notes() -> None:
    credit = CreditNote(
        customer=CUSTOMER, affected_external_id="abc", reason="Anulación", lines=[Line("A", 1, unit_price=1)]
    ).to_payload()
    assert credit["codigo_tipo_documento"] == "07" and credit["serie_documento"] == "FC01"
    assert credit["documento_afectado"] == {"external_id": "abc"}
    assert credit["codigo_tipo_nota"] == "01" and credit["motivo_o_sustento_de_nota"] == "Anulación"
    assert "codigo_tipo_operacion" not in credit and "fecha_de_vencimiento" not in credit
    debit = DebitNote(
        series="BD01",
        customer=Customer.dni("46027862", "ANA"),
        affected=("03", "B001", 5),
        note_type="02",
        reason="Aumento",
        lines=[Line("A", 1, unit_price=1)],
    ).to_payload()
    assert debit["documento_afectado"] == {
        "serie_documento": "B001",
        "numero_documento": "5",
        "codigo_tipo_documento": "03",
    }
    with pytest.raises(ValueError):
        CreditNote(customer=CUSTOMER, reason="x", lines=[Line("A", 1, unit_price=1)])
    with pytest.raises(ValueError):
        CreditNote(customer=CUSTOMER, affected_external_id="a", lines=[Line("A", 1, unit_price=1)])


def test_bad_lines_fail_early() -> None:
    with pytest.raises(ValueError):
        Line("A", 1)
    with pytest.raises(ValueError):
        Line("A", 1, unit_price=1, unit_value=1)
    with pytest.raises(ValueError):
        Line("A", 1, unit_price=1, affectation="99")
    with pytest.raises(ValueError):
        Invoice(customer=CUSTOMER, lines=[]).to_payload()
    with pytest.raises(ValueError):
        Invoice(customer=CUSTOMER, lines=[Line("A", 0, unit_price=1)]).to_payload()
