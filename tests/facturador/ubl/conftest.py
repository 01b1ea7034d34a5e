"""Fixtures of the UBL tests: one signing identity per session."""

from __future__ import annotations

import pytest

from facturador.ubl.signing import SigningIdentity, generate_identity
from tests.samples.documents import ISSUER


@pytest.fixture(scope="session")
def identity() -> SigningIdentity:
    key_pem, cert_pem = generate_identity(ISSUER.ruc, ISSUER.name)
    return SigningIdentity.from_pem(key_pem, cert_pem)
