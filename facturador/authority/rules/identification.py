"""Identification and file: is this the document its file name says, readable, signed, and new to SUNAT?

``sendBill`` (``docs/sunat_domain.md``: documents and file names, transport, what the simulator checks):

- file name: 0151 not ``RUC-TT-SERIE-NUMERO``, 0152 a summary type, 0302 a type sendBill does not take;
- zip and XML: 0155-0160 (:mod:`~facturador.authority.packaging`), 0161 the entry is not the file's
  name, 0306 unreadable XML or a schema (XSD) error, 0301 unknown root element, 1003 the root does not
  match the file's type;
- versions: 2075 / 2074 missing or wrong ``UBLVersionID`` (2.1), 2073 / 2072 missing or wrong
  ``CustomizationID`` (2.0);
- identification: 1001 ``cbc:ID`` format, 1034 issuer RUC, 1035 series and 1036 number against the
  file name, 1004 / 1003 missing or different ``InvoiceTypeCode``; 3205 / 3206 missing or unknown
  operation type (catalog 51);
- duplicates: 1032 the document was rejected or voided before; an accepted one sent again gets its stored
  CDR back when unchanged and 1033 when its hash differs;
- signature: 2101 no certificate, 2334 digest mismatch, 2327 certificate out of its validity period,
  2335 signature value mismatch, 2336 any other signature error.

``sendSummary`` (:func:`receive_summary`): 0151 file name, 0154 another taxpayer's file, the same zip,
XML, schema and signature checks, the versions of each summary type (RC 2212/2075/2214/2073, RA
2074/2075/2072/2073), 2220 ``cbc:ID`` against the file name, 1034 issuer RUC, and 2223 (RC) / 2324 (RA)
for a file received before.
"""

from __future__ import annotations

import re

from lxml import etree
from signxml.exceptions import InvalidCertificate, InvalidDigest, InvalidSignature

from facturador.authority import cdr as cdr_mod
from facturador.authority.dsig import fast_verify
from facturador.authority.gateway import AuthorityResponse
from facturador.authority.packaging import PackagingError, read_zip
from facturador.authority.reading import text
from facturador.authority.rules.context import Answer, FileName, StoredAnswer, Submission
from facturador.authority.tickets import TicketStore
from facturador.ubl import xsd
from facturador.ubl.namespaces import (
    CAC,
    CBC,
    CREDIT_NOTE,
    DEBIT_NOTE,
    DS,
    INVOICE,
    SUMMARY_DOCUMENTS,
    VOIDED_DOCUMENTS,
)
from facturador.ubl.signing import SignatureError, verify
from sunat import catalogs
from sunat.series import is_valid_number, is_valid_series

__all__ = [
    "document_id",
    "file_name",
    "not_refused_before",
    "operation_type",
    "read_document",
    "receive_summary",
    "resend",
    "root_element",
    "schema",
    "signature",
    "versions",
]

_FILENAME = re.compile(r"^(\d{11})-([0-9A-Z]{2})-(.+)$")
_DOC_PART = re.compile(r"^([A-Z0-9]{4})-(\d{1,8})$")
_NUMBER = re.compile(r"\d{1,8}")
_SUMMARY_TYPES = frozenset({"RC", "RA", "RR"})
_ROOT_TAGS = {
    "01": f"{{{INVOICE}}}Invoice",
    "03": f"{{{INVOICE}}}Invoice",
    "07": f"{{{CREDIT_NOTE}}}CreditNote",
    "08": f"{{{DEBIT_NOTE}}}DebitNote",
}
_SUPPLIER_ID = f"{CAC('AccountingSupplierParty')}/{CAC('Party')}/{CAC('PartyIdentification')}/{CBC('ID')}"
_SIG = DS("Signature")
_X509 = f".//{DS('X509Certificate')}"

_SUMMARY_NAME = re.compile(r"^(\d{11})-(RC|RA|RR)-(\d{8})-(\d{1,5})$")
#: Per summary type: root element, CustomizationID, the code of an ID received before, and the codes of
#: a wrong / missing UBLVersionID and CustomizationID.
_SUMMARY_KINDS = {
    "RC": (f"{{{SUMMARY_DOCUMENTS}}}SummaryDocuments", "1.1", "2223", ("2212", "2075", "2214", "2073")),
    "RA": (f"{{{VOIDED_DOCUMENTS}}}VoidedDocuments", "1.0", "2324", ("2074", "2075", "2072", "2073")),
}
_SUMMARY_SUPPLIER = f"{CAC('AccountingSupplierParty')}/{CBC('CustomerAssignedAccountID')}"


# ------------------------------------------------------------------------------------------------------
# The file (before a Submission exists: these answers are exceptions, nothing is recorded)


def file_name(name: str) -> FileName:
    """What a ``sendBill`` file name says (0151, 0152, 0302)."""
    match = _FILENAME.match(name)
    if not match:
        raise Answer("0151", f'fileName valor: "{name}.zip"')
    ruc, doc_type, rest = match.groups()
    if doc_type in _SUMMARY_TYPES:
        raise Answer("0152", f'fileName valor: "{name}.zip"')
    if doc_type not in _ROOT_TAGS:
        raise Answer("0302", f'fileName valor: "{name}.zip"')
    parts = _DOC_PART.match(rest)
    if not parts:
        raise Answer("0151", f'fileName valor: "{name}.zip"')
    series, number = parts.groups()
    return FileName(name, ruc, doc_type, series, number)


def read_document(name: str, zip_bytes: bytes) -> tuple[bytes, etree._Element]:
    """The XML of a zip named ``name`` and its parsed root (0155-0161, 0306)."""
    try:
        entry, xml = read_zip(zip_bytes)
    except PackagingError as exc:
        raise Answer(exc.code, exc.detail) from exc
    if entry[:-4] != name:
        raise Answer("0161", f'contentFile valor: "{entry}"')
    try:
        root = etree.fromstring(xml, cdr_mod.safe_parser())
    except etree.XMLSyntaxError as exc:
        raise Answer("0306", str(exc)) from exc
    return xml, root


# ------------------------------------------------------------------------------------------------------
# sendBill's checks


def root_element(doc: Submission) -> None:
    """The root element is the one of the file's document type (1003, 0301)."""
    root = doc.root
    if root.tag != _ROOT_TAGS[doc.file.doc_type]:
        local = etree.QName(root).localname if isinstance(root.tag, str) else "?"
        if local in ("Invoice", "CreditNote", "DebitNote"):
            raise Answer("1003", f'{local} valor: "{doc.file.doc_type}"')
        raise Answer("0301", f'{local} valor: ""')


def versions(doc: Submission) -> None:
    """UBL 2.1 and SUNAT's customization 2.0 (2072-2075)."""
    version = text(doc.root, CBC("UBLVersionID"))
    if not version:
        raise Answer("2075", "cbc:UBLVersionID")
    if version != "2.1":
        raise Answer("2074", f'cbc:UBLVersionID valor: "{version}"')
    customization = text(doc.root, CBC("CustomizationID"))
    if not customization:
        raise Answer("2073", "cbc:CustomizationID")
    if customization != "2.0":
        raise Answer("2072", f'cbc:CustomizationID valor: "{customization}"')


def document_id(doc: Submission) -> None:
    """ID format (1001) and file name vs content (1034-1036, 1003/1004): exceptions, nothing consumed."""
    file, root = doc.file, doc.root
    xml_id = text(root, CBC("ID")) or ""
    series, _, number = xml_id.partition("-")
    if (
        not is_valid_series(file.doc_type, series)
        or not _NUMBER.fullmatch(number)
        or not is_valid_number(int(number))
    ):
        raise Answer("1001", f'cbc:ID valor: "{xml_id}"')
    doc.doc_id = xml_id
    _issuer(file.ruc, text(root, _SUPPLIER_ID))
    if series != file.series:
        raise Answer("1035", f'cbc:ID valor: "{xml_id}"')
    if number != file.number:
        raise Answer("1036", f'cbc:ID valor: "{xml_id}"')
    if file.doc_type in ("01", "03"):
        type_code = text(root, CBC("InvoiceTypeCode"))
        if not type_code:
            raise Answer("1004", "cbc:InvoiceTypeCode")
        if type_code != file.doc_type:
            raise Answer("1003", f'cbc:InvoiceTypeCode valor: "{type_code}"')


def not_refused_before(doc: Submission) -> None:
    """Asks the registry once (``doc.previous``); a document rejected or voided before is 1032."""
    previous = doc.registry.lookup(doc.file.key)
    doc.looked_up, doc.previous = True, previous
    if previous is not None and previous.status != "accepted":
        raise Answer("1032", f'cbc:ID valor: "{doc.doc_id}"')


def schema(doc: Submission) -> None:
    """The document is valid against SUNAT's XSDs (0306)."""
    _valid_schema(doc.root)


def signature(doc: Submission) -> None:
    """The enveloped signature verifies (2101, 2334, 2327, 2335, 2336); keeps its digest."""
    doc.digest = _verify_signature(doc.root, doc.xml)


def resend(doc: Submission) -> None:
    """An accepted document sent again: 1033 when changed, and on SUNAT's production path even unchanged
    (thegreenter/greenter #35: the client recovers its CDR with getStatusCdr); beta answers an unchanged
    resend with its stored CDR."""
    previous = doc.previous
    if previous is None:
        return
    if doc.production or previous.digest != doc.digest:
        raise Answer("1033", f'cbc:ID valor: "{doc.doc_id}"')
    if previous.cdr_zip:
        raise StoredAnswer(cdr_mod.read_cdr(previous.cdr_zip))
    accepted = cdr_mod.accepted_description(doc.file.doc_type, doc.doc_id)
    raise StoredAnswer(AuthorityResponse(previous.code, accepted))


def operation_type(doc: Submission) -> None:
    """A factura's or boleta's operation type (``InvoiceTypeCode/@listID``, 3205, 3206); notes have none."""
    if doc.file.doc_type not in ("01", "03"):
        return
    type_code = doc.root.find(CBC("InvoiceTypeCode"))
    operation = (type_code.get("listID", "") if type_code is not None else "").strip()
    if not operation:
        raise Answer("3205", "cbc:InvoiceTypeCode/@listID")
    if operation not in catalogs.OPERATION_TYPES_BY_DOCUMENT[doc.file.doc_type]:
        raise Answer("3206", f'cbc:InvoiceTypeCode/@listID valor: "{operation}"')
    doc.operation = operation


# ------------------------------------------------------------------------------------------------------
# sendSummary


def receive_summary(name: str, zip_bytes: bytes, *, user_ruc: str | None, tickets: TicketStore) -> str:
    """The checks ``sendSummary`` makes before giving a ticket (see the module doc); returns the RUC."""
    match = _SUMMARY_NAME.match(name)
    if not match:
        raise Answer("0151", f'fileName valor: "{name}.zip"')
    ruc, summary_type, day, sequence = match.groups()
    if summary_type not in _SUMMARY_KINDS:
        raise Answer("0151", f'fileName valor: "{name}.zip"')
    if user_ruc is not None and ruc != user_ruc:
        raise Answer("0154", f'fileName valor: "{name}.zip"')
    root_tag, customization, duplicate_code, version_codes = _SUMMARY_KINDS[summary_type]
    xml, root = read_document(name, zip_bytes)
    if root.tag != root_tag:
        local = etree.QName(root).localname if isinstance(root.tag, str) else "?"
        raise Answer("0301", f'{local} valor: ""')
    wrong_version, no_version, wrong_customization, no_customization = version_codes
    version = text(root, CBC("UBLVersionID"))
    if not version:
        raise Answer(no_version, "cbc:UBLVersionID")
    if version != "2.0":
        raise Answer(wrong_version, f'cbc:UBLVersionID valor: "{version}"')
    found = text(root, CBC("CustomizationID"))
    if not found:
        raise Answer(no_customization, "cbc:CustomizationID")
    if found != customization:
        raise Answer(wrong_customization, f'cbc:CustomizationID valor: "{found}"')
    _valid_schema(root)
    _verify_signature(root, xml)
    summary_id = text(root, CBC("ID")) or ""
    if summary_id != f"{summary_type}-{day}-{sequence}":
        raise Answer("2220", f'cbc:ID valor: "{summary_id}"')
    _issuer(ruc, text(root, _SUMMARY_SUPPLIER))
    if tickets.find(ruc, name) is not None:
        raise Answer(duplicate_code, f'fileName valor: "{name}.zip"')
    return ruc


# ------------------------------------------------------------------------------------------------------
# Shared by both


def _issuer(file_ruc: str, xml_ruc: str | None) -> None:
    """The issuer's RUC in the XML is the file name's (1034)."""
    if xml_ruc != file_ruc:
        raise Answer("1034", f'cac:PartyIdentification/cbc:ID valor: "{xml_ruc}"')


def _valid_schema(root: etree._Element) -> None:
    errors = xsd.validate(root)
    if errors:
        raise Answer("0306", "; ".join(errors[:3]))


def _verify_signature(root: etree._Element, xml: bytes) -> str:
    """Verify the document's enveloped signature and return its DigestValue; raises :class:`Answer`
    2101 (no certificate), 2334 (digest), 2327 (certificate validity), 2335 (signature value), 2336."""
    element = root.find(f".//{_SIG}")
    if element is None or not (element.findtext(_X509) or "").strip():
        raise Answer("2101", "ds:Signature/ds:KeyInfo/ds:X509Data/ds:X509Certificate")
    digest = fast_verify(root)
    if digest is not None:
        return digest
    try:
        verified = verify(xml)
    except SignatureError as exc:
        cause = exc.__cause__
        if isinstance(cause, InvalidDigest):
            raise Answer("2334", "ds:DigestValue") from exc
        if isinstance(cause, InvalidCertificate):
            raise Answer("2327", str(cause)) from exc
        if isinstance(cause, InvalidSignature):
            raise Answer("2335", "ds:SignatureValue") from exc
        raise Answer("2336", str(exc)) from exc
    return verified.digest_value


def verify_document_signature(root: etree._Element, xml: bytes) -> str:
    """Verify a document's enveloped signature as ``sendBill`` does and return its DigestValue (raises
    :class:`Answer` 2101, 2334, 2327, 2335 or 2336); the GRE channel checks guides with it too."""
    return _verify_signature(root, xml)
