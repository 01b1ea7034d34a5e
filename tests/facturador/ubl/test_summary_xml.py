"""SummaryDocuments (RC) and VoidedDocuments (RA) XML: shape, SUNAT's 2.0 schemas, signature."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from lxml import etree

from facturador.issued import Issuer
from facturador.ubl import xsd
from facturador.ubl.signing import SigningIdentity, verify
from facturador.ubl.summaries import (
    ADD,
    VOID,
    DailySummary,
    SummaryLine,
    VoidedCommunication,
    VoidedLine,
    build_summary,
    build_voided,
    sign_summary,
)
from tests.helpers import NS, assert_schema_valid
from tests.reference import shared_path

ISSUER = Issuer(ruc="20100066603", name="ACME  PERU\nS.A.C.", trade_name="Acme")
DAY = date(2026, 11, 20)
TODAY = date(2026, 11, 22)

BOLETA = SummaryLine(
    doc_type="03",
    document_id="B001-7",
    condition=ADD,
    currency="PEN",
    total=Decimal("1180.50"),
    taxed=Decimal("1000"),
    igv=Decimal("180"),
    icbper=Decimal("0.50"),
    customer_type="1",
    customer_number="44556677",
)
ANONYMOUS = SummaryLine(
    doc_type="03",
    document_id="B001-8",
    condition=ADD,
    currency="PEN",
    total=Decimal("60"),
    exonerated=Decimal("50"),
    unaffected=Decimal("10"),
    free=Decimal("5"),
    customer_type="-",
    customer_number="-",
)
NOTE = SummaryLine(
    doc_type="07",
    document_id="BC01-3",
    condition=ADD,
    currency="USD",
    total=Decimal("11.80"),
    taxed=Decimal("10"),
    igv=Decimal("1.80"),
    customer_type="1",
    customer_number="44556677",
    reference_type="03",
    reference_id="B001-7",
)


def summary(*lines: SummaryLine) -> DailySummary:
    return DailySummary(ISSUER, "RC-20261122-2", DAY, TODAY, lines or (BOLETA, ANONYMOUS, NOTE))


def voided() -> VoidedCommunication:
    return VoidedCommunication(
        ISSUER,
        "RA-20261122-1",
        DAY,
        TODAY,
        (
            VoidedLine("01", "F001", 12, "Error en el RUC\tdel cliente"),
            VoidedLine("07", "FC01", 3, "Duplicado"),
        ),
    )


def text(node: etree._Element, path: str) -> str | None:
    return node.findtext(path, namespaces=NS)


def test_the_real_samples_are_valid_against_the_schemas() -> None:
    """The 2.0 schemas the tests and the simulator use accept SUNAT's own samples."""
    for name in ("20000000001-RC-20171119-001.xml", "20600995805-RA-20170719-01.xml"):
        assert_schema_valid(shared_path("examples", "sunat", name).read_bytes())


def test_summary_header_and_lines() -> None:
    root = build_summary(summary())
    assert etree.QName(root).localname == "SummaryDocuments"
    assert text(root, "cbc:UBLVersionID") == "2.0"
    assert text(root, "cbc:CustomizationID") == "1.1"
    assert text(root, "cbc:ID") == "RC-20261122-2"
    assert text(root, "cbc:ReferenceDate") == "2026-11-20"
    assert text(root, "cbc:IssueDate") == "2026-11-22"
    assert text(root, "cac:Signature/cac:SignatoryParty/cac:PartyIdentification/cbc:ID") == ISSUER.ruc
    assert text(root, "cac:Signature/cac:DigitalSignatureAttachment/cac:ExternalReference/cbc:URI") == (
        "#SignatureSP"
    )
    assert text(root, "cac:AccountingSupplierParty/cbc:CustomerAssignedAccountID") == ISSUER.ruc
    assert text(root, "cac:AccountingSupplierParty/cbc:AdditionalAccountID") == "6"
    name = text(root, "cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName")
    assert name == "ACME PERU S.A.C."  # one line
    lines = root.findall("sac:SummaryDocumentsLine", NS)
    assert [text(line, "cbc:LineID") for line in lines] == ["1", "2", "3"]
    first, anonymous, note = lines
    assert text(first, "cbc:DocumentTypeCode") == "03" and text(first, "cbc:ID") == "B001-7"
    assert text(first, "cac:AccountingCustomerParty/cbc:CustomerAssignedAccountID") == "44556677"
    assert text(first, "cac:AccountingCustomerParty/cbc:AdditionalAccountID") == "1"
    assert first.find("cac:BillingReference", NS) is None
    assert text(first, "cac:Status/cbc:ConditionCode") == "1"
    total = first.find("sac:TotalAmount", NS)
    assert total is not None and total.text == "1180.50" and total.get("currencyID") == "PEN"
    payments = [
        (text(p, "cbc:InstructionID"), text(p, "cbc:PaidAmount"))
        for p in first.findall("sac:BillingPayment", NS)
    ]
    assert payments == [("01", "1000.00"), ("02", "0.00"), ("03", "0.00")]
    taxes = [
        (text(t, "cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:ID"), text(t, "cbc:TaxAmount"))
        for t in first.findall("cac:TaxTotal", NS)
    ]
    assert taxes == [("1000", "180.00"), ("7152", "0.50")]
    # an unidentified buyer: no AccountingCustomerParty; free operations as instruction 05
    assert anonymous.find("cac:AccountingCustomerParty", NS) is None
    payments = [
        (text(p, "cbc:InstructionID"), text(p, "cbc:PaidAmount"))
        for p in anonymous.findall("sac:BillingPayment", NS)
    ]
    assert payments == [("01", "0.00"), ("02", "50.00"), ("03", "10.00"), ("05", "5.00")]
    # a boleta note names the boleta it modifies; amounts in the note's currency
    assert text(note, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID") == "B001-7"
    assert text(note, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:DocumentTypeCode") == "03"
    assert {a.get("currencyID") for a in note.iter() if a.get("currencyID")} == {"USD"}


def test_void_lines_use_condition_3() -> None:
    line = SummaryLine("03", "B001-9", VOID, "PEN", Decimal("118"), taxed=Decimal("100"), igv=Decimal("18"))
    root = build_summary(summary(line))
    assert root.findtext("sac:SummaryDocumentsLine/cac:Status/cbc:ConditionCode", namespaces=NS) == "3"


def test_signed_summary_is_schema_valid_and_verifies(identity: SigningIdentity) -> None:
    signed = sign_summary(summary(), identity)
    assert signed.filename == "20100066603-RC-20261122-2"
    assert signed.xml.startswith(b"<?xml version='1.0' encoding='UTF-8'?>")
    root = assert_schema_valid(signed.xml)
    assert xsd.validate(signed.xml) == []
    assert verify(signed.xml).digest_value == signed.digest_value
    signature = root.find(
        "ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent/ds:Signature",
        {**NS, "ext": ("urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2")},
    )
    assert signature is not None and signature.get("Id") == "SignatureSP"


def test_voided_communication(identity: SigningIdentity) -> None:
    root = build_voided(voided())
    assert etree.QName(root).localname == "VoidedDocuments"
    assert text(root, "cbc:UBLVersionID") == "2.0"
    assert text(root, "cbc:CustomizationID") == "1.0"
    assert text(root, "cbc:ID") == "RA-20261122-1"
    assert text(root, "cbc:ReferenceDate") == "2026-11-20"
    assert text(root, "cbc:IssueDate") == "2026-11-22"
    lines = root.findall("sac:VoidedDocumentsLine", NS)
    assert [
        (
            text(line, "cbc:LineID"),
            text(line, "cbc:DocumentTypeCode"),
            text(line, "sac:DocumentSerialID"),
            text(line, "sac:DocumentNumberID"),
            text(line, "sac:VoidReasonDescription"),
        )
        for line in lines
    ] == [("1", "01", "F001", "12", "Error en el RUC del cliente"), ("2", "07", "FC01", "3", "Duplicado")]
    signed = sign_summary(voided(), identity, sha256=True)
    assert signed.filename == "20100066603-RA-20261122-1"
    assert_schema_valid(signed.xml)
    assert verify(signed.xml).digest_value == signed.digest_value


def test_empty_summaries_are_refused() -> None:
    with pytest.raises(ValueError):
        build_summary(DailySummary(ISSUER, "RC-20261122-1", DAY, TODAY, ()))
    with pytest.raises(ValueError):
        build_voided(VoidedCommunication(ISSUER, "RA-20261122-1", DAY, TODAY, ()))
