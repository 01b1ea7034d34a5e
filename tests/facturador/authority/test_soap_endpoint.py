"""The simulator as SUNAT's SOAP endpoint, mounted by the live service at ``/sunat`` and spoken to over
HTTP on loopback with hand-written envelopes: every operation on every path, the WSDL, the credentials
and their refusals, SUNAT's faults, what real clients send, and the same answers as the in-process
simulator for the same zip."""

from __future__ import annotations

import base64
import datetime as dt
import io
import re
import zipfile
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest
from lxml import etree

from facturador.authority import cdr as cdr_mod
from facturador.authority.packaging import zip_document
from facturador.authority.registry import InMemoryRegistry
from facturador.authority.soap.app import sunat_zip
from facturador.authority.tickets import InMemoryTicketStore
from facturador.issued import Issuer
from facturador.store.models import DEFAULT_SETTINGS
from facturador.ubl.retention import sign_other_document
from facturador.ubl.signing import sign
from facturador.ubl.summaries import (
    ADD,
    DailySummary,
    SummaryLine,
    VoidedCommunication,
    VoidedLine,
    build_summary,
    build_voided,
    sign_summary,
)
from sunat.calendar import peru_today
from sunat.catalogs import response_message as message
from tests import reference
from tests.conftest import LiveService
from tests.facturador.authority.test_other_documents import document as other_document
from tests.samples.ubl_xml import ISSUER_RUC, invoice, package
from tests.sunat_soap import (
    BETA,
    CONSULT,
    MOUNT,
    OTHER_BETA,
    PRODUCTION,
    SOAP,
    TEXT,
    Taxpayer,
    cdr_code,
    cdr_entries,
    envelope,
    new_taxpayer,
    post,
    shipped_schema,
)

BILL_XSD = "billService.xsd2.xsd"
CONSULT_XSD = "billConsultService.xsd"


@pytest.fixture(scope="module")
def payer(live: LiveService) -> Taxpayer:
    """A tenant with its own SOL user, answered as SUNAT answers (rejections are faults)."""
    return new_taxpayer(live, "soap")


@pytest.fixture(scope="module")
def ose_payer(live: LiveService) -> Taxpayer:
    """A tenant answered as an OSE answers (rejections come with their CDR)."""
    return new_taxpayer(live, "ose", authority_ose=True)


def assert_valid(answer_body: etree._Element, schema: str) -> None:
    """The response element validates against SUNAT's schema shipped with the package."""
    xsd = shipped_schema(schema)
    assert xsd.validate(answer_body), xsd.error_log


# -- sendBill ------------------------------------------------------------------------------------------


def _layout(zip_bytes: bytes) -> list[tuple[str, int, bool]]:
    """Each entry of a zip: its name, compression method and whether it holds bytes."""
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as archive:
        return [(info.filename, info.compress_type, info.file_size > 0) for info in archive.infolist()]


@pytest.mark.requires_shared
def test_a_cdr_zip_is_laid_out_as_sunats(tmp_path: Any) -> None:
    """SUNAT's CDR zip (the real ``cdr-rechazo.zip``): the XML first, deflated, then an empty ``dummy``
    stored without a slash. A client that reads ``namelist()[0]`` (as several do) reads the CDR."""
    real = _layout(reference.shared_path("examples", "sunat", "cdr-rechazo.zip").read_bytes())
    ours = _layout(sunat_zip(zip_document("R-20100066603-01-F001-1", b"<ApplicationResponse/>")))
    assert [(kind, has_bytes) for _name, kind, has_bytes in ours] == [
        (kind, has_bytes) for _name, kind, has_bytes in real
    ]
    assert [name for name, _kind, _bytes in ours] == ["R-20100066603-01-F001-1.xml", "dummy"]
    assert real[1][0] == "dummy" and real[0][0].endswith(".xml")
    with zipfile.ZipFile(io.BytesIO(sunat_zip(zip_document("R-x", b"<a/>")))) as archive:
        assert archive.read(archive.namelist()[0]) == b"<a/>"


def test_send_bill_answers_the_cdr_zip_as_sunat_zips_it(live: LiveService, payer: Taxpayer) -> None:
    name, data = payer.factura()
    answer = payer.send_bill(live, name, data)
    assert answer.status == 200
    assert answer.response.headers["content-type"].startswith("text/xml")
    assert etree.QName(answer.body).localname == "sendBillResponse"
    assert_valid(answer.body, BILL_XSD)
    names, xml = cdr_entries(answer.zip("applicationResponse"))
    assert names == [f"R-{name}.xml", "dummy"]
    cdr = cdr_mod.parse_cdr(xml)
    assert (cdr.code, cdr.reference_id, cdr.receiver_ruc) == ("0", name.split("-", 2)[2], payer.ruc)
    assert cdr.signed
    # the same document again, unchanged: SUNAT's stored CDR, not a second registration
    again = payer.send_bill(live, name, data)
    assert cdr_entries(again.zip("applicationResponse"))[1] == xml


def test_an_unchanged_resend_is_1033_on_production_and_its_cdr_on_beta(
    live: LiveService, payer: Taxpayer
) -> None:
    """SUNAT's production answers a document it already has with 1033 even when it comes again unchanged
    (thegreenter/greenter #35: «cuando se envía el mismo comprobante repetidas veces»); its CDR is then
    recovered with getStatusCdr. The beta path keeps answering the stored CDR."""
    name, data = payer.factura()
    first = payer.send_bill(live, name, data, path=PRODUCTION)
    assert cdr_code(first.zip("applicationResponse")) == "0"
    stored = cdr_entries(first.zip("applicationResponse"))[1]
    again = payer.send_bill(live, name, data, path=PRODUCTION)
    assert (again.status, again.fault[0]) == (500, "soap-env:Client.1033")
    assert again.fault[1].startswith(message("1033"))
    recovered = payer.call(live, CONSULT, "getStatusCdr", **consult_fields(payer.ruc, name))
    assert cdr_entries(recovered.zip("statusCdr/content"))[1] == stored
    on_beta = payer.send_bill(live, name, data, path=BETA)
    assert cdr_entries(on_beta.zip("applicationResponse"))[1] == stored


def test_beta_takes_moddatos_for_any_ruc_and_production_does_not(live: LiveService, payer: Taxpayer) -> None:
    name, data = package(invoice(doc_id="F001-9001", issue_date=peru_today()), payer.identity)
    for user, password in ((f"{ISSUER_RUC}MODDATOS", "moddatos"), (f"{ISSUER_RUC}moddatos", "MODDATOS")):
        body = envelope(
            "sendBill", {"fileName": f"{name}.zip", "contentFile": data}, user=user, password=password
        )
        answer = post(live, BETA, body)
        assert answer.status == 200 and cdr_code(answer.zip("applicationResponse")) == "0"
        refused = post(live, PRODUCTION, body)
        assert (refused.status, refused.fault[0]) == (500, "soap-env:Client.0102")
    # a tenant's own user works on the production path too, and MODDATOS works for a tenant's RUC on beta
    name, data = payer.factura()
    assert cdr_code(payer.send_bill(live, name, data, PRODUCTION).zip("applicationResponse")) == "0"
    body = envelope(
        "sendBill", {"fileName": name, "contentFile": data}, user=f"{payer.ruc}MODDATOS", password="moddatos"
    )
    assert post(live, BETA, body).status == 200


@pytest.mark.parametrize(
    ("user", "password", "password_type", "code"),
    [
        (None, None, TEXT, "0101"),  # no wsse:Security at all
        ("{ruc}FACTURAS1", None, TEXT, "0101"),  # no Password
        ("{ruc}FACTURAS1", "Clave-SOL.9", "http://x#PasswordDigest", "0101"),  # a digest is not taken
        ("{ruc}FACTURAS1", "clave-sol.9", TEXT, "0102"),  # the password is case-sensitive
        ("{ruc}OTROUSER", "Clave-SOL.9", TEXT, "0102"),  # another SOL user
        ("FACTURAS1", "Clave-SOL.9", TEXT, "0102"),  # no RUC
        ("20100066603FACTURAS1", "Clave-SOL.9", TEXT, "0102"),  # another taxpayer's RUC
    ],
)
def test_refused_credentials_get_sunat_faults(
    live: LiveService, payer: Taxpayer, user: str | None, password: str | None, password_type: str, code: str
) -> None:
    name, data = payer.factura()
    body = envelope(
        "sendBill",
        {"fileName": f"{name}.zip", "contentFile": data},
        user=user.format(ruc=payer.ruc) if user else None,
        password=password,
        password_type=password_type,
    )
    answer = post(live, PRODUCTION, body)
    assert answer.status == 500
    faultcode, faultstring = answer.fault
    assert faultcode == f"soap-env:Client.{code}"
    assert faultstring.startswith({"0101": "El encabezado de seguridad es incorrecto"}.get(code, "Usuario o"))
    assert password is None or password not in answer.response.text
    # nothing was registered: the document is unknown to billConsultService
    status = payer.call(live, CONSULT, "getStatus", **consult_fields(payer.ruc, name))
    assert status.field("status/statusCode") == "0011"


def consult_fields(ruc: str, name: str) -> dict[str, str]:
    _ruc, doc_type, series, number = name.split("-")
    return {
        "rucComprobante": ruc,
        "tipoComprobante": doc_type,
        "serieComprobante": series,
        "numeroComprobante": number,
    }


def test_a_file_of_another_ruc_is_0154(live: LiveService, payer: Taxpayer) -> None:
    name, data = package(invoice(doc_id="F001-77", issue_date=peru_today()), payer.identity)
    answer = payer.send_bill(live, name, data)
    assert answer.fault[0] == "soap-env:Client.0154"
    assert answer.fault[1].startswith("El RUC del archivo no corresponde al RUC del usuario")


def test_rejections_are_faults_for_sunat_and_cdrs_for_an_ose(
    live: LiveService, payer: Taxpayer, ose_payer: Taxpayer
) -> None:
    name, data = payer.factura(customer_scheme="7")  # a factura to a passport holder: 2800
    answer = payer.send_bill(live, name, data)
    assert (answer.status, answer.fault[0]) == (500, "soap-env:Client.2800")
    # SUNAT's Detalle, as its answers read (thegreenter/demo #111, greenter #41) and parsers take apart
    detail = re.fullmatch(
        r"(.+) - Detalle: xxx\.xxx\.xxx value='ticket: (\d+) error: INFO: 2800 "
        r"\(nodo: \"(.+)\" valor: \"(.*)\"\)'",
        answer.fault[1],
    )
    assert detail is not None, answer.fault[1]
    assert (detail[1], detail[3], detail[4]) == (message("2800"), "cbc:ID/@schemeID", "7")
    # the number is consumed: SUNAT has the rejection and its CDR
    status = payer.call(live, CONSULT, "getStatus", **consult_fields(payer.ruc, name))
    assert (status.field("status/statusCode"), status.field("status/statusMessage")) == (
        "0002",
        "El comprobante existe pero está rechazado.",
    )
    cdr = payer.call(live, CONSULT, "getStatusCdr", **consult_fields(payer.ruc, name))
    assert cdr.field("statusCdr/statusCode") == "0004"
    assert cdr.field("statusCdr/statusMessage") == "La constancia existe"
    assert cdr_code(cdr.zip("statusCdr/content")) == "2800"
    assert_valid(cdr.body, CONSULT_XSD)

    name, data = ose_payer.factura(customer_scheme="7")
    answer = ose_payer.send_bill(live, name, data)
    assert answer.status == 200 and cdr_code(answer.zip("applicationResponse")) == "2800"


def test_exceptions_are_faults_and_register_nothing(live: LiveService, ose_payer: Taxpayer) -> None:
    name, data = ose_payer.factura()
    broken = ose_payer.send_bill(live, name, b"not a zip")
    assert broken.fault == ("soap-env:Client.0156", broken.fault[1])
    assert broken.fault[1].startswith("El archivo ZIP esta corrupto")
    not_base64 = post(
        live,
        BETA,
        envelope(
            "sendBill",
            {"fileName": f"{name}.zip", "contentFile": "%%%"},
            user=ose_payer.username,
            password=ose_payer.password,
        ),
    )
    assert not_base64.fault[0] == "soap-env:Client.0156"
    bad_name = ose_payer.send_bill(live, "factura", data)
    assert bad_name.fault[0] == "soap-env:Client.0151"
    # the same document then goes through
    assert cdr_code(ose_payer.send_bill(live, name, data).zip("applicationResponse")) == "0"


def test_an_outage_is_a_server_fault(live: LiveService) -> None:
    payer = new_taxpayer(live, "down", authority_outage=True)
    name, data = payer.factura()
    answer = payer.send_bill(live, name, data)
    assert answer.fault == (
        "soap-env:Server.0109",
        "El sistema no puede responder su solicitud. (El servicio de autenticación no está disponible)",
    )


# -- retentions and perceptions ------------------------------------------------------------------------


def test_the_other_cpe_path_takes_retentions_and_not_facturas(live: LiveService, payer: Taxpayer) -> None:
    name, data = payer.factura()
    answer = payer.send_bill(live, name, data, OTHER_BETA)
    assert answer.fault[0].startswith("soap-env:Client.0")  # a factura is not an "otros CPE" file
    # and a retention name on billService is refused as SUNAT refuses it
    retention = payer.send_bill(
        live, f"{payer.ruc}-20-R001-1", zip_document(f"{payer.ruc}-20-R001-1", b"<x/>")
    )
    assert retention.fault[0].startswith("soap-env:Client.0")


def test_retentions_perceptions_and_their_reversion_on_the_other_cpe_path(live: LiveService) -> None:
    payer = new_taxpayer(live, "ret")
    issuer = Issuer(payer.ruc, "RET S.A.C.", address="Av. Lima 1", ubigeo="150101")
    for doc_type in ("20", "40"):
        signed = sign_other_document(other_document(doc_type, number=1, issuer=issuer), payer.identity)
        answer = payer.send_bill(live, signed.filename, zip_document(signed.filename, signed.xml), OTHER_BETA)
        names, xml = cdr_entries(answer.zip("applicationResponse"))
        assert names == [f"R-{signed.filename}.xml", "dummy"]
        assert cdr_mod.parse_cdr(xml).code == "0"
    today = peru_today()
    reversion = VoidedCommunication(
        issuer=issuer,
        identifier=f"RR-{today:%Y%m%d}-1",
        reference_date=today,
        issue_date=today,
        lines=(VoidedLine("20", "R001", 1, "Error en el monto"),),
    )
    signed = sign_summary(reversion, payer.identity)
    sent = payer.call(
        live,
        OTHER_BETA,
        "sendSummary",
        fileName=f"{signed.filename}.zip",
        contentFile=zip_document(signed.filename, signed.xml),
    )
    status = payer.call(live, OTHER_BETA, "getStatus", ticket=sent.field("ticket"))
    assert status.field("status/statusCode") == "0"
    assert cdr_code(status.zip("status/content")) == "0"
    # a factura's daily summary is not taken by the other-CPE service
    assert (
        payer.call(live, OTHER_BETA, "sendSummary", fileName="x.zip", contentFile=b"PK")
        .fault[0]
        .startswith("soap-env:Client.0")
    )


# -- summaries and tickets -----------------------------------------------------------------------------


def _summary_zip(payer: Taxpayer, document: DailySummary | VoidedCommunication) -> tuple[str, bytes]:
    root = build_summary(document) if isinstance(document, DailySummary) else build_voided(document)
    xml, _digest = sign(root, payer.identity)
    return document.filename, zip_document(document.filename, xml)


def _one_boleta_summary(payer: Taxpayer) -> tuple[str, bytes]:
    """Today's first daily summary of ``payer`` declaring one boleta of S/ 118 (file name and zip)."""
    today = peru_today()
    issuer = Issuer(ruc=payer.ruc, name=f"{payer.ruc} S.A.C.")
    line = SummaryLine(
        "03",
        "B001-1",
        ADD,
        "PEN",
        Decimal("118"),
        taxed=Decimal("100"),
        igv=Decimal("18"),
        customer_type="1",
        customer_number="44556677",
    )
    return _summary_zip(payer, DailySummary(issuer, f"RC-{today:%Y%m%d}-1", today, today, (line,)))


def test_send_summary_then_get_status_with_padded_in_process_code(live: LiveService) -> None:
    payer = new_taxpayer(live, "rc", authority_ticket_delay=30.0)
    name, data = _one_boleta_summary(payer)
    sent = payer.call(live, BETA, "sendSummary", fileName=f"{name}.zip", contentFile=data)
    assert_valid(sent.body, BILL_XSD)
    ticket = sent.field("ticket")
    assert ticket.isdigit()
    status = payer.call(live, BETA, "getStatus", ticket=ticket)
    assert status.field("status/statusCode") == "0098"
    assert status.body.find("status/content") is None
    assert_valid(status.body, BILL_XSD)
    # the ticket belongs to its taxpayer only, and unknown tickets are 0127
    other = new_taxpayer(live, "rc2")
    assert other.call(live, BETA, "getStatus", ticket=ticket).fault[0] == "soap-env:Client.0126"
    assert payer.call(live, BETA, "getStatus", ticket="123").fault == (
        "soap-env:Client.0127",
        "El ticket no existe",
    )


def test_a_processed_ticket_answers_0_with_the_cdr(live: LiveService) -> None:
    payer = new_taxpayer(live, "ra")
    today = peru_today()
    name, data = payer.factura()
    assert payer.send_bill(live, name, data).status == 200
    number = int(name.rsplit("-", 1)[1])
    issuer = Issuer(ruc=payer.ruc, name="RA S.A.C.")
    voided = VoidedCommunication(
        issuer, f"RA-{today:%Y%m%d}-1", today, today, (VoidedLine("01", "F001", number, "Error"),)
    )
    ra_name, ra_zip = _summary_zip(payer, voided)
    ticket = payer.call(live, BETA, "sendSummary", fileName=ra_name, contentFile=ra_zip).field("ticket")
    status = payer.call(live, BETA, "getStatus", ticket=ticket)
    assert status.field("status/statusCode") == "0"
    names, xml = cdr_entries(status.zip("status/content"))
    assert names == [f"R-{ra_name}.xml", "dummy"]
    assert cdr_mod.parse_cdr(xml).code == "0"
    consulted = payer.call(live, CONSULT, "getStatus", **consult_fields(payer.ruc, name))
    assert consulted.field("status/statusCode") == "0003"  # de baja
    # a summary sent as a bill is refused the way SUNAT refuses it
    refused = payer.send_bill(live, ra_name, ra_zip)
    assert refused.fault[0] == "soap-env:Client.0152"
    assert refused.fault[1].endswith(f'error: INFO: 0152 (nodo: "fileName" valor: "{ra_name}.zip")\'')
    assert "sendSummary" not in refused.fault[1]  # no English of ours


# -- billConsultService --------------------------------------------------------------------------------


def test_billconsultservice_answers_in_jax_ws_style(live: LiveService, payer: Taxpayer) -> None:
    """billConsultService is a JAX-WS service: its answers read ``<S:Envelope xmlns:S=…><S:Body>
    <ns0:getStatusResponse xmlns:ns0="http://service.sunat.gob.pe">`` (thegreenter/demo #28), unlike
    billService's ``soap-env`` / ``br``; clients that look for those prefixes see SUNAT's."""
    name, data = payer.factura()
    payer.send_bill(live, name, data)
    for operation, element in (("getStatus", "getStatusResponse"), ("getStatusCdr", "getStatusCdrResponse")):
        answer = payer.call(live, CONSULT, operation, **consult_fields(payer.ruc, name))
        text = answer.response.text
        assert re.search(
            rf'<S:Envelope xmlns:S="{SOAP}"><S:Body><ns0:{element} xmlns:ns0="http://service.sunat.gob.pe">',
            text,
        ), text[:300]
        assert "soap-env" not in text and "br:" not in text
    assert answer.field("statusCdr/statusCode") == "0004"


def test_get_status_ar_answers_a_documents_cdr(live: LiveService, payer: Taxpayer) -> None:
    """The 2026 billService WSDL's ``getStatusAR`` (the four fields of a document, answered
    ``getStatusResponseAR`` / ``status`` with ``content``, ``statusCode`` and ``statusMessage``)."""
    name, data = payer.factura()
    sent = payer.send_bill(live, name, data)
    answer = payer.call(live, BETA, "getStatusAR", **consult_fields(payer.ruc, name))
    assert answer.status == 200, answer.response.text[:500]
    assert etree.QName(answer.body).localname == "getStatusResponseAR"
    assert answer.field("status/statusCode") == "0004"
    assert answer.field("status/statusMessage") == "La constancia existe"
    assert cdr_entries(answer.zip("status/content"))[1] == cdr_entries(sent.zip("applicationResponse"))[1]
    assert_valid(answer.body, BILL_XSD)  # the shipped schema declares getStatusResponseAR
    unknown = payer.call(live, BETA, "getStatusAR", **consult_fields(payer.ruc, f"{name[:-1]}99999"))
    assert unknown.field("status/statusCode") == "0011"


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"rucComprobante": "2010006660"}, "0004"),
        ({"tipoComprobante": "1"}, "0005"),
        ({"serieComprobante": "F01"}, "0006"),
        ({"numeroComprobante": "0"}, "0007"),
        ({"numeroComprobante": "x"}, "0007"),
        ({"rucComprobante": "20100066604"}, "0008"),  # wrong check digit: no such RUC
        ({"tipoComprobante": "03", "serieComprobante": "B001"}, "0009"),
        ({"serieComprobante": "B001"}, "0010"),
        ({"rucComprobante": "20100066603"}, "0012"),  # another taxpayer's document
        ({"numeroComprobante": "99999"}, "0011"),
    ],
)
def test_consult_answers_sunat_status_codes(
    live: LiveService, payer: Taxpayer, changes: dict[str, str], code: str
) -> None:
    fields = {**consult_fields(payer.ruc, f"{payer.ruc}-01-F001-1"), **changes}
    for operation, wrapper in (("getStatus", "status"), ("getStatusCdr", "statusCdr")):
        answer = payer.call(live, CONSULT, operation, **fields)
        assert answer.field(f"{wrapper}/statusCode") == code
        assert answer.field(f"{wrapper}/statusMessage") != "La constancia existe"
        assert answer.body.find(f"{wrapper}/content") is None
        assert_valid(answer.body, CONSULT_XSD)


def test_consult_of_an_accepted_factura(live: LiveService, payer: Taxpayer) -> None:
    name, data = payer.factura()
    sent = payer.send_bill(live, name, data)
    status = payer.call(live, CONSULT, "getStatus", **consult_fields(payer.ruc, name))
    assert status.field("status/statusMessage") == "El comprobante existe y está aceptado."
    assert status.field("status/statusCode") == "0001"
    cdr = payer.call(live, CONSULT, "getStatusCdr", **consult_fields(payer.ruc, name))
    assert cdr_entries(cdr.zip("statusCdr/content")) == cdr_entries(sent.zip("applicationResponse"))
    # MODDATOS is beta's: billConsultService (production only) refuses it
    beta_user = envelope(
        "getStatusCdr", consult_fields(payer.ruc, name), user=f"{payer.ruc}MODDATOS", password="moddatos"
    )
    assert post(live, CONSULT, beta_user).fault[0] == "soap-env:Client.0102"


# -- what clients send ---------------------------------------------------------------------------------


@pytest.mark.parametrize("action", [None, "urn:sendBill", '"urn:sendBill"', '""'])
@pytest.mark.parametrize(
    ("prefixes", "qualified", "password_type"),
    [
        (("soapenv", "ser", "wsse"), False, TEXT),
        (("SOAP-ENV", "ns1", "o"), False, None),  # no Type attribute (cpe-engine omits it)
        (("s", "br", "sec"), True, TEXT),  # qualified children
    ],
)
def test_what_real_clients_send_is_taken(
    live: LiveService,
    payer: Taxpayer,
    action: str | None,
    prefixes: tuple[str, str, str],
    qualified: bool,
    password_type: str | None,
) -> None:
    name, data = payer.factura()
    body = envelope(
        "sendBill",
        {"fileName": f"{name}.zip", "contentFile": data},
        user=payer.username.lower() if qualified else payer.username,  # the SOL user is not case-sensitive
        password=payer.password,
        password_type=password_type,
        qualified=qualified,
        prefixes=prefixes,
    )
    answer = post(live, PRODUCTION, body, action=action)
    assert cdr_code(answer.zip("applicationResponse")) == "0"


@pytest.mark.parametrize(
    ("body", "faultcode"),
    [
        (b"not xml at all", "soap-env:Client"),
        (b"<a><b></a>", "soap-env:Client"),
        (b'<Envelope xmlns="urn:other"/>', "soap-env:Client"),
        (f'<e:Envelope xmlns:e="{SOAP}"><e:Body/></e:Envelope>'.encode(), "soap-env:Client"),
        (
            b'<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body/></e:Envelope>',
            "soap-env:VersionMismatch",
        ),
        (
            b'<!DOCTYPE e [<!ENTITY x "xx"><!ENTITY y "&x;&x;&x;&x;">]>'
            + f'<e:Envelope xmlns:e="{SOAP}"><e:Body><s:sendBill xmlns:s="http://service.sunat.gob.pe">'
            f"<fileName>&y;</fileName></s:sendBill></e:Body></e:Envelope>".encode(),
            "soap-env:Client.0101",
        ),
    ],
)
def test_bad_envelopes_get_soap_faults(live: LiveService, body: bytes, faultcode: str) -> None:
    answer = post(live, BETA, body)
    assert answer.status == 500
    assert answer.fault[0] == faultcode


def test_unknown_operations_and_methods(live: LiveService, payer: Taxpayer) -> None:
    for operation in ("sendBillX", "getStatusARX"):
        answer = payer.call(live, BETA, operation, ticket="1")
        assert answer.status == 500 and answer.fault[0] == "soap-env:Client"
        assert "Cannot find dispatch method" in answer.fault[1]
    assert payer.call(live, CONSULT, "sendBill", fileName="x").fault[0] == "soap-env:Client"
    assert payer.call(live, BETA, "sendPack", fileName="x").fault[0] == "soap-env:Server"
    wrong_namespace = envelope("sendBill", {}, user=payer.username, password=payer.password).replace(
        b"http://service.sunat.gob.pe", b"urn:elsewhere"
    )
    assert post(live, BETA, wrong_namespace).fault[0] == "soap-env:Client"
    assert httpx.put(live.root + BETA).status_code == 405
    assert httpx.get(live.root + MOUNT + "/ol-ti-itcpfegem-beta/otherService").status_code == 404
    assert httpx.get(live.root + BETA).status_code == 200


def test_a_body_over_the_limit_is_refused_with_a_fault(live: LiveService) -> None:
    from facturador.authority.soap.app import MAX_BODY_BYTES

    answer = post(live, BETA, b"<" + b"a" * MAX_BODY_BYTES + b"/>")
    assert answer.status == 413 and answer.fault[0] == "soap-env:Client"

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while it arrives
        for _ in range(MAX_BODY_BYTES // 65536 + 2):
            yield b"a" * 65536

    chunked = httpx.post(live.root + BETA, content=chunks(), headers={"Content-Type": "text/xml"}, timeout=60)
    assert chunked.status_code == 413 and b"faultcode" in chunked.content


# -- the WSDL ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "imported"),
    [
        (BETA, ("billService.ns1.wsdl", "billService.xsd2.xsd")),
        (OTHER_BETA, ("billService.ns1.wsdl", "billService.xsd2.xsd")),
        (CONSULT, ("billConsultService.ns1.wsdl", "billConsultService.xsd")),
    ],
)
def test_wsdl_is_served_with_this_address_and_its_imports(
    live: LiveService, path: str, imported: tuple[str, str]
) -> None:
    wsdl = httpx.get(f"{live.root}{path}?wsdl")
    assert wsdl.status_code == 200
    addresses = re.findall(r'address location="([^"]+)"', wsdl.text)
    assert addresses and set(addresses) == {live.root + path}
    folder = path.rsplit("/", 1)[0]
    stem = path.rsplit("/", 1)[1] + "."
    for name in imported:
        beside = httpx.get(f"{live.root}{folder}/{name}")
        as_sunat = httpx.get(f"{live.root}{path}?{name.removeprefix(stem)}")
        assert beside.status_code == as_sunat.status_code == 200
        assert beside.content == as_sunat.content
        etree.fromstring(beside.content)


# -- the same answers as the in-process simulator ------------------------------------------------------


_TICKET = re.compile(r"ticket: \d+")


def _same_ticket(text: str) -> str:
    """A description without the number of SUNAT's processing its Detalle names (one per answer)."""
    return _TICKET.sub("ticket: -", text)


def _comparable(xml: bytes) -> bytes:
    """A CDR without what differs between two answers to the same document: its id, times, signature
    and the processing number in its Detalle."""
    root = etree.fromstring(xml)
    for node in root.iter(
        "{urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2}Description"
    ):
        node.text = _same_ticket(node.text or "")
    cbc = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
    for tag in ("ID", "IssueDate", "IssueTime", "ResponseDate", "ResponseTime"):
        node = root.find(f"{{{cbc}}}{tag}")
        assert node is not None
        node.text = "-"
    for signature in root.iter("{http://www.w3.org/2000/09/xmldsig#}Signature"):
        signature.getparent().remove(signature)
    return etree.tostring(root, method="c14n")


def test_the_endpoint_answers_as_the_in_process_simulator(live: LiveService, ose_payer: Taxpayer) -> None:
    """The same zips through the service's in-process simulator (as the tenant's settings make it, on a
    registry of its own) and through SOAP: the same code, description, notes and CDR."""
    settings = {**DEFAULT_SETTINGS, "authority_ose": True}
    in_process = live.context.simulator(
        ose_payer.ruc, settings, registry=InMemoryRegistry(), tickets=InMemoryTicketStore()
    )  # type: ignore[arg-type]
    cases = {
        "accepted": ose_payer.factura(),
        "observed": ose_payer.factura(
            type_code="03", doc_id="B001-5", customer_scheme="1", customer_id="123"
        ),
        "rejected": ose_payer.factura(customer_scheme="7"),
        "late": ose_payer.factura(issue_date=peru_today() - dt.timedelta(days=30)),
        "exception": ose_payer.factura(doc_id="F001-000000001x"),
    }
    seen = set()
    for label, (name, data) in cases.items():
        expected = in_process.send_bill(name, data)
        answer = ose_payer.send_bill(live, name, data)
        seen.add(expected.kind)
        if expected.cdr_zip is None:
            code, text = answer.fault
            assert (code, _same_ticket(text)) == (
                f"soap-env:Client.{expected.code}",
                _same_ticket(expected.description),
            ), label
            continue
        got = cdr_mod.read_cdr(answer.zip("applicationResponse"))
        assert (got.code, _same_ticket(got.description), got.notes) == (
            expected.code,
            _same_ticket(expected.description),
            expected.notes,
        ), label
        _names, xml = cdr_entries(answer.zip("applicationResponse"))
        assert _comparable(xml) == _comparable(cdr_mod.read_zip(expected.cdr_zip)[1]), label
    assert {kind.value for kind in seen} == {"accepted", "observed", "rejected", "exception"}


def test_contents_are_not_echoed_in_faults(live: LiveService, payer: Taxpayer) -> None:
    """A fault names SUNAT's code and text, never the request's content (base64 of the zip)."""
    name, data = payer.factura(customer_scheme="7")
    answer = payer.send_bill(live, name, data)
    assert base64.b64encode(data).decode()[:40] not in answer.response.text


def test_an_exception_cdr_inside_the_status_of_a_ticket(live: LiveService) -> None:
    """SUNAT may answer ``getStatus(ticket)`` with statusCode 0 carrying a bare exception CDR (the real
    ``cdr-rechazo.zip``, 0109) instead of the summary's CDR: ``sunat-fault add exception-cdr --operation
    getStatus`` gives that answer once, and the ticket is answered for real afterwards."""
    from tests.facturador.authority.test_soap_injection import inject

    payer = new_taxpayer(live, "rx")
    name, data = _one_boleta_summary(payer)
    summary_id = name.split("-", 1)[1]
    ticket = payer.call(live, BETA, "sendSummary", fileName=f"{name}.zip", contentFile=data).field("ticket")
    inject(live, payer, "exception-cdr", operation="getStatus")
    status = payer.call(live, BETA, "getStatus", ticket=ticket)
    assert status.status == 200
    assert status.field("status/statusCode") == "0"
    names, xml = cdr_entries(status.zip("status/content"))
    assert names == [f"R-{name}.xml", "dummy"]
    cdr = cdr_mod.parse_cdr(xml)
    assert (cdr.code, cdr.reference_id, cdr.signed) == ("0109", summary_id, False)
    assert cdr.description == message("0109")
    # the injection is used up: the same ticket now gets the summary's own CDR
    status = payer.call(live, BETA, "getStatus", ticket=ticket)
    assert status.field("status/statusCode") == "0"
    assert cdr_code(status.zip("status/content")) == "0"
