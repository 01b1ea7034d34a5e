"""The enveloped signature: same bytes as signxml's signer, verifiable, in place, SUNAT's placement."""

from __future__ import annotations

import base64

import pytest
from cryptography.hazmat.primitives import serialization
from lxml import etree
from signxml import DigestAlgorithm, SignatureMethod, XMLSigner

from facturador.ubl.invoice import build_sales_document
from facturador.ubl.namespaces import APPLICATION_RESPONSE, CBC, EXT, NS, nsmap_for
from facturador.ubl.signing import C14N_1_0, SignatureError, SigningIdentity, prepare, sign, verify
from tests.samples.documents import document


class _ReferenceSigner(XMLSigner):
    """signxml's own signer (SHA-1 allowed): the reference our direct implementation must match."""

    def check_deprecated_methods(self) -> None:
        return None


def _signxml_sign(root: etree._Element, identity: SigningIdentity, sha256: bool) -> etree._Element:
    content = root.find(".//ext:ExtensionContent", NS)
    etree.SubElement(content, "{http://www.w3.org/2000/09/xmldsig#}Signature", Id="placeholder")
    signer = _ReferenceSigner(
        signature_algorithm=SignatureMethod.RSA_SHA256 if sha256 else SignatureMethod.RSA_SHA1,
        digest_algorithm=DigestAlgorithm.SHA256 if sha256 else DigestAlgorithm.SHA1,
        c14n_algorithm=C14N_1_0,
    )
    signer.namespaces = {"ds": NS["ds"]}
    return signer.sign(root, key=identity.key, cert=identity.cert_pem, exclude_c14n_transform_element=True)


@pytest.mark.parametrize("sha256", [False, True])
def test_matches_signxml_signer_byte_for_byte(identity, sha256):
    doc = document()
    xml, digest = sign(build_sales_document(doc), identity, sha256=sha256)
    ours = etree.fromstring(xml)
    reference = _signxml_sign(build_sales_document(doc), identity, sha256)

    def part(root: etree._Element, path: str) -> etree._Element:
        found = root.find(path, NS)
        assert found is not None
        return found

    assert part(ours, ".//ds:DigestValue").text == part(reference, ".//ds:DigestValue").text == digest
    assert etree.tostring(part(ours, ".//ds:SignedInfo"), method="c14n") == etree.tostring(
        part(reference, ".//ds:SignedInfo"), method="c14n"
    )
    # RSA PKCS#1 v1.5 is deterministic: the same SignedInfo gives the same SignatureValue.
    assert part(ours, ".//ds:SignatureValue").text == part(reference, ".//ds:SignatureValue").text
    verify(xml)
    verify(etree.tostring(reference))


def test_signature_shape_and_placement(identity):
    unsigned = build_sales_document(document())
    xml, _digest = sign(unsigned, identity)
    root = etree.fromstring(xml)
    assert etree.tostring(root, xml_declaration=True, encoding="UTF-8") == xml  # as lxml writes it
    assert unsigned.find(".//ds:Signature", NS) is None  # the tree given is left unsigned
    signature = root.find("ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent/ds:Signature", NS)
    assert signature.get("Id") == "SignatureSP"
    assert [etree.QName(c).localname for c in signature] == ["SignedInfo", "SignatureValue", "KeyInfo"]
    transforms = signature.findall("ds:SignedInfo/ds:Reference/ds:Transforms/ds:Transform", NS)
    assert [t.get("Algorithm") for t in transforms] == [
        "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
    ]
    assert signature.find("ds:SignedInfo/ds:Reference", NS).get("URI") == ""
    method = signature.find("ds:SignedInfo/ds:CanonicalizationMethod", NS).get("Algorithm")
    assert method == "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
    assert signature.find("ds:SignedInfo/ds:SignatureMethod", NS).get("Algorithm") == (
        "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
    )
    der = identity.certificate.public_bytes(serialization.Encoding.DER)
    assert signature.findtext("ds:KeyInfo/ds:X509Data/ds:X509Certificate", namespaces=NS) == (
        base64.b64encode(der).decode()
    )
    assert verify(xml).certificate == identity.certificate


def test_signs_documents_that_do_not_declare_ds(identity):
    root = etree.Element(f"{{{APPLICATION_RESPONSE}}}ApplicationResponse", nsmap={
        k: v for k, v in nsmap_for(APPLICATION_RESPONSE).items() if k != "ds"
    })  # fmt: skip
    etree.SubElement(etree.SubElement(etree.SubElement(root, EXT("UBLExtensions")), EXT("UBLExtension")),
                     EXT("ExtensionContent"))  # fmt: skip
    etree.SubElement(root, CBC("ID")).text = "123"
    xml, digest = sign(root, identity)
    assert verify(xml).digest_value == digest


def test_needs_an_empty_extension_content(identity):
    xml, _digest = sign(build_sales_document(document()), identity)
    with pytest.raises(SignatureError, match="ExtensionContent"):
        sign(etree.fromstring(xml), identity)  # the only ExtensionContent is taken now


def test_prepared_document_signs_with_the_number_filled_in_later(identity):
    """prepare() + UnsignedXml.sign() with a token replaced equals sign() of the tree with the final text."""
    doc = document()
    template = build_sales_document(doc)
    template.find(CBC("ID")).text = "F001-TOKEN0123456789abcdef"
    prepared = prepare(template)
    for number in ("F001-1", "F001-99999999"):
        final = build_sales_document(doc)
        final.find(CBC("ID")).text = number
        expected = sign(final, identity)
        assert prepared.sign(identity, {"TOKEN0123456789abcdef": number[5:]}) == expected
        assert verify(expected[0]).digest_value == expected[1]


def test_prepared_document_refuses_markup_in_what_it_fills_in(identity):
    prepared = prepare(build_sales_document(document()))
    with pytest.raises(SignatureError, match="plain text"):
        prepared.sign(identity, {"F001": "A&B"})


def test_signature_of_another_document_does_not_verify(identity):
    first, _ = sign(build_sales_document(document(number=1)), identity)
    second, _ = sign(build_sales_document(document(number=2)), identity)
    one, two = etree.fromstring(first), etree.fromstring(second)
    one_sig = one.find(".//ds:Signature", NS)
    two_sig = two.find(".//ds:Signature", NS)
    two_sig.getparent().replace(two_sig, one_sig)
    with pytest.raises(SignatureError):
        verify(etree.tostring(two))
