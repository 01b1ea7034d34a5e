"""The simulator on issue 11's blocks: the service's own XML is accepted, and each broken variant gets
SUNAT's code (discounts and charges: 3114, 3290, 3307, 3271, 3277, 3280, 3300, 3301)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from lxml import etree

from facturador.authority.simulator import SunatSimulator
from facturador.domain.document_input import parse_document
from facturador.domain.documents import sales_document
from facturador.ubl.invoice import build_sales_document
from facturador.ubl.signing import SigningIdentity
from tests.samples import blocks
from tests.samples.documents import ISSUER
from tests.samples.ubl_xml import ISSUE_DATE, ISSUER_RUC, NS, package

Tree = etree._Element


def tree(body: dict[str, Any], number: int) -> Tree:
    """The service's XML of ``body`` (issued by the simulator's test issuer on its issue date), unsigned."""
    body.update(fecha_de_emision=ISSUE_DATE.isoformat(), fecha_de_vencimiento=ISSUE_DATE.isoformat())
    request = parse_document(body, today=ISSUE_DATE)
    issuer = dataclasses.replace(ISSUER, ruc=ISSUER_RUC)
    return build_sales_document(dataclasses.replace(sales_document(issuer, request), number=number))


def answer(simulator: SunatSimulator, root: Tree, identity: SigningIdentity) -> str:
    name, data = package(root, identity)
    return simulator.send_bill(name, data).code


def set_amount(root: Tree, path: str, value: str) -> None:
    found = root.xpath(path, namespaces=NS)
    assert found, path
    found[0].text = value


BODIES: dict[str, Callable[[], dict[str, Any]]] = {
    "free real client": blocks.free_invoice_real_client,
    "bag tax outside": blocks.bag_invoice,
    "export boleta": blocks.export_boleta,
    "line discount 00": blocks.line_discount_invoice,
    "line discount 01": blocks.line_discount_outside_invoice,
    "global discount 02": lambda: blocks.global_discount_invoice("02"),
    "global discount 03": lambda: blocks.global_discount_invoice("03"),
    "global charge 46": lambda: blocks.global_charge_invoice("46"),
    "global charge 49": lambda: blocks.global_charge_invoice("49"),
    "advance": blocks.advance_invoice,
    "ivap": blocks.ivap_invoice,
    "perception": blocks.perception_invoice,
    "retention": blocks.retention_invoice,
    "references": blocks.references_invoice,
    "payments": blocks.payments_invoice,
    "final invoice with an advance": lambda: blocks.final_invoice("F001-1"),
}


def drop(root: Tree, path: str) -> None:
    for node in root.xpath(path, namespaces=NS):
        node.getparent().remove(node)


@pytest.mark.parametrize("name", sorted(BODIES))
def test_the_services_xml_is_accepted(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, name: str
) -> None:
    assert answer(simulator, tree(BODIES[name](), 1), issuer_identity) == "0"


LINE_AC = "cac:InvoiceLine/cac:AllowanceCharge"
BROKEN: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[Tree], None], str]] = {
    "line indicator says charge for discount 00": (
        blocks.line_discount_invoice,
        lambda r: set_amount(r, f"{LINE_AC}/cbc:ChargeIndicator", "true"),
        "3114",
    ),
    "line amount is not base x factor": (
        blocks.line_discount_invoice,
        lambda r: set_amount(r, f"{LINE_AC}/cbc:MultiplierFactorNumeric", "0.5"),
        "3290",
    ),
    "line value not net of discount 00": (
        blocks.line_discount_invoice,
        lambda r: (
            set_amount(r, f"{LINE_AC}/cbc:Amount", "20.00"),
            set_amount(r, f"{LINE_AC}/cbc:MultiplierFactorNumeric", "0.2"),
        ),
        "3271",
    ),
    "global amount is not base x factor": (
        lambda: blocks.global_discount_invoice("02"),
        lambda r: set_amount(r, "cac:AllowanceCharge/cbc:BaseAmount", "300.00"),
        "3307",
    ),
    "taxed base not net of 02": (
        lambda: blocks.global_discount_invoice("02"),
        lambda r: set_amount(
            r,
            "cac:TaxTotal/cac:TaxSubtotal[cac:TaxCategory/cac:TaxScheme/cbc:ID='1000']/cbc:TaxableAmount",
            "100.00",
        ),
        "3277",
    ),
    "allowance total wrong": (
        lambda: blocks.global_discount_invoice("03"),
        lambda r: set_amount(r, "cac:LegalMonetaryTotal/cbc:AllowanceTotalAmount", "15.90"),
        "3300",
    ),
    "charge total wrong": (
        lambda: blocks.global_charge_invoice("46"),
        lambda r: set_amount(r, "cac:LegalMonetaryTotal/cbc:ChargeTotalAmount", "20.00"),
        "3301",
    ),
    "paid amounts differ from the prepaid total": (
        lambda: blocks.final_invoice("F001-1"),
        lambda r: set_amount(r, "cac:PrepaidPayment/cbc:PaidAmount", "90.00"),
        "2509",
    ),
    "prepaid total without a discount 04": (
        lambda: blocks.final_invoice("F001-1"),
        lambda r: drop(r, "cac:AllowanceCharge"),
        "3287",
    ),
    "discount 04 without a prepaid total": (
        lambda: blocks.final_invoice("F001-1"),
        lambda r: (drop(r, "cac:PrepaidPayment"), drop(r, "cac:LegalMonetaryTotal/cbc:PrepaidAmount")),
        "3282",
    ),
    "payable ignores the charge": (
        lambda: blocks.global_charge_invoice("46"),
        lambda r: set_amount(r, "cac:LegalMonetaryTotal/cbc:PayableAmount", "118.00"),
        "3280",
    ),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_variants_get_sunats_code(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, name: str
) -> None:
    make, breaks, code = BROKEN[name]
    root = tree(make(), 2)
    breaks(root)
    assert answer(simulator, root, issuer_identity) == code


WITHHOLDINGS: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[Tree], None], str]] = {
    "perception on operation 0101": (
        blocks.perception_invoice,
        lambda r: r.find("cbc:InvoiceTypeCode", NS).set("listID", "0101"),
        "3308",
    ),
    "operation 2001 without the perception charge": (
        blocks.perception_invoice,
        lambda r: drop(r, "cac:AllowanceCharge"),
        "3093",
    ),
    "operation 2001 without PaymentTerms Percepcion": (
        blocks.perception_invoice,
        lambda r: drop(r, "cac:PaymentTerms[cbc:ID='Percepcion']"),
        "3309",
    ),
    "perception amount not base x factor": (
        blocks.perception_invoice,
        lambda r: set_amount(r, "cac:AllowanceCharge/cbc:Amount", "9.00"),
        "2798",
    ),
    "retention amount not base x factor": (
        blocks.retention_invoice,
        lambda r: set_amount(r, "cac:AllowanceCharge/cbc:Amount", "90.00"),
        "3263",
    ),
}


@pytest.mark.parametrize("name", sorted(WITHHOLDINGS))
def test_broken_withholdings_get_sunats_code(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, name: str
) -> None:
    make, breaks, code = WITHHOLDINGS[name]
    root = tree(make(), 3)
    breaks(root)
    assert answer(simulator, root, issuer_identity) == code
