"""A tenant that sends over SOAP, to the simulator's SUNAT endpoint on loopback, as it would to SUNAT.

Each test makes two tenants: ``soap``, set to SUNAT's production whose URL is the service's own
``/sunat`` endpoint (its SOL user and password checked there; SUNAT's beta gets only ``MODDATOS``), and
``local``, on the in-process simulator. Every family (01, 03, 07, 08, RC, RA, 20, 40, RR) gets the same
states, codes and observations through both.
Then failures are injected at the SOAP endpoint (``facturador.store.faults``): faults of each code
family, 503, a time-out after the document was registered, connections cut before and after, a
truncated CDR, garbage, 1033 for a document it has, 0109 for an hour. After each: no number lost,
skipped or reused, nothing registered twice at the endpoint, every pending document accepted once the
endpoint recovers.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from facturador.authority.soap.injection import Fault
from facturador.domain.pending import PendingSender
from facturador.store.faults import SqlFaultStore
from facturador.store.models import AUTHORITY_RECORDS
from tests.common import issue, wait_for
from tests.conftest import LiveService
from tests.facturador.api.test_summaries import (
    boleta_note_body,
    declare,
    status_of,
    today,
    void_boletas,
)
from tests.samples.bodies import boleta_body, credit_note_body, invoice_body
from tests.samples.ubl_xml import BAD_CHECK_DIGIT_RUC
from tests.samples.withholding import perception, retention
from tests.shops import Shop, new_shop

pytestmark = pytest.mark.slow

SOL_USER = "FACTURA1"
SOL_PASSWORD = "Clave.SOL-9&<>"


def soap_shop(live: LiveService, prefix: str, **settings: Any) -> Shop:
    """A tenant sending to SUNAT's production paths of this service's SOAP endpoint with its own SOL user
    (the company's user goes only to production or an OSE: beta gets ``MODDATOS``)."""
    shop = new_shop(live, prefix, send_retry_seconds=0.0, **settings)
    shop.set_secret("sol_password", SOL_PASSWORD)
    shop.set(
        sunat_sending="production",
        sunat_url=f"{live.root}/sunat",
        sol_user=SOL_USER,
        sunat_timeout=2.0,
        sunat_retries=1,
    )
    return shop


@pytest.fixture
def faults(live: LiveService) -> Iterator[SqlFaultStore]:
    store = SqlFaultStore(live.context.db)
    yield store
    store.clear()


def outcome(payload: dict[str, Any]) -> tuple[str, str, tuple[str, ...]]:
    """What must be equal through SOAP and in process: state, SUNAT's code and observations."""
    response = payload.get("response") or {}
    return payload["data"]["state_type_id"], str(response.get("code")), tuple(response.get("notes") or ())


def registrations(live: LiveService, shop: Shop) -> int:
    """How many documents the simulator holds for the shop's RUC (each registered once)."""
    with live.context.engine.connect() as connection:
        return connection.execute(
            select(func.count())
            .select_from(AUTHORITY_RECORDS)
            .where(AUTHORITY_RECORDS.c.issuer_ruc == shop.ruc)
        ).scalar_one()


def rows(client: httpx.Client) -> dict[str, dict[str, Any]]:
    answer = client.get(f"/api/documents/lists/{today()}/{today()}")
    return {row["number"]: row for row in answer.json()["data"]}


def test_every_family_answers_through_soap_as_in_process(live: LiveService) -> None:
    soap = soap_shop(live, "soap", authority_mode="strict")
    local = new_shop(live, "local", authority_mode="strict")
    results: dict[str, list[Any]] = {"soap": [], "local": []}
    for name, shop in (("soap", soap), ("local", local)):
        got = results[name]
        with (
            shop.client() as connector,
            httpx.Client(
                base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60
            ) as client,
        ):
            factura = issue(client, invoice_body(), "/api/documents")
            got.append(outcome(factura))
            external_id = factura["data"]["external_id"]
            got.append(outcome(issue(client, credit_note_body(external_id), "/api/documents")))
            debit = credit_note_body(external_id, codigo_tipo_documento="08", serie_documento="FD01")
            debit["codigo_tipo_nota"] = "01"
            got.append(outcome(issue(client, debit, "/api/documents")))
            bad = invoice_body()
            bad["datos_del_cliente_o_receptor"]["numero_documento"] = BAD_CHECK_DIGIT_RUC
            rejected = issue(client, bad, "/api/documents")
            got.append(bool(rejected["links"]["cdr"]))  # SOAP: the fault's CDR is asked for and kept
            got.append(outcome(rejected))
            boleta = issue(client, boleta_body(), "/api/documents")["data"]["external_id"]
            issue(client, boleta_note_body(boleta), "/api/documents")
            got.append(status_of(client, declare(client), accepted=True)["response"]["code"])
            got.append(status_of(client, void_boletas(client, boleta), accepted=True)["response"]["code"])
            voided = client.post(
                "/api/voided",
                json={
                    "fecha_de_emision_de_documentos": today(),
                    "documentos": [{"external_id": external_id, "motivo_anulacion": "Error en el precio"}],
                },
            )
            assert voided.status_code == 200, voided.text
            answer = wait_for(
                client, "/api/voided/status", {"external_id": voided.json()["data"]["external_id"]}
            )
            got.append(answer.json()["response"]["code"])
            for plural, body in (("retentions", retention()), ("perceptions", perception())):
                issued = issue(client, body, f"/api/{plural}")
                got.append(outcome(issued))
                reversal = client.post(
                    f"/api/{plural}/voided",
                    json={
                        "fecha_de_emision_de_documentos": body["fecha_de_emision"],
                        "documentos": [
                            {"external_id": issued["data"]["external_id"], "motivo_anulacion": "Error"}
                        ],
                    },
                )
                assert reversal.status_code == 200, reversal.text
                ticket = {"external_id": reversal.json()["data"]["external_id"]}
                got.append(
                    wait_for(client, f"/api/{plural}/voided/status", ticket).json()["response"]["code"]
                )
            got.append(sorted((row["number"], row["state_type_id"]) for row in rows(client).values()))
            assert connector.company.certificate() is not None
    assert results["soap"] == results["local"]
    assert results["soap"][0] == ("05", "0", ())
    assert results["soap"][3] is True and results["soap"][4][0] == "09"  # rejected, with its CDR


def _issue_factura(client: httpx.Client) -> dict[str, Any]:
    return issue(client, invoice_body(), "/api/documents")["data"]


FAILURES = [
    # kind, code, how many requests it strikes, the state right after, the code right after
    ("fault", "0109", 1, "01", "0109"),
    ("fault", "0111", 1, "01", "0111"),
    ("fault", "0130", 1, "01", "0130"),
    ("503", "", 1, "05", "0"),  # retried at once (sunat_retries=1)
    ("503", "", 5, "01", "HTTP-503"),
    ("reset", "", 1, "01", "CUT"),  # never processed: the consultation finds nothing
    ("reset-after", "", 1, "05", "0"),  # processed: its CDR is recovered at once
    ("cut", "", 1, "05", "0"),
    ("timeout", "", 1, "05", "0"),
    ("truncated-zip", "", 1, "05", "0"),
    ("garbage", "", 1, "05", "0"),
    ("duplicate", "1033", 1, "05", "0"),
    ("duplicate", "0402", 1, "05", "0"),
]


@pytest.mark.parametrize(("kind", "code", "times", "state", "answered"), FAILURES)
def test_a_failure_loses_no_number_and_registers_nothing_twice(
    live: LiveService, faults: SqlFaultStore, kind: str, code: str, times: int, state: str, answered: str
) -> None:
    shop = soap_shop(live, "fail")
    with httpx.Client(
        base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60
    ) as client:
        first = _issue_factura(client)
        faults.add(Fault(kind, ruc=shop.ruc, operation="sendBill", code=code, remaining=times, seconds=4.0))
        hit = issue(client, invoice_body(), "/api/documents")
        assert (hit["data"]["state_type_id"], str(hit["response"]["code"])) == (state, answered), hit
        faults.clear(shop.ruc)
        sent = PendingSender(live.context).send_due(tenant=shop.slug, force=True)
        assert all(outcome.settled for outcome in sent), [outcome.describe() for outcome in sent]
        last = _issue_factura(client)
        listed = rows(client)
    numbers = sorted(int(number.split("-")[1]) for number in listed)
    assert numbers == [1, 2, 3], "a number was lost, skipped or reused"
    assert {listed[n]["state_type_id"] for n in listed} == {"05"}
    assert first["number"] == "F001-1" and last["number"] == "F001-3"
    assert registrations(live, shop) == 3  # each document registered once at the endpoint


@pytest.mark.parametrize("code", ["2800", "3244"])
def test_a_rejection_fault_consumes_the_number(live: LiveService, faults: SqlFaultStore, code: str) -> None:
    shop = soap_shop(live, "rechazo")
    with httpx.Client(
        base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60
    ) as client:
        faults.add(Fault("fault", ruc=shop.ruc, operation="sendBill", code=code, remaining=1))
        rejected = issue(client, invoice_body(), "/api/documents")
        assert rejected["data"]["state_type_id"] == "09" and rejected["response"]["code"] == code
        assert rejected["links"]["cdr"] == ""  # SUNAT answered a fault: no CDR
        assert PendingSender(live.context).pending(tenant=shop.slug) == []
        assert _issue_factura(client)["number"] == "F001-2"


def test_an_hour_of_0109_leaves_documents_pending_and_they_are_sent_once(
    live: LiveService, faults: SqlFaultStore
) -> None:
    shop = soap_shop(live, "caida")
    faults.add(
        Fault(
            "fault",
            ruc=shop.ruc,
            code="0109",
            until=dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(hours=1),
        )
    )
    with httpx.Client(
        base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60
    ) as client:
        issued = [issue(client, invoice_body(), "/api/documents") for _ in range(5)]
        assert {payload["response"]["code"] for payload in issued} == {"0109"}
        retention_sent = issue(client, retention(), "/api/retentions")
        assert retention_sent["data"]["state_type_id"] == "01"
        summary = client.post(
            "/api/summaries", json={"fecha_de_emision_de_documentos": today(), "codigo_tipo_proceso": "1"}
        )
        sender = PendingSender(live.context)
        still = sender.send_due(tenant=shop.slug, force=True)
        assert len(still) == 6 and not any(outcome.settled for outcome in still)
        faults.clear(shop.ruc)
        sent = sender.send_due(tenant=shop.slug, force=True)
        assert len(sent) == 6 and all(outcome.state == "05" for outcome in sent)
        assert sender.send_due(tenant=shop.slug, force=True) == []
        listed = rows(client)
    assert summary.status_code in (422, 502)  # no boletas that day, or SUNAT down: nothing stored
    assert sorted(listed) == [f"F001-{n}" for n in range(1, 6)]
    assert registrations(live, shop) == 6


@pytest.mark.parametrize("code", ["0102", "0111"])
def test_a_login_or_profile_error_is_an_exception_not_a_rejection(
    live: LiveService, faults: SqlFaultStore, code: str
) -> None:
    """SUNAT refusing the SOL user (0102) or its profile (0111) processed nothing: the document stays
    registered and is accepted once the user works (sunat-py reads any numeric fault as a rejection)."""
    shop = soap_shop(live, "clave")
    faults.add(Fault("fault", ruc=shop.ruc, code=code, remaining=3))
    with httpx.Client(
        base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60
    ) as client:
        hit = issue(client, invoice_body(), "/api/documents")
        assert hit["data"]["state_type_id"] == "01" and hit["response"]["code"] == code
        faults.clear(shop.ruc)
        sent = PendingSender(live.context).send_due(tenant=shop.slug, force=True)
        assert [outcome.state for outcome in sent] == ["05"]
        assert rows(client)[hit["data"]["number"]]["state_type_id"] == "05"


def test_a_summary_refused_is_withdrawn_and_one_never_answered_is_sent_again(
    live: LiveService, faults: SqlFaultStore
) -> None:
    shop = soap_shop(live, "resumen")
    body = {"fecha_de_emision_de_documentos": today(), "codigo_tipo_proceso": "1"}
    with httpx.Client(
        base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60
    ) as client:
        boletas = [issue(client, boleta_body(), "/api/documents")["data"]["external_id"] for _ in range(2)]
        # SUNAT down: nothing stored, the boletas stay registered
        faults.add(Fault("fault", ruc=shop.ruc, operation="sendSummary", code="0109", remaining=1))
        refused = client.post("/api/summaries", json=body)
        assert refused.status_code == 502 and refused.json()["message"].startswith("Code: 0109")
        assert client.get(f"/api/summaries/lists/{today()}/{today()}").json()["data"] == []
        assert {rows(client)[n]["state_type_id"] for n in rows(client)} == {"01"}
        # the connection closed before SUNAT read it: kept, and sent again when its status is asked
        faults.add(Fault("reset", ruc=shop.ruc, operation="sendSummary", remaining=1))
        lost = client.post("/api/summaries", json=body)
        assert lost.status_code == 502 and "quedó registrado" in lost.json()["message"], lost.text
        external_id = lost.json()["message"].split("external_id ")[1].split(")")[0]
        assert {rows(client)[n]["state_type_id"] for n in rows(client)} == {"03"}
        answer = wait_for(client, "/api/summaries/status", {"external_id": external_id})
        assert answer.status_code == 200 and answer.json()["response"]["is_accepted"] is True
        listed = client.get(f"/api/summaries/lists/{today()}/{today()}").json()["data"]
    assert [row["identifier"] for row in listed] == [f"RC-{today().replace('-', '')}-1"]
    assert {rows_state for rows_state in (r["state_type_id"] for r in listed)} == {"05"}
    assert len(boletas) == 2


def _summary(live: LiveService, external_id: str) -> Any:
    from facturador.store.models import SUMMARIES

    with live.context.engine.connect() as connection:
        return connection.execute(
            select(SUMMARIES.c.state_type_id, SUMMARIES.c.next_poll_at, SUMMARIES.c.poll_attempts).where(
                SUMMARIES.c.external_id == external_id
            )
        ).one()


def test_the_background_poller_asks_with_doubling_waits_and_stops_at_an_unknown_ticket(
    live: LiveService, faults: SqlFaultStore
) -> None:
    from facturador.domain.pending import TicketPoller
    from facturador.domain.send_policy import utc_now

    shop = soap_shop(live, "poller", authority_ticket_delay=4.0)
    poller = TicketPoller(live.context)
    with httpx.Client(
        base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60
    ) as client:
        issue(client, boleta_body(), "/api/documents")
        sent = declare(client)
        first = _summary(live, sent["external_id"])
        assert first.state_type_id == "03" and first.next_poll_at is not None
        assert poller.poll_due(tenant=shop.slug) == []  # not due yet (10 s after sending)
        later = utc_now() + dt.timedelta(seconds=15)
        (polled,) = poller.poll_due(tenant=shop.slug, now=later)
        assert polled.state == "03" and "still in process" in polled.describe()
        second = _summary(live, sent["external_id"])
        assert second.poll_attempts == 1
        assert dt.timedelta(seconds=19) < second.next_poll_at - utc_now() <= dt.timedelta(seconds=21)
        # SUNAT answers: the poller settles it without anybody asking
        time.sleep(4.5)
        (settled,) = poller.poll_due(tenant=shop.slug, now=utc_now() + dt.timedelta(seconds=30))
        assert settled.state == "05" and settled.code == "0"
        assert _summary(live, sent["external_id"]).next_poll_at is None
        # a ticket SUNAT does not know: reported once, never asked about again
        issue(client, boleta_body(), "/api/documents")
        unknown = declare(client)
        faults.add(Fault("fault", ruc=shop.ruc, operation="getStatus", code="0127", remaining=5))
        (refused,) = poller.poll_due(tenant=shop.slug, now=utc_now() + dt.timedelta(seconds=30))
        assert refused.error is not None and "0127" in refused.error
        assert _summary(live, unknown["external_id"]).next_poll_at is None
        assert poller.poll_due(tenant=shop.slug, now=utc_now() + dt.timedelta(hours=2)) == []
