"""A fast path to verify SUNAT-profile signatures on an already parsed document.

:func:`facturador.ubl.signing.verify` (signxml) re-parses the document several times and costs ~2 ms for a
small factura, most of the simulator's time. SUNAT documents use one narrow profile (``docs/sunat_domain.md``,
signature): one ``ds:Signature`` in ``ext:UBLExtensions/.../ext:ExtensionContent``, one ``Reference URI=""``
with the enveloped transform (optionally followed by a C14N transform), C14N 1.0 inclusive or exclusive,
RSA-SHA1/SHA256 and the certificate in ``X509Data``. :func:`fast_verify` checks exactly that profile on the
parsed tree and answers only "verified" (the DigestValue) or "don't know" (``None``); anything else - another
profile, a digest or signature mismatch, an expired certificate - is left to ``signing.verify``, which stays
the authority that accepts other profiles and classifies failures. So the fast path can make acceptance
quicker but never changes a verdict.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from datetime import UTC, datetime
from functools import lru_cache

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from lxml import etree

from facturador.ubl.namespaces import DS, EXT
from facturador.ubl.signing import ENVELOPED

__all__ = ["fast_verify"]

_C14N = {
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315": False,  # inclusive C14N 1.0 -> exclusive=False
    "http://www.w3.org/2001/10/xml-exc-c14n#": True,
}
_SIGNATURE_METHODS = {
    "http://www.w3.org/2000/09/xmldsig#rsa-sha1": hashes.SHA1,
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": hashes.SHA256,
}
_DIGEST_METHODS = {
    "http://www.w3.org/2000/09/xmldsig#sha1": hashlib.sha1,
    "http://www.w3.org/2001/04/xmlenc#sha256": hashlib.sha256,
}
_SIGNATURE = DS("Signature")
_X509_DATA = DS("X509Data")
#: Where the signature must sit: root/ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent/ds:Signature.
_ANCESTOR_TAGS = [EXT("ExtensionContent"), EXT("UBLExtension"), EXT("UBLExtensions")]


@lru_cache(maxsize=256)
def _certificate(b64: str) -> tuple[rsa.RSAPublicKey, datetime, datetime] | None:
    """The RSA key and validity of a base64 DER certificate (cached: a tenant signs with one cert)."""
    try:
        cert = x509.load_der_x509_certificate(base64.b64decode("".join(b64.split()), validate=True))
    except (ValueError, binascii.Error):
        return None
    key = cert.public_key()
    if not isinstance(key, rsa.RSAPublicKey):
        return None
    return key, cert.not_valid_before_utc, cert.not_valid_after_utc


def _only(parent: etree._Element, tag: str) -> etree._Element | None:
    found = parent.findall(tag)
    return found[0] if len(found) == 1 else None


def _digest_input(root: etree._Element, signature: etree._Element, exclusive: bool) -> bytes:
    """C14N of the document without the signature (the enveloped transform), restoring the tree after."""
    parent = signature.getparent()
    assert parent is not None
    index = parent.index(signature)
    tail = signature.tail
    previous = signature.getprevious()
    saved_text, saved_tail = parent.text, previous.tail if previous is not None else None
    if tail:  # the text after the signature stays in the document
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(signature)
    try:
        return etree.tostring(root, method="c14n", exclusive=exclusive, with_comments=False)
    finally:
        parent.insert(index, signature)
        signature.tail = tail
        parent.text = saved_text
        if previous is not None:
            previous.tail = saved_tail


def fast_verify(root: etree._Element) -> str | None:
    """The DigestValue when ``root`` carries a valid SUNAT-profile signature; ``None`` when unsure.

    ``None`` means "ask :func:`facturador.ubl.signing.verify`": the profile differs, or the
    digest, signature or certificate validity does not check out.
    """
    signatures = list(root.iter(_SIGNATURE))
    if len(signatures) != 1:
        return None
    signature = signatures[0]
    ancestors = list(signature.iterancestors())
    if [a.tag for a in ancestors[:3]] != _ANCESTOR_TAGS or ancestors[3:] != [root]:
        return None
    signed_info = _only(signature, DS("SignedInfo"))
    value = _only(signature, DS("SignatureValue"))
    if signed_info is None or value is None:
        return None
    c14n_method = _only(signed_info, DS("CanonicalizationMethod"))
    sig_method = _only(signed_info, DS("SignatureMethod"))
    reference = _only(signed_info, DS("Reference"))
    if c14n_method is None or sig_method is None or reference is None or len(c14n_method):
        return None
    exclusive = _C14N.get(c14n_method.get("Algorithm", ""))
    hash_type = _SIGNATURE_METHODS.get(sig_method.get("Algorithm", ""))
    if exclusive is None or hash_type is None or reference.get("URI") != "":
        return None
    transforms = reference.find(DS("Transforms"))
    algorithms = [t.get("Algorithm", "") for t in transforms] if transforms is not None else []
    if transforms is not None and any(len(t) for t in transforms):
        return None  # InclusiveNamespaces / XPath parameters: not our profile
    if not algorithms or algorithms[0] != ENVELOPED or len(algorithms) > 2:
        return None
    # without a C14N transform the reference is canonicalized with inclusive C14N 1.0 (the XMLDSig default)
    digest_exclusive = _C14N.get(algorithms[1]) if len(algorithms) == 2 else False
    if digest_exclusive is None:
        return None
    digest_method = _only(reference, DS("DigestMethod"))
    digest_value = _only(reference, DS("DigestValue"))
    if digest_method is None or digest_value is None:
        return None
    digest_function = _DIGEST_METHODS.get(digest_method.get("Algorithm", ""))
    key_info = _only(signature, DS("KeyInfo"))
    if digest_function is None or key_info is None or any(child.tag != _X509_DATA for child in key_info):
        return None  # a KeyValue (or anything else) next to the certificate: let signxml match them
    certificates = key_info.findall(f"{_X509_DATA}/{DS('X509Certificate')}")
    if len(certificates) != 1:
        return None
    certificate = _certificate(certificates[0].text or "")
    if certificate is None:
        return None
    public_key, not_before, not_after = certificate
    if not not_before <= datetime.now(UTC) <= not_after:
        return None
    expected = (digest_value.text or "").strip()
    try:
        if (
            base64.b64decode(expected, validate=True)
            != digest_function(_digest_input(root, signature, digest_exclusive)).digest()
        ):
            return None
        raw = base64.b64decode("".join((value.text or "").split()), validate=True)
        signed = etree.tostring(signed_info, method="c14n", exclusive=exclusive, with_comments=False)
        public_key.verify(raw, signed, padding.PKCS1v15(), hash_type())
    except (ValueError, binascii.Error, InvalidSignature):
        return None
    return expected
