"""Daily summaries, voided communications and their tickets through the connector over real HTTP
(``client.summaries``, ``client.voided``, ``wait_for_ticket``), plus real tenants' shapes (stand-in).

The live tests work on tenants of their own (:mod:`tests.shops`): a summary takes every registered boleta
of a day of its tenant.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from typing import Any

import pytest

from connector import (
    CacheSettings,
    Client,
    IssueResult,
    NotFoundError,
    ServerError,
    SummaryRecord,
    TicketRef,
    TicketStatus,
    TicketTimeout,
    ValidationError,
    wait_for_ticket,
)
from connector.builders import CreditNote, Customer, Invoice, Line, Receipt
from connector.models import in_process_message
from sunat.calendar import peru_today
from tests.common import Recorder
from tests.conftest import LiveService
from tests.connector.standin import Answer, StandIn
from tests.shops import Shop, new_shop

IN_PROCESS = "Code: 98; Description: El procesamiento del comprobante aún no ha terminado"
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
PERSON = Customer.dni("46027862", "JUAN PEREZ QUISPE")
COMPANY = Customer.ruc("20601030013", "EMPRESA XYZ S.A.C.", address="Av. Lima 123", ubigeo="150101")


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    """A tenant whose tickets are answered at once."""
    return new_shop(live, "tickets")


@pytest.fixture(scope="module")
def slow_shop(live: LiveService) -> Shop:
    """A tenant whose tickets stay in process 1.5 s."""
    return new_shop(live, "slow-tickets", authority_ticket_delay=1.5)


def prepared_by(_recorder: Recorder, family: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The recorder's ``prepare``: summaries and voided communications say who prepared them."""
    return {**payload, "prepared_by": "recorder"} if family in ("summaries", "voided") else None


@pytest.fixture
def recorder() -> Recorder:
    return Recorder(prepare=prepared_by)


@pytest.fixture
def client(shop: Shop, recorder: Recorder) -> Iterator[Client]:
    with shop.client(plugins=[recorder], cache=CacheSettings(backend="memory")) as c:
        yield c


def boleta(client: Client, total: str = "59.00") -> IssueResult:
    result = client.documents.issue(
        Receipt(customer=PERSON, lines=[Line("Polo algodón", 1, unit_price=total)])
    )
    assert result.state_type_id == "01"  # boletas wait for the daily summary
    return result


def factura(client: Client) -> IssueResult:
    result = client.documents.issue(
        Invoice(customer=COMPANY, lines=[Line("Inca Kola 250 ml", 2, unit_price=59)])
    )
    assert result.state_type_id == "05", result.response
    return result


def states(client: Client, *external_ids: str) -> list[str]:
    """The documents' states as listed today (fresh: never the cache)."""
    day = peru_today()
    rows = {r.external_id: r.state_type_id for r in client.documents.list(day, day, fresh=True)}
    return [rows[e] for e in external_ids]


# -- summaries: declaring ------------------------------------------------------------------------------


def test_declare_today_s_boletas_and_their_note(client: Client, recorder: Recorder, shop: Shop) -> None:
    first, second = boleta(client), boleta(client, "35.40")
    note = client.documents.issue(
        CreditNote(
            series="BC01",
            customer=PERSON,
            lines=[Line("Polo algodón", 1, unit_price="35.40")],
            affected_external_id=second.external_id,
            note_type="01",
            reason="Anulación de la operación",
        )
    )
    ids = (first.external_id, second.external_id, note.external_id)
    day = peru_today()
    assert not client.documents.list(day, day).from_cache
    assert client.documents.list(day, day).from_cache  # the client caches lists...

    ref = client.summaries.declare(day)
    assert isinstance(ref, TicketRef) and ref.family == "summaries"
    assert len(ref.external_id) == 36 and ref.ticket.isdigit()
    assert ref.every == (ref,) and ref.raw["success"] is True
    assert not client.documents.list(day, day).from_cache  # ...and declaring dropped them
    assert states(client, *ids) == ["03", "03", "03"]

    # the hooks ran for family "summaries", in order, on the payload that was sent
    assert recorder.of("summaries") == ["prepare", "validate", "issued"]
    sent = next(p for hook, fam, p in recorder.calls if hook == "validate" and fam == "summaries")
    assert sent == {
        "fecha_de_emision_de_documentos": day.isoformat(),
        "codigo_tipo_proceso": "1",
        "prepared_by": "recorder",
    }
    assert recorder.calls[-1][2] is ref

    # this service lists its summaries (cached like document lists)
    (record,) = [r for r in client.summaries.latest() if r.external_id == ref.external_id]
    assert isinstance(record, SummaryRecord) and record.family == "summaries"
    assert record.summary_type == "RC" and record.process_type == "1" and record.ticket == ref.ticket
    assert record.documents == 3 and record.date_of_reference == day and record.date_of_issue == day
    assert record.processing and record.accepted is None and not record.has_cdr and record.response is None
    assert record.identifier.startswith(f"RC-{day:%Y%m%d}-") and record.download_xml.endswith(ref.external_id)

    status = wait_for_ticket(client.summaries, external_id=ref.external_id, timeout=30)
    assert isinstance(status, TicketStatus)
    assert not status.processing and status.accepted is True and not status.rejected
    assert status.status_code == 0 and status.code == "0"
    assert status.identifier.startswith(f"RC-{day:%Y%m%d}-") and status.identifier in status.description
    assert status.external_id == ref.external_id and status.filename.startswith(f"{shop.ruc}-RC-")
    assert set(status.links) == {"xml", "cdr"}
    assert states(client, *ids) == ["05", "05", "05"]
    # the answer dropped the cached list of summaries
    (record,) = [r for r in client.summaries.latest() if r.external_id == ref.external_id]
    assert record.accepted is True and record.has_cdr and record.state_type_id == "05"
    assert record.response is not None and record.response.code == "0"
    assert [r.external_id for r in client.summaries.list(day, day.isoformat())].count(ref.external_id) == 1
    assert all(r.family == "voided" for r in client.voided.list(day, day))

    # asking again (by ticket) serves the same answer
    again = client.summaries.status(ticket=ref.ticket)
    assert again.accepted and again.code == status.code and again.external_id == ref.external_id

    xml = client.summaries.download_xml(ref.external_id)
    assert xml.startswith(b"<?xml") and b"SummaryDocuments" in xml and first.number.encode() in xml
    cdr = client.summaries.download_cdr(ref.external_id)
    with zipfile.ZipFile(io.BytesIO(cdr)) as archive:
        assert archive.namelist() == [f"R-{status.filename}.xml"]


def test_void_a_declared_boleta_with_a_summary(client: Client, recorder: Recorder) -> None:
    kept, voided = boleta(client), boleta(client)
    declared = client.summaries.declare(peru_today().isoformat())
    assert wait_for_ticket(client.summaries, ticket=declared.ticket, timeout=30).accepted
    assert states(client, kept.external_id, voided.external_id) == ["05", "05"]

    ref = client.summaries.void(peru_today(), [(voided.external_id, "Error en el nombre del cliente")])
    assert states(client, kept.external_id, voided.external_id) == ["05", "13"]
    payload = next(
        p for hook, fam, p in reversed(recorder.calls) if hook == "validate" and fam == "summaries"
    )
    assert payload["codigo_tipo_proceso"] == "3"
    assert payload["documentos"] == [
        {"external_id": voided.external_id, "motivo_anulacion": "Error en el nombre del cliente"}
    ]
    status = wait_for_ticket(client.summaries, external_id=ref.external_id, timeout=30)
    assert status.accepted is True, status
    assert states(client, kept.external_id, voided.external_id) == ["05", "11"]


# -- voided communications ----------------------------------------------------------------------------


@pytest.mark.parametrize("date_format", ["Y-m-d", "d-m-Y"])
def test_void_a_factura(client: Client, recorder: Recorder, date_format: str) -> None:
    kept, voided = factura(client), factura(client)
    ref = client.voided.void(
        peru_today(),
        {voided.external_id: "Error en el RUC del cliente"},
        date_format=date_format,  # type: ignore[arg-type]
    )
    assert ref.family == "voided" and ref.ticket.isdigit()
    assert recorder.of("voided") == ["prepare", "validate", "issued"]
    payload = next(p for hook, fam, p in recorder.calls if hook == "validate" and fam == "voided")
    expected = peru_today().isoformat() if date_format == "Y-m-d" else peru_today().strftime("%d-%m-%Y")
    assert payload["fecha_de_emision_de_documentos"] == expected
    assert states(client, kept.external_id, voided.external_id) == ["05", "13"]

    status = ref.wait(timeout=30)  # the reference asks its own family
    assert status.accepted is True and status.status_code == 0
    assert status.identifier.startswith(f"RA-{peru_today():%Y%m%d}-")
    assert "ha sido aceptada" in status.description
    assert states(client, kept.external_id, voided.external_id) == ["05", "11"]
    assert b"VoidedDocuments" in client.voided.download_xml(ref.external_id)
    assert client.voided.download_cdr(ref.external_id).startswith(b"PK")


def test_voiding_twice_is_refused(client: Client) -> None:
    voided = factura(client)
    ref = client.voided.void(peru_today(), [(voided.external_id, "Duplicado")])
    assert wait_for_ticket(client.voided, external_id=ref.external_id, timeout=30).accepted
    with pytest.raises(ValidationError) as caught:  # voided (11): no longer accepted
        client.voided.void(peru_today(), [(voided.external_id, "Otra vez")])
    assert caught.value.status == 422 and caught.value.error_code == "DOCUMENT_NOT_VOIDABLE"
    assert caught.value.errors_for("documentos.0.external_id")


# -- tickets in process ----------------------------------------------------------------------------------


def test_status_is_in_process_then_done(slow_shop: Shop) -> None:
    with slow_shop.client() as client:
        document = factura(client)
        ref = client.voided.void(peru_today(), [(document.external_id, "Error en la descripción")])
        status = client.voided.status(external_id=ref.external_id)
        assert status.processing is True and status.accepted is None and not status.rejected
        assert status.status_code == 98 and status.code == "98"
        assert status.description == "El procesamiento del comprobante aún no ha terminado"
        assert status.external_id == ref.external_id and status.ticket == ref.ticket
        assert status.raw["error_code"] == "TICKET_IN_PROCESS"
        assert states(client, document.external_id) == ["13"]  # nothing changed yet
        with pytest.raises(NotFoundError):  # no CDR while in process
            client.voided.download_cdr(ref.external_id)

        assert ref.status().processing  # one question, still in process
        done = client.voided.wait(ticket=ref.ticket, timeout=30, initial=0.2)  # known by its ticket alone
        assert done.accepted is True and done.external_id == ref.external_id
        assert states(client, document.external_id) == ["11"]


def test_wait_for_ticket_times_out_with_the_last_answer(slow_shop: Shop) -> None:
    slow_shop.set(authority_ticket_delay=600)
    try:
        with slow_shop.client() as client:
            document = factura(client)
            ref = client.voided.void(peru_today(), [(document.external_id, "Error")])
            with pytest.raises(TicketTimeout) as caught:
                wait_for_ticket(client.voided, external_id=ref.external_id, timeout=1.0, initial=0.2)
    finally:
        slow_shop.set(authority_ticket_delay=1.5)
    error = caught.value
    assert error.status is None and error.error_code == "TICKET_TIMEOUT"
    assert error.last.processing and error.polls >= 3 and 1.0 <= error.waited < 5
    assert error.external_id == ref.external_id and ref.external_id in error.message
    assert "sigue en proceso" in str(error)


# -- bad input ---------------------------------------------------------------------------------------------


def test_bad_input_is_refused(client: Client, live: LiveService) -> None:
    document, receipt = factura(client), boleta(client)
    today = peru_today()
    # unknown document
    with pytest.raises(ValidationError) as caught:
        client.voided.void(today, [(UNKNOWN_ID, "Error")])
    assert caught.value.status == 422 and caught.value.error_code == "DOCUMENT_NOT_FOUND"
    assert caught.value.field_errors[0].field == "documentos.0.external_id"
    # a date that is not the document's
    with pytest.raises(ValidationError) as caught:
        client.voided.void("2020-01-02", [(document.external_id, "Error")])
    assert caught.value.error_code == "DOCUMENT_NOT_FOUND"
    # a factura in a summary, a boleta in a voided communication
    with pytest.raises(ValidationError):
        client.summaries.void(today, [(document.external_id, "Error")])
    with pytest.raises(ValidationError):
        client.voided.void(today, [(receipt.external_id, "Error")])
    # a day without registered boletas
    with pytest.raises(ValidationError) as caught:
        client.summaries.declare("2020-01-02")
    assert caught.value.error_code == "NO_DOCUMENTS"
    # unknown summaries
    with pytest.raises(NotFoundError):
        client.summaries.status(external_id=UNKNOWN_ID)
    with pytest.raises(NotFoundError):
        client.voided.status(ticket="123456789")
    with pytest.raises(NotFoundError):
        client.voided.download_xml(UNKNOWN_ID)
    # nothing changed
    assert states(client, document.external_id, receipt.external_id) == ["05", "01"]


def test_a_document_of_another_tenant_is_not_found(client: Client, live: LiveService) -> None:
    other = new_shop(live, "tickets-other")
    with other.client() as stranger:
        document = factura(stranger)
    with pytest.raises(ValidationError) as caught:
        client.voided.void(peru_today(), [(document.external_id, "Error")])
    assert caught.value.error_code == "DOCUMENT_NOT_FOUND"


def test_inputs_checked_before_sending(standin: StandIn) -> None:
    with Client(standin.root, "token-0123456789abcdefghij", cache=False) as client:
        with pytest.raises(ValidationError) as caught:
            client.voided.void("2026-07-22", [])
        assert caught.value.status is None and caught.value.error_code == "NO_DOCUMENTS"
        with pytest.raises(ValidationError) as caught:
            client.voided.void("2026-07-22", [("abc", " ")])  # a voided communication needs reasons
        assert caught.value.errors_for("documentos.0.motivo_anulacion")
        with pytest.raises(ValidationError):
            client.summaries.void("2026-07-22", {})
        with pytest.raises(ValueError):
            client.summaries.declare("ayer")
        with pytest.raises(ValueError):
            client.voided.void("2026-07-22", [("abc", "x")], date_format="m/d/Y")  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            client.voided.status()
        with pytest.raises(ValueError):
            wait_for_ticket(client.voided)
    assert standin.hits == []


def test_plugin_problems_block_sending(standin: StandIn) -> None:
    recorder = Recorder(block="voided", prepare=prepared_by)
    with Client(standin.root, "token-0123456789abcdefghij", cache=False, plugins=[recorder]) as client:
        with pytest.raises(ValidationError) as caught:
            client.voided.void("2026-07-22", [("abc", "Error")])
    assert caught.value.status is None and caught.value.error_code == "PLUGIN_VALIDATION"
    assert recorder.of("voided") == ["prepare", "validate"]
    assert standin.hits == []


# -- real tenants' shapes (stand-in) --------------------------------------------------------------------


def test_real_tenant_98_as_http_500_is_processing(standin: StandIn) -> None:
    accepted = {
        "success": True,
        "data": {"filename": "20100066603-RA-20260722-1", "external_id": "e-1"},
        "links": {"xml": "http://x/xml", "cdr": "http://x/cdr"},
        "response": {
            "sent": True,
            "code": "0",
            "description": "La Comunicación de baja RA-20260722-1, ha sido aceptada",
            "notes": [],
            "is_accepted": True,
            "status_code": 0,
        },
    }
    standin.on(
        "POST",
        "/api/voided/status",
        Answer(500, {"success": False, "message": IN_PROCESS, "file": "Facturalo.php", "line": 812}),
        Answer(500, {"success": False, "message": IN_PROCESS}),
        Answer(200, accepted),
    )
    with Client(standin.root, "token-0123456789abcdefghij", cache=False) as client:
        first = client.voided.status(external_id="e-1")
        assert first.processing and first.code == "98" and first.accepted is None
        assert first.description == "El procesamiento del comprobante aún no ha terminado"
        assert first.external_id == "e-1" and first.raw["line"] == 812
        done = wait_for_ticket(client.voided, external_id="e-1", initial=0.05, timeout=10)
    assert done.accepted and done.identifier == "RA-20260722-1" and done.links["cdr"] == "http://x/cdr"
    assert standin.count("POST", "/api/voided/status") == 3  # a 500 is an answer, not retried
    assert json.loads(standin.hits[0][3]) == {"external_id": "e-1"}


def test_real_tenant_rejection_and_other_shapes(standin: StandIn) -> None:
    rejected = {
        "success": True,
        "data": {"filename": "20100066603-RC-20260722-2", "external_id": "e-2"},
        "links": {"xml": "http://x/xml", "cdr": "http://x/cdr"},
        "response": {
            "sent": True,
            "code": "2223",
            "description": "El documento ya fue informado",
            "notes": ["4000 - observación"],
            "is_accepted": False,
            "status_code": "99",
        },
    }
    standin.on(
        "POST",
        "/api/summaries/status",
        Answer(200, {"success": False, "message": "Code: 0098; Description: En proceso"}),  # 200 + false
        Answer(503, "busy"),  # retried: a status poll repeats nothing
        Answer(200, rejected),
        Answer(
            500, {"success": False, "message": "El ticket 9 es inválido, no se encontró resumen relacionado"}
        ),
    )
    with Client(standin.root, "token-0123456789abcdefghij", cache=False) as client:
        first = client.summaries.status(ticket="9")
        assert first.processing and first.description == "En proceso" and first.ticket == "9"
        done = client.summaries.status(ticket="9")
        assert done.accepted is False and done.rejected and done.status_code == 99
        assert done.code == "2223" and done.notes == ["4000 - observación"] and done.ticket == "9"
        with pytest.raises(ServerError) as caught:
            client.summaries.status(ticket="9")
        assert "no se encontró resumen" in caught.value.message
    assert standin.count("POST", "/api/summaries/status") == 4


def test_creating_is_never_retried_and_reads_every_summary(standin: StandIn) -> None:
    standin.on("POST", "/api/voided", Answer(503, "busy"))
    standin.on(
        "POST",
        "/api/summaries",
        Answer(
            200,
            {
                "success": True,
                "data": {
                    "external_id": "s-1",
                    "ticket": "111",
                    "summaries": [
                        {"external_id": "s-1", "ticket": "111"},
                        {"external_id": "s-2", "ticket": 222},
                    ],
                },
            },
        ),
    )
    with Client(standin.root, "token-0123456789abcdefghij", cache=False) as client:
        with pytest.raises(ServerError):
            client.voided.void("2026-07-22", [("abc", "Error")], date_format="d-m-Y")
        ref = client.summaries.declare("2026-07-22")
    assert standin.count("POST", "/api/voided") == 1
    assert json.loads(standin.hits[0][3])["fecha_de_emision_de_documentos"] == "22-07-2026"
    assert [(r.external_id, r.ticket) for r in ref.every] == [("s-1", "111"), ("s-2", "222")]


def test_real_tenants_have_no_list_of_summaries(standin: StandIn) -> None:
    with Client(standin.root, "token-0123456789abcdefghij", cache=False) as client:
        with pytest.raises(NotFoundError):
            client.summaries.latest()
        with pytest.raises(NotFoundError):
            client.voided.list("2026-07-01", "2026-07-31")
    assert [hit[1] for hit in standin.hits] == [
        "/api/summaries/lists",
        "/api/voided/lists/2026-07-01/2026-07-31",
    ]


def test_a_reference_built_by_hand_cannot_wait() -> None:
    ref = TicketRef("e-1", "123", {}, "voided")
    with pytest.raises(RuntimeError, match="client.<family>.wait"):
        ref.wait()


def test_in_process_message() -> None:
    assert in_process_message({"success": False, "message": IN_PROCESS})
    assert in_process_message({"success": False, "error_code": "TICKET_IN_PROCESS", "message": "x"})
    assert in_process_message({"success": False, "message": "code: 098;Description: x"})
    assert not in_process_message({"success": False, "message": "Code: 0127; Description: ticket"})
    assert not in_process_message({"success": True, "message": IN_PROCESS})
    assert not in_process_message("Code: 98")


# -- wait_for_ticket's schedule ------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 4))
        self.now += seconds


def processing(**_: Any) -> TicketStatus:
    return TicketStatus.in_process({"success": False, "message": IN_PROCESS})


def test_wait_for_ticket_backs_off_until_the_deadline() -> None:
    clock = FakeClock()
    with pytest.raises(TicketTimeout) as caught:
        wait_for_ticket(
            processing,
            ticket="7",
            timeout=20,
            initial=1,
            factor=2,
            max_interval=5,
            sleep=clock.sleep,
            clock=clock,
        )
    assert clock.sleeps == [1, 2, 4, 5, 5, 3]  # doubling, capped at 5, the last one cut at the deadline
    assert caught.value.polls == 7 and caught.value.waited == 20 and caught.value.ticket == "7"
    assert "ticket 7" in caught.value.message


def test_wait_for_ticket_returns_the_first_processed_answer() -> None:
    clock = FakeClock()
    answers = [
        processing(),
        processing(),
        TicketStatus.from_body({"success": True, "response": {"code": "0"}}),
    ]
    asked: list[dict[str, Any]] = []

    def status(**kwargs: Any) -> TicketStatus:
        asked.append(kwargs)
        return answers.pop(0)

    result = wait_for_ticket(status, external_id="e", sleep=clock.sleep, clock=clock)
    assert result.accepted is True and result.status_code == 0
    assert clock.sleeps == [0.5, 0.8]
    assert asked == [{"external_id": "e", "ticket": None}] * 3
    # timeout 0 asks once
    with pytest.raises(TicketTimeout) as caught:
        wait_for_ticket(processing, external_id="e", timeout=0, sleep=clock.sleep, clock=clock)
    assert caught.value.polls == 1
    with pytest.raises(ValueError):
        wait_for_ticket(processing, external_id="e", factor=0.5)
    with pytest.raises(TypeError):
        wait_for_ticket(object(), external_id="e")  # type: ignore[arg-type]
