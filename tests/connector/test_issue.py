"""Issuing through the connector over real HTTP: every line type via builders, raw dicts, notes, sending
later, status updates and downloads."""

from __future__ import annotations

import io
import uuid
import zipfile
from decimal import Decimal

import pytest

from connector import Client, IssueResult
from connector.builders import CreditNote, Customer, DebitNote, Invoice, Line, Receipt
from connector.errors import ConflictError
from sunat.calendar import peru_today
from tests.samples.bodies import boleta_body, invoice_body
from tests.samples.tenants import ACME_RUC

RUC_CUSTOMER = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.", address="Av. Lima 123", ubigeo="150101")


def assert_accepted(client: Client, result: IssueResult, total: str) -> None:
    """Accepted by the authority, and listed by the service with ``total``."""
    assert result.state_type_id == "05", result.response
    assert result.state_description == "Aceptado"
    assert result.response is not None and result.response.accepted
    assert not result.response.rejected and not result.response.observed
    assert "ha sido aceptada" in result.response.description
    assert result.raw["success"] is True
    record = client.documents.find(result.series, result.correlative)
    assert record is not None and record.external_id == result.external_id
    assert record.total == Decimal(total)


def test_taxed_invoice_from_prices_with_igv(client: Client) -> None:
    invoice = Invoice(customer=RUC_CUSTOMER, lines=[Line("Inca Kola 250 ml", 2, unit_price=59, code="P0121")])
    result = client.documents.issue(invoice)
    assert result.series == "F001" and result.correlative >= 1
    assert result.number == f"F001-{result.correlative}"
    assert result.filename == f"{ACME_RUC}-01-{result.number}"
    assert len(result.external_id) == 36
    assert result.number_to_letter == "CIENTO DIECIOCHO CON 00/100 SOLES"
    assert result.hash and result.qr_png is not None and result.qr_png.startswith(b"\x89PNG")
    assert set(result.links) == {"xml", "pdf", "cdr"} and result.links["cdr"]
    assert result.response is not None and result.response.notes == []
    assert "qr_png" not in repr(result)
    assert_accepted(client, result, "118.00")


def test_taxed_invoice_from_values_without_igv(client: Client) -> None:
    lines = [
        Line("Consultoría", 3, unit_value="33.3333", unit="ZZ"),
        Line("Soporte", "1.5", unit_value="120.10", unit="HUR", sunat_code="81111500"),
    ]
    invoice = Invoice(customer=RUC_CUSTOMER, lines=lines, purchase_order="OC-77")
    totals = invoice.totals()
    result = client.documents.issue(invoice)
    assert_accepted(client, result, str(totals.total))


def test_free_lines_with_a_taxed_line(client: Client) -> None:
    lines = [
        Line("Producto", 1, unit_price=118),
        Line("Muestra gravada", 2, unit_price=25, affectation="16"),
        Line("Bonificación", 1, unit_value=10, affectation="15"),
        Line("Regalo exonerado", 1, unit_price=8, affectation="21"),
        Line("Muestra médica", 3, unit_price="4.50", affectation="33"),
    ]
    invoice = Invoice(customer=RUC_CUSTOMER, lines=lines)
    payload = invoice.to_payload()
    free = payload["items"][1]
    assert free["valor_unitario"] == 25 and free["precio_unitario"] == 0
    assert free["codigo_tipo_precio"] == "02"
    assert free["total_impuestos"] == 0 and free["total_item"] == 0 and free["total_igv"] == 9.0
    assert payload["totales"]["total_operaciones_gratuitas"] == 81.5
    assert payload["totales"]["total_igv_operaciones_gratuitas"] == 10.8
    assert payload["leyendas"] == [
        {"codigo": "1002", "valor": "TRANSFERENCIA GRATUITA DE UN BIEN Y/O SERVICIO PRESTADO GRATUITAMENTE"}
    ]
    result = client.documents.issue(invoice)
    assert_accepted(client, result, "118.00")


@pytest.mark.parametrize("affectation", ["20", "30"])
def test_exempt_and_unaffected_lines(client: Client, affectation: str) -> None:
    invoice = Invoice(
        customer=RUC_CUSTOMER,
        lines=[Line("Libro", 2, unit_price="45.50", affectation=affectation), Line("Pan", 1, unit_price=1)],
    )
    payload = invoice.to_payload()
    key = "total_operaciones_exoneradas" if affectation == "20" else "total_operaciones_inafectas"
    assert payload["totales"][key] == 91.0
    assert payload["items"][0]["total_igv"] == 0
    result = client.documents.issue(invoice)
    assert_accepted(client, result, "92.00")


def test_export_invoice(client: Client) -> None:
    foreign = Customer("0", "900123456", "IMPORTADORA ANDINA S.A.S.", country="CO", address="Bogotá")
    invoice = Invoice(
        customer=foreign,
        operation_type="0200",
        currency="USD",
        exchange_rate="3.75",
        lines=[Line("Café de exportación", 100, unit_value="4.25", affectation="40", unit="KGM")],
    )
    payload = invoice.to_payload()
    assert payload["totales"]["total_exportacion"] == 425.0
    assert payload["factor_tipo_de_cambio"] == 3.75
    result = client.documents.issue(invoice)
    assert_accepted(client, result, "425.00")
    assert result.number_to_letter.endswith("DÓLARES AMERICANOS")


def test_bag_tax_lines(client: Client) -> None:
    invoice = Invoice(
        customer=RUC_CUSTOMER,
        lines=[Line("Gaseosa", 1, unit_price=5), Line("Bolsa plástica", 3, unit_price="0.10", bag_tax=True)],
    )
    payload = invoice.to_payload()
    bag = payload["items"][1]
    assert bag["total_impuestos_bolsa_plastica"] == 1.5  # 3 x 0.50 (rate in force since 2023)
    assert payload["totales"]["total_impuestos_bolsa_plastica"] == 1.5
    assert payload["totales"]["total_venta"] == 6.8
    result = client.documents.issue(invoice)
    assert_accepted(client, result, "6.80")


def test_usd_invoice(client: Client) -> None:
    invoice = Invoice(
        customer=RUC_CUSTOMER, currency="USD", lines=[Line("Licencia anual", 1, unit_value=1000, unit="ZZ")]
    )
    result = client.documents.issue(invoice)
    assert_accepted(client, result, "1180.00")
    day = peru_today()
    row = client.documents.find(result.series, result.correlative, around=day)
    assert row is not None and row.currency_type_id == "USD"


def test_boleta_is_registered_not_sent(client: Client) -> None:
    receipt = Receipt(
        customer=Customer.dni("46027862", "JUAN PÉREZ"), lines=[Line("Menú", 2, unit_price="12.50")]
    )
    result = client.documents.issue(receipt)
    assert result.series == "B001" and result.state_type_id == "01"
    assert result.response is None and result.links["cdr"] == ""


def test_credit_note_by_external_id_and_debit_note_by_number(client: Client) -> None:
    invoice = client.documents.issue(
        Invoice(customer=RUC_CUSTOMER, lines=[Line("Equipo", 1, unit_price=590)])
    )
    credit = client.documents.issue(
        CreditNote(
            customer=RUC_CUSTOMER,
            affected_external_id=invoice.external_id,
            note_type="07",
            reason="Devolución de una unidad",
            lines=[Line("Equipo", 1, unit_price=590)],
        )
    )
    assert credit.series == "FC01" and credit.state_type_id == "05"
    debit = client.documents.issue(
        DebitNote(
            customer=RUC_CUSTOMER,
            affected=("01", invoice.series, invoice.correlative),
            note_type="01",
            reason="Intereses por mora",
            lines=[Line("Intereses", 1, unit_value=20, unit="ZZ")],
        )
    )
    assert debit.series == "FD01" and debit.state_type_id == "05"
    assert debit.response is not None and debit.response.accepted


def test_raw_dict_payloads_are_accepted_and_not_modified(client: Client) -> None:
    body = invoice_body()
    before = repr(body)
    result = client.documents.issue(body)
    assert repr(body) == before
    assert_accepted(client, result, "118.00")
    sample = client.documents.issue(boleta_body())
    assert sample.series == "B001"


def test_issue_without_sending_then_send_and_update_status(client: Client) -> None:
    invoice = Invoice(
        customer=RUC_CUSTOMER, lines=[Line("Servicio", 1, unit_value=100, unit="ZZ")], send=False
    )
    result = client.documents.issue(invoice)
    assert result.state_type_id == "01" and result.response is None and result.links["cdr"] == ""
    sent = client.documents.send(result.external_id)
    assert sent.state_type_id == "05" and sent.state_description == "Aceptado"
    assert sent.response is not None and sent.response.accepted
    assert sent.links["cdr"].endswith(result.external_id)
    assert sent.number == result.number and sent.external_id == result.external_id
    client.documents.update_status(result.external_id, "11")
    record = client.documents.find(result.series, result.correlative)
    assert record is not None and record.state_type_id == "11" and record.state_type_description == "Anulado"


def test_downloads(client: Client) -> None:
    result = client.documents.issue(Invoice(customer=RUC_CUSTOMER, lines=[Line("Agua", 6, unit_price=2)]))
    xml = client.documents.download_xml(result.external_id)
    assert xml.startswith(b"<?xml") and result.number.encode() in xml and result.hash.encode() in xml
    assert client.documents.download_pdf(result.external_id).startswith(b"%PDF")
    assert client.documents.download_pdf(result.external_id, fmt="ticket").startswith(b"%PDF")
    with zipfile.ZipFile(io.BytesIO(client.documents.download_cdr(result.external_id))) as archive:
        assert archive.namelist() == [f"R-{result.filename}.xml"]
    with pytest.raises(ValueError):
        client.documents.download_pdf(result.external_id, fmt="a3")


def test_an_issue_repeated_with_its_idempotency_key_makes_one_document(client: Client) -> None:
    key = f"caja-1-{uuid.uuid4()}"
    invoice = Invoice(customer=RUC_CUSTOMER, lines=[Line("Inca Kola 250 ml", 2, unit_price=59)])
    first = client.documents.issue(invoice, idempotency_key=key)
    again = client.documents.issue(invoice, idempotency_key=key)
    assert first.was_duplicate is False and again.was_duplicate is True
    assert again.external_id == first.external_id and again.number == first.number
    other = Invoice(customer=RUC_CUSTOMER, lines=[Line("Inca Kola 500 ml", 1, unit_price=59)])
    with pytest.raises(ConflictError) as info:
        client.documents.issue(other, idempotency_key=key)
    assert info.value.error_code == "IDEMPOTENCY_KEY_REUSED"
