"""Documents made by the service's own UBL builder go through the simulator: all accepted, CDRs valid."""

from __future__ import annotations

import dataclasses
from datetime import date, timedelta

import pytest
from lxml import etree

from facturador.authority.cdr import parse_cdr
from facturador.authority.gateway import ResponseKind
from facturador.authority.packaging import read_zip, zip_document
from facturador.authority.registry import InMemoryRegistry
from facturador.ubl import invoice as invoice_module
from facturador.ubl.signing import SigningIdentity, generate_identity
from tests.samples import documents
from tests.samples.ubl_xml import AR_XSD, make_simulator

SCENARIOS = documents.scenarios()


@pytest.fixture(scope="module")
def builder_identity() -> SigningIdentity:
    return SigningIdentity.from_pem(*generate_identity(documents.ISSUER.ruc, documents.ISSUER.name))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_builder_scenario_accepted(
    name: str, sunat_identity: SigningIdentity, builder_identity: SigningIdentity
) -> None:
    doc = SCENARIOS[name]
    signed = invoice_module.build_and_sign(doc, builder_identity)
    simulator = make_simulator(sunat_identity, InMemoryRegistry(), today=doc.issue_date + timedelta(days=1))
    response = simulator.send_bill(signed.filename, zip_document(signed.filename, signed.xml))
    assert response.code == "0", response.description
    assert response.kind in (ResponseKind.ACCEPTED, ResponseKind.OBSERVED)
    entry, xml = read_zip(response.cdr_zip or b"")
    assert entry == f"R-{signed.filename}.xml"
    schema = etree.XMLSchema(etree.parse(str(AR_XSD)))
    assert schema.validate(etree.fromstring(xml)), schema.error_log
    assert parse_cdr(xml).reference_id == doc.full_number


def test_builder_wrong_igv_rejected(
    sunat_identity: SigningIdentity, builder_identity: SigningIdentity
) -> None:
    doc = SCENARIOS["taxed_invoice"]
    bad_line = dataclasses.replace(doc.lines[0], igv=doc.lines[0].igv + 7)
    bad = dataclasses.replace(doc, lines=(bad_line,))
    signed = invoice_module.build_and_sign(bad, builder_identity)
    simulator = make_simulator(sunat_identity, InMemoryRegistry(), today=date(2026, 3, 2))
    response = simulator.send_bill(signed.filename, zip_document(signed.filename, signed.xml))
    assert response.code == "3103" and response.kind is ResponseKind.REJECTED
