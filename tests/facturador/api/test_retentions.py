"""Retentions (20) and perceptions (40) over HTTP: the public sample, accepted and rejected variants with
SUNAT's codes (and SUNAT's own stylesheets on every XML), bad input, files, lists and tenant isolation."""

from __future__ import annotations

import copy
import datetime as dt
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from facturador.authority.cdr import parse_cdr
from facturador.domain.pending import PendingSender
from sunat import withholding
from sunat.calendar import peru_today
from tests import reference, sunat_rules
from tests.common import issue, wait_for
from tests.conftest import LiveService
from tests.helpers import NS, assert_schema_valid, assert_signed, read_cdr
from tests.samples.withholding import perception, retention, today
from tests.served import NO_POLLER, serve
from tests.shops import Shop, new_shop


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "rt-shop")


@pytest.fixture(scope="module")
def rival(live: LiveService) -> Shop:
    return new_shop(live, "rt-rival")


@pytest.fixture
def client(shop: Shop) -> Iterator[httpx.Client]:
    with shop.http() as client:
        yield client


def with_today(value: Any) -> Any:
    """The body with every date replaced by today (the samples are from 2018)."""
    if isinstance(value, dict):
        return {key: today() if key.startswith("fecha") else with_today(item) for key, item in value.items()}
    if isinstance(value, list):
        return [with_today(item) for item in value]
    return value


def sample() -> dict[str, Any]:
    body = json.loads(reference.shared_path("examples", "retentions.json").read_text(encoding="utf-8"))
    return with_today(body)


def consistent(body: dict[str, Any]) -> dict[str, Any]:
    """The body without the client's amounts: the service computes them with sunat.withholding."""
    body = copy.deepcopy(body)
    body.pop("totales", None)
    for document in body["documentos"]:
        for key in ("total_retenido", "total_percibido", "total_a_pagar", "total_pagado"):
            document.pop(key, None)
    return body


def stylesheet(client: httpx.Client, payload: dict[str, Any]) -> Any:
    """The stored XML: schema-valid, signed, and SUNAT's stylesheet's verdict on it."""
    xml = client.get(payload["links"]["xml"])
    assert xml.status_code == 200 and xml.headers["content-type"] == "application/xml"
    assert_schema_valid(xml.content)
    assert_signed(xml.content, payload["data"]["hash"])
    return sunat_rules.run(xml.content, payload["data"]["filename"])


def count(client: httpx.Client, plural: str) -> int:
    response = client.get(f"/api/{plural}/lists")
    assert response.status_code == 200, response.text
    return len(response.json()["data"])


# --------------------------------------------------------------------------------------------------
# Retentions


@pytest.mark.requires_shared
def test_the_public_sample_is_rejected_by_sunat_as_its_stylesheet_says(client: httpx.Client) -> None:
    """The sample's header total paid (1000) is not the sum of its documents' (412 + 618): SUNAT's
    stylesheet answers 2629 and so does the simulator; the rejected retention is stored in state 09."""
    payload = issue(client, sample(), "/api/retentions")
    assert payload["response"]["code"] == "2629"
    assert payload["data"]["state_type_id"] == "09"
    verdict = stylesheet(client, payload)
    assert verdict.first_rejection == "2629"
    cdr = client.get(payload["links"]["cdr"])
    assert cdr.status_code == 200
    _name, cdr_xml = read_cdr(cdr.content)
    assert parse_cdr(cdr_xml).code == "2629"


@pytest.mark.requires_shared
def test_the_public_sample_with_consistent_amounts_is_accepted(shop: Shop, client: httpx.Client) -> None:
    payload = issue(client, consistent(sample()), "/api/retentions")
    assert payload["response"]["code"] == "0", payload
    assert payload["data"]["state_type_id"] == "05"
    assert payload["data"]["filename"] == f"{shop.ruc}-20-{payload['data']['number']}"
    assert sunat_rules.assert_no_rejection(
        client.get(payload["links"]["xml"]).content, payload["data"]["filename"]
    )
    verdict = stylesheet(client, payload)
    assert verdict.first_rejection is None


def test_a_retention_is_written_signed_sent_and_stored(shop: Shop, client: httpx.Client) -> None:
    before = count(client, "retentions")
    payload = issue(client, retention(), "/api/retentions")
    data = payload["data"]
    assert set(payload) == {"success", "data", "links", "response"}
    assert data["number"].startswith("R001-") and data["state_type_id"] == "05"
    assert payload["response"] == {
        "code": "0",
        "description": f"El Comprobante de Retencion numero {data['number']}, ha sido aceptada",
        "notes": [],
    }
    xml = client.get(payload["links"]["xml"]).content
    root = assert_schema_valid(xml)
    assert_signed(xml, data["hash"])
    # SUNAT's layout: the signature block before cbc:ID, the agent and the supplier
    children = [child.tag.split("}")[1] for child in root]
    assert children[:5] == ["UBLExtensions", "UBLVersionID", "CustomizationID", "Signature", "ID"]
    assert root.findtext("cac:AgentParty/cac:PartyIdentification/cbc:ID", namespaces=NS) == shop.ruc
    assert root.findtext("cac:ReceiverParty/cac:PartyIdentification/cbc:ID", namespaces=NS) == "20100070970"
    assert root.findtext("sac:SUNATRetentionPercent", namespaces=NS) == "3"
    # 400 PEN: 12.00 retained, 388.00 paid; 200 USD at 3.752 = 750.40 PEN: 22.51 retained, 727.89 paid
    first = withholding.payment_amounts("20", "01", Decimal("400"))
    second = withholding.payment_amounts("20", "01", Decimal("200"), Decimal("3.752"))
    assert (first.amount, first.net, second.amount, second.net) == (
        Decimal("12.00"),
        Decimal("388.00"),
        Decimal("22.51"),
        Decimal("727.89"),
    )
    assert root.findtext("cbc:TotalInvoiceAmount", namespaces=NS) == "34.51"
    assert root.findtext("sac:SUNATTotalPaid", namespaces=NS) == "1115.89"
    rate = root.find(
        "sac:SUNATRetentionDocumentReference[2]/sac:SUNATRetentionInformation/cac:ExchangeRate", NS
    )
    assert rate is not None and rate.findtext("cbc:CalculationRate", namespaces=NS) == "3.752000"
    if reference.available():
        sunat_rules.assert_no_rejection(xml, data["filename"])
    pdf = client.get(payload["links"]["pdf"])
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    cdr = client.get(payload["links"]["cdr"])
    assert cdr.headers["content-type"] == "application/zip"
    name, cdr_xml = read_cdr(cdr.content)
    assert name == f"R-{data['filename']}.xml" and parse_cdr(cdr_xml).code == "0"
    rows = client.get("/api/retentions/lists").json()["data"]
    assert len(rows) == before + 1
    row = rows[0]
    assert (row["external_id"], row["total"], row["total_net"], row["regime"], row["percent"]) == (
        data["external_id"],
        "34.51",
        "1115.89",
        "01",
        "3",
    )
    day = today()
    assert any(
        r["external_id"] == data["external_id"]
        for r in client.get(f"/api/retentions/lists/{day}/{day}").json()["data"]
    )


def test_numbers_follow_and_a_taken_number_is_a_conflict(client: httpx.Client) -> None:
    first = issue(client, retention(), "/api/retentions")["data"]["number"]
    second = issue(client, retention(), "/api/retentions")["data"]["number"]
    assert int(second.split("-")[1]) == int(first.split("-")[1]) + 1
    before = count(client, "retentions")
    taken = client.post("/api/retentions", json=retention(numero_documento=second.split("-")[1]))
    assert taken.status_code == 409 and taken.json()["error_code"] == "DUPLICATE_NUMBER"
    assert count(client, "retentions") == before


@pytest.mark.parametrize(
    ("change", "code", "stylesheet_code"),
    [
        # the amounts of a payment at 6 % under regime 01 (3 %): SUNAT's backend, not its stylesheet
        ("wrong_rate", "2623", None),
        # the header's total retained is not the sum of the documents'
        ("wrong_total", "2628", "2628"),
        # the header's total paid is not the sum of the documents'
        ("wrong_paid", "2629", "2629"),
        # a payment of last month
        ("old_payment", "2661", None),
        # a payment after the retention's issue date
        ("late_payment", "2661", None),
    ],
)
def test_rejected_variants_answer_sunats_code(
    client: httpx.Client, change: str, code: str, stylesheet_code: str | None
) -> None:
    body = retention()
    first = body["documentos"][0]
    if change == "wrong_rate":
        wrong = withholding.payment_amounts("20", "02", Decimal("400"))
        first["total_retenido"], first["total_a_pagar"] = str(wrong.amount), str(wrong.net)
    elif change == "wrong_total":
        body["totales"] = {"total_retenido": "99.99"}
    elif change == "wrong_paid":
        body["totales"] = {"total_pagado": "1000.00"}
    elif change == "old_payment":
        first["pagos"][0]["fecha_de_pago"] = (peru_today().replace(day=1) - dt.timedelta(days=1)).isoformat()
    else:
        body["fecha_de_emision"] = (peru_today() - dt.timedelta(days=1)).isoformat()
        if peru_today().day == 1:
            pytest.skip("yesterday is another month: the period rule would answer first")
    payload = issue(client, body, "/api/retentions")
    assert payload["response"]["code"] == code, payload["response"]
    assert payload["data"]["state_type_id"] == "09"
    assert payload["response"]["description"].startswith(
        {
            "2623": "Los montos de pago",
            "2628": "Importe total retenido",
            "2629": "Importe total pagado",
            "2661": "La fecha de cobro",
        }[code]
    )
    if reference.available():
        assert stylesheet(client, payload).first_rejection == stylesheet_code


BAD_INPUTS = [
    ("no documents", lambda b: b.pop("documentos"), "documentos"),
    ("empty documents", lambda b: b.update(documentos=[]), "documentos"),
    ("unknown regime", lambda b: b.update(codigo_tipo_retencion="03"), "codigo_tipo_retencion"),
    (
        "supplier with DNI",
        lambda b: b["datos_del_proveedor"].update(
            codigo_tipo_documento_identidad="1", numero_documento="12345678"
        ),
        "datos_del_proveedor.codigo_tipo_documento_identidad",
    ),
    (
        "bad supplier RUC",
        lambda b: b["datos_del_proveedor"].update(numero_documento="123"),
        "datos_del_proveedor.numero_documento",
    ),
    ("no exchange rate", lambda b: b["documentos"][1].pop("tipo_de_cambio"), "documentos.1.tipo_de_cambio"),
    (
        "payment in another currency",
        lambda b: b["documentos"][0]["pagos"][0].update(codigo_tipo_moneda="USD"),
        "documentos.0.pagos.0.codigo_tipo_moneda",
    ),
    (
        "two payments",
        lambda b: b["documentos"][0]["pagos"].append(dict(b["documentos"][0]["pagos"][0])),
        "documentos.0.pagos",
    ),
    (
        "negative payment",
        lambda b: b["documentos"][0]["pagos"][0].update(total_pago=-5),
        "documentos.0.pagos.0.total_pago",
    ),
    ("bad date", lambda b: b.update(fecha_de_emision="2026-02-30"), "fecha_de_emision"),
    ("bad number", lambda b: b.update(numero_documento="0"), "numero_documento"),
    ("unknown series", lambda b: b.update(serie_documento="R999"), "serie_documento"),
    ("series of another type", lambda b: b.update(serie_documento="F001"), "serie_documento"),
    (
        "unknown establishment",
        lambda b: b.update(datos_del_emisor={"codigo_del_domicilio_fiscal": "0042"}),
        "datos_del_emisor.codigo_del_domicilio_fiscal",
    ),
    (
        "related type",
        lambda b: b["documentos"][0].update(codigo_tipo_documento="03"),
        "documentos.0.codigo_tipo_documento",
    ),
    (
        "no retention date",
        lambda b: b["documentos"][0].pop("fecha_de_retencion"),
        "documentos.0.fecha_de_retencion",
    ),
    # a document without its payment was left out of the retention (the other one was issued alone)
    ("no payment", lambda b: b["documentos"][0].pop("pagos"), "documentos.0.pagos"),
    ("null payment", lambda b: b["documentos"][1].update(pagos=None), "documentos.1.pagos"),
]


@pytest.mark.parametrize(("case", "breaks", "field"), BAD_INPUTS, ids=[case[0] for case in BAD_INPUTS])
def test_bad_input_is_a_4xx_naming_the_field_and_stores_nothing(
    client: httpx.Client, case: str, breaks: Any, field: str
) -> None:
    before = count(client, "retentions")
    body = retention()
    breaks(body)
    response = client.post("/api/retentions", json=body)
    assert response.status_code == 422, response.text
    payload = response.json()
    assert payload["success"] is False
    assert field in [error["field"] for error in payload["errors"]], payload
    assert count(client, "retentions") == before


@pytest.mark.parametrize("payments", ["absent", None, []])
def test_a_perception_whose_only_document_has_no_payment_is_a_422(
    client: httpx.Client, payments: Any
) -> None:
    """It was a 500: the XML builder got a perception without documents."""
    before = count(client, "perceptions")
    body = perception()
    if payments == "absent":
        del body["documentos"][0]["pagos"]
    else:
        body["documentos"][0]["pagos"] = payments
    response = client.post("/api/perceptions", json=body)
    assert response.status_code == 422, response.text
    assert "documentos.0.pagos" in [error["field"] for error in response.json()["errors"]]
    assert count(client, "perceptions") == before


def test_bodies_that_are_not_objects_and_missing_tokens(shop: Shop, client: httpx.Client) -> None:
    before = count(client, "retentions")
    assert client.post("/api/retentions", content=b"{").status_code == 400
    assert client.post("/api/retentions", json=[retention()]).status_code == 400
    assert client.post("/api/retentions", content=b"").status_code == 400
    with shop.live.client(shop.slug, token="not-a-token") as stranger:
        assert stranger.post("/api/retentions", json=retention()).status_code == 401
        assert stranger.get("/api/retentions/lists").status_code == 401
    assert client.get("/api/retentions/lists/2026-12-01/2026-11-01").status_code == 422
    assert count(client, "retentions") == before


def test_another_tenant_sees_nothing(client: httpx.Client, rival: Shop) -> None:
    payload = issue(client, retention(), "/api/retentions")
    external_id = payload["data"]["external_id"]
    with rival.http() as other:
        assert all(
            row["external_id"] != external_id for row in other.get("/api/retentions/lists").json()["data"]
        )
        for kind in ("xml", "pdf", "cdr"):
            response = other.get(f"/downloads/retention/{kind}/{external_id}")
            assert response.status_code == 404, response.text
        # its own numbering starts at 1
        mine = issue(other, retention(), "/api/retentions")
        assert mine["data"]["number"] == "R001-1"
    assert client.get(f"/downloads/retention/zip/{external_id}").status_code == 404
    assert client.get(f"/downloads/perception/xml/{external_id}").status_code == 404


def test_an_authority_outage_keeps_the_retention_registered_and_sends_it_later(
    shop: Shop, client: httpx.Client, live: LiveService
) -> None:
    before = count(client, "retentions")
    shop.set(authority_outage=True, send_retry_seconds=0.0)
    try:
        response = client.post("/api/retentions", json=retention())
    finally:
        shop.set(authority_outage=False)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["state_type_id"] == "01" and response.json()["response"]["code"] == "0109"
    assert response.json()["links"]["cdr"] == ""
    assert count(client, "retentions") == before + 1  # kept, with its number: never given back
    # the next retention takes the next number
    after = issue(client, retention(), "/api/retentions")
    assert int(after["data"]["number"].split("-")[1]) == int(data["number"].split("-")[1]) + 1
    # the pending sender sends the same signed XML again, once SUNAT answers
    sent = PendingSender(live.context).send_due(tenant=shop.slug)
    assert [(outcome.document.number, outcome.state) for outcome in sent] == [(data["number"], "05")]
    rows = {row["number"]: row for row in client.get("/api/retentions/lists").json()["data"]}
    assert rows[data["number"]]["state_type_id"] == "05"
    assert rows[data["number"]]["external_id"] == data["external_id"]
    assert client.get(f"/downloads/retention/cdr/{data['external_id']}").status_code == 200


# --------------------------------------------------------------------------------------------------
# Perceptions


def test_a_perception_is_accepted(shop: Shop, client: httpx.Client) -> None:
    payload = issue(client, perception(), "/api/perceptions")
    data = payload["data"]
    assert data["number"].startswith("P001-") and payload["response"]["code"] == "0", payload
    xml = client.get(payload["links"]["xml"]).content
    root = assert_schema_valid(xml)
    assert_signed(xml, data["hash"])
    assert root.findtext("sac:SUNATPerceptionPercent", namespaces=NS) == "2"
    # 1180 collected: 23.60 perceived, 1203.60 collected in all
    assert root.findtext("cbc:TotalInvoiceAmount", namespaces=NS) == "23.60"
    assert root.findtext("sac:SUNATTotalCashed", namespaces=NS) == "1203.60"
    if reference.available():
        sunat_rules.assert_no_rejection(xml, data["filename"])
    assert client.get(payload["links"]["pdf"]).content.startswith(b"%PDF")
    rows = client.get("/api/perceptions/lists").json()["data"]
    assert rows[0]["external_id"] == data["external_id"] and rows[0]["total"] == "23.60"
    assert all(
        row["external_id"] != data["external_id"]
        for row in client.get("/api/retentions/lists").json()["data"]
    )


@pytest.mark.parametrize(("regime", "percent", "amount"), [("02", "1", "11.80"), ("03", "0.5", "5.90")])
def test_perception_regimes_and_their_rates(
    client: httpx.Client, regime: str, percent: str, amount: str
) -> None:
    payload = issue(client, perception(codigo_tipo_percepcion=regime), "/api/perceptions")
    assert payload["response"]["code"] == "0"
    root = assert_schema_valid(client.get(payload["links"]["xml"]).content)
    assert root.findtext("sac:SUNATPerceptionPercent", namespaces=NS) == percent
    assert root.findtext("cbc:TotalInvoiceAmount", namespaces=NS) == amount


def test_perception_rejections(client: httpx.Client) -> None:
    wrong_total = issue(client, perception(totales={"total_percibido": "1.00"}), "/api/perceptions")
    assert wrong_total["response"]["code"] == "2667"
    body = perception()
    body["documentos"][0]["total_percibido"] = "59.00"  # 5 %, not regime 01's 2 %
    body["documentos"][0]["total_a_pagar"] = "1239.00"
    wrong_rate = issue(client, body, "/api/perceptions")
    assert wrong_rate["response"]["code"] == "2608"
    if reference.available():
        assert stylesheet(client, wrong_total).first_rejection == "2667"
        assert stylesheet(client, wrong_rate).first_rejection is None


def test_perception_bad_input(client: httpx.Client) -> None:
    before = count(client, "perceptions")
    response = client.post("/api/perceptions", json=perception(codigo_tipo_percepcion="04"))
    assert response.status_code == 422
    assert "codigo_tipo_percepcion" in [e["field"] for e in response.json()["errors"]]
    body = perception()
    del body["datos_del_cliente_o_receptor"]
    response = client.post("/api/perceptions", json=body)
    assert response.status_code == 422
    assert "datos_del_cliente_o_receptor" in [e["field"] for e in response.json()["errors"]]
    assert count(client, "perceptions") == before


# --------------------------------------------------------------------------------------------------
# Reversions (RR)


def state(client: httpx.Client, plural: str, external_id: str) -> str:
    rows = client.get(f"/api/{plural}/lists").json()["data"]
    return next(row["state_type_id"] for row in rows if row["external_id"] == external_id)


def reverse(client: httpx.Client, plural: str, *external_ids: str, day: str | None = None) -> httpx.Response:
    return client.post(
        f"/api/{plural}/voided",
        json={
            "fecha_de_emision_de_documentos": day or today(),
            "documentos": [{"external_id": e, "motivo_anulacion": "Error en el monto"} for e in external_ids],
        },
    )


@pytest.mark.parametrize(("plural", "body"), [("retentions", retention), ("perceptions", perception)])
def test_a_reversion_cancels_an_accepted_document(
    shop: Shop, client: httpx.Client, plural: str, body: Any
) -> None:
    issued = issue(client, body(), f"/api/{plural}")
    external_id = issued["data"]["external_id"]
    shop.set(authority_ticket_delay=3.0)
    try:
        sent = reverse(client, plural, external_id)
        assert sent.status_code == 200, sent.text
        data = sent.json()["data"]
        assert set(data) == {"external_id", "ticket"}
        assert state(client, plural, external_id) == "13"
        pending = client.post(f"/api/{plural}/voided/status", json={"ticket": data["ticket"]})
        assert pending.status_code == 202 and pending.json()["error_code"] == "TICKET_IN_PROCESS"
    finally:
        shop.set(authority_ticket_delay=0.0)
    other = "perceptions" if plural == "retentions" else "retentions"
    elsewhere = client.post(f"/api/{other}/voided/status", json={"ticket": data["ticket"]})
    assert elsewhere.status_code == 404 and elsewhere.json()["errors"][0]["field"] == "ticket"
    answer = wait_for(client, f"/api/{plural}/voided/status", {"external_id": data["external_id"]})
    assert answer.status_code == 200, answer.text
    payload = answer.json()
    identifier = payload["data"]["filename"].split("-", 1)[1]
    assert identifier.startswith(f"RR-{peru_today():%Y%m%d}-")
    assert payload["response"]["code"] == "0" and payload["response"]["is_accepted"] is True
    assert payload["response"]["description"] == f"El Resumen de reversiones {identifier}, ha sido aceptado"
    assert state(client, plural, external_id) == "11"
    xml = client.get(payload["links"]["xml"])
    assert xml.status_code == 200
    root = assert_schema_valid(xml.content)
    assert_signed(xml.content)
    line = root.find("sac:VoidedDocumentsLine", NS)
    assert line is not None
    assert line.findtext("cbc:DocumentTypeCode", namespaces=NS) == ("20" if plural == "retentions" else "40")
    series, number = (line.findtext(f"sac:Document{part}ID", namespaces=NS) for part in ("Serial", "Number"))
    assert f"{series}-{number}" == issued["data"]["number"]
    cdr = client.get(payload["links"]["cdr"])
    assert parse_cdr(read_cdr(cdr.content)[1]).code == "0"
    if reference.available():
        verdict = sunat_rules.run(xml.content, payload["data"]["filename"])
        assert verdict.runtime_error is None and verdict.first_rejection is None, verdict.rejections
    # reverted once: a second reversion is refused and changes nothing
    again = reverse(client, plural, external_id)
    assert again.status_code == 422 and again.json()["errors"][0]["field"] == "documentos.0.external_id"
    assert state(client, plural, external_id) == "11"


def test_reversion_refusals_store_nothing(client: httpx.Client, rival: Shop) -> None:
    rejected = issue(client, retention(totales={"total_retenido": "1.00"}), "/api/retentions")
    assert rejected["data"]["state_type_id"] == "09"
    accepted = issue(client, retention(), "/api/retentions")
    with rival.http() as other:
        theirs = issue(other, retention(), "/api/retentions")["data"]["external_id"]
    cases = [
        (reverse(client, "retentions", rejected["data"]["external_id"]), "documentos.0.external_id"),
        (reverse(client, "retentions", theirs), "documentos.0.external_id"),
        (reverse(client, "retentions", "no-such-document"), "documentos.0.external_id"),
        (reverse(client, "perceptions", accepted["data"]["external_id"]), "documentos.0.external_id"),
        (
            reverse(client, "retentions", accepted["data"]["external_id"], day="2020-01-01"),
            "documentos.0.external_id",
        ),
        (reverse(client, "retentions"), "documentos"),
        (client.post("/api/retentions/voided", json={"documentos": []}), "fecha_de_emision_de_documentos"),
    ]
    for response, field in cases:
        assert response.status_code == 422, response.text
        assert field in [e["field"] for e in response.json()["errors"]], response.text
    assert state(client, "retentions", accepted["data"]["external_id"]) == "05"
    unknown = client.post("/api/retentions/voided/status", json={"ticket": "123"})
    assert unknown.status_code == 404
    assert client.post("/api/retentions/voided/status", json={}).status_code == 422


@pytest.mark.slow
def test_a_restart_between_reversion_and_status_loses_nothing(
    live: LiveService, shop: Shop, tmp_path: Path
) -> None:
    """Revert through one server process, stop it, and ask the ticket through a new one."""
    shop.set(authority_ticket_delay=3.0)
    try:
        with serve(live.settings, tmp_path / "first.log", *NO_POLLER) as first_server:
            with first_server.client(shop.slug, shop.token) as first:
                issued = issue(first, retention(), "/api/retentions")
                external_id = issued["data"]["external_id"]
                sent = reverse(first, "retentions", external_id)
                assert sent.status_code == 200, sent.text
                data = sent.json()["data"]
                assert first.post("/api/retentions/voided/status", json=data).status_code == 202
        with serve(live.settings, tmp_path / "second.log", *NO_POLLER) as second_server:
            with second_server.client(shop.slug, shop.token) as second:
                assert state(second, "retentions", external_id) == "13"
                answer = wait_for(second, "/api/retentions/voided/status", {"ticket": data["ticket"]})
                assert answer.status_code == 200 and answer.json()["response"]["code"] == "0", answer.text
                assert state(second, "retentions", external_id) == "11"
    finally:
        shop.set(authority_ticket_delay=0.0)
