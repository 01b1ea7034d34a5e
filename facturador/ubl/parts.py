"""The sections of a UBL 2.1 sales document (Invoice, CreditNote, DebitNote), one function per block.

Every section has the same shape, ``section(root, doc, kind) -> None``: it appends its elements (or nothing)
to ``root``. :mod:`facturador.ubl.invoice` lists them per document kind in the order the XSD
``sequence`` demands (``docs/sunat_domain.md``, element order), so the XML comes out in SUNAT's order by
construction. Line sections work the same way with an extra ``line`` argument.

Each scenario block of a :class:`~facturador.issued.SalesDocument` has its section at its place in that
order: detraction (``payment_means`` + ``payment_terms``), credit instalments (``payment_terms``), global
discounts and charges (``allowance_charges``), advances (``prepaid_payments``, ``additional_references``),
related documents and dispatch guides, perception and retention.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TypeAlias

from lxml import etree

from facturador.issued import AllowanceCharge, Line, NoteInfo, SalesDocument, Withholding
from sunat.catalogs import TAX_SCHEMES, TaxScheme, is_free, tax_scheme_for
from sunat.money import fmt2

from .namespaces import CAC, CAC_NS, CBC, CBC_NS, EXT
from .signing import SIGNATURE_ID

Element: TypeAlias = etree._Element

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
    return fmt_decimal(value, places=10, min_places=2)


def fmt_quantity(value: Decimal) -> str:
    """Quantities: up to 10 decimals, no padding (``"2"``, ``"1.5"``)."""
    return fmt_decimal(value, places=10, min_places=0)


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
# Document kinds

Section = Callable[[Element, SalesDocument, "DocumentKind"], None]
LineSection = Callable[[Element, SalesDocument, "DocumentKind", Line], None]


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


# --------------------------------------------------------------------------------------------------------
# Header


def ubl_extensions(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent``, left empty for the signature."""
    ext = etree.SubElement(root, EXT("UBLExtensions"))
    etree.SubElement(etree.SubElement(ext, EXT("UBLExtension")), EXT("ExtensionContent"))


def identification(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """UBLVersionID, CustomizationID, ID (unpadded serie-número), IssueDate/Time, DueDate?, type code."""
    sub(root, CBC("UBLVersionID"), "2.1")
    sub(root, CBC("CustomizationID"), "2.0", {"schemeAgencyName": "PE:SUNAT"})
    sub(root, CBC("ID"), doc.full_number)
    sub(root, CBC("IssueDate"), doc.issue_date.isoformat())
    sub(root, CBC("IssueTime"), doc.issue_time.strftime("%H:%M:%S"))
    if kind.type_code_tag is None:
        return
    if doc.due_date is not None:
        sub(root, CBC("DueDate"), doc.due_date.isoformat())
    sub(
        root,
        kind.type_code_tag,
        doc.doc_type,
        {
            "listID": doc.operation_type or "0101",
            "listAgencyName": "PE:SUNAT",
            "listName": "Tipo de Documento",
            "listURI": _CATALOG_URI.format(1),
            "name": "Tipo de Operacion",
            "listSchemeURI": _CATALOG_URI.format(51),
        },
    )


def legends(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cbc:Note@languageLocaleID`` per legend (catalog 52; 1000 = amount in words, given by the caller)."""
    for legend in doc.legends:
        sub(root, CBC("Note"), one_line(legend.text), {"languageLocaleID": legend.code})


def document_currency(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cbc:DocumentCurrencyCode`` (ISO 4217)."""
    sub(
        root,
        CBC("DocumentCurrencyCode"),
        doc.currency,
        {"listID": "ISO 4217 Alpha", "listName": "Currency", "listAgencyName": _UNECE},
    )


def discrepancy_response(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """Notes: ``cac:DiscrepancyResponse`` (affected serie-número, note type of catalog 09/10, reason)."""
    note = _note(doc)
    el = etree.SubElement(root, CAC("DiscrepancyResponse"))
    sub(el, CBC("ReferenceID"), note.affected.full_number)
    sub(el, CBC("ResponseCode"), note.type_code)
    sub(el, CBC("Description"), one_line(note.reason))


def order_reference(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:OrderReference/cbc:ID``: the customer's purchase order, when given."""
    if doc.purchase_order:
        sub(etree.SubElement(root, CAC("OrderReference")), CBC("ID"), doc.purchase_order)


def billing_reference(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """Notes: ``cac:BillingReference/cac:InvoiceDocumentReference`` (affected ID and document type)."""
    note = _note(doc)
    ref = etree.SubElement(etree.SubElement(root, CAC("BillingReference")), CAC("InvoiceDocumentReference"))
    sub(ref, CBC("ID"), note.affected.full_number)
    sub(ref, CBC("DocumentTypeCode"), note.affected.doc_type)


def despatch_references(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:DespatchDocumentReference*``: the dispatch guides (catalog 01: 09 remitente, 31 carrier)."""
    for guide in doc.guides:
        ref = etree.SubElement(root, CAC("DespatchDocumentReference"))
        sub(ref, CBC("ID"), guide.number)
        sub(ref, CBC("DocumentTypeCode"), guide.doc_type, _GUIDE_TYPE_ATTRS)


def additional_references(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:AdditionalDocumentReference*``: the advances deducted (catalog 12: 02 factura, 03 boleta), each
    with ``DocumentStatusCode`` n = its ``PrepaidPayment/cbc:ID`` and the issuer's RUC (IssuerParty).

    Then the related documents (catalog 12: 04-09, 99), ID and type only (their amount is printed)."""
    for n, prepayment in enumerate(doc.prepayments, start=1):
        ref = etree.SubElement(root, CAC("AdditionalDocumentReference"))
        sub(ref, CBC("ID"), prepayment.number)
        sub(ref, CBC("DocumentTypeCode"), prepayment.doc_type, _DOCUMENT_TYPE_ATTRS)
        sub(ref, CBC("DocumentStatusCode"), str(n), {"listName": "Anticipo", "listAgencyName": "PE:SUNAT"})
        party = etree.SubElement(ref, CAC("IssuerParty"))
        sub(
            etree.SubElement(party, CAC("PartyIdentification")),
            CBC("ID"),
            doc.issuer.ruc,
            {"schemeID": "6", **_IDENTITY_ATTRS},
        )
    for related in doc.related_documents:
        ref = etree.SubElement(root, CAC("AdditionalDocumentReference"))
        sub(ref, CBC("ID"), related.number)
        sub(ref, CBC("DocumentTypeCode"), related.doc_type, _DOCUMENT_TYPE_ATTRS)


def signature(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:Signature``: who signs and where the ``ds:Signature`` is (``#SignatureSP``)."""
    issuer = doc.issuer
    el = etree.SubElement(root, CAC("Signature"))
    sub(el, CBC("ID"), f"SIGN{issuer.ruc}")
    party = etree.SubElement(el, CAC("SignatoryParty"))
    sub(etree.SubElement(party, CAC("PartyIdentification")), CBC("ID"), issuer.ruc)
    sub(etree.SubElement(party, CAC("PartyName")), CBC("Name"), one_line(issuer.name))
    attachment = etree.SubElement(el, CAC("DigitalSignatureAttachment"))
    sub(etree.SubElement(attachment, CAC("ExternalReference")), CBC("URI"), f"#{SIGNATURE_ID}")


def supplier(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:AccountingSupplierParty``: RUC, trade name, legal name and the establishment's address."""
    issuer = doc.issuer
    party = etree.SubElement(etree.SubElement(root, CAC("AccountingSupplierParty")), CAC("Party"))
    sub(
        etree.SubElement(party, CAC("PartyIdentification")),
        CBC("ID"),
        issuer.ruc,
        {"schemeID": "6", **_IDENTITY_ATTRS},
    )
    if issuer.trade_name:
        sub(etree.SubElement(party, CAC("PartyName")), CBC("Name"), one_line(issuer.trade_name))
    entity = etree.SubElement(party, CAC("PartyLegalEntity"))
    sub(entity, CBC("RegistrationName"), one_line(issuer.name))
    address = etree.SubElement(entity, CAC("RegistrationAddress"))
    if issuer.ubigeo:
        sub(address, CBC("ID"), issuer.ubigeo)
    sub(address, CBC("AddressTypeCode"), issuer.establishment_code or "0000")
    if issuer.province:
        sub(address, CBC("CityName"), issuer.province)
    if issuer.department:
        sub(address, CBC("CountrySubentity"), issuer.department)
    if issuer.district:
        sub(address, CBC("District"), issuer.district)
    if issuer.address:
        sub(etree.SubElement(address, CAC("AddressLine")), CBC("Line"), one_line(issuer.address))
    sub(etree.SubElement(address, CAC("Country")), CBC("IdentificationCode"), issuer.country or "PE")


def customer(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:AccountingCustomerParty``: identity (catalog 06), name, and address/country when known."""
    buyer = doc.customer
    party = etree.SubElement(etree.SubElement(root, CAC("AccountingCustomerParty")), CAC("Party"))
    sub(
        etree.SubElement(party, CAC("PartyIdentification")),
        CBC("ID"),
        buyer.number,
        {"schemeID": buyer.identity_type, **_IDENTITY_ATTRS},
    )
    entity = etree.SubElement(party, CAC("PartyLegalEntity"))
    sub(entity, CBC("RegistrationName"), one_line(buyer.name))
    foreign = bool(buyer.country) and buyer.country != "PE"
    if buyer.address or foreign:
        address = etree.SubElement(entity, CAC("RegistrationAddress"))
        if buyer.ubigeo:
            sub(address, CBC("ID"), buyer.ubigeo)
        if buyer.address:
            sub(etree.SubElement(address, CAC("AddressLine")), CBC("Line"), one_line(buyer.address))
        sub(etree.SubElement(address, CAC("Country")), CBC("IdentificationCode"), buyer.country or "PE")


def payment_means(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:PaymentMeans`` of a detraction: ID ``Detraccion``, the means of payment (catalog 59) and the
    issuer's detraction account at Banco de la Nación (``cac:PayeeFinancialAccount/cbc:ID``)."""
    detraction = doc.detraction
    if detraction is None:
        return
    means = etree.SubElement(root, CAC("PaymentMeans"))
    sub(means, CBC("ID"), DETRACTION_TERMS)
    sub(means, CBC("PaymentMeansCode"), detraction.payment_means, _PAYMENT_MEANS_ATTRS)
    sub(etree.SubElement(means, CAC("PayeeFinancialAccount")), CBC("ID"), detraction.account)


def payment_terms(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:PaymentTerms*``: the detraction terms, then FormaPago (facturas and boletas).

    * detraction: ID ``Detraccion``, PaymentMeansID = catalog 54 code, PaymentPercent, Amount in PEN
      (whatever the document currency);
    * ``Contado``: one FormaPago without amount;
    * ``Credito``: FormaPago ``Credito`` with the net pending amount (Σ instalments), then one FormaPago
      per instalment, ``Cuota001``, ``Cuota002``…, with its Amount and PaymentDueDate.

    Notes carry FormaPago only on credit (:func:`note_payment_terms`).
    """
    if kind.type_code_tag is None:
        note_payment_terms(root, doc)
        return
    detraction = doc.detraction
    if detraction is not None:
        terms = etree.SubElement(root, CAC("PaymentTerms"))
        sub(terms, CBC("ID"), DETRACTION_TERMS)
        sub(terms, CBC("PaymentMeansID"), detraction.code, _DETRACTION_CODE_ATTRS)
        sub(terms, CBC("PaymentPercent"), fmt_decimal(detraction.percent, places=5))
        amount(terms, CBC("Amount"), detraction.amount, "PEN")
    perception = doc.perception
    if perception is not None:  # the total with the perception, in PEN (3310)
        terms = etree.SubElement(root, CAC("PaymentTerms"))
        sub(terms, CBC("ID"), "Percepcion")
        amount(terms, CBC("Amount"), perception.base + perception.amount, "PEN")
    form = doc.payment_form or "Contado"
    instalments = doc.instalments
    if form not in ("Contado", "Credito"):
        raise ValueError(f"payment form must be Contado or Credito, not {form!r}")
    if form == "Credito" and not instalments:
        raise ValueError("payment form Credito needs at least one instalment (Cuota001...)")
    if form == "Contado" and instalments:
        raise ValueError("instalments need the payment form Credito")
    terms = etree.SubElement(root, CAC("PaymentTerms"))
    sub(terms, CBC("ID"), "FormaPago")
    sub(terms, CBC("PaymentMeansID"), form)
    if form == "Contado":
        return
    _credit_terms(terms, root, doc)


def note_payment_terms(root: Element, doc: SalesDocument) -> None:
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
    terms = etree.SubElement(root, CAC("PaymentTerms"))
    sub(terms, CBC("ID"), "FormaPago")
    sub(terms, CBC("PaymentMeansID"), "Credito")
    _credit_terms(terms, root, doc)


def _credit_terms(terms: Element, root: Element, doc: SalesDocument) -> None:
    """The pending amount of ``Credito`` (``terms``) and one FormaPago ``CuotaNNN`` per instalment."""
    amount(terms, CBC("Amount"), doc.pending_amount, doc.currency)
    for number, instalment in enumerate(doc.instalments, start=1):
        terms = etree.SubElement(root, CAC("PaymentTerms"))
        sub(terms, CBC("ID"), "FormaPago")
        sub(terms, CBC("PaymentMeansID"), instalment_id(number))
        amount(terms, CBC("Amount"), instalment.amount, doc.currency)
        sub(terms, CBC("PaymentDueDate"), instalment.due_date.isoformat())


def instalment_id(number: int) -> str:
    """``Cuota001`` … ``Cuota999``: the PaymentMeansID of the n-th instalment (1-based)."""
    if not 1 <= number <= 999:
        raise ValueError(f"instalment number must be 1..999, not {number}")
    return f"Cuota{number:03d}"


def prepaid_payments(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:PrepaidPayment*``: per advance deducted, ``cbc:ID`` n (its AdditionalDocumentReference's
    DocumentStatusCode) and ``cbc:PaidAmount`` (its ``monto``); Σ PaidAmount = PrepaidAmount (2509)."""
    for n, prepayment in enumerate(doc.prepayments, start=1):
        el = etree.SubElement(root, CAC("PrepaidPayment"))
        sub(el, CBC("ID"), str(n), {"schemeName": "Anticipo", "schemeAgencyName": "PE:SUNAT"})
        amount(el, CBC("PaidAmount"), prepayment.amount, doc.currency)


_ALLOWANCE_CODE_ATTRS = {
    "listAgencyName": "PE:SUNAT",
    "listName": "Cargo/descuento",
    "listURI": _CATALOG_URI.format(53),
}


def allowance_charge(parent: Element, allowance: AllowanceCharge, currency: str) -> None:
    """One ``cac:AllowanceCharge``: ChargeIndicator, reason (catalog 53), factor?, Amount, BaseAmount."""
    el = etree.SubElement(parent, CAC("AllowanceCharge"))
    sub(el, CBC("ChargeIndicator"), "true" if allowance.is_charge else "false")
    sub(el, CBC("AllowanceChargeReasonCode"), allowance.code, _ALLOWANCE_CODE_ATTRS)
    if allowance.factor is not None and allowance.factor > 0:
        sub(el, CBC("MultiplierFactorNumeric"), fmt_decimal(allowance.factor, places=5))
    amount(el, CBC("Amount"), allowance.amount, currency)
    amount(el, CBC("BaseAmount"), allowance.base, currency)


def allowance_charges(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:AllowanceCharge*``: the global discounts (02-06) and charges (45, 46, 49, 50), catalog 53."""
    for allowance in doc.allowances:
        allowance_charge(root, allowance, doc.currency)
    perception, retention = doc.perception, doc.retention
    if perception is not None:  # a charge in PEN whatever the document currency
        _withholding(root, perception, charge=True, currency="PEN")
    if retention is not None:
        _withholding(root, retention, charge=False, currency=doc.currency)


def _withholding(root: Element, withholding: Withholding, *, charge: bool, currency: str) -> None:
    el = etree.SubElement(root, CAC("AllowanceCharge"))
    sub(el, CBC("ChargeIndicator"), "true" if charge else "false")
    sub(el, CBC("AllowanceChargeReasonCode"), withholding.code, _ALLOWANCE_CODE_ATTRS)
    sub(el, CBC("MultiplierFactorNumeric"), fmt_decimal(withholding.factor, places=5))
    amount(el, CBC("Amount"), withholding.amount, currency)
    amount(el, CBC("BaseAmount"), withholding.base, currency)


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
    schemes = {tax_scheme_for(line.affectation).id for line in doc.lines}
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
    out += other_tax_header_subtotals(doc)
    if t.icbper or any(line.icbper for line in doc.lines):
        out.append(HeaderSubtotal(ICBPER, None, t.icbper))
    return out


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


def tax_total(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:TaxTotal`` of the document with one ``cac:TaxSubtotal`` per tax scheme present."""
    currency = doc.currency
    subtotals = header_subtotals(doc)
    total = etree.SubElement(root, CAC("TaxTotal"))
    amount(total, CBC("TaxAmount"), charged_tax(subtotals), currency)
    for s in subtotals:
        el = etree.SubElement(total, CAC("TaxSubtotal"))
        if s.taxable is not None:
            amount(el, CBC("TaxableAmount"), s.taxable, currency)
        amount(el, CBC("TaxAmount"), s.tax, currency)
        tax_scheme(etree.SubElement(el, CAC("TaxCategory")), s.scheme)


def monetary_total(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """``cac:LegalMonetaryTotal`` (``cac:RequestedMonetaryTotal`` in debit notes).

    LineExtensionAmount = valor de venta (free lines excluded, net of global discounts 02 and with charges
    49), TaxInclusiveAmount = valor + charged taxes, AllowanceTotalAmount (discounts 01 + 03) and
    ChargeTotalAmount (charges 48 + 45, 46, 50) when there are any, PrepaidAmount when advances are
    deducted, PayableAmount = importe total.
    """
    t = doc.totals
    currency = doc.currency
    inclusive = t.subtotal if t.subtotal else t.value + charged_tax(header_subtotals(doc))
    el = etree.SubElement(root, kind.monetary_total_tag)
    amount(el, CBC("LineExtensionAmount"), t.value, currency)
    amount(el, CBC("TaxInclusiveAmount"), inclusive, currency)
    if t.discounts:
        amount(el, CBC("AllowanceTotalAmount"), t.discounts, currency)
    if t.charges:
        amount(el, CBC("ChargeTotalAmount"), t.charges, currency)
    if t.prepaid:
        amount(el, CBC("PrepaidAmount"), t.prepaid, currency)
    amount(el, CBC("PayableAmount"), t.total, currency)


def lines(root: Element, doc: SalesDocument, kind: DocumentKind) -> None:
    """One ``cac:InvoiceLine`` / ``cac:CreditNoteLine`` / ``cac:DebitNoteLine`` per item."""
    for line in doc.lines:
        el = etree.SubElement(root, kind.line_tag)
        for section in kind.line_sections:
            section(el, doc, kind, line)


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


def line_id(el: Element, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """``cbc:ID``: the 1-based line number."""
    sub(el, CBC("ID"), str(line.index))


def line_quantity(el: Element, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """Invoiced/Credited/DebitedQuantity with ``@unitCode`` (catalog 03 = UN/ECE rec 20)."""
    sub(
        el,
        kind.quantity_tag,
        fmt_quantity(line.quantity),
        {"unitCode": line.unit, "unitCodeListID": "UN/ECE rec 20", "unitCodeListAgencyName": _UNECE},
    )


def line_extension_amount(el: Element, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """``cbc:LineExtensionAmount``: valor de venta of the item (referential value for free lines)."""
    amount(el, CBC("LineExtensionAmount"), line.value, doc.currency)


def pricing_reference(el: Element, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """``cac:PricingReference``: unit price with taxes (01) or, for free lines, referential value (02)."""
    free = is_free(line.affectation)
    price = etree.SubElement(etree.SubElement(el, CAC("PricingReference")), CAC("AlternativeConditionPrice"))
    value = referential_unit_value(line) if free else line.unit_price
    sub(price, CBC("PriceAmount"), fmt_price(value), {"currencyID": doc.currency})
    sub(price, CBC("PriceTypeCode"), "02" if free else "01")


def line_delivery(el: Element, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
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
    delivery = etree.SubElement(el, CAC("Delivery"))
    destination = etree.SubElement(etree.SubElement(delivery, CAC("DeliveryLocation")), CAC("Address"))
    sub(destination, CBC("ID"), trip.destination_ubigeo, _UBIGEO_ATTRS)
    sub(etree.SubElement(destination, CAC("AddressLine")), CBC("Line"), one_line(trip.destination_address))
    despatch = etree.SubElement(delivery, CAC("Despatch"))
    sub(despatch, CBC("Instructions"), one_line(trip.detail))
    origin = etree.SubElement(despatch, CAC("DespatchAddress"))
    sub(origin, CBC("ID"), trip.origin_ubigeo, _UBIGEO_ATTRS)
    sub(etree.SubElement(origin, CAC("AddressLine")), CBC("Line"), one_line(trip.origin_address))
    for code, value in (
        ("01", trip.service_value),
        ("02", trip.effective_load_value),
        ("03", trip.payload_value),
    ):
        terms = etree.SubElement(delivery, CAC("DeliveryTerms"))
        sub(terms, CBC("ID"), code)
        amount(terms, CBC("Amount"), value, doc.currency)


def line_allowance_charges(el: Element, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """Line ``cac:AllowanceCharge*`` (item discounts 00/01, charges 47/48).

    Its position differs: before the line TaxTotal in InvoiceLine, after it in Credit/DebitNoteLine.
    """
    for allowance in line.allowances:
        allowance_charge(el, allowance, doc.currency)


def line_tax_total(el: Element, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """The line ``cac:TaxTotal``: the affectation's subtotal plus ICBPER when the line carries bags.

    Its TaxAmount is Σ of the charged schemes (1000, 1016, 2000, 7152, 9999, SUNAT 3292): the informative
    IGV of a free line (scheme 9996) is shown in its subtotal but left out of the line total.
    """
    currency = doc.currency
    scheme = tax_scheme_for(line.affectation)
    charged = (line.igv if scheme.id in CHARGED_SCHEMES else ZERO) + line.icbper + line.isc + line.other
    total = etree.SubElement(el, CAC("TaxTotal"))
    amount(total, CBC("TaxAmount"), charged, currency)

    subtotal = etree.SubElement(total, CAC("TaxSubtotal"))
    amount(subtotal, CBC("TaxableAmount"), line.igv_base or line.value, currency)
    amount(subtotal, CBC("TaxAmount"), line.igv, currency)
    category = etree.SubElement(subtotal, CAC("TaxCategory"))
    sub(category, CBC("Percent"), fmt_decimal(line.igv_percent, places=5))
    sub(category, CBC("TaxExemptionReasonCode"), line.affectation)
    tax_scheme(category, scheme)
    line_other_taxes(total, line, currency)

    if line.icbper:
        bags = line.quantity.to_integral_value(rounding=ROUND_HALF_UP)
        subtotal = etree.SubElement(total, CAC("TaxSubtotal"))
        amount(subtotal, CBC("TaxAmount"), line.icbper, currency)
        sub(subtotal, CBC("BaseUnitMeasure"), str(int(bags)), {"unitCode": "NIU"})
        category = etree.SubElement(subtotal, CAC("TaxCategory"))
        per_unit = line.icbper / bags if bags else line.icbper
        amount(category, CBC("PerUnitAmount"), per_unit, currency)
        tax_scheme(category, ICBPER)


def line_other_taxes(total: Element, line: Line, currency: str) -> None:
    """The line's ISC subtotal (scheme 2000, ``cbc:TierRange`` = its system of catalog 08) and other taxes
    subtotal (9999), each with TaxableAmount, TaxAmount and Percent, when the line carries them."""
    if line.isc_base or line.isc:
        subtotal = etree.SubElement(total, CAC("TaxSubtotal"))
        amount(subtotal, CBC("TaxableAmount"), line.isc_base, currency)
        amount(subtotal, CBC("TaxAmount"), line.isc, currency)
        category = etree.SubElement(subtotal, CAC("TaxCategory"))
        sub(category, CBC("Percent"), fmt_decimal(line.isc_percent, places=5))
        if line.isc_system:
            sub(category, CBC("TierRange"), line.isc_system)
        tax_scheme(category, TAX_SCHEMES["2000"])
    if line.other_base or line.other:
        subtotal = etree.SubElement(total, CAC("TaxSubtotal"))
        amount(subtotal, CBC("TaxableAmount"), line.other_base, currency)
        amount(subtotal, CBC("TaxAmount"), line.other, currency)
        category = etree.SubElement(subtotal, CAC("TaxCategory"))
        sub(category, CBC("Percent"), fmt_decimal(line.other_percent, places=5))
        tax_scheme(category, TAX_SCHEMES["9999"])


def item(el: Element, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """``cac:Item``: description, own code, SUNAT product code (UNSPSC, 8 digits).

    Then the item attributes (``cac:AdditionalItemProperty``, catalog 55: Name, NameCode, Value,
    UsabilityPeriod).
    """
    it = etree.SubElement(el, CAC("Item"))
    sub(it, CBC("Description"), line.description)
    if line.internal_code:
        sub(etree.SubElement(it, CAC("SellersItemIdentification")), CBC("ID"), line.internal_code)
    code = line.sunat_code
    if len(code) == 8 and code.isdigit():
        sub(etree.SubElement(it, CAC("CommodityClassification")), CBC("ItemClassificationCode"), code)
    for prop in line.properties:
        el = etree.SubElement(it, CAC("AdditionalItemProperty"))
        sub(el, CBC("Name"), one_line(prop.name))
        sub(el, CBC("NameCode"), prop.code, _PROPERTY_ATTRS)
        if prop.value:
            sub(el, CBC("Value"), one_line(prop.value))
        if prop.start or prop.end or prop.days is not None:
            period = etree.SubElement(el, CAC("UsabilityPeriod"))
            if prop.start:
                sub(period, CBC("StartDate"), prop.start.isoformat())
            if prop.end:
                sub(period, CBC("EndDate"), prop.end.isoformat())
            if prop.days is not None:
                sub(period, CBC("DurationMeasure"), fmt_quantity(prop.days), {"unitCode": "DAY"})


def price(el: Element, doc: SalesDocument, kind: DocumentKind, line: Line) -> None:
    """``cac:Price/cbc:PriceAmount``: the unit value without taxes (0 for free lines)."""
    value = ZERO if is_free(line.affectation) else line.unit_value
    sub(
        etree.SubElement(el, CAC("Price")), CBC("PriceAmount"), fmt_price(value), {"currencyID": doc.currency}
    )


def _note(doc: SalesDocument) -> NoteInfo:
    if doc.note is None:
        raise ValueError(f"document type {doc.doc_type} needs note data (type, reason, affected document)")
    return doc.note
