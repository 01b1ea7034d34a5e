"""UBL 2.1 facturas, boletas and notes: schema validity, signature, SUNAT's amounts and element placement."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from decimal import Decimal

import pytest
from lxml import etree
from signxml.exceptions import InvalidDigest

from facturador.issued import Legend, NoteInfo, Prepayment
from facturador.ubl import xsd
from facturador.ubl.invoice import SignedXml, build_and_sign, build_sales_document
from facturador.ubl.namespaces import NS
from facturador.ubl.signing import SignatureError, SigningIdentity, digest_value, verify
from tests.samples.documents import AFFECTS_F001_1, DNI_CUSTOMER, document, line, scenarios

SCENARIOS = scenarios()
CHARGED = {"1000", "1016", "2000", "7152", "9999"}
IGV_BEARING = {"10", "11", "12", "13", "14", "15", "16", "17"}
D = Decimal

#: name -> ({scheme: (TaxableAmount or None, TaxAmount)}, TaxTotal/TaxAmount,
#:          (LineExtensionAmount, TaxInclusiveAmount, PayableAmount))
EXPECTED = {
    "taxed_invoice": ({"1000": ("100.00", "18.00")}, "18.00", ("100.00", "118.00", "118.00")),
    "boleta": ({"1000": ("25.42", "4.58")}, "4.58", ("25.42", "30.00", "30.00")),
    "free_16_31": ({"9996": ("150.00", "18.00")}, "0.00", ("0.00", "0.00", "0.00")),
    "mixed_taxed_free": (
        {"1000": ("100.00", "18.00"), "9996": ("20.00", "3.60")},
        "18.00",
        ("100.00", "118.00", "118.00"),
    ),
    "exempt_20": ({"9997": ("100.00", "0.00")}, "0.00", ("100.00", "100.00", "100.00")),
    "unaffected_30": ({"9998": ("50.00", "0.00")}, "0.00", ("50.00", "50.00", "50.00")),
    "export_40": ({"9995": ("500.00", "0.00")}, "0.00", ("500.00", "500.00", "500.00")),
    "usd_invoice": ({"1000": ("100.00", "18.00")}, "18.00", ("100.00", "118.00", "118.00")),
    "icbper_bag": ({"1000": ("10.20", "1.84"), "7152": (None, "1.00")}, "2.84", ("10.20", "13.04", "13.04")),
    "contingency_0001": ({"1000": ("100.00", "18.00")}, "18.00", ("100.00", "118.00", "118.00")),
    "detraction_1001": ({"1000": ("1000.00", "180.00")}, "180.00", ("1000.00", "1180.00", "1180.00")),
    "credit_instalments": ({"1000": ("100.00", "18.00")}, "18.00", ("100.00", "118.00", "118.00")),
    "detraction_credit": ({"1000": ("1000.00", "180.00")}, "180.00", ("1000.00", "1180.00", "1180.00")),
    "credit_note": ({"1000": ("100.00", "18.00")}, "18.00", ("100.00", "118.00", "118.00")),
    "debit_note": ({"1000": ("10.00", "1.80")}, "1.80", ("10.00", "11.80", "11.80")),
}
ROOTS = {"01": "Invoice", "03": "Invoice", "07": "CreditNote", "08": "DebitNote"}


@pytest.fixture(scope="module")
def signed(identity: SigningIdentity) -> dict[str, SignedXml]:
    return {name: build_and_sign(doc, identity) for name, doc in SCENARIOS.items()}


def parse(result: SignedXml) -> etree._Element:
    return etree.fromstring(result.xml)


def text(el: etree._Element, path: str) -> str:
    found = el.find(path, NS)
    assert found is not None, f"{path} not found under {etree.QName(el).localname}"
    return found.text or ""


def dec(el: etree._Element, path: str) -> Decimal:
    return Decimal(text(el, path))


def line_elements(root: etree._Element) -> list[etree._Element]:
    return root.findall(f"cac:{etree.QName(root).localname}Line", NS)


def children(root: etree._Element) -> list[str]:
    return [etree.QName(child).localname for child in root]


# ------------------------------------------------------------------------------------------------
# Every scenario


@pytest.mark.parametrize("name", SCENARIOS)
def test_signed_document_validates_with_packaged_xsd(name, signed):
    assert xsd.validate(signed[name].xml, ROOTS[SCENARIOS[name].doc_type]) == []
    assert xsd.validate(parse(signed[name])) == []


@pytest.mark.parametrize("name", SCENARIOS)
def test_signature_verifies_and_digest_is_returned(name, signed):
    result = signed[name]
    verified = verify(result.xml)
    assert result.digest_value == verified.digest_value == digest_value(result.xml)
    root = parse(result)
    assert root.find(".//ds:Reference/ds:DigestValue", NS).text == result.digest_value
    signature = root.find("ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent/ds:Signature", NS)
    assert signature is not None and signature.get("Id") == "SignatureSP"
    assert (
        text(root, "cac:Signature/cac:DigitalSignatureAttachment/cac:ExternalReference/cbc:URI")
        == "#SignatureSP"
    )


@pytest.mark.parametrize("name", SCENARIOS)
def test_tampering_breaks_the_signature(name, signed):
    result = signed[name]
    payable = EXPECTED[name][2][2]
    needle = f">{payable}</cbc:PayableAmount>".encode()
    assert needle in result.xml
    tampered = result.xml.replace(needle, f">{Decimal(payable) + 1:.2f}</cbc:PayableAmount>".encode(), 1)
    with pytest.raises(SignatureError) as info:
        verify(tampered)
    assert isinstance(info.value.__cause__, InvalidDigest)

    description = SCENARIOS[name].lines[0].description.encode()
    with pytest.raises(SignatureError):
        verify(result.xml.replace(description, description.lower(), 1))


@pytest.mark.parametrize("name", SCENARIOS)
def test_identification_and_file_name(name, signed):
    doc, result = SCENARIOS[name], signed[name]
    root = parse(result)
    assert etree.QName(root).localname == ROOTS[doc.doc_type]
    assert text(root, "cbc:UBLVersionID") == "2.1"
    assert text(root, "cbc:CustomizationID") == "2.0"
    assert text(root, "cbc:ID") == f"{doc.series}-{doc.number}"
    assert text(root, "cbc:IssueDate") == "2026-03-02"
    assert text(root, "cbc:IssueTime") == "10:15:30"
    assert result.filename == f"20100066603-{doc.doc_type}-{doc.series}-{doc.number}" == doc.filename
    assert result.xml_filename == f"{result.filename}.xml"
    legend = root.find("cbc:Note[@languageLocaleID='1000']", NS)
    assert legend is not None and legend.text == doc.legends[0].text
    assert text(root, "cbc:DocumentCurrencyCode") == doc.currency


@pytest.mark.parametrize("name", SCENARIOS)
def test_header_taxes_and_totals(name, signed):
    root = parse(signed[name])
    schemes, tax_total, (extension, inclusive, payable) = EXPECTED[name]
    total = root.find("cac:TaxTotal", NS)
    assert text(total, "cbc:TaxAmount") == tax_total
    found = {}
    for subtotal in total.findall("cac:TaxSubtotal", NS):
        taxable = subtotal.find("cbc:TaxableAmount", NS)
        found[text(subtotal, "cac:TaxCategory/cac:TaxScheme/cbc:ID")] = (
            None if taxable is None else taxable.text,
            text(subtotal, "cbc:TaxAmount"),
        )
    assert found == schemes
    monetary = "RequestedMonetaryTotal" if SCENARIOS[name].doc_type == "08" else "LegalMonetaryTotal"
    assert len(root.findall("cac:TaxTotal", NS)) == 1
    assert text(root, f"cac:{monetary}/cbc:LineExtensionAmount") == extension
    assert text(root, f"cac:{monetary}/cbc:TaxInclusiveAmount") == inclusive
    assert text(root, f"cac:{monetary}/cbc:PayableAmount") == payable


@pytest.mark.parametrize("name", SCENARIOS)
def test_amounts_satisfy_sunat_recomputation_rules(name, signed):
    """What SUNAT recomputes (reference/sunat.md §2.3), checked on the XML alone."""
    root = parse(signed[name])
    kind = etree.QName(root).localname
    quantity_tag = {
        "Invoice": "InvoicedQuantity",
        "CreditNote": "CreditedQuantity",
        "DebitNote": "DebitedQuantity",
    }
    by_scheme: dict[str, list[Decimal]] = defaultdict(lambda: [D(0), D(0)])
    onerous_value = D(0)
    lines = line_elements(root)
    assert [text(x, "cbc:ID") for x in lines] == [str(i) for i in range(1, len(lines) + 1)]
    for el in lines:
        qty = dec(el, f"cbc:{quantity_tag[kind]}")
        value = dec(el, "cbc:LineExtensionAmount")
        price_type = text(el, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceTypeCode")
        reference = dec(el, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount")
        unit_value = dec(el, "cac:Price/cbc:PriceAmount")
        charged = D(0)
        for subtotal in el.findall("cac:TaxTotal/cac:TaxSubtotal", NS):
            scheme = text(subtotal, "cac:TaxCategory/cac:TaxScheme/cbc:ID")
            tax = dec(subtotal, "cbc:TaxAmount")
            charged += tax if scheme in CHARGED else 0
            by_scheme[scheme][1] += tax
            if scheme == "7152":
                bags = subtotal.find("cbc:BaseUnitMeasure", NS)
                assert bags.get("unitCode") == "NIU" and Decimal(bags.text) == qty  # 3236, 4320
                assert dec(subtotal, "cac:TaxCategory/cbc:PerUnitAmount") * qty == tax  # 4318
                assert subtotal.find("cbc:TaxableAmount", NS) is None
                continue
            taxable = dec(subtotal, "cbc:TaxableAmount")
            by_scheme[scheme][0] += taxable
            assert taxable == value  # 3272
            reason = text(subtotal, "cac:TaxCategory/cbc:TaxExemptionReasonCode")
            percent = dec(subtotal, "cac:TaxCategory/cbc:Percent")
            if reason in IGV_BEARING:
                assert abs(taxable * percent / 100 - tax) <= 1 and tax  # 3103, 3111
            else:
                assert tax == 0  # 3110
        assert dec(el, "cac:TaxTotal/cbc:TaxAmount") == charged  # 3292
        if price_type == "02":
            assert unit_value == 0 and reference > 0
            assert abs(reference * qty - value) <= 1  # 3271 (free: referential value x qty)
        else:
            assert price_type == "01"
            assert abs(unit_value * qty - value) <= 1  # 3271
            assert abs((value + charged) / qty - reference) <= 1  # 3270
            onerous_value += value
    header = root.find("cac:TaxTotal", NS)
    header_charged = D(0)
    seen = set()
    for subtotal in header.findall("cac:TaxSubtotal", NS):
        scheme = text(subtotal, "cac:TaxCategory/cac:TaxScheme/cbc:ID")
        seen.add(scheme)
        tax = dec(subtotal, "cbc:TaxAmount")
        header_charged += tax if scheme in CHARGED else 0
        assert abs(tax - by_scheme[scheme][1]) <= 1  # 3291, 3302, 3306
        if scheme != "7152":
            assert dec(subtotal, "cbc:TaxableAmount") == by_scheme[scheme][0]  # 3273-3277
    assert seen == set(by_scheme)  # 2638: a line tax needs its header subtotal
    assert dec(header, "cbc:TaxAmount") == header_charged  # 3294
    monetary = root.find(
        "cac:RequestedMonetaryTotal" if kind == "DebitNote" else "cac:LegalMonetaryTotal", NS
    )
    assert dec(monetary, "cbc:LineExtensionAmount") == onerous_value  # 3278
    assert dec(monetary, "cbc:TaxInclusiveAmount") == onerous_value + header_charged  # 3279
    assert dec(monetary, "cbc:PayableAmount") == dec(monetary, "cbc:TaxInclusiveAmount")  # 3280


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_amount_is_in_the_document_currency(name, signed):
    root = parse(signed[name])
    currencies = {el.get("currencyID") for el in root.iter() if el.get("currencyID") is not None}
    assert currencies == {SCENARIOS[name].currency}  # 2071


@pytest.mark.parametrize("name", SCENARIOS)
def test_serialization_is_utf8_without_bom_or_indentation(name, signed):
    xml = signed[name].xml
    assert xml.startswith(b"<?xml version='1.0' encoding='UTF-8'?>")
    assert b"\n " not in xml and b"\t" not in xml


# ------------------------------------------------------------------------------------------------
# Where SUNAT wants each value


def test_invoice_header_parties_and_payment_form(signed):
    root = parse(signed["taxed_invoice"])
    assert children(root) == [
        "UBLExtensions", "UBLVersionID", "CustomizationID", "ID", "IssueDate", "IssueTime", "InvoiceTypeCode",
        "Note", "DocumentCurrencyCode", "OrderReference", "Signature", "AccountingSupplierParty",
        "AccountingCustomerParty", "PaymentTerms", "TaxTotal", "LegalMonetaryTotal", "InvoiceLine",
    ]  # fmt: skip
    type_code = root.find("cbc:InvoiceTypeCode", NS)
    assert type_code.text == "01"
    assert type_code.attrib == {
        "listID": "0101",
        "listAgencyName": "PE:SUNAT",
        "listName": "Tipo de Documento",
        "listURI": "urn:pe:gob:sunat:cpe:see:gem:catalogos:catalogo01",
        "name": "Tipo de Operacion",
        "listSchemeURI": "urn:pe:gob:sunat:cpe:see:gem:catalogos:catalogo51",
    }
    assert text(root, "cac:OrderReference/cbc:ID") == "OC-2026-001"
    assert text(root, "cac:Signature/cbc:ID") == "SIGN20100066603"
    assert text(root, "cac:Signature/cac:SignatoryParty/cac:PartyIdentification/cbc:ID") == "20100066603"
    assert text(root, "cac:Signature/cac:SignatoryParty/cac:PartyName/cbc:Name") == "ACME PERU S.A.C."

    supplier = root.find("cac:AccountingSupplierParty/cac:Party", NS)
    ruc = supplier.find("cac:PartyIdentification/cbc:ID", NS)
    assert (ruc.text, ruc.get("schemeID")) == ("20100066603", "6")
    assert text(supplier, "cac:PartyName/cbc:Name") == "Acme"
    assert text(supplier, "cac:PartyLegalEntity/cbc:RegistrationName") == "ACME PERU S.A.C."
    address = supplier.find("cac:PartyLegalEntity/cac:RegistrationAddress", NS)
    assert children(address) == [
        "ID", "AddressTypeCode", "CityName", "CountrySubentity", "District", "AddressLine", "Country",
    ]  # fmt: skip
    assert text(address, "cbc:ID") == "150101"
    assert text(address, "cbc:AddressTypeCode") == "0000"
    assert text(address, "cac:AddressLine/cbc:Line") == "AV. AREQUIPA 123"
    assert text(address, "cac:Country/cbc:IdentificationCode") == "PE"

    buyer = root.find("cac:AccountingCustomerParty/cac:Party", NS)
    number = buyer.find("cac:PartyIdentification/cbc:ID", NS)
    assert (number.text, number.get("schemeID")) == ("20601030013", "6")
    assert text(buyer, "cac:PartyLegalEntity/cbc:RegistrationName") == "OTRA EMPRESA S.A."
    assert text(buyer, "cac:PartyLegalEntity/cac:RegistrationAddress/cac:AddressLine/cbc:Line") == (
        "JR. DE LA UNION 456, LIMA"
    )
    assert text(root, "cac:PaymentTerms/cbc:ID") == "FormaPago"
    assert text(root, "cac:PaymentTerms/cbc:PaymentMeansID") == "Contado"
    assert root.find("cac:PaymentTerms/cbc:Amount", NS) is None


def test_invoice_line_of_a_taxed_item(signed):
    el = line_elements(parse(signed["taxed_invoice"]))[0]
    assert children(el) == [
        "ID", "InvoicedQuantity", "LineExtensionAmount", "PricingReference", "TaxTotal", "Item", "Price",
    ]  # fmt: skip
    quantity = el.find("cbc:InvoicedQuantity", NS)
    assert (quantity.text, quantity.get("unitCode")) == ("2", "NIU")
    assert text(el, "cbc:LineExtensionAmount") == "100.00"
    assert text(el, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount") == "59.00"
    assert text(el, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceTypeCode") == "01"
    assert text(el, "cac:TaxTotal/cbc:TaxAmount") == "18.00"
    subtotal = el.find("cac:TaxTotal/cac:TaxSubtotal", NS)
    assert text(subtotal, "cbc:TaxableAmount") == "100.00"
    assert text(subtotal, "cbc:TaxAmount") == "18.00"
    assert text(subtotal, "cac:TaxCategory/cbc:Percent") == "18.00"
    assert text(subtotal, "cac:TaxCategory/cbc:TaxExemptionReasonCode") == "10"
    scheme = subtotal.find("cac:TaxCategory/cac:TaxScheme", NS)
    assert [c.text for c in scheme] == ["1000", "IGV", "VAT"]
    assert text(el, "cac:Item/cbc:Description") == "PRODUCTO DE PRUEBA"
    assert text(el, "cac:Item/cac:SellersItemIdentification/cbc:ID") == "P001"
    assert el.find("cac:Item/cac:CommodityClassification", NS) is None
    assert text(el, "cac:Price/cbc:PriceAmount") == "50.00"


def test_boleta(signed):
    root = parse(signed["boleta"])
    assert text(root, "cbc:InvoiceTypeCode") == "03"
    buyer = root.find("cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID", NS)
    assert (buyer.text, buyer.get("schemeID")) == ("12345678", "1")
    assert (
        root.find("cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cac:RegistrationAddress", NS)
        is None
    )
    assert text(root, "cac:PaymentTerms/cbc:PaymentMeansID") == "Contado"
    el = line_elements(root)[0]
    assert text(el, "cbc:InvoicedQuantity") == "3"
    assert text(el, "cac:Price/cbc:PriceAmount") == "8.4745762712"  # up to 10 decimals
    assert text(el, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount") == "10.00"
    assert text(el, "cac:Item/cac:CommodityClassification/cbc:ItemClassificationCode") == "50202306"


def test_free_lines_use_price_type_02_and_keep_their_igv_out_of_the_totals(signed):
    root = parse(signed["free_16_31"])
    assert root.find("cbc:Note[@languageLocaleID='1002']", NS) is not None
    first, second = line_elements(root)
    for el, reference, igv, reason in ((first, "100.00", "18.00", "16"), (second, "25.00", "0.00", "31")):
        assert text(el, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceTypeCode") == "02"
        assert text(el, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount") == reference
        assert text(el, "cac:Price/cbc:PriceAmount") == "0.00"
        assert text(el, "cac:TaxTotal/cbc:TaxAmount") == "0.00"  # 3292: 9996 is not charged
        subtotal = el.find("cac:TaxTotal/cac:TaxSubtotal", NS)
        assert text(subtotal, "cbc:TaxAmount") == igv  # informative IGV of a 16 line
        assert text(subtotal, "cac:TaxCategory/cbc:TaxExemptionReasonCode") == reason
        scheme = subtotal.find("cac:TaxCategory/cac:TaxScheme", NS)
        assert [c.text for c in scheme] == ["9996", "GRA", "FRE"]
    assert text(first, "cbc:LineExtensionAmount") == "100.00"
    assert text(second, "cbc:LineExtensionAmount") == "50.00"


def test_mixed_taxed_and_free_charges_only_the_taxed_igv(signed):
    root = parse(signed["mixed_taxed_free"])
    assert text(root, "cac:TaxTotal/cbc:TaxAmount") == "18.00"
    taxed, free = line_elements(root)
    assert text(taxed, "cac:TaxTotal/cbc:TaxAmount") == "18.00"
    assert text(free, "cac:TaxTotal/cbc:TaxAmount") == "0.00"
    assert text(free, "cac:TaxTotal/cac:TaxSubtotal/cbc:TaxAmount") == "3.60"


@pytest.mark.parametrize(
    ("name", "reason", "scheme"),
    [("exempt_20", "20", ["9997", "EXO", "VAT"]), ("unaffected_30", "30", ["9998", "INA", "FRE"]),
     ("export_40", "40", ["9995", "EXP", "FRE"])],
)  # fmt: skip
def test_lines_without_igv(name, reason, scheme, signed):
    el = line_elements(parse(signed[name]))[0]
    subtotal = el.find("cac:TaxTotal/cac:TaxSubtotal", NS)
    assert text(subtotal, "cac:TaxCategory/cbc:TaxExemptionReasonCode") == reason
    assert [c.text for c in subtotal.find("cac:TaxCategory/cac:TaxScheme", NS)] == scheme
    assert text(subtotal, "cbc:TaxAmount") == "0.00"
    assert text(el, "cac:TaxTotal/cbc:TaxAmount") == "0.00"


def test_export_to_a_foreign_customer(signed):
    root = parse(signed["export_40"])
    assert root.find("cbc:InvoiceTypeCode", NS).get("listID") == "0200"
    party = root.find("cac:AccountingCustomerParty/cac:Party", NS)
    number = party.find("cac:PartyIdentification/cbc:ID", NS)
    assert (number.text, number.get("schemeID")) == ("US-99-1234567", "0")
    address = party.find("cac:PartyLegalEntity/cac:RegistrationAddress", NS)
    assert text(address, "cac:AddressLine/cbc:Line") == "1 MAIN ST, MIAMI FL"
    assert text(address, "cac:Country/cbc:IdentificationCode") == "US"
    assert line_elements(root)[0].find("cbc:InvoicedQuantity", NS).get("unitCode") == "KGM"


def test_usd_invoice_with_due_date(signed):
    root = parse(signed["usd_invoice"])
    assert text(root, "cbc:DocumentCurrencyCode") == "USD"
    names = children(root)
    assert names[names.index("IssueTime") + 1] == "DueDate"
    assert text(root, "cbc:DueDate") == "2026-03-31"


def test_icbper_bag_line(signed):
    root = parse(signed["icbper_bag"])
    bag = line_elements(root)[1]
    assert text(bag, "cac:TaxTotal/cbc:TaxAmount") == "1.04"  # IGV 0.04 + ICBPER 1.00
    igv, icbper = bag.findall("cac:TaxTotal/cac:TaxSubtotal", NS)
    assert text(igv, "cbc:TaxAmount") == "0.04"
    assert children(icbper) == ["TaxAmount", "BaseUnitMeasure", "TaxCategory"]
    assert text(icbper, "cbc:TaxAmount") == "1.00"
    bags = icbper.find("cbc:BaseUnitMeasure", NS)
    assert (bags.text, bags.get("unitCode")) == ("2", "NIU")
    assert text(icbper, "cac:TaxCategory/cbc:PerUnitAmount") == "0.50"
    assert [c.text for c in icbper.find("cac:TaxCategory/cac:TaxScheme", NS)] == ["7152", "ICBPER", "OTH"]
    assert text(bag, "cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount") == "0.62"


def test_contingency_series_keeps_its_number_unpadded(signed):
    result = signed["contingency_0001"]
    assert text(parse(result), "cbc:ID") == "0001-7"
    assert result.filename == "20100066603-01-0001-7"


def test_credit_note(signed):
    root = parse(signed["credit_note"])
    assert children(root) == [
        "UBLExtensions", "UBLVersionID", "CustomizationID", "ID", "IssueDate", "IssueTime", "Note",
        "DocumentCurrencyCode", "DiscrepancyResponse", "OrderReference", "BillingReference", "Signature",
        "AccountingSupplierParty", "AccountingCustomerParty", "TaxTotal", "LegalMonetaryTotal",
        "CreditNoteLine",
    ]  # fmt: skip
    assert text(root, "cbc:ID") == "FC01-3"
    assert text(root, "cac:DiscrepancyResponse/cbc:ReferenceID") == "F001-1"
    assert text(root, "cac:DiscrepancyResponse/cbc:ResponseCode") == "01"
    assert text(root, "cac:DiscrepancyResponse/cbc:Description") == "ANULACION DE LA OPERACION"
    assert text(root, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID") == "F001-1"
    assert text(root, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:DocumentTypeCode") == "01"
    note_line = line_elements(root)[0]
    assert note_line.find("cbc:CreditedQuantity", NS).get("unitCode") == "NIU"


def test_debit_note(signed):
    root = parse(signed["debit_note"])
    assert children(root)[-3:] == ["TaxTotal", "RequestedMonetaryTotal", "DebitNoteLine"]
    assert root.find("cac:LegalMonetaryTotal", NS) is None
    assert root.find("cac:PaymentTerms", NS) is None
    assert text(root, "cac:DiscrepancyResponse/cbc:ResponseCode") == "01"
    assert text(line_elements(root)[0], "cbc:DebitedQuantity") == "1"


def test_notes_carry_no_due_date_or_type_code(identity):
    doc = dataclasses.replace(SCENARIOS["credit_note"], due_date=date(2026, 4, 1))
    root = build_sales_document(doc)
    assert root.find("cbc:DueDate", NS) is None
    assert root.find("cbc:CreditNoteTypeCode", NS) is None


def test_unsigned_tree_has_an_empty_extension_content_first():
    root = build_sales_document(SCENARIOS["taxed_invoice"])
    first = root[0]
    assert etree.QName(first).localname == "UBLExtensions"
    content = first.find("ext:UBLExtension/ext:ExtensionContent", NS)
    assert content is not None and len(content) == 0


def test_sunat_code_must_have_eight_digits():
    for code, expected in (("1019150", None), ("1019150X", None), ("10191509", "10191509")):
        doc = document((line(sunat_code=code),))
        found = build_sales_document(doc).find(
            ".//cac:CommodityClassification/cbc:ItemClassificationCode", NS
        )
        assert (None if found is None else found.text) == expected


def test_sha256_signature(identity):
    result = build_and_sign(SCENARIOS["taxed_invoice"], identity, sha256=True)
    assert verify(result.xml).digest_value == result.digest_value
    assert b"http://www.w3.org/2001/04/xmldsig-more#rsa-sha256" in result.xml


# ------------------------------------------------------------------------------------------------
# What the builder refuses


def test_credit_payment_form_is_not_silently_issued_as_cash():
    with pytest.raises(ValueError, match="Credito needs at least one instalment"):
        build_sales_document(document(payment_form="Credito"))
    with pytest.raises(ValueError, match="payment form"):
        build_sales_document(document(payment_form="Trueque"))


def test_blocks_of_facturas_and_boletas_are_refused_on_notes_and_empty_ones_ignored():
    note = NoteInfo("01", "ANULACION", AFFECTS_F001_1)
    prepayment = Prepayment("F001-9", "02", Decimal("100"), Decimal("118"))
    with pytest.raises(ValueError, match="only a factura or boleta deducts advances"):
        build_sales_document(document(doc_type="07", series="FC01", note=note, prepayments=(prepayment,)))
    build_sales_document(document(guides=(), detraction=None, instalments=()))


def test_credit_note_type_13_needs_instalments():
    doc = document(doc_type="07", series="FC01", note=NoteInfo("13", "AJUSTE DE CUOTAS", AFFECTS_F001_1))
    with pytest.raises(ValueError, match="type 13 needs the instalments"):
        build_sales_document(doc)


def test_notes_need_note_data_and_types_must_be_known():
    with pytest.raises(ValueError, match="note data"):
        build_sales_document(document(doc_type="07", series="FC01"))
    with pytest.raises(ValueError, match="document type"):
        build_sales_document(document(doc_type="09", series="T001"))


def test_boleta_without_operation_type_defaults_to_0101():
    doc = document(doc_type="03", series="B001", customer=DNI_CUSTOMER, operation_type="")
    assert build_sales_document(doc).find("cbc:InvoiceTypeCode", NS).get("listID") == "0101"


def test_concurrent_builds_give_the_same_documents(identity):
    docs = list(SCENARIOS.values()) * 4
    expected = [etree.tostring(build_sales_document(doc)) for doc in docs]
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda doc: build_and_sign(doc, identity), docs))
    for doc, result, unsigned in zip(docs, results, expected, strict=True):
        verify(result.xml)
        root = etree.fromstring(result.xml)
        root.find(".//ds:Signature", NS).getparent().clear()
        assert etree.tostring(root) == unsigned, doc.full_number


def test_single_line_fields_lose_their_line_breaks():
    doc = document(
        customer=dataclasses.replace(DNI_CUSTOMER, name="JUAN\nPEREZ\t QUISPE", address="AV. SOL\r\n 123"),
        legends=(Legend("1000", "SON: CIENTO DIECIOCHO\nCON 00/100 SOLES"),),
    )
    root = build_sales_document(doc)
    party = root.find("cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity", NS)
    assert text(party, "cbc:RegistrationName") == "JUAN PEREZ QUISPE"
    assert text(party, "cac:RegistrationAddress/cac:AddressLine/cbc:Line") == "AV. SOL 123"
    assert text(root, "cbc:Note") == "SON: CIENTO DIECIOCHO CON 00/100 SOLES"


def test_a_document_needs_lines():
    with pytest.raises(ValueError, match="at least one line"):
        build_sales_document(dataclasses.replace(document(), lines=()))
