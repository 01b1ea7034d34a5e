"""Enveloped XML-DSig as SUNAT expects it, and the tenant certificates that sign.

The signature goes into the first empty ``ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent``,
references the whole document (``URI=""``) with the enveloped transform, uses inclusive C14N 1.0 and
RSA-SHA1 by default (what every public SUNAT issuer uses; RSA-SHA256 is accepted as well). The
document hash ("valor resumen") printed on the PDF and in the QR is the reference's ``DigestValue``.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID
from lxml import etree
from signxml import (
    CanonicalizationMethod,
    DigestAlgorithm,
    SignatureConfiguration,
    SignatureMethod,
    XMLVerifier,
)
from signxml.exceptions import InvalidInput, InvalidSignature

from .namespaces import nsmap_for

DS_NS = "http://www.w3.org/2000/09/xmldsig#"
EXT_NS = "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2"
SIGNATURE_ID = "SignatureSP"
C14N_1_0 = CanonicalizationMethod.CANONICAL_XML_1_0


class SignatureError(Exception):
    """The XML could not be signed or its signature does not verify."""


@dataclass(frozen=True)
class SigningIdentity:
    """A private key with its X.509 certificate, loaded once and reused for every signature."""

    key: rsa.RSAPrivateKey
    cert_pem: str

    @classmethod
    def from_pem(cls, key_pem: bytes, cert_pem: bytes) -> SigningIdentity:
        key = serialization.load_pem_private_key(key_pem, password=None)
        if not isinstance(key, rsa.RSAPrivateKey):
            raise SignatureError("only RSA signing keys are supported")
        return cls(key=key, cert_pem=cert_pem.decode("ascii"))

    @property
    def certificate(self) -> x509.Certificate:
        return x509.load_pem_x509_certificate(self.cert_pem.encode("ascii"))


def generate_identity(ruc: str, name: str, *, years: int = 5) -> tuple[bytes, bytes]:
    """Create an RSA-2048 key and a self-signed certificate for a company; returns (key_pem, cert_pem)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.COUNTRY_NAME, "PE"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, name[:64] or ruc),
            x509.NameAttribute(NameOID.SERIAL_NUMBER, ruc),
            x509.NameAttribute(NameOID.COMMON_NAME, f"{ruc} {name}"[:64]),
        ]
    )
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=365 * years))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=True,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return key_pem, cert.public_bytes(serialization.Encoding.PEM)


ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
#: The declaration lxml writes on the documents we sign.
XML_DECLARATION = "<?xml version='1.0' encoding='UTF-8'?>\n"
_ALGORITHMS = {
    # sha256 flag -> (SignatureMethod, DigestMethod, hash for the digest, hash for the RSA signature)
    False: (SignatureMethod.RSA_SHA1.value, DigestAlgorithm.SHA1.value, hashlib.sha1, hashes.SHA1),
    True: (SignatureMethod.RSA_SHA256.value, DigestAlgorithm.SHA256.value, hashlib.sha256, hashes.SHA256),
}


def _placeholder_parent(root: etree._Element) -> etree._Element:
    for content in root.iter(f"{{{EXT_NS}}}ExtensionContent"):
        if len(content) == 0:
            return content
    raise SignatureError("the document has no empty ext:ExtensionContent to hold the signature")


@lru_cache(maxsize=64)
def _certificate_base64(cert_pem: str) -> str:
    """The base64 DER of the first certificate of a PEM text (what ``ds:X509Certificate`` carries)."""
    body = cert_pem.split("-----BEGIN CERTIFICATE-----", 1)[-1].split("-----END CERTIFICATE-----", 1)[0]
    text = "".join(body.split())
    if not text:
        raise SignatureError("the signing identity carries no PEM certificate")
    return text


def _c14n(node: etree._Element) -> bytes:
    # Inclusive C14N 1.0 without comments; a subtree gets the namespaces in scope, as the spec asks.
    return etree.tostring(node, method="c14n", exclusive=False, with_comments=False)


def canonical_namespaces(nsmap: dict[str | None, str]) -> str:
    """Namespace declarations as C14N writes them on an element: the default first, then by prefix."""
    return "".join(
        f' xmlns{":" + prefix if prefix else ""}="{uri}"'
        for prefix, uri in sorted(nsmap.items(), key=lambda item: item[0] or "")
    )


def _signed_info(sha256: bool, digest: str, *, canonical: bool, namespaces: str = "") -> str:
    """``ds:SignedInfo`` of the one enveloped reference: canonical (with the namespaces in scope, what is
    signed) or as lxml serializes it inside the document (empty elements closed with ``/>``)."""
    before, after = _signed_info_frame(sha256, canonical, namespaces)
    return f"{before}{digest}{after}"


@lru_cache(maxsize=64)
def _signed_info_frame(sha256: bool, canonical: bool, namespaces: str) -> tuple[str, str]:
    """The text of ``ds:SignedInfo`` before and after its DigestValue: the same for every document signed
    with an algorithm and the same namespaces in scope, so written once."""
    signature_method, digest_method = _ALGORITHMS[sha256][:2]

    def empty(tag: str, algorithm: str) -> str:
        if canonical:
            return f'<ds:{tag} Algorithm="{algorithm}"></ds:{tag}>'
        return f'<ds:{tag} Algorithm="{algorithm}"/>'

    return "".join(
        (
            f"<ds:SignedInfo{namespaces}>",
            empty("CanonicalizationMethod", C14N_1_0.value),
            empty("SignatureMethod", signature_method),
            '<ds:Reference URI=""><ds:Transforms>',
            empty("Transform", ENVELOPED),
            "</ds:Transforms>",
            empty("DigestMethod", digest_method),
            "<ds:DigestValue>",
        )
    ), "</ds:DigestValue></ds:Reference></ds:SignedInfo>"


def signature_element(
    canonical_document: bytes,
    namespaces_in_scope: dict[str | None, str],
    identity: SigningIdentity,
    *,
    sha256: bool = False,
    signature_id: str = SIGNATURE_ID,
) -> tuple[str, str]:
    """The enveloped ``ds:Signature`` of a document, as text, and its DigestValue.

    ``canonical_document`` is the C14N of the document without the signature (what the enveloped
    transform leaves); ``namespaces_in_scope`` are those where the signature goes (the signed
    ``ds:SignedInfo`` is canonicalized with them, as inclusive C14N does). ``xmlns:ds`` is declared on
    the signature only when it is not in scope already.
    """
    digest_hash, signature_hash = _ALGORITHMS[sha256][2:]
    digest = base64.b64encode(digest_hash(canonical_document).digest()).decode("ascii")
    signed = _signed_info(
        sha256, digest, canonical=True, namespaces=_declarations_with_ds(tuple(namespaces_in_scope.items()))
    )
    try:
        value = identity.key.sign(signed.encode("utf-8"), padding.PKCS1v15(), signature_hash())
    except (TypeError, ValueError) as exc:  # pragma: no cover - indicates a broken key
        raise SignatureError(str(exc)) from exc
    declaration = "" if namespaces_in_scope.get("ds") == DS_NS else f' xmlns:ds="{DS_NS}"'
    element = "".join(
        (
            f'<ds:Signature{declaration} Id="{signature_id}">',
            _signed_info(sha256, digest, canonical=False),
            f"<ds:SignatureValue>{base64.b64encode(value).decode('ascii')}</ds:SignatureValue>",
            "<ds:KeyInfo><ds:X509Data><ds:X509Certificate>",
            _certificate_base64(identity.cert_pem),
            "</ds:X509Certificate></ds:X509Data></ds:KeyInfo></ds:Signature>",
        )
    )
    return element, digest


@lru_cache(maxsize=64)
def _declarations_with_ds(namespaces_in_scope: tuple[tuple[str | None, str], ...]) -> str:
    """The namespace declarations C14N writes on a signature's ``ds:SignedInfo``: those in scope where the
    signature goes, and ``ds`` (a handful of distinct scopes: one per document kind)."""
    return canonical_namespaces({**dict(namespaces_in_scope), "ds": DS_NS})


#: Characters that C14N and lxml's serializer write differently (or that are markup).
_NOT_PLAIN = re.compile(r"[&<>\"\r\n\t]")


@dataclass(frozen=True)
class UnsignedXml:
    """A document serialized once and signed later, possibly with some text filled in then.

    The issuing service builds the XML before it takes the correlative and signs it after, inside the
    short numbering transaction: the tree carries a unique token where the number goes and
    :meth:`sign` replaces it in the canonical and serialized texts, so the expensive part (the tree,
    its C14N and its serialization) stays outside the transaction. Made by :func:`prepare`.
    """

    canonical: bytes  # C14N of the document as built (the signature slot empty)
    serialized: bytes  # lxml's serialization with the XML declaration, the slot as an empty element
    slot: bytes  # the empty ``<ext:ExtensionContent/>`` (or with whitespace only) receiving the signature
    namespaces: tuple[tuple[str | None, str], ...]  # in scope at the slot

    def sign(
        self,
        identity: SigningIdentity,
        replacements: dict[str, str] | None = None,
        *,
        sha256: bool = False,
    ) -> tuple[bytes, str]:
        """Fill in ``replacements`` (token -> plain text) and sign; return the signed bytes and the digest.

        The result is byte for byte what :func:`sign` gives for the tree with the replaced texts.
        """
        canonical, serialized = self.canonical, self.serialized
        for token, value in (replacements or {}).items():
            if _NOT_PLAIN.search(value) or _NOT_PLAIN.search(token):
                raise SignatureError(f"{value!r} is not plain text: it cannot be filled in after serializing")
            canonical = canonical.replace(token.encode(), value.encode())
            serialized = serialized.replace(token.encode(), value.encode())
        element, digest = signature_element(canonical, dict(self.namespaces), identity, sha256=sha256)
        if self.slot.endswith(b"/>"):  # <ext:ExtensionContent/>
            tag = self.slot[1:-2]
            filled = b"<%s>%s</%s>" % (tag, element.encode("utf-8"), tag)
        else:  # <ext:ExtensionContent>whitespace</ext:ExtensionContent>: the signature after the text
            end = self.slot.rindex(b"</")
            filled = self.slot[:end] + element.encode("utf-8") + self.slot[end:]
        return serialized.replace(self.slot, filled, 1), digest


def prepare(root: etree._Element) -> UnsignedXml:
    """Canonicalize and serialize an unsigned document once, ready for :meth:`UnsignedXml.sign`.

    The signature goes into the first empty ``ext:UBLExtensions/.../ext:ExtensionContent``.
    """
    parent = _placeholder_parent(root)
    text = parent.text or ""
    if text.strip(" \n\t"):  # whitespace (indentation) is kept before the signature, as a tree insert would
        raise SignatureError("the ext:ExtensionContent that receives the signature must be empty")
    tag = f"{parent.prefix}:ExtensionContent" if parent.prefix else "ExtensionContent"
    slot = f"<{tag}>{text}</{tag}>" if text else f"<{tag}/>"
    serialized = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    # the first empty ExtensionContent in document order is the first one serialized like this: no text
    # contains "<" and the ones that are not empty have a child right after their whitespace
    if slot.encode() not in serialized:  # pragma: no cover - guarded by the checks above
        raise SignatureError("the signature slot was not found in the serialized document")
    return UnsignedXml(
        canonical=_c14n(root),
        serialized=serialized,
        slot=slot.encode(),
        namespaces=tuple(parent.nsmap.items()),
    )


def prepare_canonical(text: bytes, namespace: str, slot: bytes) -> UnsignedXml:
    """An unsigned document written directly in canonical form (C14N 1.0, namespaces declared on the
    root as :func:`canonical_namespaces` writes them, ``namespace`` the default), ready for
    :meth:`UnsignedXml.sign`: the text is its own digest input and, after the XML declaration, the
    document stored. ``slot`` is the first ``ext:ExtensionContent``, empty
    (``<ext:ExtensionContent></ext:ExtensionContent>``), where the signature goes."""
    if slot not in text:
        raise SignatureError("the signature slot was not found in the document")
    return UnsignedXml(
        canonical=text,
        serialized=XML_DECLARATION.encode() + text,
        slot=slot,
        namespaces=tuple(nsmap_for(namespace).items()),
    )


def sign(root: etree._Element, identity: SigningIdentity, *, sha256: bool = False) -> tuple[bytes, str]:
    """Sign the document ``root``; return the serialized signed document and its DigestValue (the hash).

    Produces exactly what signxml's enveloped signer produces with inclusive C14N 1.0, the enveloped
    transform only (no c14n transform element) and RSA-SHA1 (or RSA-SHA256), without its two
    serialize/parse copies of the document: the digest of the document before the signature is inserted
    equals the digest after the verifier's enveloped transform removes it. ``verify`` (signxml) checks it.
    ``root`` itself is left unsigned.
    """
    return prepare(root).sign(identity, sha256=sha256)


@dataclass(frozen=True)
class VerifiedSignature:
    digest_value: str
    certificate: x509.Certificate


_EXPECT_SHA1 = SignatureConfiguration(
    signature_methods=frozenset({SignatureMethod.RSA_SHA1, SignatureMethod.RSA_SHA256}),
    digest_algorithms=frozenset({DigestAlgorithm.SHA1, DigestAlgorithm.SHA256}),
)


def digest_value(xml: bytes) -> str:
    """The DigestValue of the first signature in a signed document, or "" when unsigned."""
    root = etree.fromstring(xml)
    return root.findtext(f".//{{{DS_NS}}}DigestValue") or ""


def verify(xml: bytes) -> VerifiedSignature:
    """Verify the enveloped signature against the certificate it carries; raise SignatureError if not."""
    root = etree.fromstring(xml)
    cert_text = root.findtext(f".//{{{DS_NS}}}X509Certificate")
    if not cert_text:
        raise SignatureError("the signature carries no X509Certificate")
    pem = "-----BEGIN CERTIFICATE-----\n" + "".join(cert_text.split()) + "\n-----END CERTIFICATE-----\n"
    try:
        certificate = x509.load_pem_x509_certificate(pem.encode("ascii"))
        result = XMLVerifier().verify(root, x509_cert=pem, expect_config=_EXPECT_SHA1)
    except (InvalidSignature, InvalidInput, ValueError) as exc:
        raise SignatureError(str(exc)) from exc
    if isinstance(result, list):  # pragma: no cover - only one reference is ever produced
        result = result[0]
    digest = root.findtext(f".//{{{DS_NS}}}DigestValue") or ""
    return VerifiedSignature(digest_value=digest, certificate=certificate)
