"""Failures injected at the simulator's SOAP endpoint (a setting in the service's database): what the
client sees for each kind, whether the document was registered all the same, and that the endpoint
answers normally once the injection is used up; set from the tests, from ``facturador sunat-fault``, and
seen by every worker process. And ``facturador sunat`` serving the endpoint alone."""

from __future__ import annotations

import base64
import datetime as dt
import io
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from lxml import etree
from sqlalchemy import update

from facturador.authority import cdr as cdr_mod
from facturador.authority.soap.client import SoapEndpoint, SoapGateway
from facturador.authority.soap.injection import KINDS, Fault
from facturador.authority.soap.protocol import BILL_BETA_PATH, sunat_urls
from facturador.authority.validity.simulator import SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET
from facturador.cli import main
from facturador.store.faults import SqlFaultStore
from facturador.store.models import SUNAT_FAULTS
from facturador.ubl.signing import SigningIdentity, generate_identity
from sunat.calendar import peru_today
from sunat.catalogs import response_message
from sunat.validity import ValidityQuery
from sunat.validity_client import ValidityClient, ValidityEndpoint
from tests import reference
from tests.conftest import LiveService, free_port
from tests.samples.ubl_xml import filename_for, invoice, package
from tests.served import serve
from tests.sunat_soap import (
    BETA,
    CONSULT,
    Taxpayer,
    cdr_code,
    cdr_entries,
    envelope,
    new_taxpayer,
    random_ruc,
)


def inject(live: LiveService, payer: Taxpayer, kind: str, **options: object) -> Fault:
    options.setdefault("remaining", 1)
    return SqlFaultStore(live.context.db).add(Fault(kind=kind, ruc=payer.ruc, **options))  # type: ignore[arg-type]


def registered(live: LiveService, payer: Taxpayer, name: str) -> str:
    """billConsultService's status code of the document (0001 accepted, 0011 unknown)."""
    _ruc, doc_type, series, number = name.split("-")
    fields = {"rucComprobante": payer.ruc, "tipoComprobante": doc_type, "serieComprobante": series}
    answer = payer.call(live, CONSULT, "getStatus", numeroComprobante=number, **fields)
    return answer.field("status/statusCode")


def recovered_cdr(live: LiveService, payer: Taxpayer, name: str) -> str:
    """The code of the CDR ``getStatusCdr`` recovers."""
    _ruc, doc_type, series, number = name.split("-")
    answer = payer.call(
        live,
        CONSULT,
        "getStatusCdr",
        rucComprobante=payer.ruc,
        tipoComprobante=doc_type,
        serieComprobante=series,
        numeroComprobante=number,
    )
    assert answer.field("statusCdr/statusCode") == "0004"
    return cdr_code(answer.zip("statusCdr/content"))


@pytest.fixture
def payer(live: LiveService) -> Taxpayer:
    return new_taxpayer(live, "inj")


@pytest.mark.parametrize(
    ("code", "side", "text"),
    [
        ("0111", "Client", "No tiene el perfil para enviar comprobantes electronicos"),
        ("0102", "Client", "Usuario o contraseña incorrectos"),
        ("0109", "Server", "El sistema no puede responder su solicitud. (El servicio de autenticación"),
        ("0138", "Server", "El sistema no puede responder su solicitud. (Error en Base de Datos)"),
        ("2800", "Client", "El dato ingresado en el tipo de documento de identidad del receptor"),
        # SUNAT's faultcode unpadded (greenter #22: soap-env:Server.200), its text the catalogue's 0200
        ("200", "Server", "No se pudo procesar su solicitud. (Ocurrio un error en el batch)"),
        ("0157", "Client", "El archivo ZIP no contiene comprobantes"),
    ],
)
def test_injected_faults_leave_the_document_unprocessed(
    live: LiveService, payer: Taxpayer, code: str, side: str, text: str
) -> None:
    inject(live, payer, "fault", code=code, remaining=2)
    name, data = payer.factura()
    for _ in range(2):
        answer = payer.send_bill(live, name, data)
        assert answer.status == 500
        assert answer.fault[0] == f"soap-env:{side}.{code}"
        assert answer.fault[1].startswith(text)
    assert registered(live, payer, name) == "0011"
    assert cdr_code(payer.send_bill(live, name, data).zip("applicationResponse")) == "0"  # used up


@pytest.mark.parametrize("code", ["", "0200", "130"])
def test_an_exception_cdr_as_sunat_answers_it(live: LiveService, payer: Taxpayer, code: str) -> None:
    """SUNAT answers some exceptions as a bare CDR (the real ``cdr-rechazo.zip``: code 0109, no dates,
    signature or parties) in a normal ``sendBillResponse``: the document is not registered, and its
    text is SUNAT's catalogue's."""
    inject(live, payer, "exception-cdr", code=code)
    name, data = payer.factura()
    answer = payer.send_bill(live, name, data)
    assert answer.status == 200
    cdr_zip = answer.zip("applicationResponse")
    names, xml = cdr_entries(cdr_zip)
    assert names == [f"R-{name}.xml", "dummy"]
    real = reference.shared_path("examples", "sunat", "cdr-rechazo.zip").read_bytes()
    real_xml = cdr_entries(real)[1]
    assert xml.split(b"?>")[0] == real_xml.split(b"?>")[0]  # SUNAT's declaration

    def tags(document: bytes) -> list[str]:
        return [etree.QName(node).localname for node in etree.fromstring(document).iter()]

    assert tags(xml) == tags(real_xml)
    cdr = cdr_mod.parse_cdr(xml)
    expected = code or "0109"
    assert (cdr.code, cdr.reference_id, cdr.signed) == (expected, name.split("-", 2)[2], False)
    assert cdr.description == response_message(expected)
    assert registered(live, payer, name) == "0011"
    assert cdr_code(payer.send_bill(live, name, data).zip("applicationResponse")) == "0"  # used up


def test_an_exception_cdr_on_an_operation_without_a_cdr_is_a_fault(
    live: LiveService, payer: Taxpayer
) -> None:
    inject(live, payer, "exception-cdr", operation="getStatusCdr")
    answer = payer.call(
        live,
        CONSULT,
        "getStatusCdr",
        rucComprobante=payer.ruc,
        tipoComprobante="01",
        serieComprobante="F001",
        numeroComprobante="1",
    )
    assert (answer.status, answer.fault[0]) == (500, "soap-env:Server.0109")


def test_503_is_plain_http(live: LiveService, payer: Taxpayer) -> None:
    inject(live, payer, "503")
    name, data = payer.factura()
    answer = payer.send_bill(live, name, data)
    assert answer.status == 503
    assert answer.response.headers["content-type"].startswith("text/plain")
    assert registered(live, payer, name) == "0011"


@pytest.mark.parametrize(("kind", "processed"), [("reset", False), ("reset-after", True), ("cut", True)])
def test_a_cut_connection_before_or_after_registering(
    live: LiveService, payer: Taxpayer, kind: str, processed: bool
) -> None:
    inject(live, payer, kind)
    name, data = payer.factura()
    with pytest.raises(httpx.RemoteProtocolError):
        payer.send_bill(live, name, data)
    assert registered(live, payer, name) == ("0001" if processed else "0011")
    if processed:
        assert recovered_cdr(live, payer, name) == "0"
    # resending the same signed document is safe either way: accepted once, the same CDR
    assert cdr_code(payer.send_bill(live, name, data).zip("applicationResponse")) == "0"


def test_a_reset_closes_without_a_byte_of_answer(live: LiveService, payer: Taxpayer) -> None:
    inject(live, payer, "reset")
    name, data = payer.factura()
    with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
        payer.send_bill(live, name, data)


@pytest.mark.timing_sensitive
def test_a_held_answer_times_the_client_out_after_registering(live: LiveService, payer: Taxpayer) -> None:
    inject(live, payer, "timeout", seconds=30.0)
    name, data = payer.factura()
    started = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        payer.send_bill(live, name, data, timeout=1.0)
    assert time.monotonic() - started < 25  # the client's 1 s, not the 30 s hold (load slows the rest)
    # the endpoint registers the document before it holds the answer: on a loaded machine that may end
    # after the client gave up, so the status is asked until it comes (0011 meanwhile)
    deadline = time.monotonic() + 120
    while (status := registered(live, payer, name)) == "0011" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert status == "0001"
    assert recovered_cdr(live, payer, name) == "0"
    # a client that waits longer than the hold gets the answer, late
    inject(live, payer, "timeout", seconds=1.5)
    name, data = payer.factura()
    started = time.monotonic()
    assert cdr_code(payer.send_bill(live, name, data, timeout=30).zip("applicationResponse")) == "0"
    assert time.monotonic() - started >= 1.5


def test_a_truncated_cdr_zip(live: LiveService, payer: Taxpayer) -> None:
    inject(live, payer, "truncated-zip")
    name, data = payer.factura()
    answer = payer.send_bill(live, name, data)
    assert answer.status == 200
    with pytest.raises(zipfile.BadZipFile):
        zipfile.ZipFile(io.BytesIO(answer.zip("applicationResponse")))
    assert recovered_cdr(live, payer, name) == "0"


def test_garbage_instead_of_xml(live: LiveService, payer: Taxpayer) -> None:
    inject(live, payer, "garbage")
    name, data = payer.factura()
    answer = payer.send_bill(live, name, data)
    assert answer.status == 200
    with pytest.raises(etree.XMLSyntaxError):
        answer.root  # noqa: B018 - parsing is what fails
    assert registered(live, payer, name) == "0001"


@pytest.mark.parametrize("code", ["", "0402"])
def test_a_duplicate_answers_1033_for_a_document_sunat_has(
    live: LiveService, payer: Taxpayer, code: str
) -> None:
    inject(live, payer, "duplicate", code=code)
    name, data = payer.factura()
    answer = payer.send_bill(live, name, data)
    assert answer.fault[0] == f"soap-env:Client.{code or '1033'}"
    assert recovered_cdr(live, payer, name) == "0"


@pytest.mark.timing_sensitive
def test_injections_by_operation_and_for_a_time(live: LiveService, payer: Taxpayer) -> None:
    store = SqlFaultStore(live.context.db)
    # an hour ahead: the sends below all fall in it however slow the machine (two seconds did not, on a
    # loaded one); then its end is moved to a second ago, as if the hour had passed
    until = dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(hours=1)
    fault = store.add(Fault(kind="fault", ruc=payer.ruc, operation="sendBill", code="0109", until=until))
    name, data = payer.factura()
    for _ in range(3):  # timed: no count
        assert payer.send_bill(live, name, data).fault[0] == "soap-env:Server.0109"
    assert registered(live, payer, name) == "0011"  # getStatus is another operation
    assert [f.kind for f in store.active(payer.ruc)] == ["fault"]
    with live.context.db.writing() as connection:
        connection.execute(
            update(SUNAT_FAULTS)
            .where(SUNAT_FAULTS.c.id == fault.id)
            .values(until=dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(seconds=1))
        )
    assert cdr_code(payer.send_bill(live, name, data).zip("applicationResponse")) == "0"
    assert store.active(payer.ruc) == []
    # another taxpayer is never touched by this taxpayer's injections
    other = new_taxpayer(live, "inj2")
    inject(live, payer, "503", remaining=5)
    name, data = other.factura()
    assert other.send_bill(live, name, data).status == 200
    assert store.clear(payer.ruc) >= 1


def test_bad_injections_are_refused(live: LiveService) -> None:
    store = SqlFaultStore(live.context.db)
    for fault, message in (
        (Fault(kind="boom"), "kind must be one of"),
        (Fault(kind="fault", operation="sendPack"), "operation must be one of"),
        (Fault(kind="fault", ruc="123"), "ruc must be 11 digits"),
        (Fault(kind="fault", code="ABCD"), "code must be SUNAT's code"),
        (Fault(kind="503", code="0109"), "only a fault, a duplicate or an exception CDR takes a code"),
        (Fault(kind="fault", remaining=0), "the count must be at least 1"),
        (Fault(kind="timeout", seconds=-1), "seconds must be between"),
    ):
        with pytest.raises(ValueError, match=message):
            store.add(fault)


def _cli(live: LiveService, *args: str) -> str:
    result = CliRunner().invoke(main, list(args), env=live.settings.export(), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_cli_adds_lists_and_clears_injections(live: LiveService, payer: Taxpayer) -> None:
    added = _cli(live, "sunat-fault", "add", "fault", "--ruc", payer.ruc, "--code", "0111", "--times", "2")
    assert "fault 0111 on every operation of" in added and "2 request(s) left" in added
    _cli(live, "sunat-fault", "add", "503", "--ruc", payer.ruc, "--operation", "getStatusCdr", "--for", "60")
    listed = _cli(live, "sunat-fault", "list", "--ruc", payer.ruc)
    assert "503 on getStatusCdr of" in listed and "until" in listed
    name, data = payer.factura()
    assert payer.send_bill(live, name, data).fault[0] == "soap-env:Client.0111"
    assert "1 request(s) left" in _cli(live, "sunat-fault", "list", "--ruc", payer.ruc)
    assert "Removed 2 injected failure(s)." in _cli(live, "sunat-fault", "clear", "--ruc", payer.ruc)
    assert cdr_code(payer.send_bill(live, name, data).zip("applicationResponse")) == "0"
    refused = CliRunner().invoke(main, ["sunat-fault", "add", "boom"], env=live.settings.export())
    assert refused.exit_code != 0 and "kind must be one of" in refused.output


@pytest.mark.slow
def test_every_worker_process_counts_the_same_injection(
    live: LiveService, payer: Taxpayer, tmp_path: Path
) -> None:
    """``facturador serve --workers 2`` on the live service's data: 3 injected faults for 8 requests, each on
    a new connection (answered by whichever worker takes it), fail exactly 3 of them."""
    inject(live, payer, "fault", code="0130", remaining=3)
    with serve(
        live.settings, tmp_path / "serve.log", "--workers", "2", "--send-pending-every", "0"
    ) as served:
        codes = []
        for _ in range(8):
            name, data = payer.factura()
            body = envelope(
                "sendBill",
                {"fileName": name, "contentFile": data},
                user=payer.username,
                password=payer.password,
            )
            response = httpx.post(served.root + BETA, content=body, timeout=60)  # a new connection each
            codes.append(response.status_code)
    assert codes.count(500) == 3 and codes.count(200) == 5


def test_facturador_sunat_serves_the_endpoint_alone(live: LiveService, tmp_path: Path) -> None:
    """``facturador sunat --port P --ose`` on the live service's data: the beta user of a RUC that is no
    tenant sends a factura and a rejected one, and reads both CDRs (an OSE answers rejections so)."""
    port = free_port()
    root = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "facturador.cli", "sunat", "--port", str(port), "--ose"]
    command += ["--state-dir", str(tmp_path / "sunat-state")]  # its own files, not the user's state folder
    with (tmp_path / "sunat.log").open("wb") as log:
        process = subprocess.Popen(
            command, env={**os.environ, **live.settings.export()}, stdout=log, stderr=log
        )
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    httpx.get(f"{root}{BILL_BETA_PATH}?wsdl", timeout=2).raise_for_status()
                    break
                except httpx.TransportError:
                    assert process.poll() is None and time.monotonic() < deadline, (
                        "facturador sunat did not start"
                    )
                    time.sleep(0.3)
            ruc = random_ruc()
            identity = SigningIdentity.from_pem(*generate_identity(ruc, "SOLO S.A.C."))
            for number, changes, code in ((1, {}, "0"), (2, {"customer_scheme": "7"}, "2800")):
                document = invoice(ruc=ruc, doc_id=f"F001-{number}", issue_date=peru_today(), **changes)
                name, data = package(document, identity, filename_for(document, ruc))
                body = envelope(
                    "sendBill",
                    {"fileName": f"{name}.zip", "contentFile": data},
                    user=f"{ruc}MODDATOS",
                    password="moddatos",
                )
                response = httpx.post(root + BILL_BETA_PATH, content=body, timeout=60)
                assert response.status_code == 200, response.text[:500]
                content = etree.fromstring(response.content).findtext(".//applicationResponse") or ""
                assert cdr_code(base64.b64decode(content)) == code
            # the validity API beside them, on the same memory: accepted, and rejected (no valid document)
            endpoint = ValidityEndpoint(root, root, SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET, ruc)
            with ValidityClient(endpoint) as validity:
                verdicts = [
                    validity.check(ValidityQuery(ruc, "01", "F001", n, peru_today())).verdict
                    for n in (1, 2, 3)
                ]
            assert verdicts == ["accepted", "rejected", "not_found"]
        finally:
            process.terminate()
            process.wait(timeout=30)
    assert "Serving SUNAT's SOAP services as an OSE on" in (tmp_path / "sunat.log").read_text()


@pytest.mark.parametrize(
    "kind", ["reset-after", "cut", "timeout", "truncated-zip", "garbage", "duplicate", "reset", "503"]
)
def test_the_services_soap_client_survives_each_failure(
    live: LiveService, payer: Taxpayer, kind: str
) -> None:
    """The service's own SOAP gateway (the client side) against this endpoint: whatever failure is
    injected on ``sendBill``, the document ends accepted exactly once - recovered with ``getStatusCdr``
    when it was registered, or answered as an exception (to send again) when it was not."""
    gateway = SoapGateway(
        SoapEndpoint(
            urls=sunat_urls("production", live.root + "/sunat"),
            username=payer.username,
            password=payer.password,
            timeout=2.0,
            retries=0,
        )
    )
    inject(live, payer, kind, operation="sendBill", seconds=30.0 if kind == "timeout" else 0.0)
    name, data = payer.factura()
    answer = gateway.send_bill(name, data)
    if KINDS[kind]:  # registered before the failure: the client recovers SUNAT's CDR
        assert (answer.code, answer.kind.value) == ("0", "accepted"), answer
        assert answer.cdr_zip is not None
    else:  # not registered: an exception, and the same document is accepted when sent again
        assert answer.kind.value == "exception", answer
        assert registered(live, payer, name) == "0011"
        assert gateway.send_bill(name, data).code == "0"
    assert registered(live, payer, name) == "0001"
