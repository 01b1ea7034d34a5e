"""The fast signature path agrees with signing.verify: it only ever says "verified" or "don't know"."""

from __future__ import annotations

import pytest
from lxml import etree
from signxml import CanonicalizationMethod, DigestAlgorithm, SignatureMethod, XMLSigner

from facturador.authority.dsig import fast_verify
from facturador.ubl.signing import SignatureError, SigningIdentity, sign, verify
from tests.samples.ubl_xml import expired_identity, invoice, signed

DS = "http://www.w3.org/2000/09/xmldsig#"
EXT = "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2"


def _signxml(
    root: etree._Element, identity: SigningIdentity, c14n: CanonicalizationMethod, exclude_transform: bool
) -> bytes:
    content = root.find(f".//{{{EXT}}}ExtensionContent")
    assert content is not None
    etree.SubElement(content, f"{{{DS}}}Signature", nsmap={"ds": DS}).set("Id", "placeholder")
    signer = XMLSigner(
        signature_algorithm=SignatureMethod.RSA_SHA256,
        digest_algorithm=DigestAlgorithm.SHA256,
        c14n_algorithm=c14n,
    )
    signer.namespaces = {"ds": DS}
    out = signer.sign(
        root, key=identity.key, cert=identity.cert_pem, exclude_c14n_transform_element=exclude_transform
    )
    return etree.tostring(out, xml_declaration=True, encoding="UTF-8")


@pytest.mark.parametrize("sha256", [False, True])
def test_fast_path_matches_signing(issuer_identity: SigningIdentity, sha256: bool) -> None:
    xml, digest = sign(invoice(lines=3), issuer_identity, sha256=sha256)
    root = etree.fromstring(xml)
    assert fast_verify(root) == digest == verify(xml).digest_value
    assert etree.tostring(root) == etree.tostring(etree.fromstring(xml))  # the tree is restored


@pytest.mark.parametrize(
    ("c14n", "exclude_transform"),
    [
        (CanonicalizationMethod.EXCLUSIVE_XML_CANONICALIZATION_1_0, False),
        (CanonicalizationMethod.CANONICAL_XML_1_0, False),  # with the c14n transform after the enveloped one
        (CanonicalizationMethod.CANONICAL_XML_1_0, True),
    ],
)
def test_fast_path_other_profiles(
    issuer_identity: SigningIdentity, c14n: CanonicalizationMethod, exclude_transform: bool
) -> None:
    xml = _signxml(invoice(), issuer_identity, c14n, exclude_transform)
    assert fast_verify(etree.fromstring(xml)) == verify(xml).digest_value


def test_fast_path_with_whitespace_around_signature(issuer_identity: SigningIdentity) -> None:
    text = etree.tostring(invoice(), pretty_print=True)  # indentation, also inside ExtensionContent
    root = etree.fromstring(
        text.replace(b"<ext:ExtensionContent/>", b"<ext:ExtensionContent>\n</ext:ExtensionContent>")
    )
    xml, digest = sign(root, issuer_identity)
    parsed = etree.fromstring(xml)
    assert fast_verify(parsed) == digest == verify(xml).digest_value
    assert etree.tostring(parsed) == etree.tostring(etree.fromstring(xml))


def test_fast_path_declines_what_signxml_rejects(issuer_identity: SigningIdentity) -> None:
    xml = signed(invoice(), issuer_identity)
    tampered = xml.replace(b"CLIENTE SAC", b"CLIENTE SRL")
    assert fast_verify(etree.fromstring(tampered)) is None
    with pytest.raises(SignatureError):
        verify(tampered)
    root = etree.fromstring(xml)
    value = root.find(f".//{{{DS}}}SignatureValue")
    assert value is not None and value.text
    value.text = (
        "A" + value.text.strip()[1:] if value.text.strip()[0] != "A" else "B" + value.text.strip()[1:]
    )
    assert fast_verify(root) is None


def test_fast_path_declines_unusual_shapes(issuer_identity: SigningIdentity) -> None:
    xml = signed(invoice(), issuer_identity)
    root = etree.fromstring(xml)
    # a second signature anywhere: not the SUNAT profile
    root.append(etree.fromstring(etree.tostring(root.find(f".//{{{DS}}}Signature"))))
    assert fast_verify(root) is None
    assert fast_verify(invoice()) is None  # unsigned


def test_fast_path_declines_expired_certificate() -> None:
    xml = signed(invoice(), expired_identity())
    assert fast_verify(etree.fromstring(xml)) is None
    with pytest.raises(SignatureError):
        verify(xml)
