"""The CDR (constancia de recepción): a signed UBL ``ApplicationResponse`` (``docs/sunat_domain.md``, CDR).

:func:`build_cdr` writes the CDR the simulator returns; :func:`parse_cdr` / :func:`read_cdr` read any CDR,
ours or SUNAT's (ISO-8859-1 declarations, the empty ``dummy`` zip entry, no signature on exception CDRs).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime

from lxml import etree

from facturador.authority import reading
from facturador.authority.gateway import AuthorityResponse
from facturador.authority.packaging import PackagingError, read_zip, zip_document
from facturador.ubl.namespaces import APPLICATION_RESPONSE, CAC, CAC_NS, CBC, CBC_NS, nsmap_for
from facturador.ubl.signing import (
    SigningIdentity,
    canonical_namespaces,
    signature_element,
)

SUNAT_RUC = "20131312955"
SUNAT_SIGNATURE_ID = "SignSUNAT"

#: How the CDR's description names each document type (catalog 01).
DOCUMENT_NAMES: dict[str, str] = {
    "01": "La Factura",
    "03": "La Boleta de Venta",
    "07": "La Nota de Credito",
    "08": "La Nota de Debito",
    "20": "El Comprobante de Retencion",
    "40": "El Comprobante de Percepcion",
}

_ROOT = f"{{{APPLICATION_RESPONSE}}}ApplicationResponse"
#: How SUNAT declares every CDR it writes (Latin-1 bytes: a reader must honour the declaration).
CDR_DECLARATION = '<?xml version="1.0" encoding="ISO-8859-1" standalone="no"?>'


class CdrError(ValueError):
    """The bytes are not a readable CDR."""


def accepted_description(doc_type: str, document_id: str) -> str:
    """SUNAT's wording for an accepted document: ``La Factura numero F001-1, ha sido aceptada``."""
    return f"{DOCUMENT_NAMES.get(doc_type, 'El comprobante')} numero {document_id}, ha sido aceptada"


def _escape(text: str) -> str:
    """Character data as canonical XML (C14N 1.0) writes it."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#xD;")


def _element(tag: str, text: str) -> str:
    return f"<{tag}>{_escape(text)}</{tag}>"


def _party(tag: str, ruc: str) -> str:
    return (
        f"<cac:{tag}><cac:PartyIdentification>{_element('cbc:ID', ruc)}</cac:PartyIdentification></cac:{tag}>"
    )


_NAMESPACES = canonical_namespaces(nsmap_for(APPLICATION_RESPONSE))
_EXTENSIONS = (
    "<ext:UBLExtensions><ext:UBLExtension><ext:ExtensionContent>{}"
    "</ext:ExtensionContent></ext:UBLExtension></ext:UBLExtensions>"
)


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
    document_description: str = "",
) -> bytes:
    """Build and sign the ApplicationResponse answering document ``reference_id`` of ``issuer_ruc``.

    ``recipient`` is the customer as ``"<cat. 06 type>-<number>"`` (``6-20587896411``); ``received_at``
    is the reception time (ResponseDate/Time) and ``issued_at`` the CDR's generation time (Issue*).
    Returns the signed XML, declared and encoded ISO-8859-1 as SUNAT's are, with signature id
    ``SignSUNAT`` (enveloped, C14N 1.0, RSA-SHA1).
    ``document_description`` goes in ``cac:DocumentReference/cbc:DocumentDescription`` (a dispatch
    guide's CDR carries the URL of its QR there).

    The simulator answers every factura with one, so it is written directly in canonical form (C14N
    1.0: namespaces sorted on the root, no empty-element tags, no whitespace) instead of through an
    lxml tree: the document without its signature is its own digest input and the signed document is
    that text with the ``ds:Signature`` put in the extension. Verifiers (signxml, SUNAT's) accept it.
    """
    issued_at = issued_at or received_at
    body = "".join(
        (
            _element("cbc:UBLVersionID", "2.0"),
            _element("cbc:CustomizationID", "1.0"),
            _element("cbc:ID", cdr_id),
            _element("cbc:IssueDate", issued_at.strftime("%Y-%m-%d")),
            _element("cbc:IssueTime", issued_at.strftime("%H:%M:%S")),
            _element("cbc:ResponseDate", received_at.strftime("%Y-%m-%d")),
            _element("cbc:ResponseTime", received_at.strftime("%H:%M:%S")),
            *(_element("cbc:Note", note) for note in notes),
            "<cac:Signature>",
            _element("cbc:ID", SUNAT_SIGNATURE_ID),
            "<cac:SignatoryParty><cac:PartyIdentification>",
            _element("cbc:ID", SUNAT_RUC),
            "</cac:PartyIdentification><cac:PartyName>",
            _element("cbc:Name", "SUNAT"),
            "</cac:PartyName></cac:SignatoryParty><cac:DigitalSignatureAttachment><cac:ExternalReference>",
            _element("cbc:URI", f"#{SUNAT_SIGNATURE_ID}"),
            "</cac:ExternalReference></cac:DigitalSignatureAttachment></cac:Signature>",
            _party("SenderParty", SUNAT_RUC),
            _party("ReceiverParty", issuer_ruc),
            "<cac:DocumentResponse><cac:Response>",
            _element("cbc:ReferenceID", reference_id),
            _element("cbc:ResponseCode", code),
            _element("cbc:Description", description),
            "</cac:Response><cac:DocumentReference>",
            _element("cbc:ID", reference_id),
            _element("cbc:DocumentDescription", document_description) if document_description else "",
            "</cac:DocumentReference>",
            _party("RecipientParty", recipient) if recipient else "",
            "</cac:DocumentResponse></ApplicationResponse>",
        )
    )
    start = f"<ApplicationResponse{_NAMESPACES}>"
    unsigned = (start + _EXTENSIONS.format("") + body).encode("utf-8")
    signature, _digest = signature_element(
        unsigned, nsmap_for(APPLICATION_RESPONSE), identity, signature_id=SUNAT_SIGNATURE_ID
    )
    signed = start + _EXTENSIONS.format(signature) + body
    # as SUNAT writes it: Latin-1, a character it lacks as a reference (the same text to any parser,
    # so to the canonical form the signature covers)
    return CDR_DECLARATION.encode("ascii") + signed.encode("iso-8859-1", "xmlcharrefreplace")


def build_exception_cdr(reference_id: str, code: str, description: str) -> bytes:
    """The bare CDR SUNAT answers an exception with (its ``cdr-rechazo.zip``: code 0109): the
    reference, the code and its text, without extensions, dates, signature or parties."""
    body = "".join(
        (
            f'<ApplicationResponse xmlns="{APPLICATION_RESPONSE}" xmlns:cac="{CAC_NS}" xmlns:cbc="{CBC_NS}">',
            "<cac:DocumentResponse><cac:Response>",
            _element("cbc:ReferenceID", reference_id),
            _element("cbc:ResponseCode", code),
            _element("cbc:Description", description),
            "</cac:Response></cac:DocumentResponse></ApplicationResponse>",
        )
    )
    return CDR_DECLARATION.encode("ascii") + body.encode("iso-8859-1", "xmlcharrefreplace")


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
    document_description: str = ""

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
    code = reading.text(response, CBC("ResponseCode"), "")
    if not code:
        raise CdrError("the CDR has no ResponseCode")
    pid = f"{CAC('PartyIdentification')}/{CBC('ID')}"
    return Cdr(
        id=reading.text(root, CBC("ID"), ""),
        issue_date=reading.text(root, CBC("IssueDate"), ""),
        issue_time=reading.text(root, CBC("IssueTime"), ""),
        response_date=reading.text(root, CBC("ResponseDate"), ""),
        response_time=reading.text(root, CBC("ResponseTime"), ""),
        notes=tuple((n.text or "").strip() for n in root.findall(CBC("Note"))),
        sender_ruc=reading.text(root, f"{CAC('SenderParty')}/{pid}", ""),
        receiver_ruc=reading.text(root, f"{CAC('ReceiverParty')}/{pid}", ""),
        reference_id=reading.text(response, CBC("ReferenceID"), ""),
        code=code,
        description=reading.text(response, CBC("Description"), ""),
        document_reference=reading.text(document_response, f"{CAC('DocumentReference')}/{CBC('ID')}", ""),
        recipient=reading.text(document_response, f"{CAC('RecipientParty')}/{pid}", ""),
        signed=root.find(".//{http://www.w3.org/2000/09/xmldsig#}Signature") is not None,
        document_description=reading.text(
            document_response, f"{CAC('DocumentReference')}/{CBC('DocumentDescription')}", ""
        ),
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
