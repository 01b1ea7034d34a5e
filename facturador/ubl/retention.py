"""SUNAT UBL 2.0 XML of retentions (20, ``Retention``) and perceptions (40, ``Perception``), as
``docs/sunat_domain.md`` describes them and SUNAT's UBL 2.0 schemas (``facturador/ubl/xsd/``, customization
1.0) say.

Unlike invoices, ``cac:Signature`` comes before ``cbc:ID``; the issuer is ``cac:AgentParty`` and the
supplier (retention) or customer (perception) ``cac:ReceiverParty``. Each payment of a related document
is one ``sac:SUNAT{Retention|Perception}DocumentReference`` (SUNAT's schema takes one ``cac:Payment`` per
reference): the same document paid twice appears twice, with payment numbers 1 and 2. Amounts of the
header and of each payment's information are in soles; the related document's total and the payment are
in its own currency, with the exchange rate when that is not soles.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, time
from decimal import Decimal

from lxml import etree

from facturador.issued import Issuer

from .invoice import SignedXml
from .namespaces import CAC, CBC, EXT, PERCEPTION, RETENTION, SAC, nsmap_for
from .parts import amount, one_line, sub
from .signing import SIGNATURE_ID, SigningIdentity, sign

__all__ = ["OtherDocument", "PaymentLine", "Receiver", "build_other_document", "sign_other_document"]

PEN = "PEN"
_KINDS = {
    "20": (RETENTION, "Retention", "Retention", "TotalPaid", "NetTotalPaid"),
    "40": (PERCEPTION, "Perception", "Perception", "TotalCashed", "NetTotalCashed"),
}


@dataclass(frozen=True)
class Receiver:
    """The supplier of a retention or the customer of a perception (catalog 06 identity)."""

    identity_type: str
    number: str
    name: str
    trade_name: str = ""
    ubigeo: str = ""
    address: str = ""
    country: str = "PE"


@dataclass(frozen=True)
class PaymentLine:
    """One payment of a related document: what SUNAT calls a document reference.

    ``total``/``payment`` are in ``currency``; ``amount`` (retained or perceived) and ``net`` (paid to the
    supplier, or collected from the customer) in soles; ``exchange_rate`` soles per unit of ``currency``
    on ``exchange_date`` (written whenever given; SUNAT requires it for a currency other than soles).
    """

    doc_type: str  # catalog 01 of the related document
    document_id: str  # SERIE-NUMERO
    issue_date: date
    currency: str
    total: Decimal
    payment_number: int
    payment: Decimal
    payment_date: date
    amount: Decimal
    withheld_on: date  # the date of the retention or perception
    net: Decimal
    exchange_rate: Decimal | None = None
    exchange_date: date | None = None
    source_currency: str = ""
    target_currency: str = PEN


@dataclass(frozen=True)
class OtherDocument:
    """A retention (``doc_type`` 20) or perception (40) ready to be written."""

    doc_type: str
    issuer: Issuer
    series: str
    number: int
    issue_date: date
    issue_time: time | None
    receiver: Receiver
    regime: str  # catalog 23 / 22
    percent: Decimal
    total_amount: Decimal  # retained or perceived, soles
    total_net: Decimal  # paid (retention) or collected (perception), soles
    lines: tuple[PaymentLine, ...]
    note: str = ""

    @property
    def document_id(self) -> str:
        return f"{self.series}-{self.number}"

    @property
    def filename(self) -> str:
        """``RUC-20-R001-1``: the base name of the XML and zip files."""
        return f"{self.issuer.ruc}-{self.doc_type}-{self.document_id}"


def _party(
    parent: etree._Element,
    tag: str,
    scheme: str,
    number: str,
    name: str,
    trade_name: str,
    ubigeo: str,
    address: str,
    country: str,
) -> None:
    party = etree.SubElement(parent, CAC(tag))
    sub(etree.SubElement(party, CAC("PartyIdentification")), CBC("ID"), number, {"schemeID": scheme})
    if trade_name.strip():
        sub(etree.SubElement(party, CAC("PartyName")), CBC("Name"), one_line(trade_name))
    if ubigeo or address.strip():
        postal = etree.SubElement(party, CAC("PostalAddress"))
        if ubigeo:
            sub(postal, CBC("ID"), ubigeo)
        if address.strip():
            sub(postal, CBC("StreetName"), one_line(address)[:100])
        sub(etree.SubElement(postal, CAC("Country")), CBC("IdentificationCode"), country or "PE")
    sub(etree.SubElement(party, CAC("PartyLegalEntity")), CBC("RegistrationName"), one_line(name))


def build_other_document(document: OtherDocument) -> etree._Element:
    """The unsigned ``Retention`` or ``Perception`` (UBL 2.0, CustomizationID 1.0) of ``document``."""
    if not document.lines:
        raise ValueError("a retention or perception relates at least one document")
    namespace, root_name, word, total_tag, net_tag = _KINDS[document.doc_type]
    root = etree.Element(f"{{{namespace}}}{root_name}", nsmap=nsmap_for(namespace, sac=True))
    extension = etree.SubElement(etree.SubElement(root, EXT("UBLExtensions")), EXT("UBLExtension"))
    etree.SubElement(extension, EXT("ExtensionContent"))
    sub(root, CBC("UBLVersionID"), "2.0")
    sub(root, CBC("CustomizationID"), "1.0")
    issuer = document.issuer
    signature = etree.SubElement(root, CAC("Signature"))
    sub(signature, CBC("ID"), f"SIGN{issuer.ruc}")
    signatory = etree.SubElement(signature, CAC("SignatoryParty"))
    sub(etree.SubElement(signatory, CAC("PartyIdentification")), CBC("ID"), issuer.ruc)
    sub(etree.SubElement(signatory, CAC("PartyName")), CBC("Name"), one_line(issuer.name))
    attachment = etree.SubElement(signature, CAC("DigitalSignatureAttachment"))
    sub(etree.SubElement(attachment, CAC("ExternalReference")), CBC("URI"), f"#{SIGNATURE_ID}")
    sub(root, CBC("ID"), document.document_id)
    sub(root, CBC("IssueDate"), document.issue_date.isoformat())
    if document.issue_time is not None:
        sub(root, CBC("IssueTime"), document.issue_time.strftime("%H:%M:%S"))
    _party(
        root,
        "AgentParty",
        "6",
        issuer.ruc,
        issuer.name,
        issuer.trade_name,
        issuer.ubigeo,
        issuer.address,
        issuer.country,
    )
    receiver = document.receiver
    _party(
        root,
        "ReceiverParty",
        receiver.identity_type,
        receiver.number,
        receiver.name,
        receiver.trade_name,
        receiver.ubigeo,
        receiver.address,
        receiver.country,
    )
    sub(root, SAC(f"SUNAT{word}SystemCode"), document.regime)
    sub(root, SAC(f"SUNAT{word}Percent"), f"{document.percent:f}")
    if document.note.strip():
        sub(root, CBC("Note"), one_line(document.note)[:250])
    amount(root, CBC("TotalInvoiceAmount"), document.total_amount, PEN)
    amount(root, SAC(f"SUNAT{total_tag}"), document.total_net, PEN)
    for line in document.lines:
        reference = etree.SubElement(root, SAC(f"SUNAT{word}DocumentReference"))
        sub(reference, CBC("ID"), line.document_id, {"schemeID": line.doc_type})
        sub(reference, CBC("IssueDate"), line.issue_date.isoformat())
        amount(reference, CBC("TotalInvoiceAmount"), line.total, line.currency)
        payment = etree.SubElement(reference, CAC("Payment"))
        sub(payment, CBC("ID"), str(line.payment_number))
        amount(payment, CBC("PaidAmount"), line.payment, line.currency)
        sub(payment, CBC("PaidDate"), line.payment_date.isoformat())
        information = etree.SubElement(reference, SAC(f"SUNAT{word}Information"))
        amount(information, SAC(f"SUNAT{word}Amount"), line.amount, PEN)
        sub(information, SAC(f"SUNAT{word}Date"), line.withheld_on.isoformat())
        amount(information, SAC(f"SUNAT{net_tag}"), line.net, PEN)
        if line.exchange_rate is not None:
            rate = etree.SubElement(information, CAC("ExchangeRate"))
            sub(rate, CBC("SourceCurrencyCode"), line.source_currency or line.currency)
            sub(rate, CBC("TargetCurrencyCode"), line.target_currency)
            sub(rate, CBC("CalculationRate"), f"{line.exchange_rate:.6f}")
            if line.exchange_date is not None:
                sub(rate, CBC("Date"), line.exchange_date.isoformat())
    return root


def sign_other_document(document: OtherDocument, identity: SigningIdentity) -> SignedXml:
    """Build and sign a retention or perception (RSA-SHA1, the tenant's certificate, as invoices)."""
    xml, digest = sign(build_other_document(document), identity)
    return SignedXml(xml=xml, digest_value=digest, filename=document.filename)
