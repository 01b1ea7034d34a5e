"""Fixtures of the UBL tests: one signing identity per session and the shared UBL 2.1 schemas."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from facturador.service.ubl.signing import SigningIdentity, generate_identity

SHARED_XSD_21 = Path(__file__).resolve().parents[2].parent / "shared" / "xsd" / "2.1" / "maindoc"


@pytest.fixture(scope="session")
def identity() -> SigningIdentity:
    key_pem, cert_pem = generate_identity("20100066603", "ACME PERU S.A.C.")
    return SigningIdentity.from_pem(key_pem, cert_pem)


@pytest.fixture(scope="session")
def shared_schema():
    """``shared_schema("Invoice")``: the UBL 2.1 schema from /work/shared compiled once."""
    if not SHARED_XSD_21.is_dir():
        pytest.skip(f"shared XSDs not found at {SHARED_XSD_21}")
    cache: dict[str, etree.XMLSchema] = {}

    def get(root_name: str) -> etree.XMLSchema:
        if root_name not in cache:
            cache[root_name] = etree.XMLSchema(etree.parse(str(SHARED_XSD_21 / f"UBL-{root_name}-2.1.xsd")))
        return cache[root_name]

    return get
