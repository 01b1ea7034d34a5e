"""Daily summaries (RC) over HTTP: declaring a day's boletas, voiding boletas, tickets, states, files.

Each module works on tenants of its own (fresh RUCs): a summary takes *every* registered boleta of a
day, so the shared tenants' documents must not mix in. The helpers here are shared with test_voided.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from facturador.authority.cdr import parse_cdr
from facturador.domain import summaries as summaries_module
from facturador.domain.tenants import TenantError, parse_setting
from sunat.calendar import peru_today
from tests.common import issue, wait_for
from tests.conftest import LiveService
from tests.helpers import NS, assert_schema_valid, assert_signed, read_cdr
from tests.samples.bodies import boleta_body, credit_note_body, invoice_body
from tests.samples.tenants import ACME_TOKEN
from tests.served import NO_POLLER, serve
from tests.shops import Shop, new_shop

IN_PROCESS = "Code: 98; Description: El procesamiento del comprobante aún no ha terminado"

# ----------------------------------------------------------------------------------------------------------
# Helpers (also used by test_voided.py)


def today() -> str:
    return peru_today().isoformat()


def stamp() -> str:
    return peru_today().strftime("%Y%m%d")


def boleta_note_body(affected_external_id: str) -> dict[str, Any]:
    """A credit note (BC01) cancelling a boleta, dated today."""
    customer = boleta_body()["datos_del_cliente_o_receptor"]
    return credit_note_body(
        affected_external_id, serie_documento="BC01", datos_del_cliente_o_receptor=customer
    )


def state_of(client: httpx.Client, external_id: str, day: str | None = None) -> str:
    """A document's state from the list endpoint."""
    day = day or today()
    rows = client.get(f"/api/documents/lists/{day}/{day}").json()["data"]
    return next(row["state_type_id"] for row in rows if row["external_id"] == external_id)


def set_state(client: httpx.Client, external_id: str, state: str) -> None:
    response = client.post(
        "/api/documents/updatedocumentstatus", json={"externail_id": external_id, "state_type_id": state}
    )
    assert response.status_code == 200, response.text


def assert_error(
    response: httpx.Response, status: int, code: str, message: str | None = None
) -> dict[str, Any]:
    assert response.status_code == status, response.text
    payload = response.json()
    assert payload["success"] is False
    assert payload["error_code"] == code, payload
    if message is not None:
        assert payload["message"] == message
    return payload


def not_found_message(external_id: str) -> str:
    return (
        f"El código externo {external_id} no fue encontrado o la fecha indicada no corresponde al documento."
    )


# ----------------------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "rc-shop")


@pytest.fixture
def client(shop: Shop) -> Iterator[httpx.Client]:
    with shop.http() as client:
        yield client


def declare(client: httpx.Client, day: str | None = None) -> dict[str, Any]:
    response = client.post(
        "/api/summaries", json={"fecha_de_emision_de_documentos": day or today(), "codigo_tipo_proceso": "1"}
    )
    assert response.status_code == 200, response.text
    payload = response.json()
    assert payload["success"] is True
    return payload["data"]


def void_boletas(client: httpx.Client, *external_ids: str, day: str | None = None) -> dict[str, Any]:
    body = {
        "fecha_de_emision_de_documentos": day or today(),
        "codigo_tipo_proceso": "3",
        "documentos": [{"external_id": e, "motivo_anulacion": "Error en el cliente"} for e in external_ids],
    }
    response = client.post("/api/summaries", json=body)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def status_of(client: httpx.Client, data: dict[str, Any], *, accepted: bool | None = None) -> dict[str, Any]:
    """The answer of a summary's ticket (polled); ``accepted`` asserts whether SUNAT accepted it."""
    response = wait_for(client, "/api/summaries/status", {"external_id": data["external_id"]})
    assert response.status_code == 200, response.text
    answer = response.json()
    if accepted is not None:
        assert answer["response"]["is_accepted"] is accepted, answer["response"]
    return answer


# ----------------------------------------------------------------------------------------------------------
# Flows


def test_declare_a_days_boletas_then_query_the_ticket(shop: Shop, client: httpx.Client) -> None:
    shop.set(authority_ticket_delay=3.0)  # long enough to see the ticket in process
    try:
        first = issue(client, boleta_body())["data"]
        second = issue(client, boleta_body(datos_del_cliente_o_receptor={
            "codigo_tipo_documento_identidad": "-", "numero_documento": "-",
            "apellidos_y_nombres_o_razon_social": "CLIENTES VARIOS",
        }))["data"]  # fmt: skip
        note = issue(client, boleta_note_body(first["external_id"]))["data"]
        factura = issue(client, invoice_body())["data"]  # group 01: never in a summary
        assert {state_of(client, d["external_id"]) for d in (first, second, note)} == {"01"}
        data = declare(client)
        assert set(data) == {"external_id", "ticket"} and data["ticket"].isdigit()
        for document in (first, second, note):
            assert state_of(client, document["external_id"]) == "03"
        assert state_of(client, factura["external_id"]) == "05"
        # still in process: HTTP 202 (the real service answers this message with HTTP 500); nothing moves
        pending = client.post("/api/summaries/status", json={"external_id": data["external_id"]})
        assert pending.status_code == 202, pending.text
        assert pending.headers["retry-after"] == "1"
        body = pending.json()
        assert (
            body["success"] is False
            and body["message"] == IN_PROCESS
            and body["error_code"] == "TICKET_IN_PROCESS"
        )
        assert body["data"]["external_id"] == data["external_id"] and body["data"]["ticket"] == data["ticket"]
        assert body["data"]["state_type_id"] == "03"
        assert state_of(client, first["external_id"]) == "03"
    finally:
        shop.set(authority_ticket_delay=0.0)
    answer = status_of(client, data)
    identifier = f"RC-{stamp()}-1"
    filename = f"{shop.ruc}-{identifier}"
    base = f"{shop.live.base_url(shop.slug)}/downloads/summary"
    assert answer == {
        "success": True,
        "data": {"filename": filename, "external_id": data["external_id"]},
        "links": {"xml": f"{base}/xml/{data['external_id']}", "cdr": f"{base}/cdr/{data['external_id']}"},
        "response": {
            "sent": True,
            "code": "0",
            "description": f"El Resumen diario {identifier}, ha sido aceptado",
            "notes": [],
            "is_accepted": True,
            "status_code": 0,
        },
    }
    for document in (first, second, note):
        assert state_of(client, document["external_id"]) == "05"
    # by ticket: the same stored answer
    by_ticket = client.post("/api/summaries/status", json={"ticket": data["ticket"]})
    assert by_ticket.status_code == 200 and by_ticket.json() == answer
    # the signed XML: UBL 2.0 SummaryDocuments valid against SUNAT's schema, three lines
    xml = client.get(answer["links"]["xml"])
    assert xml.status_code == 200 and xml.headers["content-type"] == "application/xml"
    assert f'filename="{filename}.xml"' in xml.headers["content-disposition"]
    root = assert_schema_valid(xml.content)
    assert_signed(xml.content)
    assert root.findtext("cbc:ID", namespaces=NS) == identifier
    assert root.findtext("cbc:ReferenceDate", namespaces=NS) == today()
    lines = root.findall("sac:SummaryDocumentsLine", NS)
    assert [line.findtext("cbc:DocumentTypeCode", namespaces=NS) for line in lines] == ["03", "03", "07"]
    assert {line.findtext("cac:Status/cbc:ConditionCode", namespaces=NS) for line in lines} == {"1"}
    reference = lines[2].findtext("cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID", namespaces=NS)
    assert reference == first["number"]
    assert lines[1].find("cac:AccountingCustomerParty", NS) is None  # "clientes varios"
    # the CDR: R-<filename>.zip, a signed ApplicationResponse accepting the summary
    cdr = client.get(answer["links"]["cdr"])
    assert cdr.status_code == 200 and cdr.headers["content-type"] == "application/zip"
    assert f'filename="R-{filename}.zip"' in cdr.headers["content-disposition"]
    entry, cdr_xml = read_cdr(cdr.content)
    assert entry == f"R-{filename}.xml"
    assert_schema_valid(cdr_xml)
    assert_signed(cdr_xml)
    parsed = parse_cdr(cdr_xml)
    assert (parsed.code, parsed.reference_id, parsed.id) == ("0", identifier, data["ticket"])
    # everything of the day is declared now
    again = client.post(
        "/api/summaries", json={"fecha_de_emision_de_documentos": today(), "codigo_tipo_proceso": "1"}
    )
    assert_error(again, 422, "NO_DOCUMENTS", f"No se encontraron documentos con fecha de emisión {today()}.")


def test_identifiers_are_numbered_per_day(shop: Shop, client: httpx.Client) -> None:
    issue(client, boleta_body())["data"]
    first = status_of(client, declare(client), accepted=True)
    issue(client, boleta_body())["data"]
    second = status_of(client, declare(client), accepted=True)
    numbers = [int(answer["data"]["filename"].rsplit("-", 1)[1]) for answer in (first, second)]
    assert numbers[1] == numbers[0] + 1
    assert second["data"]["filename"] == f"{shop.ruc}-RC-{stamp()}-{numbers[1]}"


def test_more_than_one_summary_when_the_day_has_more_documents(
    client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(summaries_module, "MAX_LINES", 2)  # the service runs in this process
    issued = [issue(client, boleta_body())["data"]["external_id"] for _ in range(3)]
    data = declare(client)
    assert len(data["summaries"]) == 2
    assert data["summaries"][0] == {"external_id": data["external_id"], "ticket": data["ticket"]}
    answers = [status_of(client, summary) for summary in data["summaries"]]
    names = [answer["data"]["filename"] for answer in answers]
    assert int(names[1].rsplit("-", 1)[1]) == int(names[0].rsplit("-", 1)[1]) + 1
    counts = []
    for answer in answers:
        root = assert_schema_valid(client.get(answer["links"]["xml"]).content)
        counts.append(len(root.findall("sac:SummaryDocumentsLine", NS)))
    assert counts == [2, 1]
    assert {state_of(client, external_id) for external_id in issued} == {"05"}


def test_void_a_boleta_with_a_summary(client: httpx.Client) -> None:
    boleta = issue(client, boleta_body())["data"]
    status_of(client, declare(client), accepted=True)
    assert state_of(client, boleta["external_id"]) == "05"
    data = void_boletas(client, boleta["external_id"])
    assert state_of(client, boleta["external_id"]) == "13"
    answer = status_of(client, data)
    assert answer["response"]["is_accepted"] is True and answer["response"]["code"] == "0"
    assert state_of(client, boleta["external_id"]) == "11"
    root = assert_schema_valid(client.get(answer["links"]["xml"]).content)
    lines = root.findall("sac:SummaryDocumentsLine", NS)
    assert len(lines) == 1
    assert lines[0].findtext("cac:Status/cbc:ConditionCode", namespaces=NS) == "3"


def test_declaring_a_boleta_twice_is_rejected_and_it_goes_back_to_registered(client: httpx.Client) -> None:
    boleta = issue(client, boleta_body())["data"]
    status_of(client, declare(client), accepted=True)
    set_state(client, boleta["external_id"], "01")  # the service forgets; SUNAT does not
    data = declare(client)
    assert state_of(client, boleta["external_id"]) == "03"
    answer = status_of(client, data)
    assert answer["success"] is True
    response = answer["response"]
    assert response["is_accepted"] is False and response["status_code"] == 99
    assert response["code"] == "2282" and response["description"].startswith("Existe documento ya informado")
    assert state_of(client, boleta["external_id"]) == "01"
    entry, cdr_xml = read_cdr(client.get(answer["links"]["cdr"]).content)
    assert parse_cdr(cdr_xml).code == "2282"
    # as long as it stays registered every summary of the day would be rejected: mark it as SUNAT has it
    set_state(client, boleta["external_id"], "05")


def test_voiding_a_boleta_never_accepted_is_rejected_and_it_keeps_its_state(client: httpx.Client) -> None:
    boleta = issue(client, boleta_body())["data"]
    set_state(client, boleta["external_id"], "05")  # never declared to SUNAT
    data = void_boletas(client, boleta["external_id"])
    answer = status_of(client, data)
    assert answer["response"]["code"] == "2663" and answer["response"]["status_code"] == 99
    assert state_of(client, boleta["external_id"]) == "05"  # back to its state before (not 11)
    # the summary is rejected for good: asking again answers the same
    again = client.post("/api/summaries/status", json={"ticket": data["ticket"]})
    assert again.status_code == 200 and again.json() == answer


def test_voiding_a_boleta_twice_is_rejected(client: httpx.Client) -> None:
    boleta = issue(client, boleta_body())["data"]
    status_of(client, declare(client), accepted=True)
    status_of(client, void_boletas(client, boleta["external_id"]), accepted=True)
    assert state_of(client, boleta["external_id"]) == "11"
    set_state(client, boleta["external_id"], "05")
    answer = status_of(client, void_boletas(client, boleta["external_id"]))
    assert answer["response"]["code"] == "2987"
    assert state_of(client, boleta["external_id"]) == "05"


def test_concurrent_senders_and_pollers(live: LiveService, shop: Shop, client: httpx.Client) -> None:
    """Concurrent declarations of one day: one takes the boletas, the others find none; concurrent status
    queries of one ticket: it is processed once and every caller gets the same answer."""
    boletas = [issue(client, boleta_body())["data"]["external_id"] for _ in range(3)]
    body = {"fecha_de_emision_de_documentos": today(), "codigo_tipo_proceso": "1"}

    def post(path: str, payload: dict[str, Any]) -> httpx.Response:
        with shop.http() as own:
            return own.post(path, json=payload)

    shop.set(authority_ticket_delay=0.5)
    try:
        with ThreadPoolExecutor(4) as pool:
            sent = list(pool.map(lambda _: post("/api/summaries", body), range(4)))
    finally:
        shop.set(authority_ticket_delay=0.0)
    assert sorted(response.status_code for response in sent) == [200, 422, 422, 422]
    data = next(response.json()["data"] for response in sent if response.status_code == 200)
    shop.live.clock.advance(0.6)  # past the 0.5 s the ticket stays in process
    with ThreadPoolExecutor(6) as pool:
        answers = list(
            pool.map(lambda _: post("/api/summaries/status", {"ticket": data["ticket"]}), range(6))
        )
    assert {response.status_code for response in answers} == {200}
    assert len({response.text for response in answers}) == 1
    assert answers[0].json()["response"]["is_accepted"] is True
    assert {state_of(client, external_id) for external_id in boletas} == {"05"}


@pytest.mark.slow
def test_a_restart_between_sending_and_querying_loses_nothing(
    live: LiveService, shop: Shop, tmp_path: Path
) -> None:
    """Send through one server process, stop it, and query the ticket through a new one."""

    headers = {"Authorization": f"Bearer {shop.token}"}
    shop.set(authority_ticket_delay=3.0)
    try:
        with serve(live.settings, tmp_path / "first.log", *NO_POLLER) as served:
            with httpx.Client(base_url=served.base_url(shop.slug), headers=headers, timeout=60) as first:
                boleta = issue(first, boleta_body())["data"]
                data = declare(first)
                assert first.post("/api/summaries/status", json=data).status_code == 202
        with serve(live.settings, tmp_path / "second.log", *NO_POLLER) as served:
            with httpx.Client(base_url=served.base_url(shop.slug), headers=headers, timeout=60) as second:
                assert state_of(second, boleta["external_id"]) == "03"
                answer = wait_for(second, "/api/summaries/status", {"ticket": data["ticket"]})
                assert answer.status_code == 200, answer.text
                assert answer.json()["response"]["is_accepted"] is True
                assert state_of(second, boleta["external_id"]) == "05"
    finally:
        shop.set(authority_ticket_delay=0.0)


# ----------------------------------------------------------------------------------------------------------
# Bad input: a clear 4xx and nothing changes


@pytest.fixture
def registered(client: httpx.Client) -> Iterator[dict[str, Any]]:
    """A fresh boleta of today, still registered; after the test it must still be (nothing changed)."""
    boleta = issue(client, boleta_body())["data"]
    yield boleta


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"codigo_tipo_proceso": "1"}, 422, "MISSING_FIELDS", "fecha_de_emision_de_documentos"),
        ({"fecha_de_emision_de_documentos": "22/11/2026", "codigo_tipo_proceso": "1"}, 422, "INVALID_FIELDS",
         "fecha_de_emision_de_documentos"),
        ({"fecha_de_emision_de_documentos": "TODAY"}, 422, "MISSING_FIELDS", "codigo_tipo_proceso"),
        ({"fecha_de_emision_de_documentos": "TODAY", "codigo_tipo_proceso": "2"}, 422, "INVALID_FIELDS",
         "codigo_tipo_proceso"),
        ({"fecha_de_emision_de_documentos": "TODAY", "codigo_tipo_proceso": "3", "documentos": "x"}, 422,
         "INVALID_FIELDS", "documentos"),
        ({"fecha_de_emision_de_documentos": "TODAY", "codigo_tipo_proceso": "3", "documentos": [7]}, 422,
         "INVALID_FIELDS", "documentos.0"),
        ({"fecha_de_emision_de_documentos": "TODAY", "codigo_tipo_proceso": "3", "documentos": [{}]}, 422,
         "MISSING_FIELDS", "documentos.0.external_id"),
    ],
)  # fmt: skip
def test_bad_bodies(
    client: httpx.Client, registered: dict[str, Any], body: dict[str, Any], status: int, code: str, field: str
) -> None:
    body = {key: today() if value == "TODAY" else value for key, value in body.items()}
    payload = assert_error(client.post("/api/summaries", json=body), status, code)
    assert field in [error["field"] for error in payload["errors"]]
    assert state_of(client, registered["external_id"]) == "01"


@pytest.mark.parametrize("raw", [b"{not json", b"", b"[1, 2]", b'"text"'])
def test_malformed_json(client: httpx.Client, registered: dict[str, Any], raw: bytes) -> None:
    response = client.post("/api/summaries", content=raw, headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json()["success"] is False
    assert state_of(client, registered["external_id"]) == "01"


def test_wrong_or_missing_token(live: LiveService, shop: Shop, registered: dict[str, Any]) -> None:
    body = {"fecha_de_emision_de_documentos": today(), "codigo_tipo_proceso": "1"}
    for token in (
        "wrong-token-0123456789-abcdefghijkl",
        ACME_TOKEN,
        None,
    ):  # acme's token is not this tenant's
        with live.client(shop.slug, token) as stranger:
            for path in ("/api/summaries", "/api/summaries/status"):
                response = stranger.post(path, json=body)
                assert_error(response, 401, "UNAUTHENTICATED", "No se encuentra autenticado")
    with shop.http() as client:
        assert state_of(client, registered["external_id"]) == "01"


def test_no_documents_of_that_day(client: httpx.Client) -> None:
    day = (peru_today() - dt.timedelta(days=30)).isoformat()
    response = client.post(
        "/api/summaries", json={"fecha_de_emision_de_documentos": day, "codigo_tipo_proceso": 1}
    )
    payload = assert_error(
        response, 422, "NO_DOCUMENTS", f"No se encontraron documentos con fecha de emisión {day}."
    )
    assert payload["errors"][0]["field"] == "fecha_de_emision_de_documentos"


@pytest.mark.parametrize("documentos", [[], None])
def test_voiding_nothing(
    client: httpx.Client, registered: dict[str, Any], documentos: list[Any] | None
) -> None:
    body: dict[str, Any] = {"fecha_de_emision_de_documentos": today(), "codigo_tipo_proceso": "3"}
    if documentos is not None:
        body["documentos"] = documentos
    response = client.post("/api/summaries", json=body)
    assert_error(response, 422, "NO_DOCUMENTS", "No se enviaron documentos para la anulación.")
    assert state_of(client, registered["external_id"]) == "01"


def test_documents_that_cannot_be_voided_in_a_summary(
    live: LiveService, client: httpx.Client, registered: dict[str, Any]
) -> None:
    accepted = issue(client, boleta_body())["data"]
    set_state(client, accepted["external_id"], "05")
    factura = issue(client, invoice_body())["data"]
    with live.client("other", "other-token-0123456789-abcdefghijklmno") as other:
        theirs = issue(other, boleta_body())["data"]
        set_state(other, theirs["external_id"], "05")
    yesterday = (peru_today() - dt.timedelta(days=1)).isoformat()
    unknown = "00000000-0000-4000-8000-000000000000"
    cases = [
        (unknown, today(), "No existe un documento"),
        (accepted["external_id"], yesterday, f"no el {yesterday}"),
        (factura["external_id"], today(), "comunicación de baja (POST /api/voided)"),
        (theirs["external_id"], today(), "No existe un documento"),  # another tenant's: as unknown
    ]
    for external_id, day, detail in cases:
        body = {
            "fecha_de_emision_de_documentos": day,
            "codigo_tipo_proceso": "3",
            "documentos": [{"external_id": external_id, "motivo_anulacion": "Error"}],
        }
        payload = assert_error(
            client.post("/api/summaries", json=body),
            422,
            "DOCUMENT_NOT_FOUND",
            not_found_message(external_id),
        )
        assert payload["errors"][0]["field"] == "documentos.0.external_id"
        assert detail in payload["errors"][0]["message"]
    # a registered boleta (not yet accepted) is not voidable
    body = {
        "fecha_de_emision_de_documentos": today(),
        "codigo_tipo_proceso": "3",
        "documentos": [
            {"external_id": accepted["external_id"], "motivo_anulacion": "Error"},
            {"external_id": registered["external_id"], "motivo_anulacion": "Error"},
        ],
    }
    payload = assert_error(client.post("/api/summaries", json=body), 422, "DOCUMENT_NOT_VOIDABLE")
    assert [error["field"] for error in payload["errors"]] == ["documentos.1.external_id"]
    assert "Registrado" in payload["message"]
    # the same document twice
    body["documentos"] = [{"external_id": accepted["external_id"]}, {"external_id": accepted["external_id"]}]
    payload = assert_error(client.post("/api/summaries", json=body), 422, "INVALID_FIELDS")
    assert payload["errors"][0]["field"] == "documentos.1.external_id"
    # nothing changed
    assert state_of(client, accepted["external_id"]) == "05"
    assert state_of(client, registered["external_id"]) == "01"
    assert state_of(client, factura["external_id"]) == "05"


def test_status_bad_input(live: LiveService, client: httpx.Client) -> None:
    assert_error(
        client.post("/api/summaries/status", json={}),
        422,
        "MISSING_FIELDS",
        "Es requerido el código externo o ticket",
    )
    assert_error(
        client.post("/api/summaries/status", json={"external_id": "", "ticket": None}), 422, "MISSING_FIELDS"
    )
    unknown = "00000000-0000-4000-8000-000000000000"
    assert_error(
        client.post("/api/summaries/status", json={"external_id": unknown}),
        404,
        "SUMMARY_NOT_FOUND",
        f"El código externo {unknown} es inválido, no se encontró resumen relacionado",
    )
    assert_error(
        client.post("/api/summaries/status", json={"ticket": 123}),
        404,
        "SUMMARY_NOT_FOUND",
        "El ticket 123 es inválido, no se encontró resumen relacionado",
    )
    # another tenant's summary is not found, nor is this tenant's summary asked as a voided communication
    issue(client, boleta_body())["data"]
    data = declare(client)
    with live.client("other", "other-token-0123456789-abcdefghijklmno") as other:
        assert_error(other.post("/api/summaries/status", json=data), 404, "SUMMARY_NOT_FOUND")
        assert other.get(f"/downloads/summary/xml/{data['external_id']}").status_code == 404
    voided = client.post("/api/voided/status", json={"external_id": data["external_id"]})
    assert_error(voided, 404, "VOIDED_NOT_FOUND")
    assert "no se encontró anulación relacionada" in voided.json()["message"]
    status_of(client, data)


def test_downloads_of_unknown_or_unanswered_summaries(shop: Shop, client: httpx.Client) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    assert_error(client.get(f"/downloads/summary/xml/{unknown}"), 404, "SUMMARY_NOT_FOUND")
    assert_error(client.get(f"/downloads/voided/cdr/{unknown}"), 404, "VOIDED_NOT_FOUND")
    shop.set(authority_ticket_delay=30.0)
    try:
        issue(client, boleta_body())["data"]
        data = declare(client)
        assert client.get(f"/downloads/summary/xml/{data['external_id']}").status_code == 200
        assert_error(client.get(f"/downloads/summary/cdr/{data['external_id']}"), 404, "CDR_NOT_FOUND")
        assert_error(client.get(f"/downloads/summary/pdf/{data['external_id']}"), 404, "FILE_TYPE_NOT_FOUND")
    finally:
        shop.set(authority_ticket_delay=0.0)
    # a ticket sent with a 30 s delay stays in process: leave it out of the other tests' summaries
    assert client.post("/api/summaries/status", json=data).status_code == 202


def test_an_unreachable_authority_changes_nothing(
    shop: Shop, client: httpx.Client, registered: dict[str, Any]
) -> None:
    shop.set(authority_outage=True)
    try:
        response = client.post(
            "/api/summaries", json={"fecha_de_emision_de_documentos": today(), "codigo_tipo_proceso": "1"}
        )
        payload = assert_error(response, 502, "AUTHORITY_EXCEPTION")
        assert payload["message"].startswith("Code: 0109; Description: ")
        assert state_of(client, registered["external_id"]) == "01"
    finally:
        shop.set(authority_outage=False)
    data = declare(client)  # and it works once the authority is back
    assert status_of(client, data)["response"]["is_accepted"] is True


def test_the_ticket_delay_is_a_tenant_setting() -> None:
    assert parse_setting("authority_ticket_delay", "0.5") == 0.5
    assert parse_setting("authority_ticket_delay", "2") == 2.0
    for bad in ("soon", "-1", "nan", "99999"):
        with pytest.raises(TenantError):
            parse_setting("authority_ticket_delay", bad)


def test_summary_lists(client: httpx.Client) -> None:
    """GET /api/summaries/lists shows the tenant's summaries, newest first, with their files."""
    issue(client, boleta_body())["data"]
    sent = declare(client)
    rows = client.get("/api/summaries/lists").json()["data"]
    row = next(r for r in rows if r["external_id"] == sent["external_id"])
    assert row["identifier"].startswith("RC-") and row["ticket"] == sent["ticket"]
    assert row["documents"] >= 1 and row["process_type"] == "1" and row["summary_type"] == "RC"
    assert httpx.get(row["download_xml"]).status_code == 200
    ids = [r["id"] for r in rows]
    assert ids == sorted(ids, reverse=True)
    assert sent["external_id"] in [
        r["external_id"] for r in client.get(f"/api/summaries/lists/{today()}/{today()}").json()["data"]
    ]
    assert client.get("/api/voided/lists").status_code == 200
    assert client.get("/api/summaries/lists/2026-12-31/2026-01-01").status_code == 422
    stranger = httpx.get(
        str(client.base_url).rstrip("/") + "/api/summaries/lists", headers={"Authorization": "Bearer x"}
    )
    assert stranger.status_code == 401


def test_a_past_days_summary_can_be_generated_on_its_day_where_past_dates_are_taken(
    live: LiveService,
) -> None:
    """Our extension fecha_de_generacion: where the tenant takes documents dated in the past (as while
    seeding history), the summary of a past day is generated on a date between that day and today: its
    identifier, its XML's IssueDate and the lists say that date (seeded summaries all said today)."""
    past = peru_today() - dt.timedelta(days=5)
    sent_on = past + dt.timedelta(days=1)
    shop = new_shop(live, "rc-past", restrict_receipt_date=False, authority_check_deadlines=False)
    with shop.http() as client:
        issue(client, boleta_body(fecha_de_emision=past.isoformat()))["data"]
        body = {"fecha_de_emision_de_documentos": past.isoformat(), "codigo_tipo_proceso": "1"}
        for wrong, says in (
            (past - dt.timedelta(days=1), "anterior a la fecha de los documentos"),
            (peru_today() + dt.timedelta(days=1), "posterior a hoy"),
            ("31-02-2026", None),
        ):
            refused = client.post("/api/summaries", json={**body, "fecha_de_generacion": str(wrong)})
            payload = assert_error(refused, 422, "INVALID_FIELDS")
            assert payload["errors"][0]["field"] == "fecha_de_generacion", payload
            assert says is None or says in payload["message"]
        answer = client.post("/api/summaries", json={**body, "fecha_de_generacion": sent_on.isoformat()})
        assert answer.status_code == 200, answer.text
        data = answer.json()["data"]
        status_of(client, data, accepted=True)
        xml = client.get(f"/downloads/summary/xml/{data['external_id']}").content
        assert f"<cbc:IssueDate>{sent_on.isoformat()}</cbc:IssueDate>".encode() in xml
        assert f"<cbc:ReferenceDate>{past.isoformat()}</cbc:ReferenceDate>".encode() in xml
        [row] = client.get(f"/api/summaries/lists/{sent_on.isoformat()}/{sent_on.isoformat()}").json()["data"]
        assert row["filename"] == f"{shop.ruc}-RC-{sent_on:%Y%m%d}-1"
        assert row["date_of_issue"] == sent_on.isoformat() and row["date_of_reference"] == past.isoformat()
    # a tenant that refuses past dates generates its summaries today, and says so
    with live.client("acme", ACME_TOKEN) as acme:
        refused = acme.post(
            "/api/summaries",
            json={**body, "fecha_de_emision_de_documentos": today(), "fecha_de_generacion": past.isoformat()},
        )
        assert_error(refused, 422, "INVALID_FIELDS")
        assert "restrict_receipt_date" in refused.json()["message"]
