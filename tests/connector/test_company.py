"""``client.company.certificate()`` and Inicio's certificate alert: our service tells the certificate a
tenant signs with and SUNAT's last certificate error; real tenants do not, and nothing is shown then."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from sqlalchemy import update

from analysis.alerts import alerts, certificate, needs_a_person
from connector import Client
from connector.company import AttentionItem, CertificateStatus
from facturador.store.models import DOCUMENTS
from tests.conftest import LiveService
from tests.real_tenant.server import running, stand_in
from tests.real_tenant.variants import PRO9
from tests.samples.bodies import invoice_body
from tests.shops import new_shop


def _status(**changes: object) -> CertificateStatus:
    values: dict[str, object] = {
        "sending": "production",
        "subject": "CN=20100066603 EMPRESA",
        "not_after": dt.date(2027, 6, 30),
        "days_left": 200,
        "self_signed": False,
        "last_error": None,
    }
    values.update(changes)
    return CertificateStatus(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "severity", "words"),
    [
        ({}, "ok", "vigente hasta el 30/06/2027"),
        ({"days_left": 12, "not_after": dt.date(2026, 12, 9)}, "warning", "vence en 12 días (09/12/2026)"),
        ({"days_left": 1}, "warning", "vence en 1 día"),
        ({"days_left": -3, "not_after": dt.date(2026, 11, 24)}, "error", "venció el 24/11/2026"),
        ({"self_signed": True}, "error", "certificado de prueba"),
        ({"self_signed": True, "sending": "simulator"}, "ok", "vigente"),
        (
            {
                "last_error": {
                    "code": "2325",
                    "description": "El certificado usado no es el comunicado a SUNAT",
                    "number": "F001-9",
                }
            },
            "error",
            "SUNAT rechazó F001-9 por el certificado (2325)",
        ),
    ],
)
def test_the_certificate_alert(changes: dict[str, object], severity: str, words: str) -> None:
    alert = certificate(_status(**changes))
    assert alert.severity == severity and words in alert.title


def test_a_tenant_that_does_not_tell_gets_no_certificate_alert() -> None:
    today = dt.date(2026, 11, 27)
    assert "certificate" not in {alert.kind for alert in alerts([], today)}
    assert "certificate" in {alert.kind for alert in alerts([], today, None, _status())}


def test_our_service_tells_the_certificate_and_the_last_certificate_error(live: LiveService) -> None:
    shop = new_shop(live, "cert")
    with shop.client() as client:
        status = client.company.certificate()
        assert status is not None and status.sending == "simulator"
        assert status.self_signed is True and status.days_left is not None and status.days_left > 1000
        assert status.last_error is None
        issued = client.documents.issue(invoice_body())
    # SUNAT refused one with a certificate error (written as the simulator would store it)
    with live.context.writing() as connection:
        connection.execute(
            update(DOCUMENTS)
            .where(DOCUMENTS.c.external_id == issued.external_id)
            .values(
                state_type_id="09",
                response={"code": "2325", "description": "El certificado usado no es el comunicado a SUNAT"},
            )
        )
    with shop.client() as client:
        status = client.company.certificate()
    assert status is not None and status.last_error is not None
    assert status.last_error["code"] == "2325" and status.last_error["number"] == issued.number
    assert json.dumps(status.last_error)  # plain data for the page


def test_a_real_tenant_has_no_certificate_endpoint() -> None:
    standin = stand_in(PRO9)
    with running(standin), Client(standin.root, standin.token, cache=False) as client:
        assert client.company.certificate() is None


def test_what_waits_for_a_person_is_an_error_alert_on_inicio_and_nothing_when_not_told() -> None:
    today = dt.date(2026, 12, 5)
    item = AttentionItem("summary", "RC-20261204-1", dt.date(2026, 12, 4), "2223", "Requiere revisión: ...")
    alert = needs_a_person([item])
    assert alert.severity == "error" and alert.title == "1 comprobante o resumen requiere una persona"
    assert alert.rows == [
        {
            "Referencia": "RC-20261204-1",
            "Fecha": dt.date(2026, 12, 4),
            "Código SUNAT": "2223",
            "Qué hacer": "Requiere revisión: ...",
        }
    ]
    assert needs_a_person([]).severity == "ok"
    assert alerts([], today, attention=[item])[0].kind == "attention"
    assert "attention" not in {found.kind for found in alerts([], today)}  # a real tenant tells nothing
