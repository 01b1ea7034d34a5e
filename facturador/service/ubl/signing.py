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
RSA_SHA1 = SignatureMethod.RSA_SHA1.value
SHA1 = DigestAlgorithm.SHA1.value
#: The declaration lxml writes on the documents we sign.
XML_DECLARATION = "<?xml version='1.0' encoding='UTF-8'?>\n"
_ALGORITHMS = {
    # sha256 flag -> (SignatureMethod, DigestMethod, hash for the digest, hash for the RSA signature)
    False: (RSA_SHA1, SHA1, hashlib.sha1, hashes.SHA1),
    True: (SignatureMethod.RSA_SHA256.value, DigestAlgorithm.SHA256.value, hashlib.sha256, hashes.SHA256),
}


def _ds(name: str) -> str:
    return f"{{{DS_NS}}}{name}"


def _placeholder_parent(root: etree._Element) -> etree._Element:
    for content in root.iter(f"{{{EXT_NS}}}ExtensionContent"):
        if len(content) == 0:
            return content
    raise SignatureError("the document has no empty ext:ExtensionContent to hold the signature")


@lru_cache(maxsize=64)
def certificate_base64(cert_pem: str) -> str:
    """The base64 DER of the first certificate of a PEM text (what ``ds:X509Certificate`` carries)."""
    body = cert_pem.split("-----BEGIN CERTIFICATE-----", 1)[-1].split("-----END CERTIFICATE-----", 1)[0]
    text = "".join(body.split())
    if not text:
        raise SignatureError("the signing identity carries no PEM certificate")
    return text


def _c14n(node: etree._Element) -> bytes:
    # Inclusive C14N 1.0 without comments; a subtree gets the namespaces in scope, as the spec asks.
    return etree.tostring(node, method="c14n", exclusive=False, with_comments=False)


def sign(root: etree._Element, identity: SigningIdentity, *, sha256: bool = False) -> tuple[bytes, str]:
    """Sign ``root`` in place; return the serialized signed document and its DigestValue (the hash).

    Produces exactly what signxml's enveloped signer produces with inclusive C14N 1.0, the enveloped
    transform only (no c14n transform element) and RSA-SHA1 (or RSA-SHA256), without its two
    serialize/parse copies of the document: the digest of the document before the signature is inserted
    equals the digest after the verifier's enveloped transform removes it. ``verify`` (signxml) checks it.
    """
    parent = _placeholder_parent(root)
    signature_method, digest_method, digest_hash, signature_hash = _ALGORITHMS[sha256]
    digest = base64.b64encode(digest_hash(_c14n(root)).digest()).decode("ascii")

    signature = etree.SubElement(parent, _ds("Signature"), nsmap={"ds": DS_NS})
    signature.set("Id", SIGNATURE_ID)
    signed_info = etree.SubElement(signature, _ds("SignedInfo"))
    etree.SubElement(signed_info, _ds("CanonicalizationMethod"), Algorithm=C14N_1_0.value)
    etree.SubElement(signed_info, _ds("SignatureMethod"), Algorithm=signature_method)
    reference = etree.SubElement(signed_info, _ds("Reference"), URI="")
    transforms = etree.SubElement(reference, _ds("Transforms"))
    etree.SubElement(transforms, _ds("Transform"), Algorithm=ENVELOPED)
    etree.SubElement(reference, _ds("DigestMethod"), Algorithm=digest_method)
    etree.SubElement(reference, _ds("DigestValue")).text = digest

    try:
        value = identity.key.sign(_c14n(signed_info), padding.PKCS1v15(), signature_hash())
    except (TypeError, ValueError) as exc:  # pragma: no cover - indicates a broken key
        raise SignatureError(str(exc)) from exc
    etree.SubElement(signature, _ds("SignatureValue")).text = base64.b64encode(value).decode("ascii")
    key_info = etree.SubElement(signature, _ds("KeyInfo"))
    x509_data = etree.SubElement(key_info, _ds("X509Data"))
    etree.SubElement(x509_data, _ds("X509Certificate")).text = certificate_base64(identity.cert_pem)
    xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    return xml, digest


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
