"""Fixtures of the authority tests: SUNAT's and the issuer's signing identities, a fresh simulator."""

from __future__ import annotations

import pytest

from facturador.authority.registry import InMemoryRegistry
from facturador.authority.simulator import SunatSimulator
from facturador.ubl.signing import SigningIdentity, generate_identity
from tests.samples.ubl_xml import ISSUER_RUC, make_simulator


@pytest.fixture(scope="session")
def sunat_identity() -> SigningIdentity:
    return SigningIdentity.from_pem(*generate_identity("20131312955", "SUNAT"))


@pytest.fixture(scope="session")
def issuer_identity() -> SigningIdentity:
    return SigningIdentity.from_pem(*generate_identity(ISSUER_RUC, "EMISOR SAC"))


@pytest.fixture
def registry() -> InMemoryRegistry:
    return InMemoryRegistry()


@pytest.fixture
def simulator(sunat_identity: SigningIdentity, registry: InMemoryRegistry) -> SunatSimulator:
    return make_simulator(sunat_identity, registry)


@pytest.fixture
def strict_simulator(sunat_identity: SigningIdentity, registry: InMemoryRegistry) -> SunatSimulator:
    return make_simulator(sunat_identity, registry, mode="strict")
