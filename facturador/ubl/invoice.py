"""UBL 2.1 XML of facturas and boletas (Invoice), credit notes (CreditNote) and debit notes (DebitNote).

``sales_document_text`` writes a validated :class:`SalesDocument` as unsigned XML directly in canonical
form (C14N 1.0), the signature's digest input as it stands; ``build_sales_document`` gives the same as an
lxml tree. ``build_and_sign`` adds the enveloped signature and returns the bytes to store and send (the
canonical text with the signature in its slot), with the DigestValue (the document "hash") and the file
base name. ``prepare_sales_document`` does the writing first and leaves the number and the signature for
later (the service signs inside its numbering transaction).

The element order is the XSD ``sequence`` of each root (``docs/sunat_domain.md``, element order); it is
expressed once, as the tuple of sections of each :class:`~facturador.ubl.parts.DocumentKind` below.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from lxml import etree

from facturador.issued import Dispatch, SalesDocument

from . import parts as p
from .namespaces import CBC, CREDIT_NOTE, DEBIT_NOTE, INVOICE, nsmap_for
from .parts import SIGNATURE_SLOT, escape
from .signing import SigningIdentity, UnsignedXml, canonical_namespaces, prepare, prepare_canonical

_INVOICE_LINE = (
    p.line_id,
    p.line_quantity,
    p.line_extension_amount,
    p.pricing_reference,
    p.line_delivery,  # operation 1004: the trip (after PricingReference, before AllowanceCharge)
    p.line_allowance_charges,  # before TaxTotal in InvoiceLine
    p.line_tax_total,
    p.item,
    p.price,
)
_NOTE_LINE = (
    p.line_id,
    p.line_quantity,
    p.line_extension_amount,
    p.pricing_reference,
    p.line_tax_total,
    p.line_allowance_charges,  # after TaxTotal in Credit/DebitNoteLine
    p.item,
    p.price,
)

INVOICE_KIND = p.DocumentKind(
    root="Invoice",
    namespace=INVOICE,
    type_code_tag="cbc:InvoiceTypeCode",
    line_tag="cac:InvoiceLine",
    quantity_tag="cbc:InvoicedQuantity",
    monetary_total_tag="cac:LegalMonetaryTotal",
    sections=(
        p.ubl_extensions,
        p.identification,
        p.legends,
        p.document_currency,
        p.order_reference,
        p.despatch_references,
        p.additional_references,
        p.signature,
        p.supplier,
        p.customer,
        p.payment_means,
        p.payment_terms,
        p.prepaid_payments,
        p.allowance_charges,
        p.tax_total,
        p.monetary_total,
        p.lines,
    ),
    line_sections=_INVOICE_LINE,
)

CREDIT_NOTE_KIND = p.DocumentKind(
    root="CreditNote",
    namespace=CREDIT_NOTE,
    type_code_tag=None,
    line_tag="cac:CreditNoteLine",
    quantity_tag="cbc:CreditedQuantity",
    monetary_total_tag="cac:LegalMonetaryTotal",
    sections=(
        p.ubl_extensions,
        p.identification,
        p.legends,
        p.document_currency,
        p.discrepancy_response,
        p.order_reference,
        p.billing_reference,
        p.despatch_references,
        p.additional_references,
        p.signature,
        p.supplier,
        p.customer,
        p.payment_means,
        p.payment_terms,
        p.allowance_charges,  # CreditNote has no PrepaidPayment; AllowanceCharge follows PaymentTerms
        p.tax_total,
        p.monetary_total,
        p.lines,
    ),
    line_sections=_NOTE_LINE,
)

DEBIT_NOTE_KIND = p.DocumentKind(
    root="DebitNote",
    namespace=DEBIT_NOTE,
    type_code_tag=None,
    line_tag="cac:DebitNoteLine",
    quantity_tag="cbc:DebitedQuantity",
    monetary_total_tag="cac:RequestedMonetaryTotal",
    sections=(
        p.ubl_extensions,
        p.identification,
        p.legends,
        p.document_currency,
        p.discrepancy_response,
        p.order_reference,
        p.billing_reference,
        p.despatch_references,
        p.additional_references,
        p.signature,
        p.supplier,
        p.customer,
        p.prepaid_payments,  # DebitNote: PrepaidPayment and AllowanceCharge come before PaymentMeans
        p.allowance_charges,
        p.payment_means,
        p.payment_terms,
        p.tax_total,
        p.monetary_total,
        p.lines,
    ),
    line_sections=_NOTE_LINE,
)

#: Document type (catalog 01) -> kind.
KINDS: dict[str, p.DocumentKind] = {
    "01": INVOICE_KIND,
    "03": INVOICE_KIND,
    "07": CREDIT_NOTE_KIND,
    "08": DEBIT_NOTE_KIND,
}


#: The root's start tag of each kind, with its namespaces as C14N declares them.
_ROOTS = {
    kind.root: f"<{kind.root}{canonical_namespaces(nsmap_for(kind.namespace))}>"
    for kind in (INVOICE_KIND, CREDIT_NOTE_KIND, DEBIT_NOTE_KIND)
}


def _check_scenarios(doc: SalesDocument) -> None:
    """The blocks that belong to a factura or boleta only: a detraction, advances deducted."""
    if doc.doc_type not in ("01", "03"):
        if doc.detraction is not None:
            raise ValueError("a detraction belongs to a factura or boleta (operation types 1001-1004)")
        if doc.prepayments:
            raise ValueError("only a factura or boleta deducts advances")


def sales_document_text(doc: SalesDocument, *, number: str | None = None) -> str:
    """The unsigned XML of a factura/boleta (Invoice), credit note or debit note, in canonical form
    (C14N 1.0, :mod:`facturador.ubl.parts`): the text the signature digests as it is. ``number`` is
    written in place of ``doc.number`` in the document's ``cbc:ID`` (SERIE-NUMERO).

    The first ``ext:ExtensionContent`` is left empty for the signature (:data:`~facturador.ubl.parts.
    SIGNATURE_SLOT`). Raises ``ValueError`` for an unknown document type, no lines, a note without note
    data, inconsistent scenario blocks (``Credito`` without instalments, a detraction on a note...) or
    text XML cannot carry.
    """
    kind = KINDS.get(doc.doc_type)
    if kind is None:
        raise ValueError(f"document type {doc.doc_type!r} is not a factura, boleta, credit or debit note")
    if not doc.lines:
        raise ValueError("a document needs at least one line")
    _check_scenarios(doc)
    out: list[str] = [_ROOTS[kind.root]]
    for section in kind.sections:
        section(out, doc, kind)
    out.append(f"</{kind.root}>")
    text = "".join(out)
    if number is None:
        return text
    # the document's own cbc:ID follows CustomizationID (identification): the only place with its number
    written = f"</cbc:CustomizationID><cbc:ID>{escape(doc.full_number)}</cbc:ID>"
    assert written in text
    return text.replace(written, f"</cbc:CustomizationID><cbc:ID>{escape(doc.series)}-{number}</cbc:ID>", 1)


def build_sales_document(doc: SalesDocument) -> etree._Element:
    """The unsigned UBL 2.1 tree of a factura/boleta (Invoice), credit note or debit note: the text of
    :func:`sales_document_text` parsed (for readers of the tree; the service signs the text itself).

    The first ``ext:ExtensionContent`` is left empty for :func:`~facturador.ubl.signing.sign`.
    """
    return etree.fromstring(sales_document_text(doc).encode("utf-8"))


@dataclass(frozen=True)
class SignedXml:
    """A signed document: the exact bytes to store/zip/send, its hash and its file base name."""

    xml: bytes
    digest_value: str  # the DigestValue of the signature ("valor resumen", printed on the PDF and QR)
    filename: str  # RUC-TT-SERIE-NUMERO, without extension

    @property
    def xml_filename(self) -> str:
        """``RUC-TT-SERIE-NUMERO.xml``."""
        return f"{self.filename}.xml"


@dataclass(frozen=True)
class PreparedDocument:
    """A sales document built and serialized before its correlative is known.

    The issuing service prepares the XML outside the numbering transaction and, inside it, only fills
    in the number and signs (one digest and one RSA signature): the transaction, which serializes every
    issuer of the series, stays short. Made by :func:`prepare_sales_document` (and, for a guide, by
    :func:`facturador.ubl.despatch.prepare_despatch`).
    """

    document: SalesDocument | Dispatch  # as given; its number is replaced by sign()
    unsigned: UnsignedXml
    token: str  # stands for the number in the document's cbc:ID until sign()

    def sign(self, identity: SigningIdentity, number: int, *, sha256: bool = False) -> SignedXml:
        """The signed XML with ``number`` as the correlative (RSA-SHA1 unless ``sha256``)."""
        if number < 1:
            raise ValueError(f"the correlative must be positive, not {number}")
        xml, digest = self.unsigned.sign(identity, {self.token: str(number)}, sha256=sha256)
        return SignedXml(xml=xml, digest_value=digest, filename=self.document.filename_for(number))


def _number_token() -> str:
    """A unique stand-in for a document's number: ``N`` and 128 random bits in hex (``uuid4().hex``'s
    form, without building a UUID object: a fifth of the cost)."""
    return f"N{os.urandom(16).hex()}"


def prepare_sales_document(doc: SalesDocument) -> PreparedDocument:
    """Build ``doc``'s XML with a unique token where its number goes (any ``doc.number`` is ignored),
    directly in canonical form: no tree, no C14N pass."""
    token = _number_token()
    text = sales_document_text(doc, number=token).encode("utf-8")
    unsigned = prepare_canonical(text, KINDS[doc.doc_type].namespace, SIGNATURE_SLOT.encode())
    return PreparedDocument(document=doc, unsigned=unsigned, token=token)


def prepare_numbered(root: etree._Element, doc: SalesDocument | Dispatch) -> PreparedDocument:
    """``root``, the unsigned XML of ``doc``, serialized with a unique token in its own ``cbc:ID``
    (SERIE-NUMERO) where the number goes: the only place a document's XML carries its number."""
    token = _number_token()
    document_id = root.find(CBC("ID"))
    assert document_id is not None and document_id.text == f"{doc.series}-{doc.number}"
    document_id.text = f"{doc.series}-{token}"
    return PreparedDocument(document=doc, unsigned=prepare(root), token=token)


def build_and_sign(doc: SalesDocument, identity: SigningIdentity, *, sha256: bool = False) -> SignedXml:
    """Build the document's XML and sign it with the tenant's identity (RSA-SHA1 unless ``sha256``)."""
    return prepare_sales_document(doc).sign(identity, doc.number, sha256=sha256)
