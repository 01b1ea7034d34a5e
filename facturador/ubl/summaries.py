"""SUNAT UBL 2.0 XML of daily summaries (RC, ``SummaryDocuments`` 1.1) and voided communications (RA,
``VoidedDocuments`` 1.0), as ``docs/sunat_domain.md`` describes them (daily summaries and voided
communications).

``build_summary`` / ``build_voided`` turn the plain objects below into unsigned lxml trees whose element order
is the XSD ``sequence`` (SUNAT's UBL 2.0 schemas, shipped in ``facturador/ubl/xsd/``); ``sign_summary`` signs
either one with the tenant's identity (the same enveloped XML-DSig as the invoices) and returns a
:class:`SignedXml` whose ``filename`` is ``RUC-RC-YYYYMMDD-n`` / ``RUC-RA-YYYYMMDD-n``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from lxml import etree

from facturador.issued import Issuer
from sunat.catalogs import TAX_SCHEMES

from .invoice import SignedXml
from .namespaces import CAC, CBC, EXT, SAC, SUMMARY_DOCUMENTS, VOIDED_DOCUMENTS, nsmap_for
from .parts import amount, one_line, sub, tax_scheme
from .signing import SIGNATURE_ID, SigningIdentity, sign

__all__ = [
    "ADD",
    "MODIFY",
    "VOID",
    "DailySummary",
    "SummaryLine",
    "VoidedCommunication",
    "VoidedLine",
    "build_summary",
    "build_voided",
    "sign_summary",
]

ZERO = Decimal("0")
#: Catalog 19: what a summary line does with its document.
ADD, MODIFY, VOID = "1", "2", "3"
#: Catalog 11 (``sac:BillingPayment/cbc:InstructionID``): amounts by affectation. 01-03 are always
#: written (as greenter does); 04 (export) and 05 (free) only when not zero.
_ALWAYS_PAID = ("01", "02", "03")


@dataclass(frozen=True)
class SummaryLine:
    """One boleta or boleta note in a daily summary, with the amounts SUNAT wants per line.

    ``customer_type``/``customer_number`` identify the buyer (catalog 06); empty (or ``-``) for an
    unidentified one, which SUNAT refuses above S/ 700 (2514). ``reference_type``/``reference_id`` name
    the boleta a note modifies. Amounts are in ``currency``.
    """

    doc_type: str  # 03, 07, 08
    document_id: str  # SERIE-NUMERO, e.g. "B001-12"
    condition: str  # catalog 19: ADD, MODIFY or VOID
    currency: str
    total: Decimal
    taxed: Decimal = ZERO  # 01 gravado
    exonerated: Decimal = ZERO  # 02 exonerado
    unaffected: Decimal = ZERO  # 03 inafecto
    export: Decimal = ZERO  # 04 exportación
    free: Decimal = ZERO  # 05 gratuitas
    igv: Decimal = ZERO
    icbper: Decimal = ZERO
    customer_type: str = ""
    customer_number: str = ""
    reference_type: str = ""
    reference_id: str = ""
    isc: Decimal = ZERO  # scheme 2000
    other: Decimal = ZERO  # scheme 9999 (otros tributos)

    @property
    def identified(self) -> bool:
        """Whether the line carries the buyer's identity (``cac:AccountingCustomerParty``)."""
        return self.customer_type not in ("", "-") and self.customer_number.strip() not in ("", "-")


@dataclass(frozen=True)
class DailySummary:
    """A daily summary (resumen diario): ``identifier`` ``RC-YYYYMMDD-n`` where the date is ``issue_date``
    (the day it is generated); ``reference_date`` is the issue date of its documents."""

    issuer: Issuer
    identifier: str
    reference_date: date
    issue_date: date
    lines: tuple[SummaryLine, ...]

    @property
    def filename(self) -> str:
        """``RUC-RC-YYYYMMDD-n``: the base name of the XML and zip files."""
        return f"{self.issuer.ruc}-{self.identifier}"


@dataclass(frozen=True)
class VoidedLine:
    """One factura (or factura note) to void, with the reason (SUNAT observes 4203 under 3 characters)."""

    doc_type: str  # 01, 07, 08
    series: str
    number: int
    reason: str


@dataclass(frozen=True)
class VoidedCommunication:
    """A voided communication (comunicación de baja): ``identifier`` ``RA-YYYYMMDD-n`` where the date is
    ``issue_date`` (the day it is generated); ``reference_date`` is the issue date of its documents."""

    issuer: Issuer
    identifier: str
    reference_date: date
    issue_date: date
    lines: tuple[VoidedLine, ...]

    @property
    def filename(self) -> str:
        """``RUC-RA-YYYYMMDD-n``: the base name of the XML and zip files."""
        return f"{self.issuer.ruc}-{self.identifier}"


def _header(
    namespace: str,
    root_name: str,
    customization: str,
    issuer: Issuer,
    identifier: str,
    reference_date: date,
    issue_date: date,
) -> etree._Element:
    """Root, extension placeholder for the signature, versions, ID, dates, ``cac:Signature`` and the
    supplier (RUC, type 6, legal name) - the header both documents share."""
    root = etree.Element(f"{{{namespace}}}{root_name}", nsmap=nsmap_for(namespace, sac=True))
    extension = etree.SubElement(etree.SubElement(root, EXT("UBLExtensions")), EXT("UBLExtension"))
    etree.SubElement(extension, EXT("ExtensionContent"))
    sub(root, CBC("UBLVersionID"), "2.0")
    sub(root, CBC("CustomizationID"), customization)
    sub(root, CBC("ID"), identifier)
    sub(root, CBC("ReferenceDate"), reference_date.isoformat())
    sub(root, CBC("IssueDate"), issue_date.isoformat())
    signature = etree.SubElement(root, CAC("Signature"))
    sub(signature, CBC("ID"), f"SIGN{issuer.ruc}")
    party = etree.SubElement(signature, CAC("SignatoryParty"))
    sub(etree.SubElement(party, CAC("PartyIdentification")), CBC("ID"), issuer.ruc)
    sub(etree.SubElement(party, CAC("PartyName")), CBC("Name"), one_line(issuer.name))
    attachment = etree.SubElement(signature, CAC("DigitalSignatureAttachment"))
    sub(etree.SubElement(attachment, CAC("ExternalReference")), CBC("URI"), f"#{SIGNATURE_ID}")
    supplier = etree.SubElement(root, CAC("AccountingSupplierParty"))
    sub(supplier, CBC("CustomerAssignedAccountID"), issuer.ruc)
    sub(supplier, CBC("AdditionalAccountID"), "6")
    entity = etree.SubElement(etree.SubElement(supplier, CAC("Party")), CAC("PartyLegalEntity"))
    sub(entity, CBC("RegistrationName"), one_line(issuer.name))
    return root


def build_summary(summary: DailySummary) -> etree._Element:
    """The unsigned ``SummaryDocuments`` (UBL 2.0, CustomizationID 1.1) of a daily summary."""
    if not summary.lines:
        raise ValueError("a daily summary needs at least one line")
    root = _header(
        SUMMARY_DOCUMENTS,
        "SummaryDocuments",
        "1.1",
        summary.issuer,
        summary.identifier,
        summary.reference_date,
        summary.issue_date,
    )
    for index, line in enumerate(summary.lines, start=1):
        _summary_line(root, index, line)
    return root


def _summary_line(root: etree._Element, index: int, line: SummaryLine) -> None:
    el = etree.SubElement(root, SAC("SummaryDocumentsLine"))
    sub(el, CBC("LineID"), str(index))
    sub(el, CBC("DocumentTypeCode"), line.doc_type)
    sub(el, CBC("ID"), line.document_id)
    if line.identified:
        customer = etree.SubElement(el, CAC("AccountingCustomerParty"))
        sub(customer, CBC("CustomerAssignedAccountID"), line.customer_number.strip())
        sub(customer, CBC("AdditionalAccountID"), line.customer_type)
    if line.reference_id:
        reference = etree.SubElement(
            etree.SubElement(el, CAC("BillingReference")), CAC("InvoiceDocumentReference")
        )
        sub(reference, CBC("ID"), line.reference_id)
        sub(reference, CBC("DocumentTypeCode"), line.reference_type)
    sub(etree.SubElement(el, CAC("Status")), CBC("ConditionCode"), line.condition)
    amount(el, SAC("TotalAmount"), line.total, line.currency)
    paid = {
        "01": line.taxed,
        "02": line.exonerated,
        "03": line.unaffected,
        "04": line.export,
        "05": line.free,
    }
    for code, value in paid.items():
        if code in _ALWAYS_PAID or value:
            payment = etree.SubElement(el, SAC("BillingPayment"))
            amount(payment, CBC("PaidAmount"), value, line.currency)
            sub(payment, CBC("InstructionID"), code)
    _line_tax(el, "1000", line.igv, line.currency)
    if line.isc:
        _line_tax(el, "2000", line.isc, line.currency)
    if line.other:
        _line_tax(el, "9999", line.other, line.currency)
    if line.icbper:
        _line_tax(el, "7152", line.icbper, line.currency)


def _line_tax(el: etree._Element, scheme: str, value: Decimal, currency: str) -> None:
    """``cac:TaxTotal`` of one tax (catalog 05) with its single ``cac:TaxSubtotal``."""
    total = etree.SubElement(el, CAC("TaxTotal"))
    amount(total, CBC("TaxAmount"), value, currency)
    subtotal = etree.SubElement(total, CAC("TaxSubtotal"))
    amount(subtotal, CBC("TaxAmount"), value, currency)
    tax_scheme(etree.SubElement(subtotal, CAC("TaxCategory")), TAX_SCHEMES[scheme])


def build_voided(voided: VoidedCommunication) -> etree._Element:
    """The unsigned ``VoidedDocuments`` (UBL 2.0, CustomizationID 1.0) of a voided communication."""
    if not voided.lines:
        raise ValueError("a voided communication needs at least one line")
    root = _header(
        VOIDED_DOCUMENTS,
        "VoidedDocuments",
        "1.0",
        voided.issuer,
        voided.identifier,
        voided.reference_date,
        voided.issue_date,
    )
    for index, line in enumerate(voided.lines, start=1):
        el = etree.SubElement(root, SAC("VoidedDocumentsLine"))
        sub(el, CBC("LineID"), str(index))
        sub(el, CBC("DocumentTypeCode"), line.doc_type)
        sub(el, SAC("DocumentSerialID"), line.series)
        sub(el, SAC("DocumentNumberID"), str(line.number))
        sub(el, SAC("VoidReasonDescription"), one_line(line.reason))
    return root


def sign_summary(
    document: DailySummary | VoidedCommunication, identity: SigningIdentity, *, sha256: bool = False
) -> SignedXml:
    """Build and sign a daily summary or voided communication (RSA-SHA1 unless ``sha256``)."""
    root = build_summary(document) if isinstance(document, DailySummary) else build_voided(document)
    xml, digest = sign(root, identity, sha256=sha256)
    return SignedXml(xml=xml, digest_value=digest, filename=document.filename)
