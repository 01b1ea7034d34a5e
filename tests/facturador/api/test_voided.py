"""Voided communications (RA) over HTTP: voiding facturas and their notes, tickets, states, files."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from facturador.authority.cdr import parse_cdr
from sunat.calendar import peru_today
from tests.common import issue, wait_for
from tests.conftest import LiveService
from tests.facturador.api.test_summaries import (
    IN_PROCESS,
    assert_error,
    not_found_message,
    set_state,
    stamp,
    state_of,
    today,
)
from tests.helpers import NS, assert_schema_valid, assert_signed, read_cdr
from tests.samples.bodies import boleta_body, credit_note_body, invoice_body
from tests.shops import Shop, new_shop


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "ra-shop")


@pytest.fixture
def client(shop: Shop) -> Iterator[httpx.Client]:
    with shop.http() as client:
        yield client


def dmy(day: str) -> str:
    """``2026-11-22`` -> ``22-11-2026`` (the format of P9 tenants)."""
    year, month, date = day.split("-")
    return f"{date}-{month}-{year}"


def void(
    client: httpx.Client, *external_ids: str, day: str | None = None, reason: str = "Error en el RUC"
) -> dict[str, Any]:
    body = {
        "fecha_de_emision_de_documentos": day or today(),
        "documentos": [{"external_id": e, "motivo_anulacion": reason} for e in external_ids],
    }
    response = client.post("/api/voided", json=body)
    assert response.status_code == 200, response.text
    payload = response.json()
    assert payload["success"] is True and set(payload["data"]) == {"external_id", "ticket"}
    return payload["data"]


def status_of(client: httpx.Client, data: dict[str, Any]) -> dict[str, Any]:
    response = wait_for(client, "/api/voided/status", {"external_id": data["external_id"]})
    assert response.status_code == 200, response.text
    return response.json()


def credit_note(client: httpx.Client, factura: dict[str, Any]) -> dict[str, Any]:
    return issue(client, credit_note_body(factura["external_id"]))["data"]


def test_void_a_factura_and_its_note(shop: Shop, client: httpx.Client) -> None:
    shop.set(authority_ticket_delay=3.0)
    try:
        factura = issue(client, invoice_body())["data"]
        note = credit_note(client, issue(client, invoice_body())["data"])
        assert (
            state_of(client, factura["external_id"]) == "05" and state_of(client, note["external_id"]) == "05"
        )
        data = void(client, factura["external_id"], note["external_id"])
        assert (
            state_of(client, factura["external_id"]) == "13" and state_of(client, note["external_id"]) == "13"
        )
        pending = client.post("/api/voided/status", json={"ticket": data["ticket"]})
        assert pending.status_code == 202
        assert pending.json()["message"] == IN_PROCESS and pending.json()["error_code"] == "TICKET_IN_PROCESS"
        assert state_of(client, factura["external_id"]) == "13"
    finally:
        shop.set(authority_ticket_delay=0.0)
    answer = status_of(client, data)
    identifier = f"RA-{stamp()}-1"
    filename = f"{shop.ruc}-{identifier}"
    base = f"{shop.live.base_url(shop.slug)}/downloads/voided"
    assert answer == {
        "success": True,
        "data": {"filename": filename, "external_id": data["external_id"]},
        "links": {"xml": f"{base}/xml/{data['external_id']}", "cdr": f"{base}/cdr/{data['external_id']}"},
        "response": {
            "sent": True,
            "code": "0",
            "description": f"La Comunicación de baja {identifier}, ha sido aceptada",
            "notes": [],
            "is_accepted": True,
            "status_code": 0,
        },
    }
    assert state_of(client, factura["external_id"]) == "11" and state_of(client, note["external_id"]) == "11"
    xml = client.get(answer["links"]["xml"])
    assert xml.headers["content-type"] == "application/xml"
    assert f'filename="{filename}.xml"' in xml.headers["content-disposition"]
    root = assert_schema_valid(xml.content)
    assert_signed(xml.content)
    assert root.findtext("cbc:ID", namespaces=NS) == identifier
    lines = root.findall("sac:VoidedDocumentsLine", NS)
    assert [
        (
            line.findtext("cbc:DocumentTypeCode", namespaces=NS),
            f"{line.findtext('sac:DocumentSerialID', namespaces=NS)}-"
            f"{line.findtext('sac:DocumentNumberID', namespaces=NS)}",
            line.findtext("sac:VoidReasonDescription", namespaces=NS),
        )
        for line in lines
    ] == [("01", factura["number"], "Error en el RUC"), ("07", note["number"], "Error en el RUC")]
    cdr = client.get(answer["links"]["cdr"])
    assert cdr.headers["content-type"] == "application/zip"
    assert f'filename="R-{filename}.zip"' in cdr.headers["content-disposition"]
    _entry, cdr_xml = read_cdr(cdr.content)
    assert_schema_valid(cdr_xml)
    assert_signed(cdr_xml)
    assert parse_cdr(cdr_xml).reference_id == identifier
    # a voided factura cannot be sent again (SUNAT: 1032)
    resent = client.post("/api/documents/send", json={"external_id": factura["external_id"]}).json()
    assert resent["response"]["code"] == "1032"


def test_both_date_formats_and_numbering_per_day(client: httpx.Client) -> None:
    first = issue(client, invoice_body())["data"]
    second = issue(client, invoice_body())["data"]
    answers = [
        status_of(client, void(client, first["external_id"], day=today())),
        status_of(client, void(client, second["external_id"], day=dmy(today()))),
    ]
    numbers = [int(answer["data"]["filename"].rsplit("-", 1)[1]) for answer in answers]
    assert numbers[1] == numbers[0] + 1
    assert all(answer["response"]["is_accepted"] for answer in answers)
    assert state_of(client, first["external_id"]) == "11" and state_of(client, second["external_id"]) == "11"


def test_a_short_reason_is_only_observed(client: httpx.Client) -> None:
    factura = issue(client, invoice_body())["data"]
    answer = status_of(client, void(client, factura["external_id"], reason="x"))
    assert answer["response"]["is_accepted"] is True
    assert [note.split(" - ")[0] for note in answer["response"]["notes"]] == ["4203", "2314"]
    assert state_of(client, factura["external_id"]) == "11"


def test_voiding_twice_is_rejected_and_the_factura_goes_back(client: httpx.Client) -> None:
    factura = issue(client, invoice_body())["data"]
    status_of(client, void(client, factura["external_id"]))
    assert state_of(client, factura["external_id"]) == "11"
    set_state(client, factura["external_id"], "05")  # the service forgets; SUNAT does not
    data = void(client, factura["external_id"])
    answer = status_of(client, data)
    response = answer["response"]
    assert (response["code"], response["status_code"], response["is_accepted"]) == ("2323", 99, False)
    assert response["description"].startswith(
        "Existe documento ya informado anteriormente en una comunicacion"
    )
    assert state_of(client, factura["external_id"]) == "05"  # back (the real services would say 11)
    again = client.post("/api/voided/status", json={"ticket": data["ticket"]})
    assert again.status_code == 200 and again.json() == answer


def test_voiding_a_factura_never_accepted_is_rejected(client: httpx.Client) -> None:
    unsent = issue(client, invoice_body(acciones={"enviar_xml_firmado": False}))["data"]
    assert state_of(client, unsent["external_id"]) == "01"
    set_state(client, unsent["external_id"], "05")
    answer = status_of(client, void(client, unsent["external_id"]))
    assert answer["response"]["code"] == "2105"
    assert state_of(client, unsent["external_id"]) == "05"


# ----------------------------------------------------------------------------------------------------------
# Bad input


@pytest.fixture
def accepted(client: httpx.Client) -> Iterator[dict[str, Any]]:
    """An accepted factura of today; after the test it must still be accepted (nothing changed)."""
    factura = issue(client, invoice_body())["data"]
    yield factura
    assert state_of(client, factura["external_id"]) == "05"


@pytest.mark.parametrize(
    ("day", "reason", "code", "field"),
    [
        (None, "Error", "MISSING_FIELDS", "fecha_de_emision_de_documentos"),
        ("2026/11/22", "Error", "INVALID_FIELDS", "fecha_de_emision_de_documentos"),
        ("31-02-2026", "Error", "INVALID_FIELDS", "fecha_de_emision_de_documentos"),
        ("TODAY", None, "MISSING_FIELDS", "documentos.0.motivo_anulacion"),
        ("TODAY", "   ", "MISSING_FIELDS", "documentos.0.motivo_anulacion"),
        ("TODAY", "x" * 501, "INVALID_FIELDS", "documentos.0.motivo_anulacion"),
    ],
)
def test_bad_bodies(
    client: httpx.Client, accepted: dict[str, Any], day: str | None, reason: str | None, code: str, field: str
) -> None:
    item: dict[str, Any] = {"external_id": accepted["external_id"]}
    if reason is not None:
        item["motivo_anulacion"] = reason
    body: dict[str, Any] = {"documentos": [item]}
    if day is not None:
        body["fecha_de_emision_de_documentos"] = today() if day == "TODAY" else day
    payload = assert_error(client.post("/api/voided", json=body), 422, code)
    assert field in [error["field"] for error in payload["errors"]]


@pytest.mark.parametrize("documentos", [[], None])
def test_voiding_nothing(client: httpx.Client, documentos: list[Any] | None) -> None:
    body: dict[str, Any] = {"fecha_de_emision_de_documentos": today()}
    if documentos is not None:
        body["documentos"] = documentos
    assert_error(
        client.post("/api/voided", json=body),
        422,
        "NO_DOCUMENTS",
        "No se enviaron documentos para la anulación.",
    )


def test_malformed_json_and_tokens(
    live: LiveService, shop: Shop, client: httpx.Client, accepted: dict[str, Any]
) -> None:
    response = client.post(
        "/api/voided", content=b'{"documentos": [', headers={"Content-Type": "application/json"}
    )
    assert_error(response, 400, "INVALID_JSON")
    body = {
        "fecha_de_emision_de_documentos": today(),
        "documentos": [{"external_id": accepted["external_id"]}],
    }
    with live.client(shop.slug, "wrong-token-0123456789-abcdefghijkl") as stranger:
        assert_error(stranger.post("/api/voided", json=body), 401, "UNAUTHENTICATED")
        assert_error(stranger.post("/api/voided/status", json={"ticket": "1"}), 401, "UNAUTHENTICATED")


def test_documents_that_cannot_be_voided(
    live: LiveService, client: httpx.Client, accepted: dict[str, Any]
) -> None:
    boleta = issue(client, boleta_body())["data"]
    set_state(client, boleta["external_id"], "05")
    unsent = issue(client, invoice_body(acciones={"enviar_xml_firmado": False}))["data"]
    with live.client("other", "other-token-0123456789-abcdefghijklmno") as other:
        theirs = issue(other, invoice_body())["data"]
    yesterday = (peru_today() - dt.timedelta(days=1)).isoformat()
    unknown = "00000000-0000-4000-8000-000000000000"
    for external_id, day, detail in [
        (unknown, today(), "No existe un documento"),
        (accepted["external_id"], yesterday, f"no el {yesterday}"),
        (accepted["external_id"], dmy(yesterday), f"no el {yesterday}"),
        (boleta["external_id"], today(), "resumen diario (POST /api/summaries, codigo_tipo_proceso 3)"),
        (theirs["external_id"], today(), "No existe un documento"),
    ]:
        body = {
            "fecha_de_emision_de_documentos": day,
            "documentos": [{"external_id": external_id, "motivo_anulacion": "Error"}],
        }
        payload = assert_error(
            client.post("/api/voided", json=body), 422, "DOCUMENT_NOT_FOUND", not_found_message(external_id)
        )
        assert payload["errors"][0]["field"] == "documentos.0.external_id"
        assert detail in payload["errors"][0]["message"]
    body = {
        "fecha_de_emision_de_documentos": today(),
        "documentos": [
            {"external_id": accepted["external_id"], "motivo_anulacion": "Error"},
            {"external_id": unsent["external_id"], "motivo_anulacion": "Error"},
        ],
    }
    payload = assert_error(client.post("/api/voided", json=body), 422, "DOCUMENT_NOT_VOIDABLE")
    assert [error["field"] for error in payload["errors"]] == ["documentos.1.external_id"]
    assert state_of(client, boleta["external_id"]) == "05"
    assert state_of(client, unsent["external_id"]) == "01"


def test_status_bad_input(client: httpx.Client, live: LiveService) -> None:
    assert_error(
        client.post("/api/voided/status", json={"ticket": "  "}),
        422,
        "MISSING_FIELDS",
        "Es requerido el código externo o ticket",
    )
    unknown = "00000000-0000-4000-8000-000000000000"
    assert_error(
        client.post("/api/voided/status", json={"external_id": unknown}),
        404,
        "VOIDED_NOT_FOUND",
        f"El código externo {unknown} es inválido, no se encontró anulación relacionada",
    )
    assert_error(
        client.post("/api/voided/status", json={"ticket": "999"}),
        404,
        "VOIDED_NOT_FOUND",
        "El ticket 999 es inválido, no se encontró anulación relacionada",
    )
    factura = issue(client, invoice_body())["data"]
    data = void(client, factura["external_id"])
    with live.client("other", "other-token-0123456789-abcdefghijklmno") as other:
        assert_error(
            other.post("/api/voided/status", json={"ticket": data["ticket"]}), 404, "VOIDED_NOT_FOUND"
        )
        assert other.get(f"/downloads/voided/cdr/{data['external_id']}").status_code == 404
    summary = client.post("/api/summaries/status", json={"external_id": data["external_id"]})
    assert_error(summary, 404, "SUMMARY_NOT_FOUND")
    assert status_of(client, data)["response"]["is_accepted"] is True
