"""The sections of a UBL 2.1 sales document (Invoice, CreditNote, DebitNote), one function per block.

Every section has the same shape, ``section(out, doc, kind) -> None``: it appends its elements (or
nothing) to ``out`` as text in canonical form (C14N 1.0: no empty-element tags, attributes sorted, the
namespaces declared once on the root, C14N's escapes). :mod:`facturador.ubl.invoice` lists them per
document kind in the order the XSD ``sequence`` demands (``docs/sunat_domain.md``, element order), so
the XML comes out in SUNAT's order by construction; written in canonical form it is its own digest
input (no tree, no C14N pass), as the CDR is. Line sections work the same way with an extra ``line``
argument.

Each scenario block of a :class:`~facturador.issued.SalesDocument` has its section at its place in that
order: detraction (``payment_means`` + ``payment_terms``), credit instalments (``payment_terms``), global
discounts and charges (``allowance_charges``), advances (``prepaid_payments``, ``additional_references``),
related documents and dispatch guides, perception and retention.

The lxml helpers (:func:`sub`, :func:`amount`, :func:`tax_scheme`) build the trees of the other documents
(summaries, retention and perception receipts, dispatch guides).
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TypeAlias

from lxml import etree

from facturador.issued import AllowanceCharge, Issuer, Line, NoteInfo, SalesDocument, Withholding
from sunat.catalogs import TAX_SCHEMES, TaxScheme, is_free, tax_scheme_for
from sunat.money import fmt2

from .namespaces import CAC, CAC_NS, CBC, CBC_NS
from .signing import SIGNATURE_ID

Element: TypeAlias = etree._Element
#: The canonical text of a document being written, piece by piece.
Out: TypeAlias = list[str]

ZERO = Decimal("0")
_SCALES = {places: Decimal(1).scaleb(-places) for places in range(0, 11)}

#: Tax schemes whose amounts are actually charged: TaxTotal/TaxAmount is the sum of these (SUNAT 3292/3294).
CHARGED_SCHEMES = frozenset({"1000", "1016", "2000", "7152", "9999"})
ICBPER = TAX_SCHEMES["7152"]

_CATALOG_URI = "urn:pe:gob:sunat:cpe:see:gem:catalogos:catalogo{:02d}"
_UNECE = "United Nations Economic Commission for Europe"
_IDENTITY_ATTRS = {
    "schemeName": "Documento de Identidad",
    "schemeAgencyName": "PE:SUNAT",
    "schemeURI": _CATALOG_URI.format(6),
}
_GUIDE_TYPE_ATTRS = {
    "listAgencyName": "PE:SUNAT",
    "listName": "Tipo de Documento",
    "listURI": _CATALOG_URI.format(1),
}
_PROPERTY_ATTRS = {
    "listName": "Propiedad del item",
    "listAgencyName": "PE:SUNAT",
    "listURI": _CATALOG_URI.format(55),
}
_DOCUMENT_TYPE_ATTRS = {
    "listAgencyName": "PE:SUNAT",
    "listName": "Documento Relacionado",
    "listURI": "urn:pe:gob:sunat:cpe:see:gem:catalogos:catalogo12",
}
_UBIGEO_ATTRS = {"schemeName": "Ubigeos", "schemeAgencyName": "PE:INEI"}
#: ``cbc:ID`` of the detraction's PaymentMeans and PaymentTerms.
DETRACTION_TERMS = "Detraccion"
_PAYMENT_MEANS_ATTRS = {
    "listName": "Medio de pago",
    "listAgencyName": "PE:SUNAT",
    "listURI": _CATALOG_URI.format(59),
}
_DETRACTION_CODE_ATTRS = {
    "schemeName": "Codigo de detraccion",
    "schemeAgencyName": "PE:SUNAT",
    "schemeURI": _CATALOG_URI.format(54),
}


# --------------------------------------------------------------------------------------------------------
# Number formatting (amounts: sunat.money.fmt2, 2 decimals half up)


def fmt_decimal(value: Decimal, *, places: int = 10, min_places: int = 2) -> str:
    """A number with up to ``places`` decimals and no trailing zeros beyond ``min_places``.

    ``fmt_decimal(Decimal("59.000000")) -> "59.00"``, ``fmt_decimal(Decimal("0.8474576271186")) ->
    "0.8474576271"``, ``fmt_decimal(Decimal("2.000"), min_places=0) -> "2"``.
    """
    return _formatted(value, places, min_places)


@functools.lru_cache(maxsize=4096)
def _formatted(value: Decimal, places: int, min_places: int) -> str:
    # cached: the text depends on the value alone (18 and 18.00 read alike), and percents, quantities and
    # unit prices repeat from line to line and document to document
    q = value.quantize(_SCALES[places], rounding=ROUND_HALF_UP)
    if not q:
        q = ZERO.quantize(_SCALES[places])
    text = format(q, "f")
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0")
    if len(frac) < min_places:
        frac = frac.ljust(min_places, "0")
    return f"{whole}.{frac}" if frac else whole


def fmt_price(value: Decimal) -> str:
    """Unit values and prices: up to 10 decimals (``n(12,10)``), at least 2."""
    return _formatted(value, 10, 2)  # fmt_decimal's cache, called by position (twice a line)


def fmt_quantity(value: Decimal) -> str:
    """Quantities: up to 10 decimals, no padding (``"2"``, ``"1.5"``)."""
    return _formatted(value, 10, 0)


def clock(moment: dt.time) -> str:
    """``HH:MM:SS`` of a time of day, as ``strftime("%H:%M:%S")`` writes it (isoformat: half the cost)."""
    return moment.isoformat("seconds") if moment.tzinfo is None else moment.strftime("%H:%M:%S")


def one_line(text: str) -> str:
    """Text for single-line fields (names, addresses, legends, reasons): SUNAT rejects tabs and line breaks
    there (e.g. 2022 for the customer's name), so every whitespace run becomes one space."""
    return " ".join(text.split())


# --------------------------------------------------------------------------------------------------------
# Element helpers


def sub(parent: Element, tag: str, text: str | None = None, attrib: dict[str, str] | None = None) -> Element:
    """Append ``<tag attrib>text</tag>`` to ``parent`` and return it."""
    el = etree.SubElement(parent, tag, attrib) if attrib else etree.SubElement(parent, tag)
    if text is not None:
        el.text = text
    return el


def amount(parent: Element, tag: str, value: Decimal, currency: str) -> Element:
    """Append an amount element (2 decimals) with ``@currencyID``."""
    el = etree.SubElement(parent, tag, currencyID=currency)
    el.text = fmt2(value)
    return el


def _tax_scheme_template(scheme: TaxScheme) -> Element:
    holder = etree.Element(CAC("TaxCategory"), nsmap={"cac": CAC_NS, "cbc": CBC_NS})
    el = etree.SubElement(holder, CAC("TaxScheme"))
    sub(el, CBC("ID"), scheme.id)
    sub(el, CBC("Name"), scheme.name)
    sub(el, CBC("TaxTypeCode"), scheme.type_code)
    return el


# Copying a prebuilt 4-element block is ~4x faster than building it (it appears 2-3 times per line).
_TAX_SCHEME_TEMPLATES = {scheme: _tax_scheme_template(scheme) for scheme in TAX_SCHEMES.values()}


def tax_scheme(parent: Element, scheme: TaxScheme) -> Element:
    """Append ``cac:TaxScheme`` with ID, Name and TaxTypeCode (catalog 05)."""
    template = _TAX_SCHEME_TEMPLATES.get(scheme)
    if template is None:
        template = _tax_scheme_template(scheme)
    el = copy.deepcopy(template)
    parent.append(el)
    return el


# --------------------------------------------------------------------------------------------------------
# Canonical text (C14N 1.0) of the sales documents

#: Characters XML 1.0 cannot carry (lxml refuses them in a tree; here they raise ValueError too).
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: What C14N escapes in character data, or XML cannot carry.
_TEXT_SPECIAL = re.compile("[&<>\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: What C14N escapes in an attribute value, or XML cannot carry.
_ATTRIBUTE_SPECIAL = re.compile('[&<"\t\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')


def _refuse_unsafe(text: str) -> None:
    if _UNSAFE.search(text):
        raise ValueError(f"All strings must be XML compatible: {text!r} holds a control character")


def escape(text: str) -> str:
    """Character data as C14N writes it (``&amp;``, ``&lt;``, ``&gt;``, ``&#xD;``); ``ValueError`` for a
    character XML cannot carry."""
    if _TEXT_SPECIAL.search(text) is None:
        return text
    _refuse_unsafe(text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#xD;")


def escape_attribute(text: str) -> str:
    """An attribute value as C14N writes it (``&amp;``, ``&lt;``, ``&quot;``, ``&#x9;``, ``&#xA;``,
    ``&#xD;``); ``ValueError`` for a character XML cannot carry."""
    if _ATTRIBUTE_SPECIAL.search(text) is None:
        return text
    _refuse_unsafe(text)
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace('"', "&quot;")
        .replace("\t", "&#x9;")
        .replace("\n", "&#xA;")
        .replace("\r", "&#xD;")
    )


def attributes(pairs: Mapping[str, str]) -> str:
    """Attributes (without namespace) in canonical order: sorted by name, each value escaped."""
    return "".join(f' {name}="{escape_attribute(pairs[name])}"' for name in sorted(pairs))


def el(out: Out, tag: str, text: str, attrs: str = "") -> None:
    """Append ``<tag attrs>text</tag>``; ``attrs`` is canonical already (:func:`attributes`)."""
    out.append(f"<{tag}{attrs}>{escape(text)}</{tag}>")


_CURRENCIES: dict[str, str] = {}


def currency_attribute(currency: str) -> str:
    """`` currencyID="PEN"`` (cached: a handful of codes)."""
    found = _CURRENCIES.get(currency)
    if found is None:
        found = _CURRENCIES[currency] = attributes({"currencyID": currency})
    return found


def money(out: Out, tag: str, value: Decimal, currency: str) -> None:
    """Append an amount element (2 decimals, half up) with ``@currencyID``."""
    out.append(f"<{tag}{currency_attribute(currency)}>{fmt2(value)}</{tag}>")


def _scheme_text(scheme: TaxScheme) -> str:
    out: Out = ["<cac:TaxScheme>"]
    el(out, "cbc:ID", scheme.id)
    el(out, "cbc:Name", scheme.name)
    el(out, "cbc:TaxTypeCode", scheme.type_code)
    out.append("</cac:TaxScheme>")
    return "".join(out)


_SCHEME_TEXTS = {scheme: _scheme_text(scheme) for scheme in TAX_SCHEMES.values()}


def scheme_text(scheme: TaxScheme) -> str:
    """``cac:TaxScheme`` with ID, Name and TaxTypeCode (catalog 05), written once per scheme."""
    found = _SCHEME_TEXTS.get(scheme)
    return found if found is not None else _scheme_text(scheme)


# --------------------------------------------------------------------------------------------------------
# Document kinds

Section = Callable[[Out, SalesDocument, "DocumentKind"], None]
LineSection = Callable[[Out, SalesDocument, "DocumentKind", Line], None]


@dataclass(frozen=True)
class DocumentKind:
    """What differs between Invoice, CreditNote and DebitNote: root, tag names and section order."""

    root: str  # local name of the root element
    namespace: str
    type_code_tag: str | None  # cbc:InvoiceTypeCode for 01/03; notes carry no type code element
    line_tag: str  # cac:InvoiceLine / cac:CreditNoteLine / cac:DebitNoteLine
    quantity_tag: str  # cbc:InvoicedQuantity / cbc:CreditedQuantity / cbc:DebitedQuantity
    monetary_total_tag: str  # cac:LegalMonetaryTotal / cac:RequestedMonetaryTotal (DebitNote)
    sections: tuple[Section, ...]
    line_sections: tuple[LineSection, ...]


# Attributes written the same in every document, in canonical order once.
_IDENTITY = {
    "schemeAgencyName": "PE:SUNAT",
    "schemeName": "Documento de Identidad",
    "schemeURI": _CATALOG_URI.format(6),
}
_IDENTITY_BY_TYPE: dict[str, str] = {}


def _identity_attributes(identity_type: str) -> str:
    found = _IDENTITY_BY_TYPE.get(identity_type)
    if found is None:
        found = _IDENTITY_BY_TYPE[identity_type] = attributes({"schemeID": identity_type, **_IDENTITY})
    return found


_CUSTOMIZATION = attributes({"schemeAgencyName": "PE:SUNAT"})
_CURRENCY_CODE = attributes({"listID": "ISO 4217 Alpha", "listName": "Currency", "listAgencyName": _UNECE})
_GUIDE_TYPE = attributes(_GUIDE_TYPE_ATTRS)
_PROPERTY = attributes(_PROPERTY_ATTRS)
_DOCUMENT_TYPE = attributes(_DOCUMENT_TYPE_ATTRS)
_UBIGEO = attributes(_UBIGEO_ATTRS)
_PAYMENT_MEANS = attributes(_PAYMENT_MEANS_ATTRS)
_DETRACTION_CODE = attributes(_DETRACTION_CODE_ATTRS)
_ADVANCE_STATUS = attributes({"listName": "Anticipo", "listAgencyName": "PE:SUNAT"})
_ADVANCE_ID = attributes({"schemeName": "Anticipo", "schemeAgencyName": "PE:SUNAT"})
_BAGS = attributes({"unitCode": "NIU"})
_DAYS = attributes({"unitCode": "DAY"})
_TYPE_CODES: dict[tuple[str, str], str] = {}
_UNITS: dict[str, str] = {}


def _type_code_attributes(operation_type: str) -> str:
    found = _TYPE_CODES.get((operation_type, ""))
    if found is None:
        found = _TYPE_CODES[(operation_type, "")] = attributes(
            {
                "listID": operation_type,
                "listAgencyName": "PE:SUNAT",
                "listName": "Tipo de Documento",
                "listURI": _CATALOG_URI.format(1),
                "name": "Tipo de Operacion",
                "listSchemeURI": _CATALOG_URI.format(51),
            }
        )
    return found


def _unit_attributes(unit: str) -> str:
    found = _UNITS.get(unit)
    if found is None:
        found = _UNITS[unit] = attributes(
            {"unitCode": unit, "unitCodeListID": "UN/ECE rec 20", "unitCodeListAgencyName": _UNECE}
        )
    return found


# --------------------------------------------------------------------------------------------------------
# Header


def ubl_extensions(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent``, left empty for the signature."""
    out.append(EMPTY_EXTENSIONS)


#: The extensions with the empty slot the signature goes into (:data:`SIGNATURE_SLOT`).
SIGNATURE_SLOT = "<ext:ExtensionContent></ext:ExtensionContent>"
EMPTY_EXTENSIONS = (
    f"<ext:UBLExtensions><ext:UBLExtension>{SIGNATURE_SLOT}</ext:UBLExtension></ext:UBLExtensions>"
)


def identification(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """UBLVersionID, CustomizationID, ID (unpadded serie-número), IssueDate/Time, DueDate?, type code."""
    out.append("<cbc:UBLVersionID>2.1</cbc:UBLVersionID>")
    out.append(f"<cbc:CustomizationID{_CUSTOMIZATION}>2.0</cbc:CustomizationID>")
    el(out, "cbc:ID", doc.full_number)
    out.append(f"<cbc:IssueDate>{doc.issue_date.isoformat()}</cbc:IssueDate>")
    out.append(f"<cbc:IssueTime>{clock(doc.issue_time)}</cbc:IssueTime>")
    if kind.type_code_tag is None:
        return
    if doc.due_date is not None:
        out.append(f"<cbc:DueDate>{doc.due_date.isoformat()}</cbc:DueDate>")
    el(out, kind.type_code_tag, doc.doc_type, _type_code_attributes(doc.operation_type or "0101"))


def legends(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cbc:Note@languageLocaleID`` per legend (catalog 52; 1000 = amount in words, given by the caller)."""
    for legend in doc.legends:
        el(out, "cbc:Note", one_line(legend.text), attributes({"languageLocaleID": legend.code}))


def document_currency(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cbc:DocumentCurrencyCode`` (ISO 4217)."""
    el(out, "cbc:DocumentCurrencyCode", doc.currency, _CURRENCY_CODE)


def discrepancy_response(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """Notes: ``cac:DiscrepancyResponse`` (affected serie-número, note type of catalog 09/10, reason)."""
    note = _note(doc)
    out.append("<cac:DiscrepancyResponse>")
    el(out, "cbc:ReferenceID", note.affected.full_number)
    el(out, "cbc:ResponseCode", note.type_code)
    el(out, "cbc:Description", one_line(note.reason))
    out.append("</cac:DiscrepancyResponse>")


def order_reference(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:OrderReference/cbc:ID``: the customer's purchase order, when given."""
    if doc.purchase_order:
        out.append("<cac:OrderReference>")
        el(out, "cbc:ID", doc.purchase_order)
        out.append("</cac:OrderReference>")


def billing_reference(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """Notes: ``cac:BillingReference/cac:InvoiceDocumentReference`` (affected ID and document type)."""
    note = _note(doc)
    out.append("<cac:BillingReference><cac:InvoiceDocumentReference>")
    el(out, "cbc:ID", note.affected.full_number)
    el(out, "cbc:DocumentTypeCode", note.affected.doc_type)
    out.append("</cac:InvoiceDocumentReference></cac:BillingReference>")


def despatch_references(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:DespatchDocumentReference*``: the dispatch guides (catalog 01: 09 remitente, 31 carrier)."""
    for guide in doc.guides:
        out.append("<cac:DespatchDocumentReference>")
        el(out, "cbc:ID", guide.number)
        el(out, "cbc:DocumentTypeCode", guide.doc_type, _GUIDE_TYPE)
        out.append("</cac:DespatchDocumentReference>")


def additional_references(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:AdditionalDocumentReference*``: the advances deducted (catalog 12: 02 factura, 03 boleta), each
    with ``DocumentStatusCode`` n = its ``PrepaidPayment/cbc:ID`` and the issuer's RUC (IssuerParty).

    Then the related documents (catalog 12: 04-09, 99), ID and type only (their amount is printed)."""
    for n, prepayment in enumerate(doc.prepayments, start=1):
        out.append("<cac:AdditionalDocumentReference>")
        el(out, "cbc:ID", prepayment.number)
        el(out, "cbc:DocumentTypeCode", prepayment.doc_type, _DOCUMENT_TYPE)
        el(out, "cbc:DocumentStatusCode", str(n), _ADVANCE_STATUS)
        out.append("<cac:IssuerParty><cac:PartyIdentification>")
        el(out, "cbc:ID", doc.issuer.ruc, _identity_attributes("6"))
        out.append("</cac:PartyIdentification></cac:IssuerParty></cac:AdditionalDocumentReference>")
    for related in doc.related_documents:
        out.append("<cac:AdditionalDocumentReference>")
        el(out, "cbc:ID", related.number)
        el(out, "cbc:DocumentTypeCode", related.doc_type, _DOCUMENT_TYPE)
        out.append("</cac:AdditionalDocumentReference>")


def signature(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:Signature``: who signs and where the ``ds:Signature`` is (``#SignatureSP``)."""
    out.append(_issuer_text(doc.issuer, _signature))


def supplier(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:AccountingSupplierParty``: RUC, trade name, legal name and the establishment's address."""
    out.append(_issuer_text(doc.issuer, _supplier))


@functools.lru_cache(maxsize=1024)
def _issuer_text(issuer: Issuer, section: Callable[[Out, Issuer], None]) -> str:
    """The text of a section that depends on the issuer only (a tenant and establishment issues many
    documents): written once per issuer."""
    out: Out = []
    section(out, issuer)
    return "".join(out)


def _signature(out: Out, issuer: Issuer) -> None:
    out.append("<cac:Signature>")
    el(out, "cbc:ID", f"SIGN{issuer.ruc}")
    out.append("<cac:SignatoryParty><cac:PartyIdentification>")
    el(out, "cbc:ID", issuer.ruc)
    out.append("</cac:PartyIdentification><cac:PartyName>")
    el(out, "cbc:Name", one_line(issuer.name))
    out.append("</cac:PartyName></cac:SignatoryParty><cac:DigitalSignatureAttachment><cac:ExternalReference>")
    el(out, "cbc:URI", f"#{SIGNATURE_ID}")
    out.append("</cac:ExternalReference></cac:DigitalSignatureAttachment></cac:Signature>")


def _supplier(out: Out, issuer: Issuer) -> None:
    out.append("<cac:AccountingSupplierParty><cac:Party><cac:PartyIdentification>")
    el(out, "cbc:ID", issuer.ruc, _identity_attributes("6"))
    out.append("</cac:PartyIdentification>")
    if issuer.trade_name:
        out.append("<cac:PartyName>")
        el(out, "cbc:Name", one_line(issuer.trade_name))
        out.append("</cac:PartyName>")
    out.append("<cac:PartyLegalEntity>")
    el(out, "cbc:RegistrationName", one_line(issuer.name))
    out.append("<cac:RegistrationAddress>")
    if issuer.ubigeo:
        el(out, "cbc:ID", issuer.ubigeo)
    el(out, "cbc:AddressTypeCode", issuer.establishment_code or "0000")
    if issuer.province:
        el(out, "cbc:CityName", issuer.province)
    if issuer.department:
        el(out, "cbc:CountrySubentity", issuer.department)
    if issuer.district:
        el(out, "cbc:District", issuer.district)
    _address_line_and_country(out, issuer.address, issuer.country)
    out.append("</cac:RegistrationAddress></cac:PartyLegalEntity></cac:Party>")
    out.append("</cac:AccountingSupplierParty>")


def _address_line_and_country(out: Out, address: str | None, country: str | None) -> None:
    """The end of a ``cac:RegistrationAddress``: its line (when known) and its country (PE by default)."""
    if address:
        out.append("<cac:AddressLine>")
        el(out, "cbc:Line", one_line(address))
        out.append("</cac:AddressLine>")
    out.append("<cac:Country>")
    el(out, "cbc:IdentificationCode", country or "PE")
    out.append("</cac:Country>")


def customer(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:AccountingCustomerParty``: identity (catalog 06), name, and address/country when known."""
    buyer = doc.customer
    out.append("<cac:AccountingCustomerParty><cac:Party><cac:PartyIdentification>")
    el(out, "cbc:ID", buyer.number, _identity_attributes(buyer.identity_type))
    out.append("</cac:PartyIdentification><cac:PartyLegalEntity>")
    el(out, "cbc:RegistrationName", one_line(buyer.name))
    foreign = bool(buyer.country) and buyer.country != "PE"
    if buyer.address or foreign:
        out.append("<cac:RegistrationAddress>")
        if buyer.ubigeo:
            el(out, "cbc:ID", buyer.ubigeo)
        _address_line_and_country(out, buyer.address, buyer.country)
        out.append("</cac:RegistrationAddress>")
    out.append("</cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>")


def payment_means(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:PaymentMeans`` of a detraction: ID ``Detraccion``, the means of payment (catalog 59) and the
    issuer's detraction account at Banco de la Nación (``cac:PayeeFinancialAccount/cbc:ID``)."""
    detraction = doc.detraction
    if detraction is None:
        return
    out.append("<cac:PaymentMeans>")
    el(out, "cbc:ID", DETRACTION_TERMS)
    el(out, "cbc:PaymentMeansCode", detraction.payment_means, _PAYMENT_MEANS)
    out.append("<cac:PayeeFinancialAccount>")
    el(out, "cbc:ID", detraction.account)
    out.append("</cac:PayeeFinancialAccount></cac:PaymentMeans>")


def payment_terms(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:PaymentTerms*``: the detraction terms, then FormaPago (facturas and boletas).

    * detraction: ID ``Detraccion``, PaymentMeansID = catalog 54 code, PaymentPercent, Amount in PEN
      (whatever the document currency);
    * ``Contado``: one FormaPago without amount;
    * ``Credito``: FormaPago ``Credito`` with the net pending amount (Σ instalments), then one FormaPago
      per instalment, ``Cuota001``, ``Cuota002``…, with its Amount and PaymentDueDate.

    Notes carry FormaPago only on credit (:func:`note_payment_terms`).
    """
    if kind.type_code_tag is None:
        note_payment_terms(out, doc)
        return
    detraction = doc.detraction
    if detraction is not None:
        out.append("<cac:PaymentTerms>")
        el(out, "cbc:ID", DETRACTION_TERMS)
        el(out, "cbc:PaymentMeansID", detraction.code, _DETRACTION_CODE)
        el(out, "cbc:PaymentPercent", fmt_decimal(detraction.percent, places=5))
        money(out, "cbc:Amount", detraction.amount, "PEN")
        out.append("</cac:PaymentTerms>")
    perception = doc.perception
    if perception is not None:  # the total with the perception, in PEN (3310)
        out.append("<cac:PaymentTerms><cbc:ID>Percepcion</cbc:ID>")
        money(out, "cbc:Amount", perception.base + perception.amount, "PEN")
        out.append("</cac:PaymentTerms>")
    form = doc.payment_form or "Contado"
    instalments = doc.instalments
    if form not in ("Contado", "Credito"):
        raise ValueError(f"payment form must be Contado or Credito, not {form!r}")
    if form == "Credito" and not instalments:
        raise ValueError("payment form Credito needs at least one instalment (Cuota001...)")
    if form == "Contado" and instalments:
        raise ValueError("instalments need the payment form Credito")
    out.append("<cac:PaymentTerms><cbc:ID>FormaPago</cbc:ID>")
    el(out, "cbc:PaymentMeansID", form)
    if form == "Contado":
        out.append("</cac:PaymentTerms>")
        return
    _credit_terms(out, doc)


def note_payment_terms(out: Out, doc: SalesDocument) -> None:
    """FormaPago of a note on credit: ``Credito`` with the net pending amount and its ``Cuota`` terms.

    A credit note of type 13 (ajustes – montos y/o fechas de pago) restates the instalments of the
    factura it modifies (SUNAT 3257: it needs them); any other note has them only when sold on credit.
    A note paid in cash carries no FormaPago (SUNAT asks it only of facturas, 3244).
    """
    instalments = doc.instalments
    adjustment = doc.doc_type == "07" and doc.note is not None and doc.note.type_code == "13"
    if adjustment and not instalments:
        raise ValueError("a credit note of type 13 needs the instalments (Cuota001...) it restates")
    if not instalments:
        return
    out.append("<cac:PaymentTerms><cbc:ID>FormaPago</cbc:ID><cbc:PaymentMeansID>Credito</cbc:PaymentMeansID>")
    _credit_terms(out, doc)


def _credit_terms(out: Out, doc: SalesDocument) -> None:
    """The pending amount of ``Credito`` (closing its open ``cac:PaymentTerms``) and one FormaPago
    ``CuotaNNN`` per instalment."""
    money(out, "cbc:Amount", doc.pending_amount, doc.currency)
    out.append("</cac:PaymentTerms>")
    for number, instalment in enumerate(doc.instalments, start=1):
        out.append("<cac:PaymentTerms><cbc:ID>FormaPago</cbc:ID>")
        el(out, "cbc:PaymentMeansID", instalment_id(number))
        money(out, "cbc:Amount", instalment.amount, doc.currency)
        out.append(f"<cbc:PaymentDueDate>{instalment.due_date.isoformat()}</cbc:PaymentDueDate>")
        out.append("</cac:PaymentTerms>")


def instalment_id(number: int) -> str:
    """``Cuota001`` … ``Cuota999``: the PaymentMeansID of the n-th instalment (1-based)."""
    if not 1 <= number <= 999:
        raise ValueError(f"instalment number must be 1..999, not {number}")
    return f"Cuota{number:03d}"


def prepaid_payments(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:PrepaidPayment*``: per advance deducted, ``cbc:ID`` n (its AdditionalDocumentReference's
    DocumentStatusCode) and ``cbc:PaidAmount`` (its ``monto``); Σ PaidAmount = PrepaidAmount (2509)."""
    for n, prepayment in enumerate(doc.prepayments, start=1):
        out.append("<cac:PrepaidPayment>")
        el(out, "cbc:ID", str(n), _ADVANCE_ID)
        money(out, "cbc:PaidAmount", prepayment.amount, doc.currency)
        out.append("</cac:PrepaidPayment>")


_ALLOWANCE_CODE_ATTRS = {
    "listAgencyName": "PE:SUNAT",
    "listName": "Cargo/descuento",
    "listURI": _CATALOG_URI.format(53),
}
_ALLOWANCE_CODE = attributes(_ALLOWANCE_CODE_ATTRS)


def allowance_charge(out: Out, allowance: AllowanceCharge, currency: str) -> None:
    """One ``cac:AllowanceCharge``: ChargeIndicator, reason (catalog 53), factor?, Amount, BaseAmount."""
    out.append("<cac:AllowanceCharge>")
    out.append(f"<cbc:ChargeIndicator>{'true' if allowance.is_charge else 'false'}</cbc:ChargeIndicator>")
    el(out, "cbc:AllowanceChargeReasonCode", allowance.code, _ALLOWANCE_CODE)
    if allowance.factor is not None and allowance.factor > 0:
        el(out, "cbc:MultiplierFactorNumeric", fmt_decimal(allowance.factor, places=5))
    money(out, "cbc:Amount", allowance.amount, currency)
    money(out, "cbc:BaseAmount", allowance.base, currency)
    out.append("</cac:AllowanceCharge>")


def allowance_charges(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:AllowanceCharge*``: the global discounts (02-06) and charges (45, 46, 49, 50), catalog 53."""
    for allowance in doc.allowances:
        allowance_charge(out, allowance, doc.currency)
    perception, retention = doc.perception, doc.retention
    if perception is not None:  # a charge in PEN whatever the document currency
        _withholding(out, perception, charge=True, currency="PEN")
    if retention is not None:
        _withholding(out, retention, charge=False, currency=doc.currency)


def _withholding(out: Out, withholding: Withholding, *, charge: bool, currency: str) -> None:
    out.append("<cac:AllowanceCharge>")
    out.append(f"<cbc:ChargeIndicator>{'true' if charge else 'false'}</cbc:ChargeIndicator>")
    el(out, "cbc:AllowanceChargeReasonCode", withholding.code, _ALLOWANCE_CODE)
    el(out, "cbc:MultiplierFactorNumeric", fmt_decimal(withholding.factor, places=5))
    money(out, "cbc:Amount", withholding.amount, currency)
    money(out, "cbc:BaseAmount", withholding.base, currency)
    out.append("</cac:AllowanceCharge>")


# --------------------------------------------------------------------------------------------------------
# Taxes and totals


@dataclass(frozen=True)
class HeaderSubtotal:
    """One ``cac:TaxSubtotal`` of the document's ``cac:TaxTotal``."""

    scheme: TaxScheme
    taxable: Decimal | None  # None: no TaxableAmount (ICBPER)
    tax: Decimal


def header_subtotals(doc: SalesDocument) -> list[HeaderSubtotal]:
    """The header tax subtotals: one per tax scheme present in the lines or the totals."""
    t = doc.totals
    schemes = {_line_scheme(affectation)[0].id for affectation in {line.affectation for line in doc.lines}}
    out: list[HeaderSubtotal] = []
    if "1000" in schemes or (t.taxed and "1016" not in schemes):
        out.append(HeaderSubtotal(TAX_SCHEMES["1000"], t.taxed, t.igv))
    if "1016" in schemes:  # IVAP (rice): an IVAP document carries only 17 lines
        ivap = [line for line in doc.lines if line.affectation == "17"]
        base = sum((line.igv_base or line.value for line in ivap), ZERO)
        out.append(HeaderSubtotal(TAX_SCHEMES["1016"], base, sum((line.igv for line in ivap), ZERO)))
    if "9995" in schemes or t.export:
        out.append(HeaderSubtotal(TAX_SCHEMES["9995"], t.export, ZERO))
    if "9996" in schemes or t.free:
        out.append(HeaderSubtotal(TAX_SCHEMES["9996"], t.free, t.igv_free))
    if "9997" in schemes or t.exonerated:
        out.append(HeaderSubtotal(TAX_SCHEMES["9997"], t.exonerated, ZERO))
    if "9998" in schemes or t.unaffected:
        out.append(HeaderSubtotal(TAX_SCHEMES["9998"], t.unaffected, ZERO))
    if t.isc_base or t.isc or t.other_base or t.other or _any_other_taxes(doc.lines):
        out += other_tax_header_subtotals(doc)
    if t.icbper or any(line.icbper for line in doc.lines):
        out.append(HeaderSubtotal(ICBPER, None, t.icbper))
    return out


def _any_other_taxes(lines: tuple[Line, ...]) -> bool:
    """A line carries ISC or other taxes (one pass, for the document that has none)."""
    return any(line.isc_base or line.isc or line.other_base or line.other for line in lines)


def other_tax_header_subtotals(doc: SalesDocument) -> list[HeaderSubtotal]:
    """The header's ISC (2000) and other taxes (9999) subtotals, when a line carries them (3296-3299)."""
    t = doc.totals
    out = []
    if t.isc_base or t.isc or any(line.isc_base or line.isc for line in doc.lines):
        out.append(HeaderSubtotal(TAX_SCHEMES["2000"], t.isc_base, t.isc))
    if t.other_base or t.other or any(line.other_base or line.other for line in doc.lines):
        out.append(HeaderSubtotal(TAX_SCHEMES["9999"], t.other_base, t.other))
    return out


def charged_tax(subtotals: list[HeaderSubtotal]) -> Decimal:
    """TaxTotal/TaxAmount: Σ of 1000, 1016, 2000, 7152, 9999 (the informative IGV of free lines is out)."""
    return sum((s.tax for s in subtotals if s.scheme.id in CHARGED_SCHEMES), ZERO)


def tax_total(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:TaxTotal`` of the document with one ``cac:TaxSubtotal`` per tax scheme present."""
    currency = doc.currency
    subtotals = header_subtotals(doc)
    out.append("<cac:TaxTotal>")
    money(out, "cbc:TaxAmount", charged_tax(subtotals), currency)
    for s in subtotals:
        out.append("<cac:TaxSubtotal>")
        if s.taxable is not None:
            money(out, "cbc:TaxableAmount", s.taxable, currency)
        money(out, "cbc:TaxAmount", s.tax, currency)
        out.append("<cac:TaxCategory>")
        out.append(scheme_text(s.scheme))
        out.append("</cac:TaxCategory></cac:TaxSubtotal>")
    out.append("</cac:TaxTotal>")


def monetary_total(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:LegalMonetaryTotal`` (``cac:RequestedMonetaryTotal`` in debit notes).

    LineExtensionAmount = valor de venta (free lines excluded, net of global discounts 02 and with charges
    49), TaxInclusiveAmount = valor + charged taxes, AllowanceTotalAmount (discounts 01 + 03) and
    ChargeTotalAmount (charges 48 + 45, 46, 50) when there are any, PrepaidAmount when advances are
    deducted, PayableAmount = importe total.
    """
    t = doc.totals
    currency = doc.currency
    inclusive = t.subtotal if t.subtotal else t.value + charged_tax(header_subtotals(doc))
    tag = kind.monetary_total_tag
    out.append(f"<{tag}>")
    money(out, "cbc:LineExtensionAmount", t.value, currency)
    money(out, "cbc:TaxInclusiveAmount", inclusive, currency)
    if t.discounts:
        money(out, "cbc:AllowanceTotalAmount", t.discounts, currency)
    if t.charges:
        money(out, "cbc:ChargeTotalAmount", t.charges, currency)
    if t.prepaid:
        money(out, "cbc:PrepaidAmount", t.prepaid, currency)
    money(out, "cbc:PayableAmount", t.total, currency)
    out.append(f"</{tag}>")


def lines(out: Out, doc: SalesDocument, kind: DocumentKind) -> None:
    """One ``cac:InvoiceLine`` / ``cac:CreditNoteLine`` / ``cac:DebitNoteLine`` per item."""
    tag = kind.line_tag
    opening, closing = f"<{tag}>", f"</{tag}>"
    sections = kind.line_sections
    for line in doc.lines:
        out.append(opening)
        for section in sections:
            section(out, doc, kind, line)
        out.append(closing)


# --------------------------------------------------------------------------------------------------------
# Lines


def referential_unit_value(line: Line) -> Decimal:
    """The referential unit value of a free line (PriceTypeCode 02).

    SUNAT checks ``LineExtensionAmount = referential value x quantity`` (3271, ±1), so the candidate
    consistent with the line value wins: ``unit_value`` first, then ``unit_price``, else value / quantity.
    """
    for candidate in (line.unit_value, line.unit_price):
        if candidate and abs(candidate * line.quantity - line.value) <= 1:
            return candidate
    return line.value / line.quantity if line.quantity else ZERO


def line_id(out: Out, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """``cbc:ID``: the 1-based line number."""
    out.append(f"<cbc:ID>{line.index}</cbc:ID>")


def line_quantity(out: Out, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """Invoiced/Credited/DebitedQuantity with ``@unitCode`` (catalog 03 = UN/ECE rec 20)."""
    tag = kind.quantity_tag
    out.append(f"<{tag}{_unit_attributes(line.unit)}>{fmt_quantity(line.quantity)}</{tag}>")


def line_extension_amount(out: Out, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """``cbc:LineExtensionAmount``: valor de venta of the item (referential value for free lines)."""
    currency = currency_attribute(doc.currency)
    out.append(f"<cbc:LineExtensionAmount{currency}>{fmt2(line.value)}</cbc:LineExtensionAmount>")


def pricing_reference(out: Out, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """``cac:PricingReference``: unit price with taxes (01) or, for free lines, referential value (02)."""
    free = is_free(line.affectation)
    value = referential_unit_value(line) if free else line.unit_price
    out.append(
        f"<cac:PricingReference><cac:AlternativeConditionPrice><cbc:PriceAmount"
        f"{currency_attribute(doc.currency)}>{fmt_price(value)}</cbc:PriceAmount>"
        f"<cbc:PriceTypeCode>{'02' if free else '01'}</cbc:PriceTypeCode>"
        "</cac:AlternativeConditionPrice></cac:PricingReference>"
    )


def line_delivery(out: Out, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """``cac:Delivery`` of a line of cargo transport subject to detraction (operation 1004).

    SUNAT reads the trip on every line (3116-3126): ``cac:DeliveryLocation/cac:Address`` the destination
    (ubigeo and address), ``cac:Despatch`` the trip detail (``cbc:Instructions``) and the origin
    (``cac:DespatchAddress``), and one ``cac:DeliveryTerms`` per reference value: 01 the transport
    service, 02 the effective load, 03 the nominal payload. The order is the XSD's (Delivery:
    DeliveryLocation, Despatch, DeliveryTerms; Despatch: Instructions, DespatchAddress).
    """
    detraction = doc.detraction
    trip = detraction.trip if detraction is not None else None
    if trip is None:
        return
    out.append("<cac:Delivery><cac:DeliveryLocation><cac:Address>")
    el(out, "cbc:ID", trip.destination_ubigeo, _UBIGEO)
    out.append("<cac:AddressLine>")
    el(out, "cbc:Line", one_line(trip.destination_address))
    out.append("</cac:AddressLine></cac:Address></cac:DeliveryLocation><cac:Despatch>")
    el(out, "cbc:Instructions", one_line(trip.detail))
    out.append("<cac:DespatchAddress>")
    el(out, "cbc:ID", trip.origin_ubigeo, _UBIGEO)
    out.append("<cac:AddressLine>")
    el(out, "cbc:Line", one_line(trip.origin_address))
    out.append("</cac:AddressLine></cac:DespatchAddress></cac:Despatch>")
    for code, value in (
        ("01", trip.service_value),
        ("02", trip.effective_load_value),
        ("03", trip.payload_value),
    ):
        out.append(f"<cac:DeliveryTerms><cbc:ID>{code}</cbc:ID>")
        money(out, "cbc:Amount", value, doc.currency)
        out.append("</cac:DeliveryTerms>")
    out.append("</cac:Delivery>")


def line_allowance_charges(out: Out, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """Line ``cac:AllowanceCharge*`` (item discounts 00/01, charges 47/48).

    Its position differs: before the line TaxTotal in InvoiceLine, after it in Credit/DebitNoteLine.
    """
    for allowance in line.allowances:
        allowance_charge(out, allowance, doc.currency)


def line_tax_total(out: Out, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """The line ``cac:TaxTotal``: the affectation's subtotal plus ICBPER when the line carries bags.

    Its TaxAmount is Σ of the charged schemes (1000, 1016, 2000, 7152, 9999, SUNAT 3292): the informative
    IGV of a free line (scheme 9996) is shown in its subtotal but left out of the line total.
    """
    currency = doc.currency
    scheme, is_charged, scheme_xml = _line_scheme(line.affectation)
    igv = line.igv
    charged = igv if is_charged else ZERO
    if line.icbper or line.isc or line.other:
        charged = charged + line.icbper + line.isc + line.other
    amount = currency_attribute(currency)
    igv_text = fmt2(igv)
    # one text for the common part (a line is written ~10 times per document): money() inlined
    out.append(
        f"<cac:TaxTotal><cbc:TaxAmount{amount}>{igv_text if charged is igv else fmt2(charged)}"
        f"</cbc:TaxAmount><cac:TaxSubtotal>"
        f"<cbc:TaxableAmount{amount}>{fmt2(line.igv_base or line.value)}</cbc:TaxableAmount>"
        f"<cbc:TaxAmount{amount}>{igv_text}</cbc:TaxAmount>"
        f"<cac:TaxCategory><cbc:Percent>{_formatted(line.igv_percent, 5, 2)}</cbc:Percent>"
        f"<cbc:TaxExemptionReasonCode>{escape(line.affectation)}</cbc:TaxExemptionReasonCode>"
        f"{scheme_xml}</cac:TaxCategory></cac:TaxSubtotal>"
    )
    if line.isc_base or line.isc or line.other_base or line.other:
        line_other_taxes(out, line, currency)

    if line.icbper:
        bags = line.quantity.to_integral_value(rounding=ROUND_HALF_UP)
        out.append("<cac:TaxSubtotal>")
        money(out, "cbc:TaxAmount", line.icbper, currency)
        out.append(f"<cbc:BaseUnitMeasure{_BAGS}>{int(bags)}</cbc:BaseUnitMeasure><cac:TaxCategory>")
        per_unit = line.icbper / bags if bags else line.icbper
        money(out, "cbc:PerUnitAmount", per_unit, currency)
        out.append(scheme_text(ICBPER))
        out.append("</cac:TaxCategory></cac:TaxSubtotal>")
    out.append("</cac:TaxTotal>")


@functools.lru_cache(maxsize=64)
def _line_scheme(affectation: str) -> tuple[TaxScheme, bool, str]:
    """A line's main tax scheme for its affectation (catalog 07 -> 05), whether it is charged (in the
    line's TaxAmount) and its ``cac:TaxScheme`` text: looked up once per affectation."""
    scheme = tax_scheme_for(affectation)
    return scheme, scheme.id in CHARGED_SCHEMES, scheme_text(scheme)


def line_other_taxes(out: Out, line: Line, currency: str) -> None:
    """The line's ISC subtotal (scheme 2000, ``cbc:TierRange`` = its system of catalog 08) and other taxes
    subtotal (9999), each with TaxableAmount, TaxAmount and Percent, when the line carries them."""
    if line.isc_base or line.isc:
        out.append("<cac:TaxSubtotal>")
        money(out, "cbc:TaxableAmount", line.isc_base, currency)
        money(out, "cbc:TaxAmount", line.isc, currency)
        out.append(f"<cac:TaxCategory><cbc:Percent>{fmt_decimal(line.isc_percent, places=5)}</cbc:Percent>")
        if line.isc_system:
            el(out, "cbc:TierRange", line.isc_system)
        out.append(scheme_text(TAX_SCHEMES["2000"]))
        out.append("</cac:TaxCategory></cac:TaxSubtotal>")
    if line.other_base or line.other:
        out.append("<cac:TaxSubtotal>")
        money(out, "cbc:TaxableAmount", line.other_base, currency)
        money(out, "cbc:TaxAmount", line.other, currency)
        out.append(f"<cac:TaxCategory><cbc:Percent>{fmt_decimal(line.other_percent, places=5)}</cbc:Percent>")
        out.append(scheme_text(TAX_SCHEMES["9999"]))
        out.append("</cac:TaxCategory></cac:TaxSubtotal>")


def item(out: Out, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """``cac:Item``: description, own code, SUNAT product code (UNSPSC, 8 digits).

    Then the item attributes (``cac:AdditionalItemProperty``, catalog 55: Name, NameCode, Value,
    UsabilityPeriod).
    """
    own = line.internal_code
    out.append(
        f"<cac:Item><cbc:Description>{escape(line.description)}</cbc:Description>"
        + (
            f"<cac:SellersItemIdentification><cbc:ID>{escape(own)}</cbc:ID></cac:SellersItemIdentification>"
            if own
            else ""
        )
    )
    code = line.sunat_code
    if len(code) == 8 and code.isdigit():
        out.append(
            "<cac:CommodityClassification><cbc:ItemClassificationCode>"
            f"{code}</cbc:ItemClassificationCode></cac:CommodityClassification>"
        )
    for prop in line.properties:
        out.append("<cac:AdditionalItemProperty>")
        el(out, "cbc:Name", one_line(prop.name))
        el(out, "cbc:NameCode", prop.code, _PROPERTY)
        if prop.value:
            el(out, "cbc:Value", one_line(prop.value))
        if prop.start or prop.end or prop.days is not None:
            out.append("<cac:UsabilityPeriod>")
            if prop.start:
                out.append(f"<cbc:StartDate>{prop.start.isoformat()}</cbc:StartDate>")
            if prop.end:
                out.append(f"<cbc:EndDate>{prop.end.isoformat()}</cbc:EndDate>")
            if prop.days is not None:
                out.append(f"<cbc:DurationMeasure{_DAYS}>{fmt_quantity(prop.days)}</cbc:DurationMeasure>")
            out.append("</cac:UsabilityPeriod>")
        out.append("</cac:AdditionalItemProperty>")
    out.append("</cac:Item>")


def price(out: Out, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """``cac:Price/cbc:PriceAmount``: the unit value without taxes (0 for free lines)."""
    value = ZERO if is_free(line.affectation) else line.unit_value
    out.append(
        f"<cac:Price><cbc:PriceAmount{currency_attribute(doc.currency)}>{fmt_price(value)}"
        "</cbc:PriceAmount></cac:Price>"
    )


def _note(doc: SalesDocument) -> NoteInfo:
    if doc.note is None:
        raise ValueError(f"document type {doc.doc_type} needs note data (type, reason, affected document)")
    return doc.note
