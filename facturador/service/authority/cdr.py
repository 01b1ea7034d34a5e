"""The CDR (constancia de recepción): a signed UBL ``ApplicationResponse`` (reference/sunat.md §6).

:func:`build_cdr` writes the CDR the simulator returns; :func:`parse_cdr` / :func:`read_cdr` read any CDR,
ours or SUNAT's (ISO-8859-1 declarations, the empty ``dummy`` zip entry, no signature on exception CDRs).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime

from lxml import etree

from facturador.service.authority.gateway import AuthorityResponse
from facturador.service.authority.packaging import PackagingError, read_zip, zip_document
from facturador.service.ubl.namespaces import APPLICATION_RESPONSE, CAC, CBC, EXT, nsmap_for
from facturador.service.ubl.signing import SIGNATURE_ID, SigningIdentity, sign

SUNAT_RUC = "20131312955"
SUNAT_SIGNATURE_ID = "SignSUNAT"

#: How the CDR's description names each document type (catalog 01).
DOCUMENT_NAMES: dict[str, str] = {
    "01": "La Factura",
    "03": "La Boleta",
    "07": "La Nota de Credito",
    "08": "La Nota de Debito",
}

_ROOT = f"{{{APPLICATION_RESPONSE}}}ApplicationResponse"
_SIGNATURE_ID_ATTR = f'Id="{SIGNATURE_ID}"'.encode()
_SUNAT_ID_ATTR = f'Id="{SUNAT_SIGNATURE_ID}"'.encode()


class CdrError(ValueError):
    """The bytes are not a readable CDR."""


def accepted_description(doc_type: str, document_id: str) -> str:
    """SUNAT's wording for an accepted document: ``La Factura numero F001-1, ha sido aceptada``."""
    return f"{DOCUMENT_NAMES.get(doc_type, 'El comprobante')} numero {document_id}, ha sido aceptada"


def _party(parent: etree._Element, tag: str, ruc: str) -> None:
    party = etree.SubElement(parent, CAC(tag))
    etree.SubElement(etree.SubElement(party, CAC("PartyIdentification")), CBC("ID")).text = ruc


def build_cdr(
    identity: SigningIdentity,
    *,
    cdr_id: str,
    issuer_ruc: str,
    reference_id: str,
    code: str,
    description: str,
    notes: tuple[str, ...] = (),
    recipient: str = "",
    received_at: datetime,
    issued_at: datetime | None = None,
) -> bytes:
    """Build and sign the ApplicationResponse answering document ``reference_id`` of ``issuer_ruc``.

    ``recipient`` is the customer as ``"<cat. 06 type>-<number>"`` (``6-20587896411``); ``received_at``
    is the reception time (ResponseDate/Time) and ``issued_at`` the CDR's generation time (Issue*).
    Returns the signed XML (UTF-8) with signature id ``SignSUNAT``.
    """
    issued_at = issued_at or received_at
    root = etree.Element(_ROOT, nsmap=nsmap_for(APPLICATION_RESPONSE))
    ext = etree.SubElement(etree.SubElement(root, EXT("UBLExtensions")), EXT("UBLExtension"))
    etree.SubElement(ext, EXT("ExtensionContent"))
    for tag, text in (
        ("UBLVersionID", "2.0"),
        ("CustomizationID", "1.0"),
        ("ID", cdr_id),
        ("IssueDate", issued_at.strftime("%Y-%m-%d")),
        ("IssueTime", issued_at.strftime("%H:%M:%S")),
        ("ResponseDate", received_at.strftime("%Y-%m-%d")),
        ("ResponseTime", received_at.strftime("%H:%M:%S")),
    ):
        etree.SubElement(root, CBC(tag)).text = text
    for note in notes:
        etree.SubElement(root, CBC("Note")).text = note
    signature = etree.SubElement(root, CAC("Signature"))
    etree.SubElement(signature, CBC("ID")).text = SUNAT_SIGNATURE_ID
    signatory = etree.SubElement(signature, CAC("SignatoryParty"))
    etree.SubElement(etree.SubElement(signatory, CAC("PartyIdentification")), CBC("ID")).text = SUNAT_RUC
    etree.SubElement(etree.SubElement(signatory, CAC("PartyName")), CBC("Name")).text = "SUNAT"
    attachment = etree.SubElement(signature, CAC("DigitalSignatureAttachment"))
    reference = etree.SubElement(attachment, CAC("ExternalReference"))
    etree.SubElement(reference, CBC("URI")).text = f"#{SUNAT_SIGNATURE_ID}"
    _party(root, "SenderParty", SUNAT_RUC)
    _party(root, "ReceiverParty", issuer_ruc)
    document_response = etree.SubElement(root, CAC("DocumentResponse"))
    response = etree.SubElement(document_response, CAC("Response"))
    etree.SubElement(response, CBC("ReferenceID")).text = reference_id
    etree.SubElement(response, CBC("ResponseCode")).text = code
    etree.SubElement(response, CBC("Description")).text = description
    doc_reference = etree.SubElement(document_response, CAC("DocumentReference"))
    etree.SubElement(doc_reference, CBC("ID")).text = reference_id
    if recipient:
        _party(document_response, "RecipientParty", recipient)
    xml, _digest = sign(root, identity)
    # The ds:Signature Id is outside what the signature covers (enveloped transform, not in SignedInfo).
    return xml.replace(_SIGNATURE_ID_ATTR, _SUNAT_ID_ATTR, 1)


def zip_cdr(filename: str, xml: bytes) -> bytes:
    """Zip a CDR as ``R-<filename>.zip`` holding ``R-<filename>.xml`` (``filename`` without extension)."""
    return zip_document(f"R-{filename}", xml)


@dataclass(frozen=True)
class Cdr:
    """The fields of a CDR that a client acts on."""

    id: str
    issue_date: str
    issue_time: str
    response_date: str
    response_time: str
    notes: tuple[str, ...]
    sender_ruc: str
    receiver_ruc: str
    reference_id: str
    code: str
    description: str
    document_reference: str
    recipient: str
    signed: bool

    def to_response(self, cdr_zip: bytes | None = None) -> AuthorityResponse:
        """The :class:`AuthorityResponse` this CDR represents."""
        return AuthorityResponse(
            code=self.code, description=self.description, notes=self.notes, cdr_zip=cdr_zip
        )


_local = threading.local()


def safe_parser() -> etree.XMLParser:
    """A per-thread lxml parser that never resolves entities nor touches the network."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
        _local.parser = parser
    return parser


def _text(node: etree._Element | None, path: str) -> str:
    if node is None:
        return ""
    found = node.find(path)
    return (found.text or "").strip() if found is not None else ""


def parse_cdr(xml: bytes) -> Cdr:
    """Read the fields of an ApplicationResponse (raises :class:`CdrError` when it is not one)."""
    try:
        root = etree.fromstring(xml, safe_parser())
    except etree.XMLSyntaxError as exc:
        raise CdrError(f"the CDR is not well-formed XML: {exc}") from exc
    if root.tag != _ROOT:
        raise CdrError(f"not an ApplicationResponse: {root.tag}")
    response = root.find(f"{CAC('DocumentResponse')}/{CAC('Response')}")
    document_response = root.find(CAC("DocumentResponse"))
    if response is None:
        raise CdrError("the CDR has no DocumentResponse/Response")
    code = _text(response, CBC("ResponseCode"))
    if not code:
        raise CdrError("the CDR has no ResponseCode")
    pid = f"{CAC('PartyIdentification')}/{CBC('ID')}"
    return Cdr(
        id=_text(root, CBC("ID")),
        issue_date=_text(root, CBC("IssueDate")),
        issue_time=_text(root, CBC("IssueTime")),
        response_date=_text(root, CBC("ResponseDate")),
        response_time=_text(root, CBC("ResponseTime")),
        notes=tuple((n.text or "").strip() for n in root.findall(CBC("Note"))),
        sender_ruc=_text(root, f"{CAC('SenderParty')}/{pid}"),
        receiver_ruc=_text(root, f"{CAC('ReceiverParty')}/{pid}"),
        reference_id=_text(response, CBC("ReferenceID")),
        code=code,
        description=_text(response, CBC("Description")),
        document_reference=_text(document_response, f"{CAC('DocumentReference')}/{CBC('ID')}"),
        recipient=_text(document_response, f"{CAC('RecipientParty')}/{pid}"),
        signed=root.find(".//{http://www.w3.org/2000/09/xmldsig#}Signature") is not None,
    )


def read_cdr(data: bytes) -> AuthorityResponse:
    """Turn a CDR (the ``R-*.zip`` bytes, or the bare ``R-*.xml``) into an :class:`AuthorityResponse`.

    ``cdr_zip`` of the result is ``data`` when it was a zip. Raises :class:`CdrError` for unreadable input.
    """
    if data[:2] == b"PK":
        try:
            _name, xml = read_zip(data)
        except PackagingError as exc:
            raise CdrError(f"unreadable CDR zip ({exc})") from exc
        return parse_cdr(xml).to_response(cdr_zip=data)
    return parse_cdr(data).to_response()
