"""Checks used by the integration tests: XSD validity, signatures, amounts in XML, CDR zips."""

from __future__ import annotations

import io
import zipfile
from decimal import Decimal

from lxml import etree

from facturador.ubl import xsd
from facturador.ubl.signing import verify

NS = {
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "ds": "http://www.w3.org/2000/09/xmldsig#",
    "sac": "urn:sunat:names:specification:ubl:peru:schema:xsd:SunatAggregateComponents-1",
}


def assert_schema_valid(xml: bytes) -> etree._Element:
    """Parse ``xml`` and assert it validates against SUNAT's schema of its root element (UBL 2.1, or
    SUNAT's UBL 2.0 for SummaryDocuments and VoidedDocuments), as shipped in ``facturador/ubl/xsd``."""
    root = etree.fromstring(xml)
    errors = xsd.validate(root)
    assert errors == [], "\n".join(errors)
    return root


def assert_signed(xml: bytes, expected_digest: str | None = None) -> None:
    result = verify(xml)
    if expected_digest is not None:
        assert result.digest_value == expected_digest


def amount(root: etree._Element, path: str) -> Decimal:
    value = root.findtext(path, namespaces=NS)
    assert value is not None, f"{path} missing"
    return Decimal(value)


def read_cdr(zip_bytes: bytes) -> tuple[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as archive:
        names = [n for n in archive.namelist() if n.endswith(".xml")]
        assert len(names) == 1
        return names[0], archive.read(names[0])
