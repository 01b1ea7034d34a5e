"""The simulator's rules on detraction (PaymentMeans/PaymentTerms "Detraccion") and credit instalments.

reference/sunat.md §2.4: 3127/3033/3128/3129/3034/3035 and observation 4265 for detraction; 3248, 3249,
3251, 3252, 3254, 3256, 3265, 3266, 3267 and 3319 for FormaPago Credito and its Cuota001... terms. Each
case tampers a valid hand-written document before signing it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TypeAlias

import pytest
from lxml import etree

from facturador.authority.gateway import AuthorityResponse, ResponseKind
from facturador.authority.simulator import SunatSimulator
from facturador.ubl.signing import SigningIdentity
from sunat.catalogs import response_message
from tests.samples.ubl_xml import (
    ISSUE_DATE,
    NS,
    add_detraction,
    find,
    invoice,
    make_credit,
    package,
    remove,
    set_text,
)

Tree: TypeAlias = etree._Element
LEGEND_2006 = (("1000", "CIENTO DIECIOCHO CON 00/100 SOLES"), ("2006", "Operación sujeta a detracción"))
DUE_1 = (ISSUE_DATE + timedelta(days=30)).isoformat()
DUE_2 = (ISSUE_DATE + timedelta(days=60)).isoformat()


def send(simulator: SunatSimulator, root: Tree, identity: SigningIdentity) -> AuthorityResponse:
    name, data = package(root, identity)
    return simulator.send_bill(name, data)


def detraction_invoice(operation: str = "1001", **kwargs: object) -> Tree:
    """A factura (118.00) of ``operation`` with legend 2006 and a detraction (``add_detraction`` kwargs)."""
    return add_detraction(invoice(operation=operation, legends=LEGEND_2006), **kwargs)  # type: ignore[arg-type]


def credit_invoice(cuotas: list[tuple[str | None, str | None]], **kwargs: object) -> Tree:
    """A factura (total 118.00) on credit with ``cuotas`` (``make_credit`` kwargs)."""
    return make_credit(invoice(), cuotas, **kwargs)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- accepted


ACCEPTED: dict[str, Callable[[], Tree]] = {
    "detraction 1001": lambda: detraction_invoice(),
    "detraction 1002 hydrobiological 004": lambda: detraction_invoice("1002", code="004", percent="4"),
    "detraction 1003 passengers 028": lambda: detraction_invoice("1003", code="028", percent="4"),
    "detraction in a USD factura (amount in PEN)": lambda: add_detraction(
        invoice(operation="1001", currency="USD", legends=LEGEND_2006)
    ),
    "credit, 2 instalments": lambda: credit_invoice([("59.00", DUE_1), ("59.00", DUE_2)]),
    "credit, instalment due on the issue date": lambda: credit_invoice([("118.00", ISSUE_DATE.isoformat())]),
    "detraction + credit (pending = total - detraction)": lambda: make_credit(
        detraction_invoice(percent="4", amount="4.72"), [("56.64", DUE_1), ("56.64", DUE_2)]
    ),
}


@pytest.mark.parametrize("label", ACCEPTED)
def test_accepted(simulator: SunatSimulator, issuer_identity: SigningIdentity, label: str) -> None:
    response = send(simulator, ACCEPTED[label](), issuer_identity)
    assert (response.code, response.kind) == ("0", ResponseKind.ACCEPTED), response.description


def test_detraction_without_legend_2006_is_observed(
    simulator: SunatSimulator, issuer_identity: SigningIdentity
) -> None:
    response = send(simulator, add_detraction(invoice(operation="1001")), issuer_identity)
    assert response.code == "0" and response.kind is ResponseKind.OBSERVED
    assert response.note_codes == ("4265",)


# ---------------------------------------------------------------------------------------------- rejected


def _cash_and_cuota() -> Tree:
    root = credit_invoice([("118.00", DUE_1)])
    set_text(root, "cac:PaymentTerms[cbc:PaymentMeansID='Credito']/cbc:PaymentMeansID", "Contado")
    remove(root, "cac:PaymentTerms[cbc:PaymentMeansID='Contado']/cbc:Amount")
    return root


def _usd_cuota() -> Tree:
    root = credit_invoice([("118.00", DUE_1)])
    find(root, "cac:PaymentTerms[cbc:PaymentMeansID='Cuota001']/cbc:Amount").set("currencyID", "USD")
    return root


REJECTED: dict[str, tuple[Callable[[], Tree], str]] = {
    # detraction
    "1001 without detraction": (lambda: invoice(operation="1001", legends=LEGEND_2006), "3127"),
    "1001 detraction without code": (lambda: detraction_invoice(code=None), "3127"),
    "code not in catalog 54": (lambda: detraction_invoice(code="999"), "3033"),
    "detraction on 0101": (lambda: add_detraction(invoice(operation="0101")), "3128"),
    "1002 with code 037": (lambda: detraction_invoice("1002", code="037"), "3129"),
    "1003 with code 004": (lambda: detraction_invoice("1003", code="004"), "3129"),
    "1004 with code 037": (lambda: detraction_invoice("1004", code="037"), "3129"),
    "no detraction amount": (lambda: detraction_invoice(amount=None), "3035"),
    "no detraction account": (lambda: detraction_invoice(account=None), "3034"),
    "no detraction PaymentMeans": (
        lambda: remove(detraction_invoice(), "cac:PaymentMeans"),
        "3034",
    ),
    # instalments
    "Credito without cuotas": (lambda: credit_invoice([]), "3249"),
    "Credito without amount": (lambda: credit_invoice([("118.00", DUE_1)], pending=""), "3251"),
    "Credito amount above payable": (
        lambda: credit_invoice([("100.00", DUE_1), ("100.00", DUE_2)], pending="200.00"),
        "3265",
    ),
    "cuota without amount": (
        lambda: credit_invoice([(None, DUE_1), ("118.00", DUE_2)], pending="118.00"),
        "3254",
    ),
    "cuota above payable": (lambda: credit_invoice([("150.00", DUE_1)], pending="118.00"), "3266"),
    "cuota without due date": (lambda: credit_invoice([("118.00", None)]), "3256"),
    "cuota due before issue date": (
        lambda: credit_invoice([("118.00", (ISSUE_DATE - timedelta(days=1)).isoformat())]),
        "3267",
    ),
    "cuotas do not add up to the pending amount": (
        lambda: credit_invoice([("50.00", DUE_1), ("50.00", DUE_2)], pending="118.00"),
        "3319",
    ),
    "duplicate cuota id": (
        lambda: credit_invoice([("59.00", DUE_1), ("59.00", DUE_2)], ids=["Cuota001", "Cuota001"]),
        "3248",
    ),
    "bad cuota id": (lambda: credit_invoice([("118.00", DUE_1)], ids=["Cuota1"]), "3246"),
    "cuota with Contado": (_cash_and_cuota, "3252"),
    "cuota in another currency": (_usd_cuota, "2071"),
}


@pytest.mark.parametrize("label", REJECTED)
def test_rejected(simulator: SunatSimulator, issuer_identity: SigningIdentity, label: str) -> None:
    build, code = REJECTED[label]
    response = send(simulator, build(), issuer_identity)
    assert response.code == code, response.description
    assert response.kind is ResponseKind.REJECTED
    assert response.description.startswith(response_message(code))


def test_detraction_amount_may_stay_in_pen_but_the_pending_amount_may_not(
    simulator: SunatSimulator, issuer_identity: SigningIdentity
) -> None:
    root = make_credit(detraction_invoice(percent="4", amount="4.72"), [("113.28", DUE_1)])
    find(root, "cac:PaymentTerms[cbc:PaymentMeansID='Credito']/cbc:Amount").set("currencyID", "USD")
    assert send(simulator, root, issuer_identity).code == "2071"
    assert root.find("cac:PaymentTerms[cbc:ID='Detraccion']/cbc:Amount", NS).get("currencyID") == "PEN"
