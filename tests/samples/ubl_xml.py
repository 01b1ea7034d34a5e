"""Hand-written UBL 2.1 documents for the simulator tests (independent of the UBL builders in facturador).

``invoice()`` / ``credit_note()`` / ``debit_note()`` return an lxml root that a test may tamper with
before ``signed()`` signs it; the defaults describe a valid document (one line 2 x 50.00 + IGV 18 %).
"""

from __future__ import annotations

import datetime as dt
from datetime import date
from decimal import Decimal

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from lxml import etree

from facturador.authority.packaging import zip_document
from facturador.authority.registry import Registry
from facturador.authority.simulator import SunatSimulator
from facturador.ubl import xsd
from facturador.ubl.namespaces import APPLICATION_RESPONSE
from facturador.ubl.signing import SigningIdentity, sign

NS = {
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "ext": "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
    "ds": "http://www.w3.org/2000/09/xmldsig#",
}
ROOT_NS = {
    "Invoice": "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
    "CreditNote": "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
    "DebitNote": "urn:oasis:names:specification:ubl:schema:xsd:DebitNote-2",
}
#: SUNAT's schema of a CDR (ApplicationResponse), as shipped in the package.
AR_XSD = xsd.XSD_DIR / xsd.SCHEMA_FILES[APPLICATION_RESPONSE]
ISSUER_RUC = "20600995805"  # valid check digit
CUSTOMER_RUC = "20100066603"  # valid check digit
BAD_CHECK_DIGIT_RUC = "20587896411"  # 11 digits, wrong check digit (the customer of SUNAT's sample CDRs)
ISSUE_DATE = date(2025, 1, 10)
#: The simulator's "today" in tests: the day after the samples' issue date.
TODAY = ISSUE_DATE + dt.timedelta(days=1)


def _head(root: str) -> str:
    return (
        f'<{root} xmlns="{ROOT_NS[root]}" xmlns:cac="{NS["cac"]}" xmlns:cbc="{NS["cbc"]}" '
        f'xmlns:ext="{NS["ext"]}" xmlns:ds="{NS["ds"]}">'
        "<ext:UBLExtensions><ext:UBLExtension><ext:ExtensionContent/></ext:UBLExtension></ext:UBLExtensions>"
        "<cbc:UBLVersionID>2.1</cbc:UBLVersionID><cbc:CustomizationID>2.0</cbc:CustomizationID>"
    )


def _parties(ruc: str, customer_scheme: str, customer_id: str, customer_name: str) -> str:
    return (
        f"<cac:Signature><cbc:ID>SIGN{ruc}</cbc:ID><cac:SignatoryParty><cac:PartyIdentification>"
        f"<cbc:ID>{ruc}</cbc:ID></cac:PartyIdentification><cac:PartyName><cbc:Name>EMISOR SAC</cbc:Name>"
        "</cac:PartyName></cac:SignatoryParty><cac:DigitalSignatureAttachment><cac:ExternalReference>"
        "<cbc:URI>#SignatureSP</cbc:URI></cac:ExternalReference></cac:DigitalSignatureAttachment></cac:Signature>"
        "<cac:AccountingSupplierParty><cac:Party>"
        f'<cac:PartyIdentification><cbc:ID schemeID="6">{ruc}</cbc:ID></cac:PartyIdentification>'
        "<cac:PartyLegalEntity><cbc:RegistrationName>EMISOR SAC</cbc:RegistrationName>"
        "<cac:RegistrationAddress><cbc:AddressTypeCode>0000</cbc:AddressTypeCode></cac:RegistrationAddress>"
        "</cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>"
        "<cac:AccountingCustomerParty><cac:Party>"
        f'<cac:PartyIdentification><cbc:ID schemeID="{customer_scheme}">{customer_id}</cbc:ID>'
        "</cac:PartyIdentification>"
        f"<cac:PartyLegalEntity><cbc:RegistrationName>{customer_name}</cbc:RegistrationName>"
        "</cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>"
    )


def _scheme(scheme: str) -> str:
    name, code = {"1000": ("IGV", "VAT"), "9997": ("EXO", "VAT"), "9998": ("INA", "FRE")}[scheme]
    return (
        f"<cac:TaxScheme><cbc:ID>{scheme}</cbc:ID><cbc:Name>{name}</cbc:Name>"
        f"<cbc:TaxTypeCode>{code}</cbc:TaxTypeCode></cac:TaxScheme>"
    )


def _line(tag: str, qty_tag: str, index: int, cur: str, product_code: str) -> str:
    product = (
        "<cac:CommodityClassification>"
        f"<cbc:ItemClassificationCode>{product_code}</cbc:ItemClassificationCode>"
        "</cac:CommodityClassification>"
        if product_code
        else ""
    )
    return (
        f"<cac:{tag}><cbc:ID>{index}</cbc:ID>"
        f'<cbc:{qty_tag} unitCode="NIU">2</cbc:{qty_tag}>'
        f'<cbc:LineExtensionAmount currencyID="{cur}">100.00</cbc:LineExtensionAmount>'
        "<cac:PricingReference><cac:AlternativeConditionPrice>"
        f'<cbc:PriceAmount currencyID="{cur}">59.00</cbc:PriceAmount>'
        "<cbc:PriceTypeCode>01</cbc:PriceTypeCode>"
        "</cac:AlternativeConditionPrice></cac:PricingReference>"
        f'<cac:TaxTotal><cbc:TaxAmount currencyID="{cur}">18.00</cbc:TaxAmount><cac:TaxSubtotal>'
        f'<cbc:TaxableAmount currencyID="{cur}">100.00</cbc:TaxableAmount>'
        f'<cbc:TaxAmount currencyID="{cur}">18.00</cbc:TaxAmount>'
        "<cac:TaxCategory><cbc:Percent>18.00</cbc:Percent><cbc:TaxExemptionReasonCode>10</cbc:TaxExemptionReasonCode>"
        f"{_scheme('1000')}</cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>"
        f"<cac:Item><cbc:Description>PRODUCTO {index}</cbc:Description>"
        f"<cac:SellersItemIdentification><cbc:ID>P{index:03d}</cbc:ID></cac:SellersItemIdentification>{product}</cac:Item>"
        f'<cac:Price><cbc:PriceAmount currencyID="{cur}">50.00</cbc:PriceAmount></cac:Price></cac:{tag}>'
    )


def _totals(lines: int, cur: str, monetary_tag: str = "LegalMonetaryTotal") -> str:
    base = Decimal(100) * lines
    igv = Decimal(18) * lines
    total = base + igv
    return (
        f'<cac:TaxTotal><cbc:TaxAmount currencyID="{cur}">{igv:.2f}</cbc:TaxAmount><cac:TaxSubtotal>'
        f'<cbc:TaxableAmount currencyID="{cur}">{base:.2f}</cbc:TaxableAmount>'
        f'<cbc:TaxAmount currencyID="{cur}">{igv:.2f}</cbc:TaxAmount>'
        f"<cac:TaxCategory>{_scheme('1000')}</cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>"
        f"<cac:{monetary_tag}>"
        f'<cbc:LineExtensionAmount currencyID="{cur}">{base:.2f}</cbc:LineExtensionAmount>'
        f'<cbc:TaxInclusiveAmount currencyID="{cur}">{total:.2f}</cbc:TaxInclusiveAmount>'
        f'<cbc:PayableAmount currencyID="{cur}">{total:.2f}</cbc:PayableAmount>'
        f"</cac:{monetary_tag}>"
    )


def invoice(
    *,
    doc_id: str = "F001-1",
    type_code: str = "01",
    operation: str = "0101",
    ruc: str = ISSUER_RUC,
    customer_scheme: str = "6",
    customer_id: str = CUSTOMER_RUC,
    issue_date: date = ISSUE_DATE,
    currency: str = "PEN",
    lines: int = 1,
    product_code: str = "43211503",
    payment: str | None = "Contado",
    legends: tuple[tuple[str, str], ...] = (("1000", "CIENTO DIECIOCHO CON 00/100 SOLES"),),
) -> etree._Element:
    """A valid factura (or boleta with ``type_code="03"``) as an lxml tree, unsigned."""
    notes = "".join(f'<cbc:Note languageLocaleID="{code}">{text}</cbc:Note>' for code, text in legends)
    terms = (
        f"<cac:PaymentTerms><cbc:ID>FormaPago</cbc:ID><cbc:PaymentMeansID>{payment}</cbc:PaymentMeansID></cac:PaymentTerms>"
        if payment
        else ""
    )
    xml = (
        _head("Invoice") + f"<cbc:ID>{doc_id}</cbc:ID><cbc:IssueDate>{issue_date.isoformat()}</cbc:IssueDate>"
        "<cbc:IssueTime>10:00:00</cbc:IssueTime>"
        f'<cbc:InvoiceTypeCode listID="{operation}">{type_code}</cbc:InvoiceTypeCode>{notes}'
        f"<cbc:DocumentCurrencyCode>{currency}</cbc:DocumentCurrencyCode>"
        + _parties(ruc, customer_scheme, customer_id, "CLIENTE SAC")
        + terms
        + _totals(lines, currency)
        + "".join(
            _line("InvoiceLine", "InvoicedQuantity", i, currency, product_code) for i in range(1, lines + 1)
        )
        + "</Invoice>"
    )
    return etree.fromstring(xml.encode())


def credit_note(
    *,
    doc_id: str = "FC01-1",
    ref_id: str = "F001-1",
    ref_type: str = "01",
    ruc: str = ISSUER_RUC,
    issue_date: date = ISSUE_DATE,
    customer_scheme: str = "6",
    customer_id: str = CUSTOMER_RUC,
) -> etree._Element:
    """A credit note (type 01 "anulación de la operación") voiding ``ref_id`` in full, unsigned."""
    xml = (
        _head("CreditNote")
        + f"<cbc:ID>{doc_id}</cbc:ID><cbc:IssueDate>{issue_date.isoformat()}</cbc:IssueDate>"
        "<cbc:IssueTime>11:00:00</cbc:IssueTime>"
        '<cbc:Note languageLocaleID="1000">CIENTO DIECIOCHO CON 00/100 SOLES</cbc:Note>'
        "<cbc:DocumentCurrencyCode>PEN</cbc:DocumentCurrencyCode>"
        f"<cac:DiscrepancyResponse><cbc:ReferenceID>{ref_id}</cbc:ReferenceID>"
        "<cbc:ResponseCode>01</cbc:ResponseCode><cbc:Description>ANULACION</cbc:Description></cac:DiscrepancyResponse>"
        f"<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>{ref_id}</cbc:ID>"
        f"<cbc:DocumentTypeCode>{ref_type}</cbc:DocumentTypeCode></cac:InvoiceDocumentReference></cac:BillingReference>"
        + _parties(ruc, customer_scheme, customer_id, "CLIENTE SAC")
        + _totals(1, "PEN")
        + _line("CreditNoteLine", "CreditedQuantity", 1, "PEN", "43211503")
        + "</CreditNote>"
    )
    return etree.fromstring(xml.encode())


def debit_note(
    *, doc_id: str = "FD01-1", ref_id: str = "F001-1", ref_type: str = "01", issue_date: date = ISSUE_DATE
) -> etree._Element:
    """A debit note (type 02 "aumento en el valor") on ``ref_id``, unsigned."""
    xml = (
        _head("DebitNote")
        + f"<cbc:ID>{doc_id}</cbc:ID><cbc:IssueDate>{issue_date.isoformat()}</cbc:IssueDate>"
        "<cbc:IssueTime>11:00:00</cbc:IssueTime>"
        "<cbc:DocumentCurrencyCode>PEN</cbc:DocumentCurrencyCode>"
        f"<cac:DiscrepancyResponse><cbc:ReferenceID>{ref_id}</cbc:ReferenceID>"
        "<cbc:ResponseCode>02</cbc:ResponseCode><cbc:Description>INTERESES</cbc:Description></cac:DiscrepancyResponse>"
        f"<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>{ref_id}</cbc:ID>"
        f"<cbc:DocumentTypeCode>{ref_type}</cbc:DocumentTypeCode></cac:InvoiceDocumentReference></cac:BillingReference>"
        + _parties(ISSUER_RUC, "6", CUSTOMER_RUC, "CLIENTE SAC")
        + _totals(1, "PEN", "RequestedMonetaryTotal")
        + _line("DebitNoteLine", "DebitedQuantity", 1, "PEN", "43211503")
        + "</DebitNote>"
    )
    return etree.fromstring(xml.encode())


def _element(xml: str) -> etree._Element:
    return etree.fromstring(f'<x xmlns:cac="{NS["cac"]}" xmlns:cbc="{NS["cbc"]}">{xml}</x>'.encode())[0]


def add_detraction(
    root: etree._Element,
    *,
    code: str | None = "037",
    percent: str = "12.00",
    amount: str | None = "14.16",
    account: str | None = "00-068-123456",
    means_code: str = "001",
) -> etree._Element:
    """Add ``cac:PaymentMeans`` + ``cac:PaymentTerms`` "Detraccion" after the customer (XSD order);
    ``None`` leaves the code, the amount or the account out. Returns ``root``."""
    payee = (
        f"<cac:PayeeFinancialAccount><cbc:ID>{account}</cbc:ID></cac:PayeeFinancialAccount>"
        if account is not None
        else ""
    )
    means = _element(
        f"<cac:PaymentMeans><cbc:ID>Detraccion</cbc:ID><cbc:PaymentMeansCode>{means_code}</cbc:PaymentMeansCode>"
        f"{payee}</cac:PaymentMeans>"
    )
    terms = _element(
        "<cac:PaymentTerms><cbc:ID>Detraccion</cbc:ID>"
        + (f"<cbc:PaymentMeansID>{code}</cbc:PaymentMeansID>" if code is not None else "")
        + f"<cbc:PaymentPercent>{percent}</cbc:PaymentPercent>"
        + (f'<cbc:Amount currencyID="PEN">{amount}</cbc:Amount>' if amount is not None else "")
        + "</cac:PaymentTerms>"
    )
    customer = find(root, "cac:AccountingCustomerParty")
    customer.addnext(means)
    means.addnext(terms)
    return root


def make_credit(
    root: etree._Element,
    cuotas: list[tuple[str | None, str | None]],
    *,
    pending: str | None = None,
    ids: list[str] | None = None,
) -> etree._Element:
    """Turn the FormaPago Contado of ``root`` into Credito with ``cuotas`` as ``(amount, due date)``
    (``None`` leaves the element out). ``pending`` defaults to the sum of the amounts; ``ids`` to
    Cuota001, Cuota002... Returns ``root``."""
    cash = find(root, "cac:PaymentTerms[cbc:PaymentMeansID='Contado']")
    total = sum((Decimal(a) for a, _ in cuotas if a is not None), Decimal(0))
    amount_text = pending or f"{total:.2f}"
    pending_xml = f'<cbc:Amount currencyID="PEN">{amount_text}</cbc:Amount>' if pending != "" else ""
    terms = [
        _element(
            "<cac:PaymentTerms><cbc:ID>FormaPago</cbc:ID><cbc:PaymentMeansID>Credito</cbc:PaymentMeansID>"
            f"{pending_xml}</cac:PaymentTerms>"
        )
    ]
    for n, (amount, due) in enumerate(cuotas, start=1):
        cuota_id = ids[n - 1] if ids else f"Cuota{n:03d}"
        terms.append(
            _element(
                f"<cac:PaymentTerms><cbc:ID>FormaPago</cbc:ID><cbc:PaymentMeansID>{cuota_id}</cbc:PaymentMeansID>"
                + (f'<cbc:Amount currencyID="PEN">{amount}</cbc:Amount>' if amount is not None else "")
                + (f"<cbc:PaymentDueDate>{due}</cbc:PaymentDueDate>" if due is not None else "")
                + "</cac:PaymentTerms>"
            )
        )
    anchor = cash
    for node in terms:
        anchor.addnext(node)
        anchor = node
    parent = cash.getparent()
    assert parent is not None
    parent.remove(cash)
    return root


def find(root: etree._Element, path: str) -> etree._Element:
    """The first element at ``path`` (cac/cbc prefixes); fails loudly when absent."""
    found = root.find(path, NS)
    assert found is not None, path
    return found


def set_text(root: etree._Element, path: str, text: str) -> etree._Element:
    """Replace the text of the first element at ``path``; returns ``root`` for chaining."""
    find(root, path).text = text
    return root


def remove(root: etree._Element, path: str) -> etree._Element:
    """Remove the first element at ``path``; returns ``root``."""
    node = find(root, path)
    parent = node.getparent()
    assert parent is not None
    parent.remove(node)
    return root


def signed(root: etree._Element, identity: SigningIdentity) -> bytes:
    """Sign ``root`` (SUNAT style, RSA-SHA1) and return the XML bytes."""
    xml, _digest = sign(root, identity)
    return xml


def filename_for(root: etree._Element, ruc: str = ISSUER_RUC) -> str:
    """``RUC-TT-SERIE-NUMERO`` of a document tree."""
    tag = etree.QName(root).localname
    if tag == "Invoice":
        doc_type = find(root, "cbc:InvoiceTypeCode").text or ""
    else:
        doc_type = "07" if tag == "CreditNote" else "08"
    return f"{ruc}-{doc_type}-{find(root, 'cbc:ID').text}"


def package(
    root: etree._Element, identity: SigningIdentity, filename: str | None = None
) -> tuple[str, bytes]:
    """Sign and zip a tree; returns ``(filename, zip bytes)``."""
    name = filename or filename_for(root)
    return name, zip_document(name, signed(root, identity))


def expired_identity() -> SigningIdentity:
    """An issuer key whose self-signed certificate expired two days ago."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, ISSUER_RUC)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=30))
        .not_valid_after(now - dt.timedelta(days=2))  # before yesterday in Lima too (UTC-5)
        .sign(key, hashes.SHA256())
    )
    return SigningIdentity(key=key, cert_pem=cert.public_bytes(serialization.Encoding.PEM).decode())


def make_simulator(
    identity: SigningIdentity, registry: Registry, *, mode: str = "test", today: date = TODAY
) -> SunatSimulator:
    """A simulator whose clock says ``today`` (the day after the samples' issue date by default)."""
    return SunatSimulator(identity, registry, mode=mode, today=lambda: today)
