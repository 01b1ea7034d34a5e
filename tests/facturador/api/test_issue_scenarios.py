"""Every scenario of issue 2 issued over HTTP: response shape, XML validity, signature, totals, states."""

from __future__ import annotations

import base64
import copy
from decimal import Decimal
from typing import Any

import httpx
import pytest

from tests.common import issue
from tests.conftest import LiveService
from tests.helpers import NS, amount, assert_schema_valid, assert_signed, read_cdr
from tests.samples.bodies import boleta_body, credit_note_body, invoice_body
from tests.samples.tenants import ACME_RUC
from tests.shops import new_shop


def check_artifacts(client: httpx.Client, payload: dict[str, Any]) -> Any:
    """Download the XML, check XSD + signature + hash, and the CDR when there is one; return the XML root."""
    data = payload["data"]
    xml = httpx.get(payload["links"]["xml"])
    assert xml.status_code == 200
    assert xml.headers["content-type"].startswith("application/xml")
    assert f'filename="{data["filename"]}.xml"' in xml.headers["content-disposition"]
    root = assert_schema_valid(xml.content)
    assert_signed(xml.content, data["hash"])
    assert root.findtext("cbc:ID", namespaces=NS) == data["number"]
    if payload["links"]["cdr"]:
        cdr = httpx.get(payload["links"]["cdr"])
        assert cdr.status_code == 200
        assert cdr.headers["content-type"] == "application/zip"
        assert f'filename="R-{data["filename"]}.zip"' in cdr.headers["content-disposition"]
        name, cdr_xml = read_cdr(cdr.content)
        assert name == f"R-{data['filename']}.xml"
        cdr_root = assert_schema_valid(cdr_xml)
        assert_signed(cdr_xml)
        assert (
            cdr_root.findtext(".//cac:DocumentResponse/cac:Response/cbc:ResponseCode", namespaces=NS)
            == (payload["response"]["code"])
        )
    return root


def test_taxed_invoice_sample_is_accepted(acme: httpx.Client) -> None:
    payload = issue(acme, invoice_body())
    data = payload["data"]
    series, number = data["number"].split("-")
    assert series == "F001" and int(number) >= 1
    assert data["filename"] == f"{ACME_RUC}-01-{data['number']}"
    assert data["state_type_id"] == "05" and data["state_type_description"] == "Aceptado"
    assert data["number_to_letter"] == "CIENTO DIECIOCHO CON 00/100 SOLES"
    assert len(data["external_id"]) == 36 and isinstance(data["id"], int)
    assert base64.b64decode(data["qr"]).startswith(b"\x89PNG")
    assert payload["response"]["code"] == "0"
    assert payload["response"]["notes"] == []
    assert "ha sido aceptada" in payload["response"]["description"]
    assert set(payload["links"]) == {"xml", "pdf", "cdr"}
    root = check_artifacts(acme, payload)
    assert root.find("cbc:InvoiceTypeCode", NS).get("listID") == "0101"
    assert amount(root, "cac:LegalMonetaryTotal/cbc:PayableAmount") == Decimal("118.00")
    assert amount(root, "cac:TaxTotal/cbc:TaxAmount") == Decimal("18.00")
    legend = root.find("cbc:Note[@languageLocaleID='1000']", NS)
    assert legend is not None and legend.text == "CIENTO DIECIOCHO CON 00/100 SOLES"
    assert root.xpath("cac:PaymentTerms[cbc:ID='FormaPago']/cbc:PaymentMeansID/text()", namespaces=NS) == [
        "Contado"
    ]


def test_boleta_sample_stays_registered(acme: httpx.Client) -> None:
    payload = issue(acme, boleta_body())
    assert payload["data"]["number"].startswith("B001-")
    assert payload["data"]["state_type_id"] == "01"
    assert payload["response"] == []
    assert payload["links"]["cdr"] == ""
    root = check_artifacts(acme, payload)
    assert root.findtext("cbc:InvoiceTypeCode", namespaces=NS) == "03"


def test_without_sending_sample_then_send(acme: httpx.Client) -> None:
    payload = issue(acme, invoice_body(acciones={"enviar_xml_firmado": False}))
    data = payload["data"]
    assert data["state_type_id"] == "01" and payload["response"] == [] and payload["links"]["cdr"] == ""
    assert acme.get(f"/downloads/document/cdr/{data['external_id']}").status_code == 404
    sent = acme.post("/api/documents/send", json={"external_id": data["external_id"]})
    assert sent.status_code == 200, sent.text
    body = sent.json()
    assert body["success"] is True
    assert body["data"]["state_type_id"] == "05"
    assert body["response"]["code"] == "0"
    assert body["links"]["cdr"].endswith(f"/downloads/document/cdr/{data['external_id']}")
    assert httpx.get(body["links"]["cdr"]).status_code == 200


def test_credit_note_sample_against_an_issued_invoice(acme: httpx.Client) -> None:
    invoice = issue(acme, invoice_body())
    payload = issue(acme, credit_note_body(invoice["data"]["external_id"]))
    assert payload["data"]["number"].startswith("FC01-")
    assert payload["data"]["state_type_id"] == "05"
    root = check_artifacts(acme, payload)
    assert (
        root.findtext("cac:DiscrepancyResponse/cbc:ReferenceID", namespaces=NS) == invoice["data"]["number"]
    )
    assert root.findtext("cac:DiscrepancyResponse/cbc:ResponseCode", namespaces=NS) == "01"
    assert (
        root.findtext("cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID", namespaces=NS)
        == (invoice["data"]["number"])
    )


def test_debit_note_by_series_and_number_of_a_document_issued_elsewhere(acme: httpx.Client) -> None:
    body = credit_note_body()
    body.update(
        codigo_tipo_documento="08",
        serie_documento="FD01",
        codigo_tipo_nota="01",
        motivo_o_sustento_de_nota="Intereses por mora",
    )
    body["documento_afectado"] = {
        "serie_documento": "F001",
        "numero_documento": "77",
        "codigo_tipo_documento": "01",
    }
    payload = issue(acme, body)
    assert payload["data"]["number"].startswith("FD01-")
    root = check_artifacts(acme, payload)
    assert (
        root.findtext("cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID", namespaces=NS) == "F001-77"
    )
    assert amount(root, "cac:RequestedMonetaryTotal/cbc:PayableAmount") == Decimal("118.00")


def boleta_note_body() -> dict[str, Any]:
    body = credit_note_body()
    body["serie_documento"] = "BC01"
    body["datos_del_cliente_o_receptor"]["codigo_tipo_documento_identidad"] = "1"
    body["datos_del_cliente_o_receptor"]["numero_documento"] = "46027862"
    body["documento_afectado"] = {
        "serie_documento": "B001",
        "numero_documento": "5",
        "codigo_tipo_documento": "03",
    }
    return body


def test_boleta_credit_note_is_not_sent(acme: httpx.Client) -> None:
    payload = issue(acme, boleta_note_body())
    assert payload["data"]["number"].startswith("BC01-")
    assert payload["data"]["state_type_id"] == "01"
    check_artifacts(acme, payload)


def line(
    description: str, quantity: str, unit_value: str, affectation: str, *, bag: str | None = None
) -> dict:
    """A line with amounts computed the way the real samples do."""
    q, v = Decimal(quantity), Decimal(unit_value)
    value = (q * v).quantize(Decimal("0.01"))
    free = affectation in {"11", "12", "13", "14", "15", "16", "21", "31", "32", "33", "34", "35", "36", "37"}
    taxed = affectation in {"10", "11", "12", "13", "14", "15", "16"}
    igv = (value * Decimal("0.18")).quantize(Decimal("0.01")) if taxed else Decimal("0.00")
    icbper = (q * Decimal("0.50")).quantize(Decimal("0.01")) if bag else Decimal("0")
    taxes = Decimal("0") if free else igv + icbper
    item = {
        "codigo_interno": description[:6].upper(),
        "descripcion": description,
        "unidad_de_medida": "NIU",
        "cantidad": float(q),
        "valor_unitario": str(v),
        "codigo_tipo_precio": "02" if free else "01",
        "precio_unitario": "0"
        if free
        else str((v * (Decimal("1.18") if taxed else 1)).quantize(Decimal("0.01"))),
        "codigo_tipo_afectacion_igv": affectation,
        "total_base_igv": str(value),
        "porcentaje_igv": 18,
        "total_igv": str(igv),
        "total_impuestos": str(taxes),
        "total_valor_item": str(value),
        "total_item": "0" if free else str(value + taxes),
    }
    if bag:
        item["total_impuestos_bolsa_plastica"] = str(icbper)
    return item


def document(lines: list[dict], **overrides: Any) -> dict[str, Any]:
    """A factura with header totals summed from ``lines``."""
    sums: dict[str, Decimal] = {
        k: Decimal("0") for k in ("10", "20", "30", "40", "free", "igv", "igv_free", "icbper")
    }
    for item in lines:
        aff = item["codigo_tipo_afectacion_igv"]
        value = Decimal(item["total_valor_item"])
        if item["codigo_tipo_precio"] == "02":
            sums["free"] += value
            sums["igv_free"] += Decimal(item["total_igv"])
        else:
            sums[aff] += value
            sums["igv"] += Decimal(item["total_igv"])
        sums["icbper"] += Decimal(item.get("total_impuestos_bolsa_plastica", "0"))
    value = sums["10"] + sums["20"] + sums["30"] + sums["40"]
    taxes = sums["igv"] + sums["icbper"]
    body = invoice_body()
    body["items"] = lines
    body["totales"] = {
        "total_exportacion": str(sums["40"]),
        "total_operaciones_gravadas": str(sums["10"]),
        "total_operaciones_inafectas": str(sums["30"]),
        "total_operaciones_exoneradas": str(sums["20"]),
        "total_operaciones_gratuitas": str(sums["free"]),
        "total_igv_operaciones_gratuitas": str(sums["igv_free"]),
        "total_impuestos_bolsa_plastica": str(sums["icbper"]),
        "total_igv": str(sums["igv"]),
        "total_impuestos": str(taxes),
        "total_valor": str(value),
        "total_venta": str(value + taxes),
    }
    body.update(overrides)
    return body


def subtotal(root: Any, scheme: str) -> tuple[Decimal | None, Decimal]:
    nodes = root.xpath(
        f"cac:TaxTotal/cac:TaxSubtotal[cac:TaxCategory/cac:TaxScheme/cbc:ID='{scheme}']", namespaces=NS
    )
    assert len(nodes) == 1, f"expected one {scheme} subtotal"
    node = nodes[0]
    base = node.findtext("cbc:TaxableAmount", namespaces=NS)
    return (Decimal(base) if base is not None else None), Decimal(
        node.findtext("cbc:TaxAmount", namespaces=NS)
    )


EXPORT_CUSTOMER = {
    "codigo_tipo_documento_identidad": "0",
    "numero_documento": "900123456",
    "apellidos_y_nombres_o_razon_social": "ANDES TRADING CORP",
    "codigo_pais": "US",
    "direccion": "100 Main St, Miami",
}

SCENARIOS: dict[str, tuple[list[dict], dict[str, Any], dict[str, tuple[Decimal | None, Decimal]]]] = {
    "free": (
        [line("Muestra gratis", "2", "50", "16"), line("Regalo inafecto", "1", "10", "31")],
        {},
        {"9996": (Decimal("110.00"), Decimal("18.00"))},
    ),
    "mixed_taxed_free": (
        [line("Gaseosa", "2", "50", "10"), line("Bonificación", "1", "50", "15")],
        {},
        {"1000": (Decimal("100.00"), Decimal("18.00")), "9996": (Decimal("50.00"), Decimal("9.00"))},
    ),
    "exempt": ([line("Libro", "3", "40", "20")], {}, {"9997": (Decimal("120.00"), Decimal("0.00"))}),
    "unaffected": (
        [line("Servicio educativo", "1", "300", "30")],
        {},
        {"9998": (Decimal("300.00"), Decimal("0.00"))},
    ),
    "export": (
        [line("Café de exportación", "10", "25", "40")],
        {"codigo_tipo_operacion": "0200", "datos_del_cliente_o_receptor": EXPORT_CUSTOMER},
        {"9995": (Decimal("250.00"), Decimal("0.00"))},
    ),
    "usd": (
        [line("Laptop", "1", "1000", "10")],
        {"codigo_tipo_moneda": "USD"},
        {"1000": (Decimal("1000.00"), Decimal("180.00"))},
    ),
    "icbper": (
        [line("Gaseosa", "2", "50", "10"), line("Bolsa plástica", "2", "0.50", "10", bag="1")],
        {},
        {"1000": (Decimal("101.00"), Decimal("18.18")), "7152": (None, Decimal("1.00"))},
    ),
    "exempt_icbper": (
        [line("Arroz", "5", "4", "20"), line("Bolsa plástica", "1", "0.10", "20", bag="1")],
        {},
        {"9997": (Decimal("20.10"), Decimal("0.00")), "7152": (None, Decimal("0.50"))},
    ),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenarios_are_accepted_with_right_xml(acme: httpx.Client, name: str) -> None:
    lines, overrides, expected = SCENARIOS[name]
    body = document(copy.deepcopy(lines), **overrides)
    payload = issue(acme, body)
    assert payload["data"]["state_type_id"] in {"05", "07"}, payload["response"]
    assert payload["response"]["code"] == "0"
    root = check_artifacts(acme, payload)
    currency = body["codigo_tipo_moneda"]
    assert root.findtext("cbc:DocumentCurrencyCode", namespaces=NS) == currency
    for scheme, (base, tax) in expected.items():
        assert subtotal(root, scheme) == (base, tax)
    total = Decimal(body["totales"]["total_venta"])
    assert amount(root, "cac:LegalMonetaryTotal/cbc:PayableAmount") == total
    assert amount(root, "cac:LegalMonetaryTotal/cbc:LineExtensionAmount") == Decimal(
        body["totales"]["total_valor"]
    )
    if name == "usd":
        assert payload["data"]["number_to_letter"].endswith("DÓLARES AMERICANOS")
    if name in ("free", "mixed_taxed_free"):
        assert root.find("cbc:Note[@languageLocaleID='1002']", NS) is not None
        free_line = root.findall("cac:InvoiceLine", NS)[-1]
        assert (
            free_line.findtext(
                "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceTypeCode", namespaces=NS
            )
            == "02"
        )
        assert Decimal(free_line.findtext("cac:Price/cbc:PriceAmount", namespaces=NS)) == 0


def test_contingency_series(acme: httpx.Client) -> None:
    payload = issue(acme, invoice_body(serie_documento="0001"))
    assert payload["data"]["number"].startswith("0001-")
    assert payload["data"]["state_type_id"] == "05"
    check_artifacts(acme, payload)
    boleta = boleta_body()
    boleta["serie_documento"] = "0004"
    payload = issue(acme, boleta)
    assert payload["data"]["number"].startswith("0004-")


def test_numbers_as_strings_and_unknown_keys_are_kept(live, acme: httpx.Client) -> None:
    body = invoice_body()
    body["totales"] = {k: str(v) for k, v in body["totales"].items()}
    body["items"][0]["cantidad"] = "2"
    body["campo_propio_del_cliente"] = {"caja": 7}
    payload = issue(acme, body)
    assert payload["data"]["state_type_id"] == "05"
    rows = acme.get("/api/documents/lists").json()["data"]
    assert any(row["external_id"] == payload["data"]["external_id"] for row in rows)


def test_explicit_number(live: LiveService) -> None:
    """On a tenant of its own: test_numbering.py numbers acme's F002 from 90000, and pytest-xdist runs
    the files in any order (this passed only when it ran first)."""
    shop = new_shop(live, "numero")
    with shop.http() as client:
        payload = issue(client, invoice_body(serie_documento="F001", numero_documento="500"))
        assert payload["data"]["number"] == "F001-500"
        following = issue(client, invoice_body(serie_documento="F001"))
        assert following["data"]["number"] == "F001-501"


def test_pdf_download_a4_and_ticket(acme: httpx.Client) -> None:
    payload = issue(acme, invoice_body(acciones={"formato_pdf": "ticket"}))
    pdf = httpx.get(payload["links"]["pdf"])
    assert pdf.status_code == 200
    assert pdf.headers["content-type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF")
    assert f'filename="{payload["data"]["filename"]}.pdf"' in pdf.headers["content-disposition"]
    a4 = httpx.get(payload["links"]["pdf"] + "/a4")
    assert a4.status_code == 200 and a4.content.startswith(b"%PDF") and a4.content != pdf.content
    again = httpx.get(payload["links"]["pdf"])
    assert again.content == pdf.content  # kept after the first rendering
