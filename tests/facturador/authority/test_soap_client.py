"""What the SOAP client writes and how it reads SUNAT's faults, without a server.

Every request envelope's operation element validates against SUNAT's own XSD files (shipped with the
package); the WS-Security header carries RUC + SOL user and the password as #PasswordText, escaped. Faults
are classified as SUNAT's clients read them. The client talking to the simulator's SOAP endpoint over
HTTP is tested in ``tests/facturador/api/test_soap_sending.py``.
"""

from __future__ import annotations

import pytest
from lxml import etree

from facturador.authority.gateway import ResponseKind, kind_of
from facturador.authority.soap.client import classify_fault, envelope
from facturador.authority.soap.protocol import (
    BILL_SERVICE_NS,
    PASSWORD_TEXT,
    SOAP_ENV_NS,
    WSSE_NS,
    sunat_urls,
    wsdl_dir,
)


def _schema(name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(wsdl_dir() / name)))


BILL = ("billService.xsd2.xsd",)
CONSULT = ("billConsultService.xsd",)
DOCUMENT = {"rucComprobante": "20100066603", "tipoComprobante": "01", "serieComprobante": "F001"}


@pytest.mark.parametrize(
    ("schema", "operation", "children"),
    [
        (BILL, "sendBill", {"fileName": "20100066603-01-F001-1.zip", "contentFile": "UEsDBA=="}),
        (BILL, "sendSummary", {"fileName": "20100066603-RC-20261127-1.zip", "contentFile": "UEsDBA=="}),
        (BILL, "getStatus", {"ticket": "1732700000000123"}),
        (CONSULT, "getStatusCdr", {**DOCUMENT, "numeroComprobante": "17"}),
        (CONSULT, "getStatus", {**DOCUMENT, "numeroComprobante": "17"}),
    ],
)
def test_every_envelope_validates_against_sunats_schemas(
    schema: tuple[str], operation: str, children: dict[str, str]
) -> None:
    root = etree.fromstring(envelope("20100066603FACTURA1", 'p<&>"', operation, children))
    assert root.tag == f"{{{SOAP_ENV_NS}}}Envelope"
    header, body = root
    assert header.tag == f"{{{SOAP_ENV_NS}}}Header" and body.tag == f"{{{SOAP_ENV_NS}}}Body"
    token = header.find(f"{{{WSSE_NS}}}Security/{{{WSSE_NS}}}UsernameToken")
    assert token is not None
    assert token.findtext(f"{{{WSSE_NS}}}Username") == "20100066603FACTURA1"
    password = token.find(f"{{{WSSE_NS}}}Password")
    assert password is not None and password.text == 'p<&>"' and password.get("Type") == PASSWORD_TEXT
    (element,) = body
    assert element.tag == f"{{{BILL_SERVICE_NS}}}{operation}"
    assert [child.tag for child in element] == list(children)  # unqualified, in the schema's order
    xsd = _schema(schema[0])
    xsd.assertValid(etree.ElementTree(element))


def test_the_consult_number_must_be_an_int_for_sunats_schema() -> None:
    body = etree.fromstring(envelope("u", "p", "getStatusCdr", {**DOCUMENT, "numeroComprobante": "F1"}))[1][0]
    assert not _schema(CONSULT[0]).validate(etree.ElementTree(body))


@pytest.mark.parametrize(
    ("faultcode", "faultstring", "detail", "code", "kind"),
    [
        (
            "soap-env:Client.0111",
            "No tiene el perfil para enviar comprobantes electronicos",
            "",
            "0111",
            "exception",
        ),
        (
            "soap-env:Client.2800",
            "El dato ingresado ... no esta permitido. - Detalle: xxx",
            "",
            "2800",
            "rejected",
        ),
        ("soap-env:Server.200", " - Detalle: Error opening URL 'store:///notfound'", "", "0200", "exception"),
        (
            "soap-env:Client.1033",
            "El comprobante fue registrado previamente con otros datos",
            "",
            "1033",
            "exception",
        ),
        ("s:Client", "2800", "El dato ingresado no esta permitido", "2800", "rejected"),
        ("soap-env:Client", "0109", "", "0109", "exception"),
        (
            "soap-env:Client",
            "Error",
            "2335 El documento electrónico ingresado ha sido alterado",
            "2335",
            "rejected",
        ),
        ("env:Server", "Internal Error (from server)", "", "env:Server", "exception"),
    ],
)
def test_faults_are_read_as_sunats_clients_read_them(
    faultcode: str, faultstring: str, detail: str, code: str, kind: str
) -> None:
    fault = classify_fault(faultcode, faultstring, detail)
    assert fault.code == code
    assert fault.description
    assert kind_of(fault.code) is ResponseKind(kind)


def test_sunat_urls_keep_sunats_paths_at_another_host() -> None:
    beta = sunat_urls("beta")
    assert beta.bill == "https://e-beta.sunat.gob.pe/ol-ti-itcpfegem-beta/billService"
    assert beta.other == "https://e-beta.sunat.gob.pe/ol-ti-itemision-otroscpe-gem-beta/billService"
    production = sunat_urls("production", "http://127.0.0.1:8000/sunat/")
    assert production.bill == "http://127.0.0.1:8000/sunat/ol-ti-itcpfegem/billService"
    assert production.consult == "http://127.0.0.1:8000/sunat/ol-it-wsconscpegem/billConsultService"
    with pytest.raises(KeyError):
        sunat_urls("staging")
