"""Issue 11 over HTTP: the cargo transport detraction (operation 1004) and notes with instalments
(credit note type 13, a debit note on credit).

Each accepted body (:mod:`tests.samples.notes_and_cargo`, dated today) is issued on the live service;
its XML is schema-valid, its signature verifies, the simulator accepts it and SUNAT's own stylesheets
find nothing; the PDF shows the block. Each broken variant is refused with 422 naming the field and
quoting SUNAT's rule, and nothing is stored.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest

from tests.facturador.api.test_blocks import issue, issued_xml, pdf_text, refused, sunat_rules
from tests.helpers import NS, amount
from tests.samples import notes_and_cargo as samples

__all__ = ["sunat_rules"]  # the fixture, shared with test_blocks

D = Decimal


def test_cargo_transport_detraction(acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]) -> None:
    payload = issue(acme, samples.cargo_invoice())
    root = issued_xml(payload, sunat_rules)
    assert root.find("cbc:InvoiceTypeCode", NS).get("listID") == "1004"
    terms = root.find("cac:PaymentTerms[cbc:ID='Detraccion']", NS)
    assert terms.findtext("cbc:PaymentMeansID", namespaces=NS) == "027"
    assert amount(terms, "cbc:Amount") == D("47.20")
    delivery = root.find("cac:InvoiceLine/cac:Delivery", NS)
    assert delivery.findtext("cac:DeliveryLocation/cac:Address/cbc:ID", namespaces=NS) == "040101"
    assert delivery.findtext("cac:Despatch/cac:DespatchAddress/cbc:ID", namespaces=NS) == "150101"
    assert "cemento" in delivery.findtext("cac:Despatch/cbc:Instructions", namespaces=NS)
    values = {
        t.findtext("cbc:ID", namespaces=NS): D(t.findtext("cbc:Amount", namespaces=NS))
        for t in delivery.findall("cac:DeliveryTerms", NS)
    }
    assert values == {"01": D("1100.00"), "02": D("900.00"), "03": D("950.00")}
    text = pdf_text(acme, payload)
    assert "Detalle del viaje" in text and "040101" in text and "1,100.00" in text


def _credit_factura(acme: httpx.Client) -> str:
    return str(issue(acme, samples.credit_invoice())["data"]["external_id"])


def test_credit_note_13_restates_the_instalments(
    acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]
) -> None:
    payload = issue(acme, samples.adjustment_note(_credit_factura(acme)))
    root = issued_xml(payload, sunat_rules)
    assert root.findtext("cac:DiscrepancyResponse/cbc:ResponseCode", namespaces=NS) == "13"
    assert amount(root, "cac:LegalMonetaryTotal/cbc:PayableAmount") == 0
    forms = [
        (t.findtext("cbc:PaymentMeansID", namespaces=NS), t.findtext("cbc:Amount", namespaces=NS))
        for t in root.findall("cac:PaymentTerms[cbc:ID='FormaPago']", NS)
    ]
    assert forms == [("Credito", "118.00"), ("Cuota001", "59.00"), ("Cuota002", "59.00")]
    text = pdf_text(acme, payload)
    assert "N° CUOTA" in text and "Crédito" in text and "59.00" in text


def test_debit_note_on_credit(acme: httpx.Client, sunat_rules: Callable[[bytes, str], Any]) -> None:
    payload = issue(acme, samples.debit_note_on_credit(_credit_factura(acme)))
    root = issued_xml(payload, sunat_rules)
    forms = [
        (t.findtext("cbc:PaymentMeansID", namespaces=NS), t.findtext("cbc:Amount", namespaces=NS))
        for t in root.findall("cac:PaymentTerms[cbc:ID='FormaPago']", NS)
    ]
    assert forms == [("Credito", "11.80"), ("Cuota001", "11.80")]
    assert amount(root, "cac:RequestedMonetaryTotal/cbc:PayableAmount") == D("11.80")


def _cargo(**changes: Any) -> dict[str, Any]:
    return samples.cargo_invoice(**changes)


def _without(key: str) -> dict[str, Any]:
    body = samples.cargo_invoice()
    del body["detraccion"][key]
    return body


def test_cargo_variants_are_refused(acme: httpx.Client) -> None:
    refused(acme, _cargo(ubigeo_destino="999999"), "detraccion.ubigeo_destino", "4200")
    refused(acme, _cargo(ubigeo_origen="1501"), "detraccion.ubigeo_origen", "6 dígitos")
    refused(acme, _without("ubigeo_origen"), "detraccion.ubigeo_origen", "3116")
    refused(acme, _without("detalle_viaje"), "detraccion.detalle_viaje", "3120")
    refused(acme, _without("direccion_destino"), "detraccion.direccion_destino", "3119")
    refused(
        acme,
        _without("valor_referencial_carga_util"),
        "detraccion.valor_referencial_carga_util",
        "3126",
    )
    wrong_code = samples.cargo_invoice()
    wrong_code["detraccion"]["codigo_tipo_detraccion"] = "037"
    refused(acme, wrong_code, "detraccion.codigo_tipo_detraccion", "3129")
    trip_on_1001 = samples.cargo_invoice()
    trip_on_1001["codigo_tipo_operacion"] = "1001"
    trip_on_1001["detraccion"]["codigo_tipo_detraccion"] = "037"
    refused(acme, trip_on_1001, "detraccion.detalle_viaje", "1004")


def test_adjustment_note_variants_are_refused(acme: httpx.Client) -> None:
    factura = _credit_factura(acme)
    without = samples.adjustment_note(factura)
    del without["cuotas"]
    refused(acme, without, "cuotas", "3249")
    del without["codigo_condicion_de_pago"]
    refused(acme, without, "codigo_condicion_de_pago", "3257")
    cash = samples.adjustment_note(factura)
    cash["codigo_condicion_de_pago"] = "01"
    refused(acme, cash, "cuotas", "3252")  # cuotas with condition 01 (contado)
    nonzero = samples.credit_note_body(factura, codigo_tipo_nota="13", codigo_condicion_de_pago="02")
    nonzero["cuotas"] = [samples.cuota(samples.due(30), 118)]
    refused(acme, nonzero, "totales.total_venta", "3315")
    cash_factura = issue(acme, samples.invoice_body())["data"]["external_id"]
    refused(acme, samples.adjustment_note(cash_factura), "documento_afectado.external_id", "3260")
    by_number = samples.adjustment_note()
    by_number["documento_afectado"] = {
        "codigo_tipo_documento": "03",
        "serie_documento": "B001",
        "numero_documento": "1",
    }
    refused(acme, by_number, "documento_afectado.codigo_tipo_documento", "3259")
    early = samples.adjustment_note(factura, [samples.cuota("2020-01-01", 118)])
    refused(acme, early, "cuotas.0.fecha", "emisión")


def test_debit_note_instalments_must_add_up(acme: httpx.Client) -> None:
    body = samples.debit_note_on_credit(_credit_factura(acme))
    body["cuotas"] = [samples.cuota(samples.due(30), "10.00")]
    refused(acme, body, "cuotas", "3319")
    wrong = copy.deepcopy(body)
    wrong["codigo_condicion_de_pago"] = "01"
    refused(acme, wrong, "cuotas", "3252")


@pytest.mark.parametrize("body", [samples.cargo_invoice, samples.credit_invoice])
def test_the_samples_are_dated_today(body: Callable[[], dict[str, Any]]) -> None:
    from sunat.calendar import peru_today

    assert body()["fecha_de_emision"] == peru_today().isoformat()
