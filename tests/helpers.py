"""Checks shared by the integration tests: XSD validity (against shared/xsd), signatures, amounts in XML."""

from __future__ import annotations

import functools
import io
import zipfile
from decimal import Decimal
from pathlib import Path

from lxml import etree

from facturador.service.ubl.signing import verify

SHARED_XSD = Path(__file__).resolve().parents[1].parent / "shared" / "xsd"
NS = {
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "ds": "http://www.w3.org/2000/09/xmldsig#",
    "sac": "urn:sunat:names:specification:ubl:peru:schema:xsd:SunatAggregateComponents-1",
}
SCHEMAS = {
    "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2": "2.1/maindoc/UBL-Invoice-2.1.xsd",
    "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2": "2.1/maindoc/UBL-CreditNote-2.1.xsd",
    "urn:oasis:names:specification:ubl:schema:xsd:DebitNote-2": "2.1/maindoc/UBL-DebitNote-2.1.xsd",
    "urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2": (
        "2.1/maindoc/UBL-ApplicationResponse-2.1.xsd"
    ),
    # SUNAT's UBL 2.0 documents: daily summaries (RC) and voided communications (RA)
    "urn:sunat:names:specification:ubl:peru:schema:xsd:SummaryDocuments-1": (
        "2.0/maindoc/UBL-SummaryDocuments-2.0.xsd"
    ),
    "urn:sunat:names:specification:ubl:peru:schema:xsd:VoidedDocuments-1": (
        "2.0/maindoc/UBL-VoidedDocuments-2.0.xsd"
    ),
}


@functools.cache
def _schema(namespace: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SHARED_XSD / SCHEMAS[namespace])))


def assert_schema_valid(xml: bytes) -> etree._Element:
    """Parse ``xml`` and assert it validates against the shared XSD of its root element (UBL 2.1, or
    SUNAT's UBL 2.0 for SummaryDocuments and VoidedDocuments)."""
    root = etree.fromstring(xml)
    namespace = etree.QName(root).namespace
    schema = _schema(namespace)
    assert schema.validate(root), "\n".join(str(e) for e in schema.error_log)
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
