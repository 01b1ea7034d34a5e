"""The detraction plugin: form fields, payload, checks, and end to end through the service."""

from __future__ import annotations

import copy
import re
import warnings
from decimal import Decimal
from typing import Any

import pytest

from connector import Client, FieldError, ValidationError
from connector.builders import Customer, Invoice, Line, Receipt
from connector.plugins import make_plugin_manager
from plugins import detraction
from plugins.detraction import DetractionWarning
from sunat import catalogs
from tests.samples.bodies import invoice_body

CUSTOMER = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.")
VALUES = {"detraction.code": "037", "detraction.account": "00-000-123456"}


def service_invoice(**kw: Any) -> Invoice:
    """S/ 1,180.00: a service subject to detraction (037, 12 %)."""
    return Invoice(customer=CUSTOMER, lines=[Line("Mantenimiento", 1, unit_value=1000, unit="ZZ")], **kw)


def prepare(payload: dict[str, Any], values: dict[str, Any]) -> dict[str, Any] | None:
    return detraction.facturador_prepare_payload(payload, values)


def validate(payload: dict[str, Any]) -> list[FieldError]:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DetractionWarning)
        return detraction.facturador_validate_payload(payload)


def test_form_fields() -> None:
    fields = detraction.facturador_form_fields("01")
    assert [f.key for f in fields] == [
        "detraction.code",
        "detraction.percent",
        "detraction.account",
        "detraction.payment_method",
    ]
    code, percent, account, method = fields
    assert code.kind == "select" and code.options[0] == ("", "— sin detracción —")
    assert ("037", "037 - Demás servicios gravados con el IGV (12 %)") in code.options
    assert len(code.options) == len(catalogs.DETRACTION_TYPES) + 1
    assert percent.kind == "number" and account.required and method.default == "001"
    assert {f.section for f in fields} == {"Detracción"}
    assert detraction.facturador_form_fields(None)
    assert detraction.facturador_form_fields("03") == []
    assert make_plugin_manager().form_fields("voided", "01") == []  # a built-in of documents alone


def test_prepare_adds_operation_block_and_legend() -> None:
    payload = service_invoice().to_payload()
    original = copy.deepcopy(payload)
    prepared = prepare(payload, VALUES)
    assert payload == original  # never mutated
    assert prepared is not None
    assert prepared["codigo_tipo_operacion"] == "1001"
    assert prepared["detraccion"] == {
        "codigo_tipo_detraccion": "037",
        "porcentaje": 12.0,
        "codigo_metodo_pago": "001",
        "cuenta_bancaria": "00-000-123456",
        "monto": 141.6,
    }
    assert prepared["leyendas"] == [{"codigo": "2006", "valor": "Operación sujeta a detracción"}]
    assert validate(prepared) == []


def test_prepare_options() -> None:
    assert prepare(service_invoice().to_payload(), {}) is None
    assert prepare(service_invoice().to_payload(), {"detraction.code": ""}) is None
    assert make_plugin_manager().prepare_payload("voided", {}, VALUES) == {}
    # an explicit percent, a payment method, legends kept (2006 once), operation 1002 kept
    payload = service_invoice(
        extra={"leyendas": [{"codigo": "2006", "valor": "x"}, {"codigo": "2005", "valor": "y"}]}
    )
    prepared = prepare(
        {**payload.to_payload(), "codigo_tipo_operacion": "1002"},
        {**VALUES, "detraction.code": "004", "detraction.percent": "4", "detraction.payment_method": "003"},
    )
    assert prepared is not None
    assert prepared["codigo_tipo_operacion"] == "1002"
    assert prepared["detraccion"]["porcentaje"] == 4.0 and prepared["detraccion"]["monto"] == 47.2
    assert prepared["detraccion"]["codigo_metodo_pago"] == "003"
    assert [legend["codigo"] for legend in prepared["leyendas"]] == ["2005", "2006"]
    # USD: the amount is in soles, with the exchange rate; without it there is no amount to send
    usd = prepare(service_invoice(currency="USD", exchange_rate="3.80").to_payload(), VALUES)
    assert usd is not None and usd["detraccion"]["monto"] == 538.08
    unknown = prepare(service_invoice(currency="USD").to_payload(), VALUES)
    assert unknown is not None and "monto" not in unknown["detraccion"]
    assert [e.field for e in validate(unknown)] == ["detraccion.monto"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p.update(codigo_tipo_documento="03"), "codigo_tipo_documento"),
        (lambda p: p.update(codigo_tipo_operacion="0101"), "codigo_tipo_operacion"),
        (lambda p: p["detraccion"].update(codigo_tipo_detraccion="999"), "detraccion.codigo_tipo_detraccion"),
        (lambda p: p.update(codigo_tipo_operacion="1003"), "detraccion.codigo_tipo_detraccion"),
        (lambda p: p["detraccion"].update(porcentaje=0), "detraccion.porcentaje"),
        (lambda p: p["detraccion"].update(porcentaje=101), "detraccion.porcentaje"),
        (lambda p: p["detraccion"].update(monto=0), "detraccion.monto"),
        (lambda p: p["detraccion"].update(monto=100), "detraccion.monto"),
        (lambda p: p["detraccion"].update(cuenta_bancaria=" "), "detraccion.cuenta_bancaria"),
        (lambda p: p["detraccion"].update(codigo_metodo_pago="777"), "detraccion.codigo_metodo_pago"),
    ],
)
def test_validate_refuses(change: Any, field: str) -> None:
    prepared = prepare(service_invoice().to_payload(), VALUES)
    assert prepared is not None
    change(prepared)
    assert field in [e.field for e in validate(prepared)]


def test_validate_operation_without_block_and_block_shape() -> None:
    payload = {**service_invoice().to_payload(), "codigo_tipo_operacion": "1001"}
    assert [e.field for e in validate(payload)] == ["detraccion"]
    assert "3127" in validate(payload)[0].message
    assert validate(service_invoice().to_payload()) == []
    assert [e.field for e in validate({**payload, "detraccion": "037"})] == ["detraccion"]
    assert make_plugin_manager().validate_payload("summaries", payload) == []


def test_warnings_do_not_block() -> None:
    small = Invoice(customer=CUSTOMER, lines=[Line("Servicio", 1, unit_price=500, unit="ZZ")])
    prepared = prepare(small.to_payload(), VALUES)
    assert prepared is not None
    with pytest.warns(DetractionWarning, match="700"):
        assert detraction.facturador_validate_payload(prepared) == []
    no_legend = prepare(service_invoice().to_payload(), VALUES)
    assert no_legend is not None
    del no_legend["leyendas"]
    with pytest.warns(DetractionWarning, match="2006"):
        assert detraction.facturador_validate_payload(no_legend) == []


# -- end to end --------------------------------------------------------------------------------------


def payment_parts(xml: bytes) -> list[str]:
    return re.findall(r"<cac:Payment(?:Terms|Means)>.*?</cac:Payment(?:Terms|Means)>", xml.decode(), re.S)


def test_issue_with_detraction_through_the_service(client: Client) -> None:
    result = client.documents.issue(service_invoice(), form_values=VALUES)
    assert result.state_type_id == "05" and result.response is not None and result.response.accepted
    parts = payment_parts(client.documents.download_xml(result.external_id))
    terms = next(p for p in parts if "<cbc:ID>Detraccion</cbc:ID>" in p and "PaymentTerms" in p)
    assert (
        ">037</cbc:PaymentMeansID>" in terms and '<cbc:Amount currencyID="PEN">141.60</cbc:Amount>' in terms
    )
    means = next(p for p in parts if "PaymentMeans>" in p and "Detraccion" in p)
    assert "<cbc:ID>00-000-123456</cbc:ID>" in means and ">001</cbc:PaymentMeansCode>" in means
    xml = client.documents.download_xml(result.external_id).decode()
    assert 'languageLocaleID="2006"' in xml and 'listID="1001"' in xml
    record = client.documents.find(result.series, result.correlative)
    assert record is not None and record.total == Decimal("1180.00")


def test_raw_payload_with_a_detraction_block(client: Client) -> None:
    body = invoice_body()
    body["items"][0].update(cantidad=20, total_base_igv=1000, total_igv=180, total_impuestos=180)
    body["items"][0].update(total_valor_item=1000, total_item=1180)
    body["totales"].update(total_operaciones_gravadas=1000, total_igv=180, total_impuestos=180)
    body["totales"].update(total_valor=1000, total_venta=1180)
    body["codigo_tipo_operacion"] = "1001"
    body["detraccion"] = {
        "codigo_tipo_detraccion": "022",
        "porcentaje": 12,
        "monto": 141.6,
        "codigo_metodo_pago": "001",
        "cuenta_bancaria": "00-000-999999",
    }
    body["leyendas"] = [{"codigo": "2006", "valor": "Operación sujeta a detracción"}]
    result = client.documents.issue(body)
    assert result.state_type_id == "05"


def test_mistakes_are_caught_before_sending(client: Client) -> None:
    with pytest.raises(ValidationError) as caught:
        client.documents.issue(service_invoice(), form_values={"detraction.code": "037"})
    assert caught.value.status is None
    assert caught.value.errors_for("detraccion.cuenta_bancaria")
    receipt = Receipt(customer=Customer.dni("46027862", "ANA"), lines=[Line("Servicio", 1, unit_price=1180)])
    with pytest.raises(ValidationError) as boleta:
        client.documents.issue(receipt, form_values=VALUES)
    assert boleta.value.errors_for("codigo_tipo_documento")
