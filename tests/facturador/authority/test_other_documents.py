"""The simulator's other-documents service on its own: retentions and perceptions through ``sendBill``
(file, identification, resends, rules) and reversions (RR) through ``sendSummary`` and tickets."""

from __future__ import annotations

import dataclasses
from datetime import time, timedelta
from decimal import Decimal

import pytest

from facturador.authority.gateway import AuthorityError, ResponseKind
from facturador.authority.packaging import zip_document
from facturador.authority.simulator import SunatSimulator
from facturador.issued import Issuer
from facturador.ubl.retention import OtherDocument, PaymentLine, Receiver, sign_other_document
from facturador.ubl.signing import SigningIdentity
from facturador.ubl.summaries import VoidedCommunication, VoidedLine, sign_summary
from sunat import withholding
from sunat.calendar import peru_today
from tests.samples.ubl_xml import ISSUER_RUC

RECEIVER = Receiver("6", "20100070970", "SUPERMERCADOS PERUANOS S.A.")


@pytest.fixture
def simulator(simulator: SunatSimulator) -> SunatSimulator:
    """The authority tests' simulator, on today's date (the documents here are dated today)."""
    simulator.today = peru_today
    return simulator


def document(doc_type: str = "20", number: int = 1, **changes: object) -> OtherDocument:
    today = peru_today()
    regime = "01"
    amounts = withholding.payment_amounts(doc_type, regime, Decimal("1000"))
    line = PaymentLine(
        doc_type="01",
        document_id="F001-9",
        issue_date=today,
        currency="PEN",
        total=Decimal("1000"),
        payment_number=1,
        payment=Decimal("1000"),
        payment_date=today,
        amount=amounts.amount,
        withheld_on=today,
        net=amounts.net,
    )
    base = OtherDocument(
        doc_type=doc_type,
        issuer=Issuer(ISSUER_RUC, "EMISOR SAC", address="Av. Lima 1", ubigeo="150101"),
        series="R001" if doc_type == "20" else "P001",
        number=number,
        issue_date=today,
        issue_time=time(10, 0),
        receiver=RECEIVER,
        regime=regime,
        percent=withholding.rate(doc_type, regime),
        total_amount=amounts.amount,
        total_net=amounts.net,
        lines=(line,),
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def send(simulator: SunatSimulator, doc: OtherDocument, identity: SigningIdentity, name: str | None = None):  # type: ignore[no-untyped-def]
    signed = sign_other_document(doc, identity)
    return simulator.send_other_bill(
        name or signed.filename, zip_document(name or signed.filename, signed.xml)
    )


def test_accepted_then_resent(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    doc = document(number=11)
    first = send(simulator, doc, issuer_identity)
    assert first.code == "0" and first.cdr_zip and first.kind is ResponseKind.ACCEPTED
    assert first.description == "El Comprobante de Retencion numero R001-11, ha sido aceptada"
    again = send(simulator, doc, issuer_identity)  # unchanged: SUNAT's stored CDR
    assert again.code == "0" and again.cdr_zip == first.cdr_zip
    changed = send(simulator, dataclasses.replace(doc, note="otro"), issuer_identity)
    assert changed.code == "1033" and changed.kind is ResponseKind.EXCEPTION


def test_exceptions_of_the_file(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    doc = document(number=12)
    assert send(simulator, doc, issuer_identity, name=f"{ISSUER_RUC}-01-R001-12").code == "0302"
    assert send(simulator, doc, issuer_identity, name=f"{ISSUER_RUC}-20-R001-13").code == "1049"
    assert send(simulator, doc, issuer_identity, name="20100070970-20-R001-12").code == "1034"
    assert send(simulator, doc, issuer_identity, name="nonsense").code == "0151"
    perception_as_retention = sign_other_document(document("40", number=12), issuer_identity)
    name = f"{ISSUER_RUC}-20-P001-12"
    answer = simulator.send_other_bill(name, zip_document(name, perception_as_retention.xml))
    assert answer.code == "0301"
    simulator.outage = True
    assert send(simulator, doc, issuer_identity).code == "0109"


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"percent": Decimal("6")}, "2619"),
        ({"regime": "05"}, "2618"),
        ({"total_amount": Decimal("1.00")}, "2628"),
        ({"total_net": Decimal("1.00")}, "2629"),
        ({"receiver": Receiver("1", "12345678", "JUAN")}, "2511"),
        ({"receiver": Receiver("6", ISSUER_RUC, "YO")}, "2620"),
        ({"issue_date": peru_today() + timedelta(days=1)}, "2329"),
    ],
)
def test_rejections(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, changes: dict, code: str
) -> None:
    answer = send(simulator, document(number=int(code), **changes), issuer_identity)
    assert answer.code == code, answer.description
    assert answer.kind is ResponseKind.REJECTED and answer.cdr_zip


def test_line_rules(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    doc = document(number=200)
    line = doc.lines[0]
    wrong_rate = dataclasses.replace(line, amount=Decimal("60.00"), net=Decimal("940.00"))
    answer = send(
        simulator,
        dataclasses.replace(
            doc, lines=(wrong_rate,), total_amount=Decimal("60.00"), total_net=Decimal("940.00")
        ),
        issuer_identity,
    )
    assert answer.code == "2623"
    last_month = peru_today().replace(day=1) - timedelta(days=1)
    old = dataclasses.replace(line, payment_date=last_month)
    assert send(simulator, dataclasses.replace(doc, number=201, lines=(old,)), issuer_identity).code == "2661"
    twice = (line, line)
    doubled = dataclasses.replace(
        doc, number=202, lines=twice, total_amount=line.amount * 2, total_net=line.net * 2
    )
    assert send(simulator, doubled, issuer_identity).code == "2626"
    usd = dataclasses.replace(line, currency="USD")
    assert send(simulator, dataclasses.replace(doc, number=203, lines=(usd,)), issuer_identity).code == "2719"
    perception = document("40", number=204)
    assert send(simulator, perception, issuer_identity).code == "0"
    perceived = perception.lines[0]
    assert (perceived.amount, perceived.net) == (Decimal("20.00"), Decimal("1020.00"))


def test_a_reversion_voids_an_accepted_retention(
    simulator: SunatSimulator, issuer_identity: SigningIdentity
) -> None:
    simulator.ticket_delay = 0
    doc = document(number=300)
    assert send(simulator, doc, issuer_identity).code == "0"
    today = peru_today()
    reversion = VoidedCommunication(
        issuer=doc.issuer,
        identifier=f"RR-{today:%Y%m%d}-1",
        reference_date=today,
        issue_date=today,
        lines=(VoidedLine("20", "R001", 300, "Pago anulado"),),
    )
    signed = sign_summary(reversion, issuer_identity)
    ticket = simulator.send_other_summary(signed.filename, zip_document(signed.filename, signed.xml))
    status = simulator.get_status(ticket)
    assert status.accepted and status.response is not None
    assert status.response.description == f"El Resumen de reversiones RR-{today:%Y%m%d}-1, ha sido aceptado"
    # reverted: sent again it is 1032, and a second reversion is rejected (2323)
    assert send(simulator, doc, issuer_identity).code == "1032"
    again = dataclasses.replace(reversion, identifier=f"RR-{today:%Y%m%d}-2")
    signed = sign_summary(again, issuer_identity)
    ticket = simulator.send_other_summary(signed.filename, zip_document(signed.filename, signed.xml))
    assert simulator.get_status(ticket).response.code == "2323"  # type: ignore[union-attr]
    with pytest.raises(AuthorityError) as raised:  # the same file twice
        simulator.send_other_summary(signed.filename, zip_document(signed.filename, signed.xml))
    assert raised.value.code == "2324"
    unknown = dataclasses.replace(
        reversion, identifier=f"RR-{today:%Y%m%d}-3", lines=(VoidedLine("20", "R001", 999, "No existe"),)
    )
    signed = sign_summary(unknown, issuer_identity)
    ticket = simulator.send_other_summary(signed.filename, zip_document(signed.filename, signed.xml))
    assert simulator.get_status(ticket).response.code == "2105"  # type: ignore[union-attr]
    invoice_line = dataclasses.replace(
        reversion, identifier=f"RR-{today:%Y%m%d}-4", lines=(VoidedLine("01", "F001", 1, "No"),)
    )
    signed = sign_summary(invoice_line, issuer_identity)
    ticket = simulator.send_other_summary(signed.filename, zip_document(signed.filename, signed.xml))
    assert simulator.get_status(ticket).response.code == "2308"  # type: ignore[union-attr]
    with pytest.raises(AuthorityError) as raised:
        simulator.send_other_summary(f"{ISSUER_RUC}-RA-{today:%Y%m%d}-9", b"PK")
    assert raised.value.code == "0151"
