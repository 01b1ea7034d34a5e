"""Detraction (PaymentMeans + PaymentTerms "Detraccion") and credit instalments (FormaPago Credito +
Cuota001…) in the UBL builder: placement, content, attributes, and what the builder refuses."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from lxml import etree

from facturador.issued import Instalment, NoteInfo
from facturador.ubl import parts, xsd
from facturador.ubl.invoice import (
    build_and_sign,
    build_sales_document,
)
from facturador.ubl.namespaces import NS
from tests.samples.documents import (
    AFFECTS_F001_1,
    DETRACTION_4,
    LEGEND_2006,
    TWO_INSTALMENTS,
    document,
    line,
    scenarios,
)

SCENARIOS = scenarios()


def children(el: etree._Element) -> list[str]:
    return [etree.QName(child).localname for child in el]


def terms(root: etree._Element) -> list[tuple[str, ...]]:
    """Every cac:PaymentTerms as a tuple of its children's texts, in document order."""
    return [tuple(child.text or "" for child in el) for el in root.findall("cac:PaymentTerms", NS)]


def test_detraction_placement_and_content():
    root = build_sales_document(SCENARIOS["detraction_1001"])
    assert children(root)[children(root).index("AccountingCustomerParty") :] == [
        "AccountingCustomerParty", "PaymentMeans", "PaymentTerms", "PaymentTerms", "TaxTotal",
        "LegalMonetaryTotal", "InvoiceLine",
    ]  # fmt: skip
    means = root.find("cac:PaymentMeans", NS)
    assert children(means) == ["ID", "PaymentMeansCode", "PayeeFinancialAccount"]
    assert means.findtext("cbc:ID", namespaces=NS) == "Detraccion"
    code = means.find("cbc:PaymentMeansCode", NS)
    assert code.text == "001"
    assert code.get("listURI") == "urn:pe:gob:sunat:cpe:see:gem:catalogos:catalogo59"
    assert means.findtext("cac:PayeeFinancialAccount/cbc:ID", namespaces=NS) == "00-068-123456"

    detraction, form = root.findall("cac:PaymentTerms", NS)
    assert children(detraction) == ["ID", "PaymentMeansID", "PaymentPercent", "Amount"]
    assert terms(root) == [("Detraccion", "037", "4.00", "47.20"), ("FormaPago", "Contado")]
    means_id = detraction.find("cbc:PaymentMeansID", NS)
    assert means_id.get("schemeURI") == "urn:pe:gob:sunat:cpe:see:gem:catalogos:catalogo54"
    assert detraction.find("cbc:Amount", NS).get("currencyID") == "PEN"
    assert root.find("cbc:Note[@languageLocaleID='2006']", NS).text == LEGEND_2006.text
    assert form.find("cbc:Amount", NS) is None


def test_instalments():
    root = build_sales_document(SCENARIOS["credit_instalments"])
    assert root.find("cac:PaymentMeans", NS) is None
    assert terms(root) == [
        ("FormaPago", "Credito", "118.00"),
        ("FormaPago", "Cuota001", "59.00", "2026-04-01"),
        ("FormaPago", "Cuota002", "59.00", "2026-05-01"),
    ]
    for el in root.findall("cac:PaymentTerms", NS):
        amount = el.find("cbc:Amount", NS)
        assert amount.get("currencyID") == "PEN"
    cuota = root.findall("cac:PaymentTerms", NS)[1]
    assert children(cuota) == ["ID", "PaymentMeansID", "Amount", "PaymentDueDate"]


def test_detraction_with_instalments_pending_is_total_less_detraction():
    root = build_sales_document(SCENARIOS["detraction_credit"])
    assert terms(root) == [
        ("Detraccion", "037", "4.00", "47.20"),
        ("FormaPago", "Credito", "1132.80"),
        ("FormaPago", "Cuota001", "566.40", "2026-03-02"),
        ("FormaPago", "Cuota002", "566.40", "2026-04-02"),
    ]
    assert SCENARIOS["detraction_credit"].pending_amount == Decimal("1180.00") - Decimal("47.20")


def test_usd_document_keeps_the_detraction_in_soles_and_the_instalments_in_dollars(identity):
    doc = document(
        (line(quantity="1", unit_value="1000", unit="ZZ"),),
        currency="USD",
        operation_type="1001",
        extra_legends=(LEGEND_2006,),
        payment_form="Credito",
        detraction=DETRACTION_4,
        instalments=(Instalment(date(2026, 4, 1), Decimal("1167.38")),),
    )
    signed = build_and_sign(doc, identity)
    assert xsd.validate(signed.xml, "Invoice") == []
    root = etree.fromstring(signed.xml)
    currencies = {
        el.findtext("cbc:ID", namespaces=NS): el.find("cbc:Amount", NS).get("currencyID")
        for el in root.findall("cac:PaymentTerms", NS)
        if el.find("cbc:Amount", NS) is not None
    }
    assert currencies == {"Detraccion": "PEN", "FormaPago": "USD"}


def test_many_instalments_are_numbered_with_three_digits():
    cuotas = tuple(Instalment(date(2026, 3, 2 + i), Decimal("1.00")) for i in range(12))
    lines = (line(quantity="1", unit_value="10.1694915254", percent="18"),)
    doc = document(lines, payment_form="Credito", instalments=cuotas)
    ids = [t[1] for t in terms(build_sales_document(doc))]
    assert ids == ["Credito", *(f"Cuota{n:03d}" for n in range(1, 13))]
    assert parts.instalment_id(999) == "Cuota999"
    with pytest.raises(ValueError):
        parts.instalment_id(1000)


def test_what_the_builder_refuses():
    with pytest.raises(ValueError, match="Credito"):
        build_sales_document(document(payment_form="Credito", instalments=()))
    with pytest.raises(ValueError, match="instalments need"):
        build_sales_document(document(instalments=TWO_INSTALMENTS))
    note = NoteInfo("01", "ANULACION", AFFECTS_F001_1)
    with pytest.raises(ValueError, match="factura or boleta"):
        build_sales_document(document(doc_type="07", series="FC01", note=note, detraction=DETRACTION_4))
    # a note on credit carries FormaPago Credito and its cuotas (no Contado: SUNAT asks it of facturas)
    on_credit = build_sales_document(
        document(doc_type="07", series="FC01", note=note, instalments=TWO_INSTALMENTS)
    )
    forms = [
        t.findtext("cbc:PaymentMeansID", namespaces=NS) for t in on_credit.findall("cac:PaymentTerms", NS)
    ]
    assert forms == ["Credito", "Cuota001", "Cuota002"]
