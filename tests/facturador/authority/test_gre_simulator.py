"""The GRE REST API simulator on its own: a uvicorn server on a loopback port, spoken to with httpx (as any
client of SUNAT would) and with the service's own :class:`GreClient`. Nothing of the service runs here."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest
import uvicorn

from facturador.authority import cdr as cdr_mod
from facturador.authority.gre.app import create_gre_app
from facturador.authority.gre.client import GreClient, GreClientError, GreEndpoint
from facturador.authority.gre.simulator import (
    SIMULATOR_CLIENT_ID,
    SIMULATOR_CLIENT_SECRET,
    BetaCredentials,
    GreSimulator,
)
from facturador.authority.packaging import zip_document
from facturador.ubl.despatch import DispatchDocument, DispatchParty, Place, sign_despatch
from facturador.ubl.signing import SigningIdentity, generate_identity
from sunat.catalogs import response_message
from tests.conftest import free_port
from tests.samples.dispatches import DRIVER, GRE_RUC, guide

API = "/v1/contribuyente/gem/comprobantes"
USER = f"{GRE_RUC}MODDATOS"


@dataclass
class Clock:
    """A clock the test moves (token expiry, ticket delay)."""

    now: float

    def __call__(self) -> float:
        return self.now


@dataclass
class Server:
    url: str
    simulator: GreSimulator
    clock: Clock

    def token(self, client: httpx.Client, **changes: str) -> httpx.Response:
        form = {
            "grant_type": "password",
            "scope": "https://api-cpe.sunat.gob.pe",
            "client_id": SIMULATOR_CLIENT_ID,
            "client_secret": SIMULATOR_CLIENT_SECRET,
            "username": USER,
            "password": "MODDATOS",
            **changes,
        }
        return client.post(f"/v1/clientessol/{form['client_id']}/oauth2/token/", data=form)

    def bearer(self, client: httpx.Client) -> dict[str, str]:
        response = self.token(client)
        assert response.status_code == 200, response.text
        return {"Authorization": f"Bearer {response.json()['access_token']}"}

    def endpoint(self, **changes: str) -> GreEndpoint:
        values = {
            "token_url": self.url,
            "api_url": self.url,
            "client_id": SIMULATOR_CLIENT_ID,
            "client_secret": SIMULATOR_CLIENT_SECRET,
            "username": USER,
            "password": "MODDATOS",
            **changes,
        }
        return GreEndpoint(**values)


@pytest.fixture(scope="module")
def issuer() -> SigningIdentity:
    return SigningIdentity.from_pem(*generate_identity(GRE_RUC, "EMISOR DE GUIAS S.A.C."))


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    clock = Clock(time.time())
    sunat = SigningIdentity.from_pem(*generate_identity("20131312955", "SUNAT"))
    simulator = GreSimulator(
        sunat,
        BetaCredentials({SIMULATOR_CLIENT_ID: SIMULATOR_CLIENT_SECRET}, users={"20100070970ADMIN": "s3cret"}),
        ticket_delay=5,
        clock=clock,
    )
    port = free_port()
    uv = uvicorn.Server(
        uvicorn.Config(create_gre_app(simulator), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        assert time.monotonic() < deadline, "the GRE simulator did not start"
        time.sleep(0.05)
    yield Server(f"http://127.0.0.1:{port}", simulator, clock)
    uv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def http(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def archivo(signed_xml: bytes, filename: str, **changes: str) -> dict[str, Any]:
    zipped = zip_document(filename, signed_xml)
    body = {
        "nomArchivo": f"{filename}.zip",
        "arcGreZip": base64.b64encode(zipped).decode(),
        "hashZip": hashlib.sha256(zipped).hexdigest(),
        **changes,
    }
    return {"archivo": body}


def send_and_process(
    server: Server, http: httpx.Client, issuer: SigningIdentity, dispatch: Any
) -> dict[str, Any]:
    """Send a guide, see 98, move the clock past the delay and return the processed answer."""
    signed = sign_despatch(dispatch, issuer)
    headers = server.bearer(http)
    sent = http.post(f"{API}/{signed.filename}", json=archivo(signed.xml, signed.filename), headers=headers)
    assert sent.status_code == 200, sent.text
    ticket = sent.json()["numTicket"]
    first = http.get(f"{API}/envios/{ticket}", headers=headers).json()
    assert first == {"codRespuesta": "98"}
    server.clock.now += 6
    answer = http.get(f"{API}/envios/{ticket}", headers=headers).json()
    answer["ticket"] = ticket
    return answer


# -- tokens -------------------------------------------------------------------------------------------


def test_token_is_issued_for_beta_and_registered_users(server: Server, http: httpx.Client) -> None:
    response = server.token(http)
    assert response.status_code == 200
    body = response.json()
    assert body["expires_in"] == 3600 and body["access_token"]
    registered = server.token(http, username="20100070970ADMIN", password="s3cret")
    assert registered.status_code == 200


@pytest.mark.parametrize(
    ("changes", "status", "error"),
    [
        ({"client_secret": "wrong"}, 401, "invalid_client"),
        ({"client_id": "unknown-client"}, 401, "invalid_client"),
        ({"password": "wrong"}, 400, "invalid_grant"),
        ({"username": "20100070971MODDATOS"}, 400, "invalid_grant"),  # RUC check digit wrong
        ({"username": "20100070970ADMIN", "password": "MODDATOS"}, 400, "invalid_grant"),
        ({"grant_type": "client_credentials"}, 400, "unsupported_grant_type"),
        ({"scope": "https://example.com"}, 400, "invalid_scope"),
    ],
)
def test_wrong_credentials_are_refused(
    server: Server, http: httpx.Client, changes: dict[str, str], status: int, error: str
) -> None:
    response = server.token(http, **changes)
    assert response.status_code == status
    assert response.json()["error"] == error
    assert "access_token" not in response.json()


def test_api_refuses_missing_forged_and_expired_tokens(
    server: Server, http: httpx.Client, issuer: SigningIdentity
) -> None:
    signed = sign_despatch(guide(number=90), issuer)
    body = archivo(signed.xml, signed.filename)
    assert http.post(f"{API}/{signed.filename}", json=body).status_code == 401
    forged = {"Authorization": "Bearer abc.def"}
    assert http.post(f"{API}/{signed.filename}", json=body, headers=forged).status_code == 401
    headers = server.bearer(http)
    server.clock.now += 3601
    try:
        expired = http.post(f"{API}/{signed.filename}", json=body, headers=headers)
        assert expired.status_code == 401
        assert "expirado" in expired.json()["msg"]
    finally:
        server.clock.now -= 3601
    assert server.simulator.tickets.find(GRE_RUC, signed.filename) is None


# -- the flow -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["01", "02"])
def test_accepted_guide_ticket_98_then_0_with_cdr_and_qr(
    server: Server, http: httpx.Client, issuer: SigningIdentity, mode: str
) -> None:
    answer = send_and_process(server, http, issuer, guide(mode, number=1 if mode == "01" else 2))
    assert answer["codRespuesta"] == "0" and answer["indCdrGenerado"] == "1"
    cdr_zip = base64.b64decode(answer["arcCdr"])
    parsed = cdr_mod.read_cdr(cdr_zip)
    assert parsed.code == "0"
    assert parsed.description == f"La Guia de Remision T001-{1 if mode == '01' else 2} ha sido aceptada"
    cdr = cdr_mod.parse_cdr(_cdr_xml(cdr_zip))
    assert cdr.signed and cdr.receiver_ruc == GRE_RUC and cdr.id == answer["ticket"]
    assert cdr.document_description.startswith(
        "https://e-factura.sunat.gob.pe/v1/contribuyente/gre/comprobantes/descargaqr?hashqr="
    )


def test_carrier_guide_is_accepted(server: Server, http: httpx.Client, issuer: SigningIdentity) -> None:
    answer = send_and_process(server, http, issuer, guide(doc_type="31", number=1))
    assert answer["codRespuesta"] == "0", answer


def _cdr_xml(cdr_zip: bytes) -> bytes:
    from facturador.authority.packaging import read_zip

    return read_zip(cdr_zip)[1]


def broken_cases() -> list[tuple[str, str, dict[str, Any], str]]:
    today = guide().issue_date
    return [
        ("start before issue (private)", "02", {"start_date": today - timedelta(days=1)}, "3343"),
        ("transfer reason outside catalog 20", "01", {"transfer_reason": "99"}, "3405"),
        ("weight zero", "01", {"gross_weight": Decimal("0")}, "2523"),
        ("weight unit", "01", {"weight_unit": "LBR"}, "2523"),
        ("plate format", "02", {"vehicles": ("AB-12",)}, "2567"),
        ("licence format", "02", {"drivers": (dataclasses.replace(DRIVER, licence="123"),)}, "2573"),
        ("no main driver", "02", {"drivers": (dataclasses.replace(DRIVER, principal=False),)}, "3357"),
        ("DNI format", "02", {"drivers": (dataclasses.replace(DRIVER, number="1234"),)}, "2569"),
        ("no plate (private)", "02", {"vehicles": ()}, "2566"),
        ("origin ubigeo unknown", "01", {"origin": Place("999999", "Av. X 1")}, "3363"),
        ("delivery ubigeo format", "01", {"delivery": Place("15013", "Av. X 1")}, "2776"),
        (
            "carrier is the sender",
            "01",
            {"carrier": DispatchParty("6", GRE_RUC, "YO MISMO S.A.C.", "123")},
            "2560",
        ),
        ("carrier not a RUC", "01", {"carrier": DispatchParty("1", "12345678", "JUAN PEREZ", "123")}, "2485"),
        ("no carrier (public)", "01", {"carrier": None}, "2558"),
        (
            "related doc outside catalog 61",
            "01",
            {"related": (DispatchDocument("07", "F001-1", "NC"),)},
            "2692",
        ),
        (
            "carrier guide type on a sender guide",
            "01",
            {"related": (DispatchDocument("31", "V001-1", "GRT"),)},
            "2692",
        ),
        ("purchase to someone else", "01", {"transfer_reason": "02"}, "2554"),
        (
            "sale to oneself",
            "01",
            {"customer": DispatchParty("6", GRE_RUC, "YO MISMO S.A.C."), "related": ()},
            "2555",
        ),
        (
            "purchase from one's own establishment",
            "01",
            {"transfer_reason": "02", "customer": DispatchParty("6", GRE_RUC, "YO MISMO S.A.C.")},
            "3411",
        ),
        (
            "sale delivered to one's own establishment",
            "01",
            {"delivery": Place("150132", "Jr. Los Olivos 456", GRE_RUC, "0001")},
            "3411",
        ),
        (
            "issued tomorrow",
            "01",
            {"issue_date": today + timedelta(days=1), "start_date": today + timedelta(days=1)},
            "2329",
        ),
    ]


@pytest.mark.parametrize(
    ("label", "mode", "changes", "code"), broken_cases(), ids=lambda v: v if isinstance(v, str) else None
)
def test_broken_guides_get_99_with_sunats_code(
    server: Server,
    http: httpx.Client,
    issuer: SigningIdentity,
    label: str,
    mode: str,
    changes: dict[str, Any],
    code: str,
) -> None:
    number = 100 + [case[0] for case in broken_cases()].index(label)
    answer = send_and_process(server, http, issuer, guide(mode, number=number, **changes))
    assert answer["codRespuesta"] == "99", answer
    assert answer["error"]["numError"] == code
    assert cdr_mod.read_cdr(base64.b64decode(answer["arcCdr"])).code == code
    # SUNAT's text of the code and, where the rule names a place, its Detalle in SUNAT's own form
    # (parsers read the code, the node and the value from it; never an English sentence)
    text, _, detail = answer["error"]["desError"].partition(" - Detalle: ")
    assert text == response_message(code)
    if detail:
        form = (
            r"xxx\.xxx\.xxx value='ticket: \d+ error: (?:INFO: |Error en la linea: \d+: )"
            + code
            + r' \(nodo: "[^"]+" valor: "[^"]*"\)\''
        )
        assert re.fullmatch(form, detail), detail


def test_mtc_number_missing_or_malformed_is_an_observation(
    server: Server, http: httpx.Client, issuer: SigningIdentity
) -> None:
    carrier = DispatchParty("6", "20131312955", "TRANSPORTES LIMA S.A.C.", mtc="12-34")
    answer = send_and_process(server, http, issuer, guide("01", number=200, carrier=carrier))
    assert answer["codRespuesta"] == "0"
    notes = cdr_mod.read_cdr(base64.b64decode(answer["arcCdr"])).notes
    assert [n.split(" - ")[0] for n in notes] == ["4392"]


def test_altered_guide_is_rejected(server: Server, http: httpx.Client, issuer: SigningIdentity) -> None:
    signed = sign_despatch(guide(number=201), issuer)
    altered = signed.xml.replace(b"Mercader\xc3\xada trasladada", b"Otra cosa")
    headers = server.bearer(http)
    sent = http.post(f"{API}/{signed.filename}", json=archivo(altered, signed.filename), headers=headers)
    ticket = sent.json()["numTicket"]
    server.clock.now += 6
    answer = http.get(f"{API}/envios/{ticket}", headers=headers).json()
    assert answer["codRespuesta"] == "99" and answer["error"]["numError"] == "2334"


# -- reception ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"hashZip": "0" * 64}, "0156"),
        ({"hashZip": "not-a-hash"}, "0156"),
        ({"arcGreZip": "%%%not base64%%%"}, "0156"),
        ({"arcGreZip": base64.b64encode(b"not a zip").decode()}, "0156"),
        ({"nomArchivo": "20600995805-09-T001-999.zip"}, "0151"),
    ],
)
def test_bad_files_answer_422_and_keep_nothing(
    server: Server, http: httpx.Client, issuer: SigningIdentity, changes: dict[str, str], code: str
) -> None:
    signed = sign_despatch(guide(number=300), issuer)
    body = archivo(signed.xml, signed.filename)
    body["archivo"].update(changes)
    if "arcGreZip" in changes and "hashZip" not in changes:
        raw = changes["arcGreZip"]
        try:
            body["archivo"]["hashZip"] = hashlib.sha256(base64.b64decode(raw)).hexdigest()
        except ValueError:
            pass
    response = http.post(f"{API}/{signed.filename}", json=body, headers=server.bearer(http))
    assert response.status_code == 422, response.text
    assert response.json()["cod"] == code
    assert server.simulator.tickets.find(GRE_RUC, signed.filename) is None


@pytest.mark.parametrize(
    "body", [{}, {"archivo": "x"}, {"archivo": {"nomArchivo": "a.zip"}}, ["archivo"]], ids=str
)
def test_malformed_bodies_answer_422(server: Server, http: httpx.Client, body: Any) -> None:
    name = f"{GRE_RUC}-09-T001-301"
    response = http.post(f"{API}/{name}", json=body, headers=server.bearer(http))
    assert response.status_code == 422
    bad_json = http.post(
        f"{API}/{name}",
        content=b"{not json",
        headers={**server.bearer(http), "Content-Type": "application/json"},
    )
    assert bad_json.status_code == 422


def test_file_of_another_taxpayer_and_bad_names_are_refused(
    server: Server, http: httpx.Client, issuer: SigningIdentity
) -> None:
    other = guide(number=302)
    other = dataclasses.replace(other, issuer=dataclasses.replace(other.issuer, ruc="20100070970"))
    signed = sign_despatch(other, issuer)
    headers = server.bearer(http)  # token of GRE_RUC
    response = http.post(
        f"{API}/{signed.filename}", json=archivo(signed.xml, signed.filename), headers=headers
    )
    assert response.status_code == 422 and response.json()["cod"] == "0154"
    bad_name = http.post(
        f"{API}/{GRE_RUC}-01-F001-1", json=archivo(b"<x/>", f"{GRE_RUC}-01-F001-1"), headers=headers
    )
    assert bad_name.status_code == 422 and bad_name.json()["cod"] == "0151"


def test_a_guide_is_taken_once(server: Server, http: httpx.Client, issuer: SigningIdentity) -> None:
    send_and_process(server, http, issuer, guide(number=303))
    signed = sign_despatch(guide(number=303), issuer)
    again = http.post(
        f"{API}/{signed.filename}", json=archivo(signed.xml, signed.filename), headers=server.bearer(http)
    )
    assert again.status_code == 422 and again.json()["cod"] == "1033"


def test_unknown_and_foreign_tickets_are_404(
    server: Server, http: httpx.Client, issuer: SigningIdentity
) -> None:
    answer = send_and_process(server, http, issuer, guide(number=304))
    assert http.get(f"{API}/envios/not-a-ticket", headers=server.bearer(http)).status_code == 404
    other = {
        "Authorization": "Bearer "
        + server.token(http, username="20100070970ADMIN", password="s3cret").json()["access_token"]
    }
    foreign = http.get(f"{API}/envios/{answer['ticket']}", headers=other)
    assert foreign.status_code == 404 and foreign.json()["cod"] == "0127"


# -- the service's client -----------------------------------------------------------------------------


def test_gre_client_sends_and_reads_the_ticket(server: Server, issuer: SigningIdentity) -> None:
    client = GreClient(server.endpoint())
    signed = sign_despatch(guide("02", number=400), issuer)
    receipt = client.send(signed.filename, zip_document(signed.filename, signed.xml))
    assert client.status(receipt.ticket).in_process
    server.clock.now += 6
    status = client.status(receipt.ticket)
    assert status.code == "0" and status.cdr_zip is not None


def test_gre_client_reports_refused_credentials_and_api_errors(
    server: Server, issuer: SigningIdentity
) -> None:
    with pytest.raises(GreClientError) as refused:
        GreClient(server.endpoint(username=f"{GRE_RUC}OTRO", password="x")).token()
    assert refused.value.kind == "token" and "invalid_grant" in refused.value.message
    client = GreClient(server.endpoint())
    with pytest.raises(GreClientError) as unknown:
        client.status("not-a-ticket")
    assert unknown.value.kind == "api" and unknown.value.code == "0127"
    with pytest.raises(GreClientError) as down:
        GreClient(
            server.endpoint(token_url=f"http://127.0.0.1:{free_port()}", username=f"{GRE_RUC}DOWN")
        ).token()
    assert down.value.kind == "transport"
