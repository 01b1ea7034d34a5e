"""Zip packaging, response kinds, the registry and the CDR reader on SUNAT's own samples."""

from __future__ import annotations

import io
import threading
import tracemalloc
import zipfile
from datetime import datetime
from typing import Any

import pytest
from lxml import etree

from connector.consult import read_cdr as connector_read_cdr
from facturador.authority.cdr import CdrError, accepted_description, build_cdr, parse_cdr, read_cdr, zip_cdr
from facturador.authority.dsig import fast_verify
from facturador.authority.gateway import AuthorityGateway, AuthorityResponse, ResponseKind, kind_of
from facturador.authority.packaging import MAX_XML_BYTES, PackagingError, base_name, read_zip, zip_document
from facturador.authority.registry import InMemoryRegistry, Registry, RegistryKey, RegistryRecord
from facturador.authority.simulator import SunatSimulator
from facturador.authority.tickets import accepted_description as summary_accepted_description
from facturador.ubl.namespaces import APPLICATION_RESPONSE, CAC_NS, CBC_NS, DS_NS, EXT_NS
from facturador.ubl.signing import SigningIdentity, sign, verify
from tests.reference import shared_path
from tests.samples.ubl_xml import AR_XSD


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------------- packaging


def test_zip_document_roundtrip() -> None:
    data = zip_document("20600995805-01-F001-1", b"<Invoice/>")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        (info,) = archive.infolist()
    assert info.filename == "20600995805-01-F001-1.xml"
    assert info.compress_type == zipfile.ZIP_DEFLATED
    assert read_zip(data) == ("20600995805-01-F001-1.xml", b"<Invoice/>")
    assert read_zip(zip_document("20600995805-01-F001-1.zip", b"<a/>"))[0] == "20600995805-01-F001-1.xml"


@pytest.mark.parametrize("name", ["20600995805-01-F001-1", "R-20600995805-07-FC01-12.zip", "ñandú"])
@pytest.mark.parametrize("xml", [b"", b"<Invoice/>", b"<a>" + b"Inca Kola 250 ml " * 700 + b"</a>"])
def test_zip_document_is_byte_identical_to_zipfile(name: str, xml: bytes) -> None:
    """The hand-written zip equals what zipfile writes for the same entry (name, date, mode, deflate)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        info = zipfile.ZipInfo(base_name(name) + ".xml", date_time=(2000, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        archive.writestr(info, xml)
    assert zip_document(name, xml) == buffer.getvalue()
    with zipfile.ZipFile(io.BytesIO(zip_document(name, xml))) as archive:
        assert archive.testzip() is None
        assert archive.read(base_name(name) + ".xml") == xml


def test_base_name() -> None:
    assert base_name("20600995805-01-F001-1.zip") == "20600995805-01-F001-1"
    assert base_name("20600995805-01-F001-1") == "20600995805-01-F001-1"


def test_read_zip_ignores_directory_and_dummy_entries() -> None:
    data = _zip({"dummy/": b"", "R-x.xml": b"<a/>", "dummy": b""})
    assert read_zip(data) == ("R-x.xml", b"<a/>")


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "0155"),
        (b"PK\x03\x04 this is not a zip", "0156"),
        (b"garbage", "0156"),
        (_zip({}), "0155"),
        (_zip({"dummy/": b""}), "0157"),
        (_zip({"a.xml": b"<a/>", "b.xml": b"<b/>"}), "0158"),
        (_zip({"a.txt": b"hello"}), "0159"),
        (_zip({"a.xml": b"  "}), "0160"),
    ],
)
def test_read_zip_errors(data: bytes, code: str) -> None:
    with pytest.raises(PackagingError) as info:
        read_zip(data)
    assert info.value.code == code


def test_read_zip_corrupt_member() -> None:
    data = bytearray(zip_document("x", b"<Invoice>" + b"a" * 500 + b"</Invoice>"))
    data[60:70] = b"\x00" * 10  # inside the deflated stream
    with pytest.raises(PackagingError) as info:
        read_zip(bytes(data))
    assert info.value.code == "0156"


BOMB_BYTES = 200 * 1024 * 1024  # what the bomb really inflates to (about 200 KB deflated)


def _zip_bomb(name: str, claimed_size: int | None) -> bytes:
    """A zip whose one entry inflates to ``BOMB_BYTES`` zeros, written a megabyte at a time; with
    ``claimed_size`` both of its headers (local and central) lie that the entry is that small."""
    buffer = io.BytesIO()
    megabyte = bytes(1024 * 1024)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open(name, "w", force_zip64=False) as entry:
            for _ in range(BOMB_BYTES // len(megabyte)):
                entry.write(megabyte)
    data = bytearray(buffer.getvalue())
    if claimed_size is not None:
        assert data[:4] == b"PK\x03\x04"
        data[22:26] = claimed_size.to_bytes(4, "little")  # local header: uncompressed size
        central = data.index(b"PK\x01\x02")
        data[central + 24 : central + 28] = claimed_size.to_bytes(4, "little")
    return bytes(data)


@pytest.mark.parametrize("claimed", [1_000, MAX_XML_BYTES - 1, 0])
def test_zip_bomb_whose_header_lies_never_inflates_past_the_limit(claimed: int) -> None:
    """The header says the entry is small: inflating stops at the claimed size or the limit (the CRC then
    fails: 0156), never inflating the 200 MB the data holds; memory stays within the limit."""
    bomb = _zip_bomb("20600995805-01-F001-1.xml", claimed)
    assert len(bomb) < 1024 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(PackagingError) as info:
            read_zip(bomb)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.code == "0156"
    assert peak < MAX_XML_BYTES + 4 * 1024 * 1024, f"peak {peak} bytes"
    if claimed < 1024 * 1024:
        assert peak < 2 * 1024 * 1024, f"peak {peak} bytes"


def test_zip_bomb_with_an_honest_header_is_refused_before_inflating() -> None:
    tracemalloc.start()
    try:
        with pytest.raises(PackagingError) as info:
            read_zip(_zip_bomb("a.xml", None))
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.code == "0156"
    assert "inflates to 209715200 bytes" in info.value.detail
    assert peak < 2 * 1024 * 1024


def test_read_zip_refuses_compression_methods_it_cannot_inflate_in_steps() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_BZIP2) as archive:
        archive.writestr("a.xml", b"<a/>")
    with pytest.raises(PackagingError) as info:
        read_zip(buffer.getvalue())
    assert info.value.code == "0156"
    assert "compression method 12" in info.value.detail


def test_read_zip_keeps_stored_entries_and_entries_up_to_the_limit() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("a.xml", b"<a/>")
    assert read_zip(buffer.getvalue()) == ("a.xml", b"<a/>")
    big = b"<a>" + b"x" * (3 * 64 * 1024 + 17) + b"</a>"  # several inflating steps
    assert read_zip(zip_document("b", big)) == ("b.xml", big)


def test_simulator_answers_a_zip_bomb_with_0156(simulator: SunatSimulator) -> None:
    name = "20600995805-01-F001-1"
    answer = simulator.send_bill(f"{name}.zip", _zip_bomb(f"{name}.xml", 1_000))
    assert answer.code == "0156"
    assert answer.cdr_zip is None


# ---------------------------------------------------------------------------------------------- responses


@pytest.mark.parametrize(
    ("code", "notes", "kind"),
    [
        ("0", (), ResponseKind.ACCEPTED),
        ("0", ("4252 - x",), ResponseKind.OBSERVED),
        ("2800", (), ResponseKind.REJECTED),
        ("3999", (), ResponseKind.REJECTED),
        ("0109", (), ResponseKind.EXCEPTION),
        ("1033", (), ResponseKind.EXCEPTION),
        ("soap-env:Server", (), ResponseKind.EXCEPTION),
    ],
)
def test_response_kind(code: str, notes: tuple[str, ...], kind: ResponseKind) -> None:
    response = AuthorityResponse(code, "d", notes)
    assert response.kind is kind
    assert kind_of(code, bool(notes)) is kind
    assert response.accepted is (kind in (ResponseKind.ACCEPTED, ResponseKind.OBSERVED))


def test_note_codes_and_repr_hides_zip() -> None:
    response = AuthorityResponse("0", "ok", ("4332 - a", "4265 - b"), cdr_zip=b"PK" * 1000)
    assert response.note_codes == ("4332", "4265")
    assert "PK" not in repr(response)


def test_simulator_is_a_gateway(simulator: SunatSimulator) -> None:
    assert isinstance(simulator, AuthorityGateway)


# ---------------------------------------------------------------------------------------------- registry


def test_registry_protocol_and_threads() -> None:
    registry = InMemoryRegistry()
    assert isinstance(registry, Registry)
    key = RegistryKey.from_id("20600995805", "01", "F001-00000007")
    assert key == RegistryKey("20600995805", "01", "F001", 7)
    assert registry.lookup(key) is None

    def worker(n: int) -> None:
        for i in range(200):
            registry.record(
                RegistryKey("2", "01", "F001", n * 1000 + i), RegistryRecord("accepted", "d", "0")
            )

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(registry) == 1600
    registry.record(key, RegistryRecord("rejected", "h", "3103", b"zip"))
    assert registry.lookup(key) == RegistryRecord("rejected", "h", "3103", b"zip")


# ---------------------------------------------------------------------------------------------- CDRs


def test_read_real_rejection_zip() -> None:
    data = shared_path("examples", "sunat", "cdr-rechazo.zip").read_bytes()
    response = read_cdr(data)
    assert response.code == "0109"
    assert response.description == "El sistema no pudo procesar su solicitud"
    assert response.kind is ResponseKind.EXCEPTION
    assert response.cdr_zip == data


def test_read_real_voided_zip() -> None:
    response = read_cdr(shared_path("examples", "sunat", "cdrBaja.zip").read_bytes())
    assert response.code == "0"
    assert response.description.startswith("La Comunicación de baja RA-20171001-1")
    assert response.kind is ResponseKind.ACCEPTED


@pytest.mark.parametrize("name", ["R-20600995805-01-F001-1.xml", "R-20600995805-01-F001-3.xml"])
def test_read_real_cdr_xml(name: str) -> None:
    xml = shared_path("examples", "sunat", name).read_bytes()
    cdr = parse_cdr(xml)
    assert cdr.sender_ruc == "20131312955"
    assert cdr.receiver_ruc == "20600995805"
    assert cdr.reference_id == "F001-1"  # both greenter samples answer F001-1
    assert cdr.recipient == "6-20587896411"
    response = read_cdr(xml)
    assert response.code == "0"
    zipped = read_cdr(zip_cdr(name[2:-4], xml))
    assert zipped.notes == response.notes and zipped.cdr_zip is not None
    if name.endswith("3.xml"):
        assert response.kind is ResponseKind.OBSERVED
        assert response.note_codes == ("4031", "4001")
        assert response.notes[1] == "4001 - El numero de RUC del receptor no existe."
    else:
        assert response.kind is ResponseKind.ACCEPTED


def test_read_cdr_rejects_garbage() -> None:
    with pytest.raises(CdrError):
        read_cdr(b"<Invoice/>")
    with pytest.raises(CdrError):
        read_cdr(b"not xml")
    with pytest.raises(CdrError):
        read_cdr(_zip({"dummy/": b""}))


def test_built_cdr_validates_and_verifies(sunat_identity: SigningIdentity) -> None:
    received = datetime(2025, 1, 10, 9, 30, 5)
    xml = build_cdr(
        sunat_identity,
        cdr_id="173650000100001",
        issuer_ruc="20600995805",
        reference_id="F001-1",
        code="0",
        description="La Factura numero F001-1, ha sido aceptada",
        notes=("4332 - El Código producto de SUNAT no es válido",),
        recipient="6-20100066603",
        received_at=received,
    )
    schema = etree.XMLSchema(etree.parse(str(AR_XSD)))
    root = etree.fromstring(xml)
    assert schema.validate(root), schema.error_log
    verify(xml)
    assert root.find(".//{http://www.w3.org/2000/09/xmldsig#}Signature").get("Id") == "SignSUNAT"
    cdr = parse_cdr(xml)
    assert (cdr.issue_date, cdr.response_time) == ("2025-01-10", "09:30:05")
    assert cdr.notes == ("4332 - El Código producto de SUNAT no es válido",)
    assert cdr.signed


def _cdr_with_lxml(identity: SigningIdentity, **fields: Any) -> bytes:
    """The same CDR built as an lxml tree and signed by ``signing.sign`` (the reference for build_cdr)."""
    ns = {None: APPLICATION_RESPONSE, "cac": CAC_NS, "cbc": CBC_NS, "ext": EXT_NS, "ds": DS_NS}
    root = etree.Element(f"{{{APPLICATION_RESPONSE}}}ApplicationResponse", nsmap=ns)

    def add(parent: etree._Element, path: str, text: str | None = None) -> etree._Element:
        for step in path.split("/"):
            prefix, name = step.split(":")
            parent = etree.SubElement(parent, f"{{{ns[prefix]}}}{name}")
        parent.text = text
        return parent

    add(root, "ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent")
    received = fields["received_at"]
    for tag, text in (
        ("UBLVersionID", "2.0"),
        ("CustomizationID", "1.0"),
        ("ID", fields["cdr_id"]),
        ("IssueDate", f"{received:%Y-%m-%d}"),
        ("IssueTime", f"{received:%H:%M:%S}"),
        ("ResponseDate", f"{received:%Y-%m-%d}"),
        ("ResponseTime", f"{received:%H:%M:%S}"),
    ):
        add(root, f"cbc:{tag}", text)
    for note in fields["notes"]:
        add(root, "cbc:Note", note)
    signature = add(root, "cac:Signature")
    add(signature, "cbc:ID", "SignSUNAT")
    signatory = add(signature, "cac:SignatoryParty")
    add(signatory, "cac:PartyIdentification/cbc:ID", "20131312955")
    add(signatory, "cac:PartyName/cbc:Name", "SUNAT")
    add(signature, "cac:DigitalSignatureAttachment/cac:ExternalReference/cbc:URI", "#SignSUNAT")
    add(root, "cac:SenderParty/cac:PartyIdentification/cbc:ID", "20131312955")
    add(root, "cac:ReceiverParty/cac:PartyIdentification/cbc:ID", fields["issuer_ruc"])
    document_response = add(root, "cac:DocumentResponse")
    response = add(document_response, "cac:Response")
    add(response, "cbc:ReferenceID", fields["reference_id"])
    add(response, "cbc:ResponseCode", fields["code"])
    add(response, "cbc:Description", fields["description"])
    add(document_response, "cac:DocumentReference/cbc:ID", fields["reference_id"])
    if fields["recipient"]:
        add(document_response, "cac:RecipientParty/cac:PartyIdentification/cbc:ID", fields["recipient"])
    # sign() names its signature SignatureSP; the Id is outside what the signature covers
    return sign(root, identity)[0].replace(b'Id="SignatureSP"', b'Id="SignSUNAT"', 1)


@pytest.mark.parametrize(
    ("notes", "recipient", "description"),
    [
        ((), "", "La Factura numero F001-1, ha sido aceptada"),
        (("4332 - El Código producto de SUNAT no es válido", "4287 - a < b & c"), "6-20100066603", "x\r>y"),
    ],
)
def test_built_cdr_is_canonically_the_lxml_document(
    sunat_identity: SigningIdentity, notes: tuple[str, ...], recipient: str, description: str
) -> None:
    """build_cdr writes canonical XML by hand: its C14N (so digest and signature) equals an lxml build's."""
    fields: dict[str, Any] = {
        "cdr_id": "173650000100001",
        "issuer_ruc": "20600995805",
        "reference_id": "F001-1",
        "code": "0",
        "description": description,
        "notes": notes,
        "recipient": recipient,
        "received_at": datetime(2025, 1, 10, 9, 30, 5),
    }
    ours = build_cdr(sunat_identity, **fields)
    reference = _cdr_with_lxml(sunat_identity, **fields)
    c14n = [etree.tostring(etree.fromstring(xml), method="c14n") for xml in (ours, reference)]
    assert c14n[0] == c14n[1]
    assert verify(ours).digest_value == fast_verify(etree.fromstring(ours))
    assert parse_cdr(ours).description == description


def test_built_cdr_is_written_as_sunat_writes_it(sunat_identity: SigningIdentity) -> None:
    """SUNAT's CDRs (every real capture) declare ``encoding="ISO-8859-1" standalone="no"`` and are Latin-1
    bytes: a client that decodes a CDR as UTF-8 fails on SUNAT's accents, so the simulator's must carry
    them the same way. A character Latin-1 lacks goes as a character reference; the signature holds,
    and our readers (the service's and the connector's) read it."""
    real = shared_path("examples", "sunat", "cdrBaja.zip").read_bytes()
    with zipfile.ZipFile(io.BytesIO(real)) as archive:
        declaration = archive.read(archive.namelist()[0]).split(b"?>")[0] + b"?>"
    assert declaration == b'<?xml version="1.0" encoding="ISO-8859-1" standalone="no"?>'
    description = "La Comunicación de baja RA-20250110-1, ha sido aceptada"
    xml = build_cdr(
        sunat_identity,
        cdr_id="173650000100001",
        issuer_ruc="20600995805",
        reference_id="RA-20250110-1",
        code="0",
        description=description,
        notes=("4332 - El Código € no es válido",),
        received_at=datetime(2025, 1, 10, 9, 30, 5),
    )
    assert xml.startswith(declaration)
    assert "Comunicación".encode("latin-1") in xml and "Comunicación".encode() not in xml
    with pytest.raises(UnicodeDecodeError):
        xml.decode("utf-8")
    verify(xml)
    cdr = parse_cdr(xml)
    assert (cdr.description, cdr.notes) == (description, ("4332 - El Código € no es válido",))
    answer = connector_read_cdr(zip_cdr("R-20600995805-RA-20250110-1", xml))
    assert (answer.code, answer.description) == ("0", description)


@pytest.mark.parametrize(
    ("kind", "wording"),
    [
        ("01", "La Factura numero F001-1, ha sido aceptada"),
        ("03", "La Boleta de Venta numero B001-1, ha sido aceptada"),
        ("07", "La Nota de Credito numero F001-1, ha sido aceptada"),
        ("RA", "La Comunicación de baja RA-20171001-1, ha sido aceptada"),
        ("RC", "El Resumen diario RC-20171001-1, ha sido aceptado"),
    ],
)
def test_accepted_wording_is_sunats(kind: str, wording: str) -> None:
    """The descriptions of real CDRs (cdrBaja.zip: «La Comunicación de baja …»; a boleta's «La Boleta de
    Venta numero …», as SUNAT's answers quoted by greenter's users and the SDKs' fixtures read)."""
    number = wording.split()[-4].rstrip(",")
    if kind in ("RA", "RC"):
        assert summary_accepted_description(kind, number) == wording
    else:
        assert accepted_description(kind, number) == wording
