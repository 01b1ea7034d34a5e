"""The SUNAT simulator: acceptance with a valid CDR, each rejection/exception code, modes, resends."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TypeAlias

import pytest
from lxml import etree

from facturador.authority.cdr import parse_cdr
from facturador.authority.gateway import AuthorityResponse, ResponseKind
from facturador.authority.packaging import read_zip, zip_document
from facturador.authority.registry import InMemoryRegistry, RegistryKey, RegistryRecord
from facturador.authority.simulator import SunatSimulator
from facturador.ubl.signing import SigningIdentity, verify
from sunat.catalogs import response_message
from tests.reference import shared_path
from tests.samples.ubl_xml import (
    AR_XSD,
    BAD_CHECK_DIGIT_RUC,
    CUSTOMER_RUC,
    ISSUE_DATE,
    ISSUER_RUC,
    NS,
    TODAY,
    add_detraction,
    credit_note,
    debit_note,
    expired_identity,
    find,
    invoice,
    make_simulator,
    package,
    remove,
    set_text,
    signed,
)

Tree: TypeAlias = etree._Element


@pytest.fixture(scope="module")
def cdr_schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(AR_XSD)))


def send(
    simulator: SunatSimulator, root: Tree, identity: SigningIdentity, filename: str | None = None
) -> AuthorityResponse:
    name, data = package(root, identity, filename)
    return simulator.send_bill(name, data)


def cdr_xml(cdr_zip: bytes) -> bytes:
    return read_zip(cdr_zip)[1]


# ---------------------------------------------------------------------------------------------- accepted


def test_accepted_factura(
    simulator: SunatSimulator,
    issuer_identity: SigningIdentity,
    registry: InMemoryRegistry,
    cdr_schema: etree.XMLSchema,
) -> None:
    response = send(simulator, invoice(), issuer_identity)
    assert (response.code, response.kind, response.notes) == ("0", ResponseKind.ACCEPTED, ())
    assert response.description == "La Factura numero F001-1, ha sido aceptada"
    assert response.cdr_zip is not None
    entry, xml = read_zip(response.cdr_zip)
    assert entry == f"R-{ISSUER_RUC}-01-F001-1.xml"
    root = etree.fromstring(xml)
    assert cdr_schema.validate(root), cdr_schema.error_log
    verify(xml)
    cdr = parse_cdr(xml)
    assert cdr.reference_id == cdr.document_reference == "F001-1"
    assert cdr.code == "0"
    assert (cdr.sender_ruc, cdr.receiver_ruc) == ("20131312955", ISSUER_RUC)
    assert cdr.recipient == f"6-{CUSTOMER_RUC}"
    assert cdr.response_date == TODAY.isoformat()
    assert cdr.id.isdigit()
    assert root.findtext("cbc:UBLVersionID", namespaces=NS) == "2.0"
    assert root.findtext("cbc:CustomizationID", namespaces=NS) == "1.0"
    assert root.findtext("cac:Signature/cbc:ID", namespaces=NS) == "SignSUNAT"
    record = registry.lookup(RegistryKey(ISSUER_RUC, "01", "F001", 1))
    assert record is not None and record.status == "accepted" and record.cdr_zip == response.cdr_zip


def test_accepted_boleta_notes_and_filename_with_zip_suffix(
    simulator: SunatSimulator, issuer_identity: SigningIdentity
) -> None:
    boleta = invoice(
        doc_id="B001-7", type_code="03", customer_scheme="1", customer_id="45678912", payment=None
    )
    name, data = package(boleta, issuer_identity)
    response = simulator.send_bill(name + ".zip", data)
    assert response.code == "0"
    assert response.description == "La Boleta de Venta numero B001-7, ha sido aceptada"
    assert read_zip(response.cdr_zip or b"")[0] == f"R-{ISSUER_RUC}-03-B001-7.xml"

    note = send(simulator, credit_note(), issuer_identity)
    assert note.code == "0" and note.description == "La Nota de Credito numero FC01-1, ha sido aceptada"
    debit = send(simulator, debit_note(), issuer_identity)
    assert debit.code == "0" and debit.description == "La Nota de Debito numero FD01-1, ha sido aceptada"


def test_sha256_signature_accepted(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    from facturador.ubl.signing import sign

    xml, _digest = sign(invoice(), issuer_identity, sha256=True)
    name = f"{ISSUER_RUC}-01-F001-1"
    assert simulator.send_bill(name, zip_document(name, xml)).code == "0"


def test_many_lines_accepted(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    assert send(simulator, invoice(lines=40), issuer_identity).code == "0"


# ---------------------------------------------------------------------------------------------- rejections

Tamper = Callable[[Tree], object]

REJECTIONS: list[tuple[str, Tamper, str]] = [
    (
        "line IGV",
        lambda r: set_text(r, "cac:InvoiceLine/cac:TaxTotal/cac:TaxSubtotal/cbc:TaxAmount", "25.00"),
        "3103",
    ),
    ("payable", lambda r: set_text(r, "cac:LegalMonetaryTotal/cbc:PayableAmount", "130.00"), "3280"),
    (
        "header IGV",
        lambda r: set_text(r, "cac:TaxTotal/cac:TaxSubtotal/cbc:TaxAmount", "20.00"),
        "3294",  # TaxAmount is not the sum of the subtotals (SUNAT's stylesheets do not check 3291)
    ),
    ("total taxes", lambda r: set_text(r, "cac:TaxTotal/cbc:TaxAmount", "25.00"), "3294"),
    # the line's base (100) no longer equals its value: SUNAT's stylesheet checks the base first
    ("line value", lambda r: set_text(r, "cac:InvoiceLine/cbc:LineExtensionAmount", "120.00"), "3272"),
    (
        "unit price",
        lambda r: set_text(
            r, "cac:InvoiceLine/cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount", "70.00"
        ),
        "3270",
    ),
    (
        "tax inclusive",
        lambda r: set_text(r, "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount", "150.00"),
        "3280",  # the payable amount is not TaxInclusiveAmount (3279 is checked only with IVAP)
    ),
    ("no tax inclusive", lambda r: remove(r, "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount"), "3305"),
    (
        "customer DNI type",
        lambda r: find(r, "cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID").set(
            "schemeID", "1"
        ),
        "2801",  # the number (a RUC) is not a DNI: checked before the type the operation allows
    ),
    ("no FormaPago", lambda r: remove(r, "cac:PaymentTerms"), "3244"),
    ("FormaPago bad", lambda r: set_text(r, "cac:PaymentTerms/cbc:PaymentMeansID", "Efectivo"), "3246"),
    ("FormaPago credit", lambda r: set_text(r, "cac:PaymentTerms/cbc:PaymentMeansID", "Credito"), "3249"),
    ("UBL version", lambda r: set_text(r, "cbc:UBLVersionID", "2.0"), "2074"),
    ("customization", lambda r: set_text(r, "cbc:CustomizationID", "1.0"), "2072"),
    ("mixed currency", lambda r: find(r, "cac:TaxTotal/cbc:TaxAmount").set("currencyID", "USD"), "2071"),
    ("no operation", lambda r: find(r, "cbc:InvoiceTypeCode").attrib.pop("listID"), "3205"),
    ("bad operation", lambda r: find(r, "cbc:InvoiceTypeCode").set("listID", "0113"), "3206"),
]


@pytest.mark.parametrize(("label", "tamper", "code"), REJECTIONS, ids=[r[0] for r in REJECTIONS])
def test_rejections(
    simulator: SunatSimulator,
    issuer_identity: SigningIdentity,
    registry: InMemoryRegistry,
    label: str,
    tamper: Tamper,
    code: str,
) -> None:
    root = invoice()
    tamper(root)
    response = send(simulator, root, issuer_identity)
    assert response.code == code, response.description
    assert response.kind is ResponseKind.REJECTED
    assert response.description.startswith(response_message(code))
    assert response.cdr_zip is not None
    cdr = parse_cdr(cdr_xml(response.cdr_zip))
    assert (cdr.code, cdr.reference_id) == (code, "F001-1")
    record = registry.lookup(RegistryKey(ISSUER_RUC, "01", "F001", 1))
    assert record is not None and record.status == "rejected" and record.code == code


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"currency": "XYZ"}, "3088"),
        ({"operation": "0200"}, "2800"),  # export factura to a RUC customer
        ({"operation": "0112", "customer_scheme": "1", "customer_id": "1234567"}, "2801"),
        ({"customer_id": "2010006660"}, "2017"),
        ({"customer_scheme": "Z"}, "2800"),  # a factura's customer type is checked as the operation's
        ({"issue_date": TODAY + timedelta(days=3)}, "2329"),
        ({"issue_date": TODAY - timedelta(days=4)}, "2108"),
    ],
)
def test_rule_rejections(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, kwargs: dict, code: str
) -> None:
    response = send(simulator, invoice(**kwargs), issuer_identity)
    assert response.code == code, response.description
    assert response.kind is ResponseKind.REJECTED


@pytest.mark.parametrize(
    "kwargs",
    [
        {"issue_date": TODAY - timedelta(days=3)},  # the third day after issue is still in time
        {"issue_date": TODAY + timedelta(days=2)},
        {"issue_date": TODAY - timedelta(days=30), "doc_id": "0001-5"},  # contingency series: exempt
        {"operation": "0200", "customer_scheme": "0", "customer_id": "EXT12345"},
        {"operation": "0112", "customer_scheme": "1", "customer_id": "45678912"},
    ],
)
def test_rule_edges_accepted(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, kwargs: dict
) -> None:
    root = invoice(**kwargs)
    if kwargs.get("operation") == "0200":  # export lines: affectation 40, scheme 9995, no IGV
        _make_export(root)
    response = send(simulator, root, issuer_identity)
    assert response.code == "0", response.description


def _make_export(root: Tree) -> None:
    for subtotal in root.iterfind(".//cac:TaxSubtotal", NS):
        subtotal.find("cbc:TaxAmount", NS).text = "0.00"
        scheme = subtotal.find("cac:TaxCategory/cac:TaxScheme", NS)
        scheme.find("cbc:ID", NS).text = "9995"
        scheme.find("cbc:Name", NS).text = "EXP"
        scheme.find("cbc:TaxTypeCode", NS).text = "FRE"
        reason = subtotal.find("cac:TaxCategory/cbc:TaxExemptionReasonCode", NS)
        if reason is not None:
            reason.text = "40"
    for path in ("cac:TaxTotal/cbc:TaxAmount", "cac:InvoiceLine/cac:TaxTotal/cbc:TaxAmount"):
        find(root, path).text = "0.00"
    set_text(root, "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount", "100.00")
    set_text(root, "cac:LegalMonetaryTotal/cbc:PayableAmount", "100.00")
    set_text(
        root, "cac:InvoiceLine/cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount", "50.00"
    )


# ---------------------------------------------------------------------------------------------- exceptions


def test_wrong_series_prefix_is_1001(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    root = set_text(invoice(), "cbc:ID", "B001-1")
    response = send(simulator, root, issuer_identity, filename=f"{ISSUER_RUC}-01-F001-1")
    assert (response.code, response.kind, response.cdr_zip) == ("1001", ResponseKind.EXCEPTION, None)


@pytest.mark.parametrize(
    ("filename", "code"),
    [
        ("20100066603-01-F001-1", "1034"),
        (f"{ISSUER_RUC}-01-F002-1", "1035"),
        (f"{ISSUER_RUC}-01-F001-01", "1036"),
        (f"{ISSUER_RUC}-03-F001-1", "1001"),  # F series is not a boleta series
        (f"{ISSUER_RUC}-07-F001-1", "1003"),  # an Invoice root sent as a credit note
    ],
)
def test_filename_mismatch(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, filename: str, code: str
) -> None:
    response = send(simulator, invoice(), issuer_identity, filename=filename)
    assert response.code == code, response.description
    assert response.kind is ResponseKind.EXCEPTION and response.cdr_zip is None


def test_type_code_mismatch_is_1003(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    root = invoice(doc_id="B001-1", type_code="01")
    response = send(simulator, root, issuer_identity, filename=f"{ISSUER_RUC}-03-B001-1")
    assert response.code == "1003"


@pytest.mark.parametrize(
    ("filename", "data", "code"),
    [
        (f"{ISSUER_RUC}-01-F001-1", b"this is not a zip", "0156"),
        (f"{ISSUER_RUC}-01-F001-1", b"", "0155"),
        (f"{ISSUER_RUC}-01-F001-1", zip_document(f"{ISSUER_RUC}-01-F001-2", b"<Invoice/>"), "0161"),
        (
            f"{ISSUER_RUC}-01-F001-1",
            zip_document(f"{ISSUER_RUC}-01-F001-1", b"<Invoice><unclosed></Invoice>"),
            "0306",
        ),
        ("factura.zip", zip_document("factura", b"<Invoice/>"), "0151"),
        (f"{ISSUER_RUC}-01-F001", zip_document("x", b"<Invoice/>"), "0151"),
        (f"{ISSUER_RUC}-RC-20250110-1", zip_document(f"{ISSUER_RUC}-RC-20250110-1", b"<a/>"), "0152"),
        (f"{ISSUER_RUC}-09-T001-1", zip_document(f"{ISSUER_RUC}-09-T001-1", b"<a/>"), "0302"),
    ],
)
def test_file_exceptions(simulator: SunatSimulator, filename: str, data: bytes, code: str) -> None:
    response = simulator.send_bill(filename, data)
    assert response.code == code, response.description
    assert response.kind is ResponseKind.EXCEPTION and response.cdr_zip is None


def test_unknown_root_is_0301(simulator: SunatSimulator) -> None:
    name = f"{ISSUER_RUC}-01-F001-1"
    assert simulator.send_bill(name, zip_document(name, b"<Factura/>")).code == "0301"


def test_schema_invalid_is_0306(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    root = invoice()
    # cbc:IssueTime before cbc:IssueDate breaks the XSD sequence
    issue_time = find(root, "cbc:IssueTime")
    find(root, "cbc:IssueDate").addprevious(issue_time)
    response = send(simulator, root, issuer_identity)
    assert response.code == "0306" and response.kind is ResponseKind.EXCEPTION
    assert "IssueTime" in response.description or "IssueDate" in response.description


# ---------------------------------------------------------------------------------------------- signature


def _send_bytes(
    simulator: SunatSimulator, xml: bytes, name: str = f"{ISSUER_RUC}-01-F001-1"
) -> AuthorityResponse:
    return simulator.send_bill(name, zip_document(name, xml))


def test_tampered_after_signing_is_2334(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    xml = signed(invoice(), issuer_identity)
    tampered = xml.replace(b"CLIENTE SAC", b"CLIENTE SRL")
    response = _send_bytes(simulator, tampered)
    assert response.code == "2334" and response.kind is ResponseKind.REJECTED
    assert response.description.startswith("El documento electrónico ingresado ha sido alterado")


def test_pretty_printed_after_signing_is_altered(
    simulator: SunatSimulator, issuer_identity: SigningIdentity
) -> None:
    xml = signed(invoice(), issuer_identity)
    pretty = etree.tostring(etree.fromstring(xml), pretty_print=True, xml_declaration=True, encoding="UTF-8")
    response = _send_bytes(simulator, pretty)
    # re-indenting also changes ds:SignedInfo, so the signature value fails before the digest
    assert response.code in ("2334", "2335") and response.kind is ResponseKind.REJECTED


def test_bad_signature_value_is_2335(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    root = etree.fromstring(signed(invoice(), issuer_identity))
    value = find(root, ".//ds:SignatureValue")
    text = "".join((value.text or "").split())
    value.text = ("B" if text[0] != "B" else "C") + text[1:]
    response = _send_bytes(simulator, etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
    assert response.code == "2335"


def test_missing_certificate_is_2101(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    root = etree.fromstring(signed(invoice(), issuer_identity))
    remove(root, ".//ds:KeyInfo")
    assert _send_bytes(simulator, etree.tostring(root, xml_declaration=True, encoding="UTF-8")).code == "2101"


def test_expired_certificate_is_2327(simulator: SunatSimulator) -> None:
    response = send(simulator, invoice(), expired_identity())
    assert response.code == "2327" and response.kind is ResponseKind.REJECTED


def test_unsigned_is_2101_or_schema(simulator: SunatSimulator) -> None:
    root = invoice()
    remove(root, "ext:UBLExtensions")
    xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    assert _send_bytes(simulator, xml).code == "2101"


# ---------------------------------------------------------------------------------------------- observations


def test_observations(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, cdr_schema: etree.XMLSchema
) -> None:
    boleta = invoice(
        doc_id="B001-3",
        type_code="03",
        customer_scheme="1",
        customer_id="1234",
        product_code="4321",
        payment=None,
    )
    response = send(simulator, boleta, issuer_identity)
    assert response.code == "0" and response.kind is ResponseKind.OBSERVED
    assert response.note_codes == ("4207", "4332")
    assert response.notes[0] == "4207 - El DNI debe tener 8 caracteres numéricos"
    xml = cdr_xml(response.cdr_zip or b"")
    assert cdr_schema.validate(etree.fromstring(xml))
    assert parse_cdr(xml).notes == response.notes


def test_detraction_legend_and_family_level_product(
    simulator: SunatSimulator, issuer_identity: SigningIdentity
) -> None:
    without_legend = add_detraction(invoice(operation="1001", product_code="43210000"))
    response = send(simulator, without_legend, issuer_identity)
    assert response.code == "0"
    assert response.note_codes == ("4265", "4337")
    with_legend = invoice(
        doc_id="F001-2",
        operation="1001",
        legends=(("1000", "CIENTO DIECIOCHO"), ("2006", "Operación sujeta a detracción")),
    )
    assert send(simulator, add_detraction(with_legend), issuer_identity).kind is ResponseKind.ACCEPTED


# ---------------------------------------------------------------------------------------------- notes & modes


def test_note_type_rules(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    assert send(simulator, credit_note(ref_type="03", ref_id="B001-1"), issuer_identity).code == "2116"
    # a reference that is not of its type's series is a format error first, as SUNAT's stylesheets say
    assert send(simulator, credit_note(doc_id="FC01-8", ref_type="03"), issuer_identity).code == "2117"
    boleta_note = credit_note(
        doc_id="BC01-1", ref_id="F001-1", ref_type="01", customer_scheme="1", customer_id="45678912"
    )
    assert send(simulator, boleta_note, issuer_identity).code == "2399"
    assert send(simulator, debit_note(ref_type="07"), issuer_identity).code == "2204"
    assert send(simulator, credit_note(doc_id="FC01-9", ref_id="F-1"), issuer_identity).code == "2117"


def test_bad_check_digit_customer_ruc_test_vs_strict(
    simulator: SunatSimulator, strict_simulator: SunatSimulator, issuer_identity: SigningIdentity
) -> None:
    assert send(simulator, invoice(customer_id=BAD_CHECK_DIGIT_RUC), issuer_identity).code == "0"
    strict = send(
        strict_simulator, invoice(doc_id="F001-2", customer_id=BAD_CHECK_DIGIT_RUC), issuer_identity
    )
    assert strict.code == "3202" and strict.kind is ResponseKind.REJECTED
    assert send(strict_simulator, invoice(doc_id="F001-3"), issuer_identity).code == "0"


def test_note_reference_test_vs_strict(
    sunat_identity: SigningIdentity, issuer_identity: SigningIdentity, registry: InMemoryRegistry
) -> None:
    test_mode = make_simulator(sunat_identity, InMemoryRegistry())
    assert send(test_mode, credit_note(ref_id="F001-99"), issuer_identity).code == "0"

    strict = make_simulator(sunat_identity, registry, mode="strict")
    assert send(strict, credit_note(ref_id="F001-99"), issuer_identity).code == "2119"
    assert send(strict, debit_note(ref_id="F001-99"), issuer_identity).code == "2209"
    assert send(strict, invoice(doc_id="F001-5"), issuer_identity).code == "0"
    assert send(strict, credit_note(doc_id="FC01-2", ref_id="F001-5"), issuer_identity).code == "0"
    assert send(strict, debit_note(doc_id="FD01-2", ref_id="F001-00000005"), issuer_identity).code == "0"
    # a rejected or voided factura cannot be modified
    registry.record(RegistryKey(ISSUER_RUC, "01", "F001", 6), RegistryRecord("rejected", "x", "3103"))
    registry.record(RegistryKey(ISSUER_RUC, "01", "F001", 7), RegistryRecord("voided", "x", "0"))
    assert send(strict, credit_note(doc_id="FC01-3", ref_id="F001-6"), issuer_identity).code == "2121"
    assert send(strict, credit_note(doc_id="FC01-4", ref_id="F001-7"), issuer_identity).code == "2120"
    # physical (numeric series) documents are not in SUNAT's registry: not checked
    assert send(strict, credit_note(doc_id="FC01-5", ref_id="0001-7"), issuer_identity).code == "0"


# ---------------------------------------------------------------------------------------------- resends


def test_idempotent_resend_and_changed_content(
    simulator: SunatSimulator, issuer_identity: SigningIdentity
) -> None:
    name, data = package(invoice(), issuer_identity)
    first = simulator.send_bill(name, data)
    again = simulator.send_bill(name, data)
    assert first.code == again.code == "0"
    assert again.cdr_zip == first.cdr_zip and again.description == first.description
    # the same content signed again has the same DigestValue: still the stored CDR
    resigned = simulator.send_bill(*package(invoice(), issuer_identity))
    assert resigned.cdr_zip == first.cdr_zip
    changed = set_text(
        invoice(), "cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName", "OTRO"
    )
    response = send(simulator, changed, issuer_identity)
    assert (response.code, response.kind, response.cdr_zip) == ("1033", ResponseKind.EXCEPTION, None)


def test_resend_after_rejection_is_1032(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    bad = set_text(invoice(), "cac:LegalMonetaryTotal/cbc:PayableAmount", "130.00")
    assert send(simulator, bad, issuer_identity).code == "3280"
    fixed = send(simulator, invoice(), issuer_identity)
    assert (fixed.code, fixed.kind) == ("1032", ResponseKind.EXCEPTION)


def test_exceptions_do_not_consume_the_number(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, registry: InMemoryRegistry
) -> None:
    broken = set_text(invoice(), "cbc:UBLVersionID", "2.1")  # valid, then break the zip
    name, data = package(broken, issuer_identity)
    assert simulator.send_bill(name, data[:40]).code == "0156"
    assert len(registry) == 0
    assert simulator.send_bill(name, data).code == "0"


def test_outage(
    sunat_identity: SigningIdentity, issuer_identity: SigningIdentity, registry: InMemoryRegistry
) -> None:
    down = SunatSimulator(sunat_identity, registry, outage=True, today=lambda: TODAY)
    response = send(down, invoice(), issuer_identity)
    assert (response.code, response.kind, response.cdr_zip) == ("0109", ResponseKind.EXCEPTION, None)
    assert response.description == response_message("0109")
    assert len(registry) == 0
    down.outage = False
    assert send(down, invoice(), issuer_identity).code == "0"


def test_concurrent_same_document_is_0140(
    sunat_identity: SigningIdentity, issuer_identity: SigningIdentity
) -> None:
    entered, release = threading.Event(), threading.Event()

    class SlowRegistry(InMemoryRegistry):
        def lookup(self, key: RegistryKey) -> RegistryRecord | None:
            entered.set()
            release.wait(5)
            return super().lookup(key)

    simulator = make_simulator(sunat_identity, SlowRegistry())
    name, data = package(invoice(), issuer_identity)
    results: list[str] = []
    worker = threading.Thread(target=lambda: results.append(simulator.send_bill(name, data).code))
    worker.start()
    assert entered.wait(5)
    assert simulator.send_bill(name, data).code == "0140"
    release.set()
    worker.join(5)
    assert results == ["0"]


def test_invalid_mode(sunat_identity: SigningIdentity) -> None:
    with pytest.raises(ValueError):
        SunatSimulator(sunat_identity, InMemoryRegistry(), mode="production")


def test_default_today_is_lima(sunat_identity: SigningIdentity, issuer_identity: SigningIdentity) -> None:
    from sunat.calendar import peru_today

    simulator = SunatSimulator(sunat_identity, InMemoryRegistry())
    response = send(simulator, invoice(issue_date=peru_today()), issuer_identity)
    assert response.code == "0"
    assert ISSUE_DATE.year >= 2025


def test_altered_resend_keeps_the_accepted_record(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, registry: InMemoryRegistry
) -> None:
    xml = signed(invoice(), issuer_identity)
    name = f"{ISSUER_RUC}-01-F001-1"
    first = simulator.send_bill(name, zip_document(name, xml))
    assert first.code == "0"
    altered = simulator.send_bill(name, zip_document(name, xml.replace(b"CLIENTE SAC", b"CLIENTE SRL")))
    assert altered.code == "2334"
    record = registry.lookup(RegistryKey(ISSUER_RUC, "01", "F001", 1))
    assert record is not None and record.status == "accepted"
    assert simulator.send_bill(name, zip_document(name, xml)).cdr_zip == first.cdr_zip


def test_cdr_ids_are_unique(simulator: SunatSimulator, issuer_identity: SigningIdentity) -> None:
    ids = set()
    for number in range(1, 21):
        response = send(simulator, invoice(doc_id=f"F001-{number}"), issuer_identity)
        ids.add(parse_cdr(cdr_xml(response.cdr_zip or b"")).id)
    assert len(ids) == 20


def test_every_emitted_code_has_sunat_wording() -> None:
    import re

    from facturador.authority import packaging, rules, simulator

    modules = [simulator.__file__, packaging.__file__, *Path(rules.__file__).parent.glob("*.py")]
    sources = "".join(Path(module).read_text() for module in modules)
    codes = set(re.findall(r'(?:Answer|PackagingError|note)\(\s*"(\d{4})"', sources))
    codes |= {"2116", "2399", "2204", "2400", "2119", "2120", "2121", "2207", "2208", "2209", "0109"}
    assert len(codes) > 60
    for code in sorted(codes):
        assert not simulator.message(code).startswith("Código de respuesta"), code


def test_real_ubl20_factura_is_2074(simulator: SunatSimulator) -> None:
    xml = shared_path("examples", "sunat", "20505310072-01-F001-00019772.xml").read_bytes()
    response = _send_bytes(simulator, xml, name="20505310072-01-F001-00019772")
    assert response.code == "2074" and response.kind is ResponseKind.REJECTED  # SUNAT's old UBL 2.0 format


def test_early_rejection_does_not_overwrite_an_accepted_document(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, registry: InMemoryRegistry
) -> None:
    first = send(simulator, invoice(), issuer_identity)
    assert first.code == "0"
    assert send(simulator, set_text(invoice(), "cbc:UBLVersionID", "2.0"), issuer_identity).code == "2074"
    record = registry.lookup(RegistryKey(ISSUER_RUC, "01", "F001", 1))
    assert record is not None and record.status == "accepted" and record.cdr_zip == first.cdr_zip
