"""Code nobody here wrote, pointed at the simulator's SOAP endpoint on the live service: zeep built from
SUNAT's WSDL files (shipped, and loaded from the endpoint's ``?wsdl``), cpe-engine (its own XML, its own
signature, its own envelope) and sunat-py (its own XML and signature, through zeep's ``create_service``),
each reading the CDR the simulator answers."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12
from zeep import Client
from zeep.exceptions import Fault
from zeep.wsse.username import UsernameToken

from facturador.authority.cdr import read_cdr
from facturador.authority.soap.protocol import BILL_BINDING, CONSULT_BINDING, wsdl_dir
from facturador.ubl.signing import generate_identity
from sunat.calendar import peru_now, peru_today
from tests.conftest import LiveService
from tests.sunat_soap import BETA, CONSULT, PRODUCTION, Taxpayer, cdr_entries, new_taxpayer, random_ruc


@pytest.fixture(scope="module")
def payer(live: LiveService) -> Taxpayer:
    return new_taxpayer(live, "zeep")


def zeep_client(wsdl: str, address: str, binding: str, user: str, password: str) -> Any:
    """A zeep service proxy of ``wsdl`` bound to ``address`` (as sunat-py's README and SIS-Facturador do)."""
    client = Client(wsdl, wsse=UsernameToken(user, password))
    return client.create_service(binding, address)


def _production_bill_service(live: LiveService, payer: Taxpayer) -> Any:
    """zeep's proxy of billService from the shipped WSDL, at the simulator's production path."""
    return zeep_client(
        str(wsdl_dir() / "billService.wsdl"),
        live.root + PRODUCTION,
        BILL_BINDING,
        payer.username,
        payer.password,
    )


def test_zeep_from_sunat_wsdl_files_sends_and_recovers(live: LiveService, payer: Taxpayer) -> None:
    bill = _production_bill_service(live, payer)
    name, data = payer.factura()
    cdr_zip = bill.sendBill(fileName=f"{name}.zip", contentFile=data)
    assert cdr_zip[:2] == b"PK"  # zeep decodes base64Binary itself
    assert read_cdr(cdr_zip).code == "0"
    assert cdr_entries(cdr_zip)[0] == [f"R-{name}.xml", "dummy"]

    rejected_name, rejected = payer.factura(customer_scheme="7")
    with pytest.raises(Fault) as fault:
        bill.sendBill(fileName=f"{rejected_name}.zip", contentFile=rejected)
    assert fault.value.code == "soap-env:Client.2800"

    consult = zeep_client(
        str(wsdl_dir() / "billConsultService.wsdl"),
        live.root + CONSULT,
        CONSULT_BINDING,
        payer.username,
        payer.password,
    )
    _ruc, doc_type, series, number = rejected_name.split("-")
    status = consult.getStatusCdr(
        rucComprobante=payer.ruc,
        tipoComprobante=doc_type,
        serieComprobante=series,
        numeroComprobante=int(number),
    )
    assert (status.statusCode, status.statusMessage) == ("0004", "La constancia existe")
    assert read_cdr(status.content).code == "2800"
    status = consult.getStatus(
        rucComprobante=payer.ruc,
        tipoComprobante=doc_type,
        serieComprobante=series,
        numeroComprobante=int(number),
    )
    assert status.statusCode == "0002" and status.content is None


def test_zeep_from_the_shipped_wsdl_asks_get_status_ar(live: LiveService, payer: Taxpayer) -> None:
    """The 2026 billService WSDL declares ``getStatusAR`` (sunat-py ships that copy): zeep built from the
    WSDL this package ships calls it and reads ``content``, ``statusCode`` and ``statusMessage``."""
    bill = _production_bill_service(live, payer)
    name, data = payer.factura()
    bill.sendBill(fileName=f"{name}.zip", contentFile=data)
    _ruc, doc_type, series, number = name.split("-")
    status = bill.getStatusAR(
        rucComprobante=payer.ruc, tipoComprobante=doc_type, serieComprobante=series, numeroComprobante=number
    )
    assert (status.statusCode, status.statusMessage) == ("0004", "La constancia existe")
    assert read_cdr(status.content).code == "0"


def test_zeep_loads_the_wsdl_from_the_endpoint(live: LiveService, payer: Taxpayer) -> None:
    client = Client(f"{live.root}{BETA}?wsdl", wsse=UsernameToken(payer.username, payer.password))
    name, data = payer.factura()
    assert read_cdr(client.service.sendBill(fileName=f"{name}.zip", contentFile=data)).code == "0"
    with pytest.raises(Fault) as fault:
        client.service.getStatus(ticket="1")
    assert (fault.value.code, fault.value.message) == ("soap-env:Client.0127", "El ticket no existe")


def _pem_and_pfx(ruc: str, name: str, password: str) -> tuple[str, bytes]:
    """A signing certificate of ``ruc`` as PEM (key + certificate) and as a PKCS#12 file."""
    key_pem, cert_pem = generate_identity(ruc, name)
    key = serialization.load_pem_private_key(key_pem, None)
    from cryptography import x509

    certificate = x509.load_pem_x509_certificate(cert_pem)
    pfx = pkcs12.serialize_key_and_certificates(
        b"test",
        key,
        certificate,
        None,
        serialization.BestAvailableEncryption(password.encode()),  # type: ignore[arg-type]
    )
    return (key_pem + cert_pem).decode(), pfx


def test_cpe_engine_signs_sends_and_reads_the_cdr(live: LiveService) -> None:
    cpe = pytest.importorskip("cpe_engine")
    from cpe_engine.core.builders.signed_xml_builder import SignedXmlBuilder
    from cpe_engine.core.models import Invoice

    ruc = random_ruc()
    pem, _pfx = _pem_and_pfx(ruc, "CPE ENGINE S.A.C.", "x")

    def send(number: int, customer: str, endpoint: str) -> dict[str, Any]:
        data = cpe.create_invoice_data(
            serie="F001",
            correlativo=number,
            company_data={"ruc": ruc, "razon_social": "CPE ENGINE S.A.C."},
            client_data={"tipo_doc": customer, "num_doc": "20100066603", "razon_social": "CLIENTE S.A.C."},
            items=[
                {
                    "cod_item": "P001",
                    "des_item": "Producto",
                    "cantidad": 2,
                    "mto_valor_unitario": 50.0,
                    "mto_precio_unitario": 59.0,
                    "mto_valor_venta": 100.0,
                    "mto_base_igv": 100.0,
                    "igv": 18.0,
                    "total_impuestos": 18.0,
                    "tip_afe_igv": "10",
                }
            ],
            fecha_emision=peru_now().replace(tzinfo=None),
        )
        invoice = Invoice(
            serie="F001",
            correlativo=number,
            fecha_emision=data["fecha_emision"],
            tipo_operacion="0101",
            tipo_doc="01",
            tipo_moneda="PEN",
            company=data["company"],
            client=data["client"],
            mto_oper_gravadas=100.0,
            mto_igv=18.0,
            mto_total_tributos=18.0,
            mto_impventa=118.0,
            valor_venta=100.0,
            sub_total=118.0,
        )
        invoice.details = data["details"]
        builder = SignedXmlBuilder()
        builder.xml_signer.certificate_manager.load_certificate_from_credentials(pem)
        builder.set_sunat_credentials(f"{ruc}MODDATOS", "moddatos", endpoint)
        return builder.build_sign_and_send(invoice)

    accepted = send(1, "6", live.root + BETA)
    assert accepted["cdr"]["response_code"] == "0"
    assert accepted["cdr"]["response_description"] == "La Factura numero F001-1, ha sido aceptada"
    # cpe-engine raises on an HTTP 500, so SUNAT's rejection fault never reaches its CDR reader...
    with pytest.raises(Exception, match="(?s)HTTP 500.*soap-env:Client.2800"):
        send(2, "7", live.root + BETA)
    # ...while an OSE's rejection comes as a CDR it reads (the same RUC, answered as an OSE)
    ose = new_taxpayer(live, "cpe", authority_ose=True)
    ruc = ose.ruc
    pem, _pfx = _pem_and_pfx(ruc, "CPE ENGINE S.A.C.", "x")
    rejected = send(3, "7", live.root + BETA)
    assert rejected["cdr"]["response_code"] == "2800" and rejected["success"] is False


def test_sunat_py_signs_sends_and_reads_the_cdr(live: LiveService) -> None:
    """sunat-py's own UBL and signature (RSA-SHA256, exclusive C14N), its zeep client bound to the
    endpoint with ``create_service``. sunat-py pins lxml<6 and cryptography<45, so it is not in the dev
    extra (it would downgrade both for the whole project): this runs where it is installed by hand."""
    sunat_py = pytest.importorskip("sunat_py")
    ruc = random_ruc()
    while not _sunat_py_takes(sunat_py, ruc):  # its check digit differs from SUNAT's when 11 - sum % 11 = 11
        ruc = random_ruc()
    _pem, pfx = _pem_and_pfx(ruc, "SUNAT PY S.A.C.", "clave")
    bundle = sunat_py.load_cert_from_pfx(pfx, "clave")

    def invoice(number: int, customer_type: str) -> tuple[str, bytes]:
        document = sunat_py.InvoiceInput(
            serie="F001",
            numero=number,
            fecha_emision=peru_today(),
            moneda="PEN",
            emisor=sunat_py.Party("6", ruc, "SUNAT PY S.A.C.", "Av. Lima 1", "150101"),
            receptor=sunat_py.Party(customer_type, "20100066603", "CLIENTE S.A.C."),
            lines=[sunat_py.InvoiceLine("P001", "Producto", "NIU", Decimal("2"), Decimal("50.00"))],
        )
        signed = sunat_py.sign_invoice_xml(sunat_py.build_invoice_xml(document), bundle)
        name = f"{ruc}-01-F001-{number}"
        return name, sunat_py.pack_invoice(signed, name)

    client = sunat_py.build_zeep_client("beta", ruc, "MODDATOS", "moddatos")

    class Bound:  # sunat-py takes a client with .service; this one's service is bound to the endpoint
        service = client.create_service(BILL_BINDING, live.root + BETA)

    name, data = invoice(1, "6")
    result = sunat_py.send_bill(Bound, data, f"{name}.zip")
    assert (result.status, result.code) == ("accepted", "0"), result.description
    assert b"F001-1" in result.cdr_xml
    name, data = invoice(2, "7")
    rejected = sunat_py.send_bill(Bound, data, f"{name}.zip")
    assert (rejected.status, rejected.code) == ("rejected", "2800")


def _sunat_py_takes(sunat_py: Any, ruc: str) -> bool:
    """Whether sunat-py's RUC validation accepts ``ruc`` (it computes the check digit 0 where SUNAT's
    algorithm gives 1, for about one RUC in twelve)."""
    try:
        sunat_py.validate_ruc(ruc)
    except sunat_py.ValidationError:
        return False
    return True
