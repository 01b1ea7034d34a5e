"""How the SOAP client reads SUNAT's edge answers, against canned HTTP answers (no server).

A :class:`CannedSunat` transport adapter answers each request with the next canned answer and keeps the
requests, so a test says exactly what SUNAT answered on the wire. SUNAT's own CDR files (``cdr-rechazo.zip``:
a bare CDR coded 0109) come from the reference folder. Through a running service, see
``tests/facturador/api/test_soap_edges.py``.
"""

from __future__ import annotations

import base64
from collections import deque

import pytest
import requests
from requests.adapters import BaseAdapter

from facturador.authority.gateway import AuthorityError, ResponseKind
from facturador.authority.packaging import zip_document
from facturador.authority.soap.client import SoapEndpoint, SoapGateway
from facturador.authority.soap.protocol import keeps_connections, sunat_urls
from tests.reference import shared_path

RUC = "20600995805"
NAME = f"{RUC}-01-F001-1"
ENVELOPE = (
    '<?xml version="1.0" encoding="UTF-8"?><soap-env:Envelope '
    'xmlns:soap-env="http://schemas.xmlsoap.org/soap/envelope/"><soap-env:Header/><soap-env:Body>{}'
    "</soap-env:Body></soap-env:Envelope>"
)


def fault(code: str, text: str) -> tuple[int, bytes]:
    body = f"<soap-env:Fault><faultcode>soap-env:Client.{code}</faultcode><faultstring>{text}</faultstring>"
    return 500, ENVELOPE.format(body + "</soap-env:Fault>").encode()


def ticket_status(code: str, content: bytes | None = None) -> tuple[int, bytes]:
    inner = f"<statusCode>{code}</statusCode>"
    if content is not None:
        inner = f"<content>{base64.b64encode(content).decode()}</content>" + inner
    return 200, ENVELOPE.format(
        f'<br:getStatusResponse xmlns:br="http://service.sunat.gob.pe"><status>{inner}</status>'
        "</br:getStatusResponse>"
    ).encode()


def bill_answer(cdr_zip: bytes) -> tuple[int, bytes]:
    return 200, ENVELOPE.format(
        '<br:sendBillResponse xmlns:br="http://service.sunat.gob.pe"><applicationResponse>'
        f"{base64.b64encode(cdr_zip).decode()}</applicationResponse></br:sendBillResponse>"
    ).encode()


def accepted_cdr() -> bytes:
    """SUNAT's real CDR accepting F001-1, zipped as ``R-<name>.zip``."""
    xml = shared_path("examples", "sunat", "R-20600995805-01-F001-1.xml").read_bytes()
    return zip_document(f"R-{NAME}", xml)


class CannedSunat(BaseAdapter):
    """Answers each request with the next ``(status, body, content type)``; keeps the requests."""

    def __init__(self, *answers: tuple[int, bytes] | tuple[int, bytes, str]) -> None:
        super().__init__()
        self.answers = deque(answers)
        self.requests: list[requests.PreparedRequest] = []

    def send(self, request: requests.PreparedRequest, **_kwargs: object) -> requests.Response:  # type: ignore[override]
        self.requests.append(request)
        status, body, *kind = self.answers.popleft()
        response = requests.Response()
        response.status_code = status
        response.reason = {200: "OK", 401: "Unauthorized", 500: "Internal Server Error"}.get(status, "")
        response.headers["Content-Type"] = kind[0] if kind else "text/xml;charset=UTF-8"
        response.raw = _Raw(body)
        response.url = request.url or ""
        response.request = request
        return response

    def close(self) -> None:
        pass


class _Raw:
    """The body of a canned answer, read as urllib3's response is."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, _size: int, decode_content: bool = True) -> object:
        yield self.body

    def close(self) -> None:
        pass


def gateway(sunat: CannedSunat, *, destination: str = "production", consult: bool = True) -> SoapGateway:
    session = requests.Session()
    session.mount("https://", sunat)
    urls = sunat_urls(destination)
    endpoint = SoapEndpoint(urls, f"{RUC}FACTURA1", "secreto", timeout=5.0, retries=1, consult=consult)
    return SoapGateway(endpoint, session=session)


# -- item 4: getStatus reads the CDR's own code, and keeps SUNAT's code outside 0/98/99 -----------------


def test_a_ticket_processed_with_an_exception_cdr_is_not_accepted() -> None:
    """statusCode 0 carrying SUNAT's bare exception CDR (ResponseCode 0109): the CDR's own code is the
    answer, as greenter reads it (ExtService::getStatus), so the summary is not accepted."""
    rechazo = shared_path("examples", "sunat", "cdr-rechazo.zip").read_bytes()
    with pytest.raises(AuthorityError) as raised:
        gateway(CannedSunat(ticket_status("0", rechazo))).get_status("1732700000000123")
    assert raised.value.code == "0109"
    assert "no pudo procesar" in raised.value.description


@pytest.mark.parametrize(("code", "expected"), [("0127", "0127"), ("200", "0200"), ("0011", "0011")])
def test_a_ticket_status_outside_0_98_99_keeps_sunats_code(code: str, expected: str) -> None:
    with pytest.raises(AuthorityError) as raised:
        gateway(CannedSunat(ticket_status(code))).get_status("1732700000000123")
    assert raised.value.code == expected


def test_a_ticket_processed_with_its_cdr_is_read_as_before() -> None:
    cdr = zip_document("R-20600995805-RA-20171001-1", _baja_xml())
    status = gateway(CannedSunat(ticket_status("0", cdr))).get_status("1")
    assert status.accepted and status.response is not None and status.response.code == "0"
    assert gateway(CannedSunat(ticket_status("0098"))).get_status("1").in_process


def _baja_xml() -> bytes:
    import zipfile

    with zipfile.ZipFile(shared_path("examples", "sunat", "cdrBaja.zip")) as archive:
        return archive.read("R-20600995805-RA-20171001-1.xml")


# -- item 1: an already-registered answer without a CDR is never a state ------------------------------


@pytest.mark.parametrize("code", ["4000", "1033", "0402"])
@pytest.mark.parametrize("consult", [False, True])
def test_an_already_registered_fault_without_its_cdr_is_no_state(code: str, consult: bool) -> None:
    """A fault saying SUNAT (or an OSE) already has the document, and no CDR to prove it: no consult
    service, or getStatusCdr does not find it (0011). The answer stays an exception with SUNAT's code."""
    answers = [fault(code, "El comprobante fue registrado previamente")]
    if consult:
        answers.append(
            (
                200,
                ENVELOPE.format(
                    '<br:getStatusCdrResponse xmlns:br="http://service.sunat.gob.pe"><statusCdr>'
                    "<statusCode>0011</statusCode><statusMessage>El comprobante no existe</statusMessage>"
                    "</statusCdr></br:getStatusCdrResponse>"
                ).encode(),
            )
        )
    sunat = CannedSunat(*answers)
    answer = gateway(sunat, consult=consult).send_bill(NAME, b"zip")
    assert answer.code == code and answer.cdr_zip is None
    assert answer.kind is ResponseKind.EXCEPTION and not answer.accepted
    assert len(sunat.requests) == len(answers)


# -- item 6: a non-SOAP 401 is a transient; beta's connections are not kept alive ---------------------


def test_a_non_soap_401_is_retried_and_the_document_accepted() -> None:
    sunat = CannedSunat(
        (401, b"<html><body>401 Unauthorized</body></html>", "text/html"), bill_answer(accepted_cdr())
    )
    answer = gateway(sunat, consult=False).send_bill(NAME, b"zip")
    assert answer.code == "0" and answer.cdr_zip is not None
    assert len(sunat.requests) == 2


def test_401s_that_do_not_end_are_an_exception_after_the_bounded_retries() -> None:
    page = (401, b"Unauthorized", "text/plain")
    sunat = CannedSunat(page, page, page)
    answer = gateway(sunat, consult=False).send_bill(NAME, b"zip")
    assert answer.code == "HTTP-401" and answer.kind is ResponseKind.EXCEPTION
    assert len(sunat.requests) == 2  # the first and its one retry (retries=1)


@pytest.mark.parametrize(("destination", "close"), [("beta", True), ("production", False)])
def test_only_betas_connections_are_closed_after_each_request(destination: str, close: bool) -> None:
    sunat = CannedSunat(bill_answer(accepted_cdr()))
    session = requests.Session()
    session.mount("https://", sunat)
    endpoint = SoapEndpoint(
        sunat_urls(destination),
        f"{RUC}MODDATOS",
        "moddatos",
        consult=False,
        keep_alive=keeps_connections(destination),
    )
    SoapGateway(endpoint, session=session).send_bill(NAME, b"zip")
    (request,) = sunat.requests
    assert (request.headers.get("Connection") == "close") is close
