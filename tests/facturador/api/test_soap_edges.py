"""SUNAT's edge answers as the tenant's documents see them (issue 32, the client's side).

A tenant sends over SOAP either to the simulator's SUNAT endpoint of the running service (faults
injected there with :class:`~facturador.authority.soap.injection.Fault`) or to a recording endpoint on
loopback that keeps every request it gets (to check what goes on the wire).
"""

from __future__ import annotations

import datetime as dt
import http.server
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from facturador.authority.soap.injection import Fault
from facturador.authority.soap.protocol import BETA_SOL_PASSWORD, BETA_SOL_USER
from facturador.domain.pending import PendingSender, TicketPoller
from facturador.domain.send_policy import utc_now
from facturador.domain.summaries import MAX_POLL_ATTEMPTS, NEEDS_A_PERSON
from facturador.store.faults import SqlFaultStore
from facturador.store.models import AUTHORITY_TICKETS, DOCUMENTS, SUMMARIES
from tests.common import issue
from tests.conftest import LiveService
from tests.facturador.api.test_soap_sending import SOL_PASSWORD, SOL_USER, rows, soap_shop
from tests.facturador.api.test_summaries import declare, today
from tests.samples.bodies import boleta_body, invoice_body
from tests.shops import Shop

pytestmark = pytest.mark.slow

FAULT_0109 = (
    b'<?xml version="1.0" encoding="UTF-8"?><soap-env:Envelope '
    b'xmlns:soap-env="http://schemas.xmlsoap.org/soap/envelope/"><soap-env:Body><soap-env:Fault>'
    b"<faultcode>soap-env:Server.0109</faultcode><faultstring>El sistema no puede responder su solicitud. "
    b"(El servicio de autenticaci\xc3\xb3n no est\xc3\xa1 disponible)</faultstring></soap-env:Fault>"
    b"</soap-env:Body></soap-env:Envelope>"
)


class Recorder(http.server.ThreadingHTTPServer):
    """A SOAP endpoint on loopback that keeps every request body and answers SUNAT's fault 0109."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        super().__init__(("127.0.0.1", 0), _RecordingHandler)

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _RecordingHandler(http.server.BaseHTTPRequestHandler):
    server: Recorder

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.server.bodies.append(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        self.send_response(500)
        self.send_header("Content-Type", "text/xml; charset=utf-8")
        self.send_header("Content-Length", str(len(FAULT_0109)))
        self.end_headers()
        self.wfile.write(FAULT_0109)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def faults(live: LiveService) -> Iterator[SqlFaultStore]:
    store = SqlFaultStore(live.context.db)
    yield store
    store.clear()


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    server = Recorder()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _client(shop: Shop) -> httpx.Client:
    return httpx.Client(base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60)


@pytest.mark.parametrize("destination", ["beta", "production"])
def test_beta_gets_only_moddatos_and_the_sol_user_goes_only_to_production(
    live: LiveService, recorder: Recorder, destination: str
) -> None:
    """A tenant with its SOL user and password set that sends to SUNAT's beta: beta gets RUC + MODDATOS /
    moddatos and never the company's user or password; production gets the company's."""
    shop = soap_shop(live, "clave")
    shop.set(sunat_sending=destination, sunat_url=recorder.root, sunat_retries=0)
    with _client(shop) as client:
        hit = issue(client, invoice_body(), "/api/documents")
    assert hit["data"]["state_type_id"] == "01" and hit["response"]["code"] == "0109"
    assert recorder.bodies, "nothing reached the endpoint"
    for body in recorder.bodies:
        text = body.decode()
        if destination == "beta":
            assert f"<wsse:Username>{shop.ruc}{BETA_SOL_USER}</wsse:Username>" in text
            assert f">{BETA_SOL_PASSWORD}</wsse:Password>" in text
            assert SOL_USER not in text and "Clave.SOL" not in text
        else:
            assert f"<wsse:Username>{shop.ruc}{SOL_USER}</wsse:Username>" in text
            assert "Clave.SOL-9&amp;&lt;&gt;</wsse:Password>" in text
    assert SOL_PASSWORD.startswith("Clave.SOL")


def _document(live: LiveService, external_id: str) -> Any:
    with live.context.engine.connect() as connection:
        return connection.execute(
            select(DOCUMENTS.c.state_type_id, DOCUMENTS.c.response, DOCUMENTS.c.next_send_at).where(
                DOCUMENTS.c.external_id == external_id
            )
        ).one()


UNPROVEN = [
    # where the tenant sends, the already-registered code, and what keeps its CDR from being proved
    ("ose", "4000", "an OSE without billConsultService"),
    ("beta", "1033", "SUNAT's beta: no billConsultService"),
    ("production", "0402", "getStatusCdr fails"),
]


@pytest.mark.parametrize(("destination", "code", "why"), UNPROVEN)
def test_an_already_registered_answer_without_its_cdr_stays_pending_and_stops_after_three(
    live: LiveService, faults: SqlFaultStore, destination: str, code: str, why: str
) -> None:
    """SUNAT (or the OSE) answers that it already has the document, and its CDR cannot be had: the
    document stays 01 with that answer (never 07 without a CDR), is sent again, and after three such
    answers in a row the service stops sending it and says a person must settle it."""
    shop = soap_shop(live, "previo")
    if destination == "ose":
        shop.set(sunat_sending="ose", ose_url=f"{live.root}/sunat/ol-ti-itcpfegem/billService")
    elif destination == "beta":
        shop.set(sunat_sending="beta")
    else:
        faults.add(Fault("fault", ruc=shop.ruc, operation="getStatusCdr", code="0109"))
    faults.add(Fault("duplicate", ruc=shop.ruc, operation="sendBill", code=code, remaining=3))
    sender = PendingSender(live.context)
    with _client(shop) as client:
        hit = issue(client, invoice_body(), "/api/documents")
        assert (hit["data"]["state_type_id"], hit["response"]["code"]) == ("01", code), (why, hit)
        assert hit["links"]["cdr"] == ""
        external_id = hit["data"]["external_id"]
        assert [outcome.code for outcome in sender.send_due(tenant=shop.slug, force=True)] == [code]
        assert [outcome.code for outcome in sender.send_due(tenant=shop.slug, force=True)] == [code]
        assert sender.send_due(tenant=shop.slug, force=True) == []  # no fourth sending by itself
        stored = _document(live, external_id)
        assert stored.state_type_id == "01" and stored.next_send_at is None
        assert stored.response["code"] == code and stored.response["unproven"] == 3
        assert "no se reenvía más" in stored.response["attention"]
        listed = client.get("/api/documents/lists").json()["data"]
        waiting = client.get("/api/company/attention").json()["data"]
    (row,) = [r for r in listed if r["external_id"] == external_id]
    assert row["state_type_id"] == "01"
    assert [(item["kind"], item["reference"], item["code"]) for item in waiting] == [
        ("document", hit["data"]["number"], code)
    ]


def _summary_row(live: LiveService, external_id: str) -> Any:
    with live.context.engine.connect() as connection:
        return connection.execute(
            select(
                SUMMARIES.c.state_type_id,
                SUMMARIES.c.next_poll_at,
                SUMMARIES.c.poll_attempts,
                SUMMARIES.c.poll_error,
                SUMMARIES.c.ticket,
            ).where(SUMMARIES.c.external_id == external_id)
        ).one()


def _lost(client: httpx.Client, path: str, body: dict[str, Any]) -> str:
    """Send a summary whose answer is lost after SUNAT took it (a ``reset-after`` injected); its
    external_id (kept, to be sent again)."""
    lost = client.post(path, json=body)
    assert lost.status_code == 502 and "quedó registrado" in lost.json()["message"], lost.text
    return str(lost.json()["message"].split("external_id ")[1].split(")")[0])


def _poll_until_quiet(poller: TicketPoller, slug: str) -> list[Any]:
    outcomes: list[Any] = []
    for _ in range(10):
        found = poller.poll_due(tenant=slug, now=utc_now() + dt.timedelta(days=1))
        if not found:
            return outcomes
        outcomes += found
    raise AssertionError(f"the poller never stops: {outcomes}")


@pytest.mark.parametrize("processed", [True, False])
def test_a_lost_daily_summary_sunat_holds_is_replaced_by_a_corrective_that_settles_its_boletas(
    live: LiveService, faults: SqlFaultStore, processed: bool
) -> None:
    """The answer to a daily summary is lost after SUNAT took it; sent again, SUNAT answers 2223 (the
    file was presented before) and no service gives the first ticket (the poller asked with doubling
    waits forever). Its boletas go in a corrective summary with the next correlative: accepted when the
    lost one was never processed; 2282 ("ya informado") when it was, which proves the lost one."""
    shop = soap_shop(live, "perdido")
    poller = TicketPoller(live.context)
    with _client(shop) as client:
        boletas = [issue(client, boleta_body(), "/api/documents")["data"]["number"] for _ in range(2)]
        faults.add(Fault("reset-after", ruc=shop.ruc, operation="sendSummary", remaining=1))
        external_id = _lost(
            client, "/api/summaries", {"fecha_de_emision_de_documentos": today(), "codigo_tipo_proceso": "1"}
        )
        if processed:  # SUNAT processed the first file: its ticket was answered, to nobody
            with live.context.engine.connect() as connection:
                (ticket,) = connection.execute(
                    select(AUTHORITY_TICKETS.c.ticket).where(AUTHORITY_TICKETS.c.issuer_ruc == shop.ruc)
                ).one()
            live.context.gateway(live.context.tenant_by_slug(shop.slug)).get_status(ticket)
        outcomes = _poll_until_quiet(poller, shop.slug)
        listed = {
            row["identifier"]: row
            for row in client.get(f"/api/summaries/lists/{today()}/{today()}").json()["data"]
        }
        states_of = {n: r["state_type_id"] for n, r in rows(client).items()}
        waiting = client.get("/api/company/attention").json()["data"]
        asked = client.post("/api/summaries/status", json={"external_id": external_id})
    first, corrective = f"RC-{today().replace('-', '')}-1", f"RC-{today().replace('-', '')}-2"
    assert sorted(listed) == [first, corrective], outcomes
    assert listed[first]["response"]["code"] == "2223"
    assert listed[first]["response"]["replaced_by"] == corrective
    if processed:
        assert (listed[corrective]["state_type_id"], listed[corrective]["response"]["code"]) == ("09", "2282")
        assert listed[first]["state_type_id"] == "05"
        assert listed[first]["response"]["proved_by"] == corrective
    else:
        assert (listed[corrective]["state_type_id"], listed[corrective]["response"]["code"]) == ("05", "0")
    assert {states_of[number] for number in boletas} == {"05"}
    assert asked.status_code == 409 and asked.json()["error_code"] == "SUMMARY_REPLACED", asked.text
    assert f"van en el resumen {corrective}" in asked.json()["message"]
    assert waiting == []
    assert _summary_row(live, external_id).next_poll_at is None


def test_a_lost_voided_communication_sunat_holds_is_left_to_a_person(
    live: LiveService, faults: SqlFaultStore
) -> None:
    """The same for a voided communication (2324): no corrective is made (voiding twice is not
    harmless); the poller stops asking and the communication waits for a person."""
    shop = soap_shop(live, "baja")
    poller = TicketPoller(live.context)
    with _client(shop) as client:
        factura = issue(client, invoice_body(), "/api/documents")["data"]
        faults.add(Fault("reset-after", ruc=shop.ruc, operation="sendSummary", remaining=1))
        body = {
            "fecha_de_emision_de_documentos": today(),
            "documentos": [{"external_id": factura["external_id"], "motivo_anulacion": "Error en el precio"}],
        }
        external_id = _lost(client, "/api/voided", body)
        (first,) = poller.poll_due(tenant=shop.slug, now=utc_now() + dt.timedelta(minutes=1))
        assert first.error is not None and first.error.startswith("Code: 2324"), first
        stored = _summary_row(live, external_id)
        assert stored.next_poll_at is None and stored.ticket == ""
        assert stored.poll_error.startswith(NEEDS_A_PERSON) and "Code: 2324" in stored.poll_error
        assert poller.poll_due(tenant=shop.slug, now=utc_now() + dt.timedelta(days=1)) == []
        (waiting,) = client.get("/api/company/attention").json()["data"]
    assert waiting["kind"] == "summary" and waiting["code"] == "2324"
    assert waiting["reference"] == f"RA-{today().replace('-', '')}-1"


def test_a_ticket_sunat_never_answers_is_asked_about_a_bounded_number_of_times(live: LiveService) -> None:
    shop = soap_shop(live, "eterno", authority_ticket_delay=10.0**6)
    poller = TicketPoller(live.context)
    with _client(shop) as client:
        issue(client, boleta_body(), "/api/documents")
        sent = declare(client)
        asked = 0
        while poller.poll_due(tenant=shop.slug, now=utc_now() + dt.timedelta(days=1)):
            asked += 1
            assert asked <= MAX_POLL_ATTEMPTS, "the poller never stops asking"
    stored = _summary_row(live, sent["external_id"])
    assert asked == MAX_POLL_ATTEMPTS and stored.poll_attempts == MAX_POLL_ATTEMPTS
    assert stored.state_type_id == "03" and stored.next_poll_at is None
    assert stored.poll_error.startswith(NEEDS_A_PERSON) and "98" in stored.poll_error
