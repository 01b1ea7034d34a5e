"""Dispatch guides over real HTTP: issue (09, 31) in state 01, send through the GRE REST API (the
simulator the service mounts at /gre, reached over loopback HTTP), follow the ticket 98 -> 0 / 99, the
CDR and the QR URL; refused credentials and renewed tokens; bad input; tenants; a restart."""

from __future__ import annotations

import datetime as dt
import io
import json
import shutil
import subprocess
import time
import zipfile
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from lxml import etree

from facturador.authority import cdr as cdr_mod
from facturador.authority.gre import client as gre_client
from facturador.authority.gre.client import GreEndpoint
from facturador.authority.gre.simulator import SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET
from facturador.domain.failpoints import KILL_AFTER_COMMIT_ENV
from facturador.ubl import xsd
from facturador.ubl.signing import verify
from sunat.calendar import peru_today
from tests import reference
from tests.common import issue, poll
from tests.conftest import LiveService
from tests.samples.dispatches import carrier_body, dispatch_body
from tests.samples.tenants import OTHER, OTHER_TOKEN
from tests.served import serve
from tests.shops import Shop, new_shop


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    # the ticket stays "in process" long enough to be seen so, even on a loaded machine
    return new_shop(live, "guias", authority_ticket_delay=2.5)


@pytest.fixture
def api(shop: Shop) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=shop.base_url, headers={"Authorization": f"Bearer {shop.token}"}, timeout=60
    ) as client:
        yield client


def guides(api: httpx.Client) -> list[dict[str, Any]]:
    """The guides issued yesterday and today (the bodies are dated when this module is imported, which
    may be the day before in Lima when a run crosses midnight)."""
    today = peru_today()
    yesterday = today - dt.timedelta(days=1)
    response = api.get(f"/api/dispatches/lists/{yesterday.isoformat()}/{today.isoformat()}")
    assert response.status_code == 200
    return response.json()["data"]


def wait_status(api: httpx.Client, external_id: str, timeout: float = 15) -> httpx.Response:
    """The guide's ticket status once it is no longer in process (the live service's clock moves on
    while it is: :func:`tests.common.poll`)."""
    body = {"external_id": external_id}
    return poll(lambda: api.post("/api/dispatches/status_ticket", json=body), seconds=timeout)


# -- issuing ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["01", "02"])
def test_issued_guide_is_numbered_signed_and_left_unsent(api: httpx.Client, shop: Shop, mode: str) -> None:
    answer = issue(api, dispatch_body(mode), "/api/dispatches")
    data = answer["data"]
    assert data["number"].startswith("T001-") and data["filename"] == f"{shop.ruc}-09-{data['number']}"
    listed = {g["external_id"]: g for g in guides(api)}
    assert listed[data["external_id"]]["state_type_id"] == "01"
    assert listed[data["external_id"]]["has_cdr"] is False
    xml = api.get(answer["links"]["xml"])
    assert xml.status_code == 200 and xml.headers["content-type"] == "application/xml"
    assert xsd.validate(xml.content, "DespatchAdvice") == []
    assert verify(xml.content).digest_value
    root = etree.fromstring(xml.content)
    assert (
        root.findtext("{urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2}ID")
        == data["number"]
    )
    pdf = api.get(answer["links"]["pdf"])
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert api.get(f"/downloads/dispatch/cdr/{data['external_id']}").status_code == 404


def test_numbers_follow_each_other_and_an_explicit_number_is_taken_once(api: httpx.Client) -> None:
    first = issue(api, dispatch_body(), "/api/dispatches")["data"]["number"]
    second = issue(api, dispatch_body(), "/api/dispatches")["data"]["number"]
    assert int(second.split("-")[1]) == int(first.split("-")[1]) + 1
    taken = api.post("/api/dispatches", json=dispatch_body(numero_documento=second.split("-")[1]))
    assert taken.status_code == 409 and taken.json()["error_code"] == "DUPLICATE_NUMBER"


def test_carrier_guide_is_issued_in_series_v001(api: httpx.Client, shop: Shop) -> None:
    answer = issue(api, carrier_body(), "/api/dispatch-carrier")
    assert answer["data"]["number"].startswith("V001-")
    assert answer["data"]["filename"].startswith(f"{shop.ruc}-31-V001-")


# -- sending and tickets ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body"), [("/api/dispatches", dispatch_body("02")), ("/api/dispatch-carrier", carrier_body())]
)
def test_send_ticket_98_then_accepted_with_cdr_and_qr(
    api: httpx.Client, path: str, body: dict[str, Any]
) -> None:
    data = issue(api, body, path)["data"]
    sent = api.post("/api/dispatches/send", json={"external_id": data["external_id"]})
    assert sent.status_code == 200, sent.text
    ticket = sent.json()["data"]["ticket"]
    assert sent.json()["message"].startswith(f"Se obtuvo el nro. de ticket correctamente. Ticket: {ticket}")
    assert sent.json()["data"]["state_type_id"] == "03"
    early = api.post("/api/dispatches/status_ticket", json={"external_id": data["external_id"]})
    assert early.status_code == 202
    assert early.json()["message"] == "La guía aún está en proceso, vuelva a consultar."
    assert early.json()["data"]["state_type_id"] == "03"
    done = wait_status(api, data["external_id"])
    assert done.status_code == 200, done.text
    answer = done.json()
    assert answer["data"]["state_type_id"] == "05"
    kind = "La Guia de Remision Transportista" if path.endswith("carrier") else "La Guia de Remision"
    assert answer["message"] == f"{kind} {data['number']} ha sido aceptada"
    assert answer["data"]["qr_url"].startswith("https://e-factura.sunat.gob.pe/v1/contribuyente/gre/")
    cdr = api.get(answer["links"]["cdr"])
    assert cdr.status_code == 200 and cdr.headers["content-type"] == "application/zip"
    assert cdr_mod.read_cdr(cdr.content).code == "0"
    assert zipfile.ZipFile(io.BytesIO(cdr.content)).namelist() == [f"R-{data['filename']}.xml"]
    again = api.post("/api/dispatches/status_ticket", json={"external_id": data["external_id"]})
    assert again.status_code == 200 and again.json()["data"]["state_type_id"] == "05"
    resend = api.post("/api/dispatches/send", json={"external_id": data["external_id"]})
    assert resend.status_code == 409
    listed = {g["external_id"]: g for g in guides(api)}[data["external_id"]]
    assert listed["state_type_id"] == "05" and listed["qr_url"] == answer["data"]["qr_url"]


def test_rejected_guide_gets_09_with_sunats_error(api: httpx.Client) -> None:
    body = dispatch_body("02", vehiculo={"numero_de_placa": "AB-12"})
    data = issue(api, body, "/api/dispatches")["data"]
    assert api.post("/api/dispatches/send", json={"external_id": data["external_id"]}).status_code == 200
    done = wait_status(api, data["external_id"])
    assert done.status_code == 200
    answer = done.json()
    assert answer["data"]["state_type_id"] == "09"
    assert "placa" in answer["message"].lower() and '"AB12"' in answer["message"]  # as written in the XML
    assert cdr_mod.read_cdr(api.get(answer["links"]["cdr"]).content).code == "2567"
    assert {g["external_id"]: g for g in guides(api)}[data["external_id"]]["state_type_id"] == "09"


def test_plates_typed_with_hyphens_are_sent_as_sunat_wants_them(api: httpx.Client) -> None:
    """A carrier's secondary vehicle typed "def-456" was written so and accepted by the simulator, while
    SUNAT rejects it (2567): every plate goes without hyphens or spaces, and SUNAT's observation 4399 on a
    secondary vehicle without its certificate reaches the answer."""
    body = carrier_body(vehiculo={**carrier_body()["vehiculo"], "numero_de_placa": "abc-123"})
    body["vehiculo_secundario"] = [{"numero_de_placa": "def-456"}]
    answer = issue(api, body, "/api/dispatch-carrier")
    equipment = _xml(api, answer).find(f"{CAC}Shipment/{CAC}TransportHandlingUnit/{CAC}TransportEquipment")
    assert equipment is not None
    assert equipment.findtext(f"{CBC}ID") == "ABC123"
    assert equipment.findtext(f"{CAC}AttachedTransportEquipment/{CBC}ID") == "DEF456"
    _accepted(api, answer["data"]["external_id"])
    done = wait_status(api, answer["data"]["external_id"])
    cdr = cdr_mod.read_cdr(api.get(done.json()["links"]["cdr"]).content)
    assert cdr.code == "0" and [note[:4] for note in cdr.notes] == ["4399"]


def test_status_of_an_unsent_guide_is_409(api: httpx.Client) -> None:
    data = issue(api, dispatch_body(), "/api/dispatches")["data"]
    response = api.post("/api/dispatches/status_ticket", json={"external_id": data["external_id"]})
    assert response.status_code == 409 and response.json()["error_code"] == "DISPATCH_NOT_SENT"


def test_wrong_gre_credentials_are_a_502_and_the_guide_stays_unsent(api: httpx.Client, shop: Shop) -> None:
    data = issue(api, dispatch_body(), "/api/dispatches")["data"]
    shop.set_secret("gre_password", "wrong-password")
    try:
        response = api.post("/api/dispatches/send", json={"external_id": data["external_id"]})
        assert response.status_code == 502
        assert response.json()["message"].startswith("Code: 0 - Message: Error al obtener token")
        assert "invalid_grant" in response.json()["message"]
        assert {g["external_id"]: g for g in guides(api)}[data["external_id"]]["state_type_id"] == "01"
    finally:
        shop.set_secret("gre_password", None)
    assert api.post("/api/dispatches/send", json={"external_id": data["external_id"]}).status_code == 200


def test_a_token_the_api_refuses_is_renewed(api: httpx.Client, shop: Shop, live: LiveService) -> None:
    data = issue(api, dispatch_body(), "/api/dispatches")["data"]
    endpoint = GreEndpoint(
        f"{live.root}/gre",
        f"{live.root}/gre",
        SIMULATOR_CLIENT_ID,
        SIMULATOR_CLIENT_SECRET,
        f"{shop.ruc}MODDATOS",
        "MODDATOS",
    )
    key = gre_client.GreClient(endpoint).cache_key
    with gre_client._TOKENS_LOCK:
        gre_client._TOKENS[key] = ("eyJmb3JnZWQiOiAxfQ.bm90LXNpZ25lZA", time.time() + 3600)
    response = api.post("/api/dispatches/send", json={"external_id": data["external_id"]})
    assert response.status_code == 200, response.text
    with gre_client._TOKENS_LOCK:
        assert gre_client._TOKENS[key][0] != "eyJmb3JnZWQiOiAxfQ.bm90LXNpZ25lZA"


def test_unreachable_gre_api_is_a_502(api: httpx.Client, shop: Shop) -> None:
    data = issue(api, dispatch_body(), "/api/dispatches")["data"]
    shop.set(gre_api_url="http://127.0.0.1:9", gre_timeout=5)
    try:
        response = api.post("/api/dispatches/send", json={"external_id": data["external_id"]})
        assert response.status_code == 502 and response.json()["error_code"] == "GRE_UNREACHABLE"
    finally:
        shop.set(gre_api_url="")


# -- bad input, tenants -------------------------------------------------------------------------------


def _without(body: dict[str, Any], *path: str) -> dict[str, Any]:
    node = body
    for key in path[:-1]:
        node = node[key]
    node.pop(path[-1])
    return body


BAD = [
    ("no items", lambda: dispatch_body(items=[]), "items"),
    ("no transfer reason", lambda: dispatch_body(codigo_motivo_traslado=None), "codigo_motivo_traslado"),
    (
        "reason outside catalog 20",
        lambda: dispatch_body(codigo_motivo_traslado="99"),
        "codigo_motivo_traslado",
    ),
    ("mode outside catalog 18", lambda: dispatch_body(codigo_modo_transporte="03"), "codigo_modo_transporte"),
    ("weight unit", lambda: dispatch_body(unidad_peso_total="LBR"), "unidad_peso_total"),
    ("weight zero", lambda: dispatch_body(peso_total=0), "peso_total"),
    ("public without carrier", lambda: dispatch_body("01", transportista=None), "transportista"),
    ("private without driver", lambda: dispatch_body("02", chofer=None), "chofer"),
    ("private without vehicle", lambda: dispatch_body("02", vehiculo=None), "vehiculo"),
    (
        "transfer before issue",
        lambda: dispatch_body(fecha_de_emision=peru_today().isoformat(), fecha_de_traslado="2020-01-01"),
        "fecha_de_traslado",
    ),
    (
        "unknown establishment",
        lambda: dispatch_body(datos_del_emisor={"codigo_del_domicilio_fiscal": "0099"}),
        "datos_del_emisor.codigo_del_domicilio_fiscal",
    ),
    (
        "ubigeo format",
        lambda: dispatch_body(direccion_llegada={"ubigeo": "15", "direccion": "Av. X 1"}),
        "direccion_llegada.ubigeo",
    ),
    (
        "address too long",
        lambda: dispatch_body(direccion_partida={"ubigeo": "150101", "direccion": "x" * 101}),
        "direccion_partida.direccion",
    ),
    ("wrong document type", lambda: dispatch_body(codigo_tipo_documento="31"), "codigo_tipo_documento"),
    ("carrier series", lambda: dispatch_body(serie_documento="V001"), "serie_documento"),
    (
        "related outside catalog 61",
        lambda: dispatch_body(documento_relacionado=[{"numero": "X", "documento": {"id": "07"}}]),
        "documento_relacionado.0.documento.id",
    ),
    (
        "carrier guide related",
        lambda: dispatch_body(documento_relacionado=[{"numero": "V001-1", "documento": {"id": "31"}}]),
        "documento_relacionado.0.documento.id",
    ),
    (
        "quantity",
        lambda: dispatch_body(items=[{"descripcion": "X", "unidad_de_medida": "NIU", "cantidad": -1}]),
        "items.0.cantidad",
    ),
    ("number", lambda: dispatch_body(numero_documento="abc"), "numero_documento"),
]


@pytest.mark.parametrize(("label", "make", "field"), BAD, ids=[case[0] for case in BAD])
def test_bad_input_is_422_naming_the_field_and_stores_nothing(
    api: httpx.Client, label: str, make: Any, field: str
) -> None:
    before = len(guides(api))
    response = api.post("/api/dispatches", json=make())
    assert response.status_code == 422, response.text
    assert field in [error["field"] for error in response.json()["errors"]], response.json()
    assert len(guides(api)) == before


def test_unregistered_series_and_malformed_bodies_are_refused(api: httpx.Client) -> None:
    before = len(guides(api))
    assert api.post("/api/dispatches", json=dispatch_body(serie_documento="T002")).status_code == 422
    assert (
        api.post(
            "/api/dispatches", content=b"{nope", headers={"Content-Type": "application/json"}
        ).status_code
        == 400
    )
    assert api.post("/api/dispatches", json=[dispatch_body()]).status_code == 400
    assert api.post("/api/dispatch-carrier", json=carrier_body(datos_remitente=None)).status_code == 422
    assert api.post("/api/dispatches/send", json={}).status_code == 422
    assert len(guides(api)) == before


def test_unknown_guides_and_tokens(api: httpx.Client, shop: Shop) -> None:
    for path in ("/api/dispatches/send", "/api/dispatches/status_ticket"):
        response = api.post(path, json={"external_id": "00000000-0000-0000-0000-000000000000"})
        assert response.status_code == 404 and response.json()["message"] == "El external id es incorrecto"
    with httpx.Client(base_url=shop.base_url, headers={"Authorization": "Bearer wrong"}) as anonymous:
        assert anonymous.post("/api/dispatches", json=dispatch_body()).status_code == 401
        assert anonymous.post("/api/dispatches/send", json={"external_id": "x"}).status_code == 401


def test_another_tenant_cannot_see_send_or_download_a_guide(api: httpx.Client, live: LiveService) -> None:
    data = issue(api, dispatch_body(), "/api/dispatches")["data"]
    with live.client(OTHER, OTHER_TOKEN) as other:
        for path in ("/api/dispatches/send", "/api/dispatches/status_ticket"):
            assert other.post(path, json={"external_id": data["external_id"]}).status_code == 404
        for kind in ("xml", "pdf", "cdr"):
            assert other.get(f"/downloads/dispatch/{kind}/{data['external_id']}").status_code == 404
        today = peru_today().isoformat()
        listed = other.get(f"/api/dispatches/lists/{today}/{today}").json()["data"]
        assert data["external_id"] not in {g["external_id"] for g in listed}


# -- a restart between sending and asking -------------------------------------------------------------


@pytest.mark.slow(seconds=19)
def test_restart_between_send_and_status(live: LiveService, shop: Shop, tmp_path: Any) -> None:
    headers = {"Authorization": f"Bearer {shop.token}"}
    with serve(live.settings, tmp_path / "first.log") as first:
        with httpx.Client(base_url=first.base_url(shop.slug), headers=headers, timeout=60) as api:
            data = issue(api, dispatch_body("02"), "/api/dispatches")["data"]
            assert (
                api.post("/api/dispatches/send", json={"external_id": data["external_id"]}).status_code == 200
            )
    with serve(live.settings, tmp_path / "second.log") as second:
        with httpx.Client(base_url=second.base_url(shop.slug), headers=headers, timeout=60) as api:
            done = wait_status(api, data["external_id"])
            assert done.status_code == 200, done.text + second.output()
            assert done.json()["data"]["state_type_id"] == "05"


@pytest.mark.slow(seconds=34)
def test_a_guide_whose_worker_died_before_its_pdf_gets_it_on_download(
    live: LiveService, shop: Shop, tmp_path: Any
) -> None:
    """A guide is stored first and its PDF rendered after (no writer waits for a rendering): a worker
    killed in between leaves the guide, numbered and signed, and its PDF is rendered on first download."""
    headers = {"Authorization": f"Bearer {shop.token}"}
    trigger = tmp_path / "kill-next-issue"
    env = {KILL_AFTER_COMMIT_ENV: str(trigger)}
    with serve(live.settings, tmp_path / "serve.log", "--workers", "2", env=env) as served:
        with httpx.Client(base_url=served.base_url(shop.slug), headers=headers, timeout=60) as api:
            before = {g["number"] for g in guides(api)}
            trigger.touch()
            with pytest.raises(httpx.TransportError):  # the worker died before answering
                api.post("/api/dispatches", json=dispatch_body())
            assert not trigger.exists()
            [lost] = [g for g in guides(api) if g["number"] not in before]
            assert lost["state_type_id"] == "01"
            pdf = api.get(f"/downloads/dispatch/pdf/{lost['external_id']}")
            assert pdf.status_code == 200, pdf.text
            assert pdf.content.startswith(b"%PDF")
            assert api.get(f"/downloads/dispatch/pdf/{lost['external_id']}").content == pdf.content  # kept
            xml = api.get(f"/downloads/dispatch/xml/{lost['external_id']}").content
            assert verify(xml).digest_value and lost["number"].encode() in xml
            # the next guide follows it
            following = issue(api, dispatch_body(), "/api/dispatches")["data"]["number"]
            assert int(following.split("-")[1]) == int(lost["number"].split("-")[1]) + 1


# -- the reference's sample body and the printed guide ------------------------------------------------


def _pdf_text(pdf: bytes, tmp_path: Any) -> str:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    path = tmp_path / "guide.pdf"
    path.write_bytes(pdf)
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.requires_shared
def test_the_reference_sample_body_is_issued_sent_and_accepted(api: httpx.Client, tmp_path: Any) -> None:
    body = json.loads(reference.shared_path("examples", "dispatches.json").read_text(encoding="utf-8"))
    body["fecha_de_emision"] = body["fecha_de_traslado"] = peru_today().isoformat()
    answer = issue(api, body, "/api/dispatches")
    data = answer["data"]
    text = _pdf_text(api.get(answer["links"]["pdf"]).content, tmp_path)
    assert data["number"] in text and "TRANSPORTES LIMA S.A.C." in text and "Consulte" not in text
    assert api.post("/api/dispatches/send", json={"external_id": data["external_id"]}).status_code == 200
    done = wait_status(api, data["external_id"])
    assert done.status_code == 200 and done.json()["data"]["state_type_id"] == "05", done.text
    printed = _pdf_text(api.get(answer["links"]["pdf"]).content, tmp_path)
    assert "Consulte" in printed and "https://e-factura.sunat.gob.pe/v1/contribuyente/gre/" in printed, (
        printed
    )


# -- what real clients send (docs/scenarios.md, "What real clients send") -----------------------------


def _product(api: httpx.Client, code: str, description: str, unit: str = "KGM") -> None:
    body = {
        "internal_id": code,
        "description": description,
        "unit_type_id": unit,
        "currency_type_id": "PEN",
        "sale_unit_price": 12,
        "sale_affectation_igv_type_id": "10",
        "stock": 50,
    }
    response = api.post("/api/item", json=body)
    assert response.status_code == 200, response.text


def _accepted(api: httpx.Client, external_id: str) -> None:
    assert api.post("/api/dispatches/send", json={"external_id": external_id}).status_code == 200
    done = wait_status(api, external_id)
    assert done.status_code == 200 and done.json()["data"]["state_type_id"] == "05", done.text


def _xml(api: httpx.Client, answer: dict[str, Any]) -> etree._Element:
    return etree.fromstring(api.get(answer["links"]["xml"]).content)


CBC = "{urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2}"
CAC = "{urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2}"


def test_a_line_with_only_the_code_of_a_product_takes_its_description_and_unit(
    api: httpx.Client, tmp_path: Any
) -> None:
    _product(api, "CAFE-ORG", "Café orgánico tostado en grano")
    body = dispatch_body("02", items=[{"codigo_interno": "CAFE-ORG", "cantidad": "12.5"}])
    answer = issue(api, body, "/api/dispatches")
    [line] = _xml(api, answer).iter(f"{CAC}DespatchLine")
    assert line.findtext(f"{CAC}Item/{CBC}Description") == "Café orgánico tostado en grano"
    assert line.find(f"{CBC}DeliveredQuantity").get("unitCode") == "KGM"  # type: ignore[union-attr]
    # the guide keeps what it took: renamed later, the product does not rename the guide's PDF
    [row] = api.get("/api/document/search-items", params={"input": "CAFE-ORG"}).json()["data"]["items"]
    renamed = {
        "id": row["id"],
        "internal_id": "CAFE-ORG",
        "description": "Otro nombre",
        "sale_unit_price": 12,
    }
    assert api.post(f"/api/items/{row['id']}/update", json={**renamed, "stock_min": 0}).status_code == 200
    _accepted(api, answer["data"]["external_id"])
    printed = _pdf_text(api.get(answer["links"]["pdf"]).content, tmp_path)
    assert "Café orgánico tostado en grano" in printed and "Otro nombre" not in printed


def test_a_line_with_only_the_code_of_an_unknown_product_is_refused(api: httpx.Client) -> None:
    before = len(guides(api))
    body = dispatch_body("02", items=[{"codigo_interno": "NO-EXISTE", "cantidad": 1}])
    response = api.post("/api/dispatches", json=body)
    assert response.status_code == 422, response.text
    fields = {error["field"] for error in response.json()["errors"]}
    assert {"items.0.descripcion", "items.0.unidad_de_medida"} <= fields
    assert "NO-EXISTE" in response.json()["message"]
    assert len(guides(api)) == before


def test_the_plate_at_the_top_level_is_the_main_vehicle(api: httpx.Client) -> None:
    body = dispatch_body("02", vehiculo=None, vehiculo_secundario=None, numero_de_placa="bcd456")
    answer = issue(api, body, "/api/dispatches")
    equipment = _xml(api, answer).find(f"{CAC}Shipment/{CAC}TransportHandlingUnit/{CAC}TransportEquipment")
    assert equipment is not None and equipment.findtext(f"{CBC}ID") == "BCD456"
    _accepted(api, answer["data"]["external_id"])
    # inside vehiculo it wins, as the real services read only that one
    inside = issue(api, dispatch_body("02", numero_de_placa="ZZZ999"), "/api/dispatches")
    plate = _xml(api, inside).findtext(
        f"{CAC}Shipment/{CAC}TransportHandlingUnit/{CAC}TransportEquipment/{CBC}ID"
    )
    assert plate == "ABC123"


def test_public_transport_takes_a_driver_with_only_a_document_and_a_dmy_transfer_date(
    api: httpx.Client,
) -> None:
    today = peru_today()
    body = dispatch_body(
        "01",
        chofer={"codigo_tipo_documento_identidad": "1", "numero_documento": "44556677"},
        numero_de_placa="ABC-123",
        fecha_de_traslado=today.strftime("%d-%m-%Y"),
    )
    answer = issue(api, body, "/api/dispatches")
    root = _xml(api, answer)
    assert root.find(f".//{CAC}DriverPerson") is None  # a public carrier's guide names no driver
    assert root.findtext(f".//{CAC}TransitPeriod/{CBC}StartDate") == today.isoformat()
    _accepted(api, answer["data"]["external_id"])


@pytest.mark.parametrize("path", ["chofer", "chofer_secundario.0"])
def test_a_written_driver_without_names_or_licence_is_refused(api: httpx.Client, path: str) -> None:
    before = len(guides(api))
    bare = {"codigo_tipo_documento_identidad": "1", "numero_documento": "44556677"}
    changes: dict[str, Any] = {"chofer": bare} if path == "chofer" else {"chofer_secundario": [bare]}
    response = api.post("/api/dispatches", json=dispatch_body("02", **changes))
    assert response.status_code == 422, response.text
    errors = {error["field"]: error["message"] for error in response.json()["errors"]}
    assert "3360" in errors[f"{path}.nombres"] and "2572" in errors[f"{path}.numero_licencia"]
    assert len(guides(api)) == before


def test_a_carrier_guide_as_the_manual_writes_it(api: httpx.Client) -> None:
    body = carrier_body(
        direccion_partida=None,
        direccion_llegada=None,
        direcciones_proveedores={
            "remitente": {"ubigeo": "150101", "direccion": "Av. Argentina 2020, Lima"},
            "destinatario": {"ubigeo": "040101", "direccion": "Calle Mercaderes 120, Arequipa"},
        },
        pagador_flete={
            "indicador_pagador_flete": "Tercero",
            "codigo_tipo_documento_identidad": "6",
            "descripcion_tipo_documento_identidad": "RUC",
            "numero": "20131312955",
            "nombres": "PAGADOR DEL FLETE S.A.C.",
        },
    )
    for key in ("direccion_partida", "direccion_llegada"):
        body.pop(key)
    answer = issue(api, body, "/api/dispatch-carrier")
    root = _xml(api, answer)
    delivery = root.find(f"{CAC}Shipment/{CAC}Delivery")
    assert delivery is not None
    assert delivery.findtext(f"{CAC}DeliveryAddress/{CBC}ID") == "040101"
    assert delivery.findtext(f"{CAC}Despatch/{CAC}DespatchAddress/{CBC}ID") == "150101"
    payer = root.find(f"{CAC}OriginatorCustomerParty/{CAC}Party")
    assert payer is not None and payer.findtext(f"{CAC}PartyIdentification/{CBC}ID") == "20131312955"
    assert "SUNAT_Envio_IndicadorPagadorFlete_Tercero" in {
        node.text for node in root.iter(f"{CBC}SpecialInstructions")
    }
    _accepted(api, answer["data"]["external_id"])


def test_a_carrier_guide_paid_by_its_receiver_names_the_receiver_as_payer(api: httpx.Client) -> None:
    answer = issue(
        api, carrier_body(pagador_flete={"indicador_pagador_flete": "Destinatario"}), "/api/dispatch-carrier"
    )
    payer = _xml(api, answer).find(f"{CAC}OriginatorCustomerParty/{CAC}Party/{CAC}PartyIdentification")
    assert payer is not None and payer.findtext(f"{CBC}ID") == "20601030013"  # datos_destinatario
    _accepted(api, answer["data"]["external_id"])


CARRIER_BAD = [
    (
        "no places",
        lambda: {
            k: v for k, v in carrier_body().items() if k not in ("direccion_partida", "direccion_llegada")
        },
        "direcciones_proveedores.remitente",
    ),
    (
        "payer number",
        lambda: carrier_body(
            pagador_flete={
                "indicador_pagador_flete": "Subcontratador",
                "codigo_tipo_documento_identidad": "6",
                "numero": "2013131",
                "nombres": "X S.A.C.",
            }
        ),
        "pagador_flete.numero",
    ),
    (
        "payer outside the indicators",
        lambda: carrier_body(pagador_flete={"indicador_pagador_flete": "Nadie"}),
        "pagador_flete.indicador_pagador_flete",
    ),
    (
        "provider place ubigeo",
        lambda: carrier_body(direcciones_proveedores={"remitente": {"ubigeo": "15", "direccion": "Av. X 1"}}),
        "direcciones_proveedores.remitente.ubigeo",
    ),
]


@pytest.mark.parametrize(("label", "make", "field"), CARRIER_BAD, ids=[case[0] for case in CARRIER_BAD])
def test_bad_carrier_guides_are_422_naming_the_field_and_store_nothing(
    api: httpx.Client, label: str, make: Any, field: str
) -> None:
    before = len(guides(api))
    response = api.post("/api/dispatch-carrier", json=make())
    assert response.status_code == 422, response.text
    assert field in [error["field"] for error in response.json()["errors"]], response.json()
    assert len(guides(api)) == before
