"""The simulator's ticket flow: sendSummary checks, 98 until processed, then 0/99 with SUNAT's codes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal

import pytest
from lxml import etree

from facturador.authority.cdr import parse_cdr
from facturador.authority.gateway import AuthorityError, AuthorityGateway, TicketStatus
from facturador.authority.packaging import read_zip, zip_document
from facturador.authority.registry import InMemoryRegistry, RegistryKey, RegistryRecord
from facturador.authority.simulator import SunatSimulator
from facturador.authority.tickets import InMemoryTicketStore, TicketStore
from facturador.issued import Issuer
from facturador.ubl.signing import SigningIdentity, sign, verify
from facturador.ubl.summaries import (
    ADD,
    VOID,
    DailySummary,
    SummaryLine,
    VoidedCommunication,
    VoidedLine,
    build_summary,
    build_voided,
)
from tests.reference import shared_path
from tests.samples.ubl_xml import AR_XSD, ISSUER_RUC, invoice, signed

ISSUER = Issuer(ruc=ISSUER_RUC, name="EMISOR SAC")
TODAY = dt.date(2025, 3, 10)
DAY = dt.date(2025, 3, 9)  # the documents' issue date
STAMP = TODAY.strftime("%Y%m%d")


class Clock:
    """A settable epoch clock for the ticket delay."""

    def __init__(self) -> None:
        self.now = 1_750_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tickets() -> InMemoryTicketStore:
    return InMemoryTicketStore()


@pytest.fixture
def make(
    sunat_identity: SigningIdentity, registry: InMemoryRegistry, tickets: InMemoryTicketStore, clock: Clock
) -> Callable[..., SunatSimulator]:
    def build(**options: object) -> SunatSimulator:
        settings: dict[str, object] = {
            "today": lambda: TODAY,
            "tickets": tickets,
            "ticket_delay": 2.0,
            "clock": clock,
            "user_ruc": ISSUER_RUC,
        }
        settings.update(options)
        return SunatSimulator(sunat_identity, registry, **settings)  # type: ignore[arg-type]

    return build


@pytest.fixture
def simulator(make: Callable[..., SunatSimulator]) -> SunatSimulator:
    return make()


def boleta(number: int, condition: str = ADD, total: str = "118", **fields: object) -> SummaryLine:
    values: dict[str, object] = {
        "taxed": Decimal(total) / Decimal("1.18"),
        "igv": Decimal(total) - Decimal(total) / Decimal("1.18"),
        "customer_type": "1",
        "customer_number": "44556677",
    }
    values.update(fields)
    return SummaryLine("03", f"B001-{number}", condition, "PEN", Decimal(total), **values)  # type: ignore[arg-type]


def rc(
    *lines: SummaryLine, n: int = 1, reference: dt.date = DAY, issued: dt.date = TODAY
) -> tuple[str, etree._Element]:
    document = DailySummary(ISSUER, f"RC-{issued:%Y%m%d}-{n}", reference, issued, lines)
    return document.filename, build_summary(document)


def ra(*lines: VoidedLine, n: int = 1, reference: dt.date = DAY) -> tuple[str, etree._Element]:
    document = VoidedCommunication(ISSUER, f"RA-{STAMP}-{n}", reference, TODAY, lines)
    return document.filename, build_voided(document)


def send(simulator: SunatSimulator, identity: SigningIdentity, built: tuple[str, etree._Element]) -> str:
    """Sign and zip a built summary and send it; returns the ticket."""
    name, root = built
    xml, _digest = sign(root, identity)
    return simulator.send_summary(name, zip_document(name, xml))


def processed(simulator: SunatSimulator, clock: Clock, ticket: str) -> TicketStatus:
    clock.advance(10)
    status = simulator.get_status(ticket)
    assert not status.in_process
    return status


def factura(registry: InMemoryRegistry, number: int, status: str = "accepted") -> VoidedLine:
    registry.record(RegistryKey(ISSUER_RUC, "01", "F001", number), RegistryRecord(status, "d", "0"))  # type: ignore[arg-type]
    return VoidedLine("01", "F001", number, "Error en el monto")


def test_simulator_is_a_gateway_with_the_ticket_flow(simulator: SunatSimulator) -> None:
    assert isinstance(simulator, AuthorityGateway)
    assert isinstance(InMemoryTicketStore(), TicketStore)


def test_ticket_is_in_process_then_accepted_with_a_signed_cdr(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, registry: InMemoryRegistry, clock: Clock
) -> None:
    ticket = send(
        simulator, issuer_identity, rc(boleta(1), boleta(2, customer_type="-", customer_number="-"))
    )
    assert ticket.isdigit() and len(ticket) >= 13
    assert simulator.get_status(ticket) == TicketStatus("98")
    clock.advance(1.9)
    assert simulator.get_status(ticket).in_process
    assert registry.lookup(RegistryKey(ISSUER_RUC, "03", "B001", 1)) is None  # nothing before processing
    clock.advance(0.2)
    status = simulator.get_status(ticket)
    assert status.status_code == "0" and status.accepted
    assert status.response is not None
    assert status.response.code == "0"
    assert status.response.description == f"El Resumen diario RC-{STAMP}-1, ha sido aceptado"
    assert status.response.notes == ()
    assert status.response.cdr_zip is not None
    entry, cdr_xml = read_zip(status.response.cdr_zip)
    assert entry == f"R-{ISSUER_RUC}-RC-{STAMP}-1.xml"
    cdr = parse_cdr(cdr_xml)
    assert (cdr.id, cdr.reference_id, cdr.code, cdr.receiver_ruc) == (
        ticket,
        f"RC-{STAMP}-1",
        "0",
        ISSUER_RUC,
    )
    assert etree.XMLSchema(etree.parse(str(AR_XSD))).validate(etree.fromstring(cdr_xml))
    verify(cdr_xml)
    for number in (1, 2):
        record = registry.lookup(RegistryKey(ISSUER_RUC, "03", "B001", number))
        assert record is not None and record.status == "accepted"
    # answered once: asking again gives the same answer
    assert simulator.get_status(ticket) == status


def test_a_zero_delay_ticket_is_processed_at_the_first_query(
    make: Callable[..., SunatSimulator], issuer_identity: SigningIdentity
) -> None:
    simulator = make(ticket_delay=0)
    ticket = send(simulator, issuer_identity, rc(boleta(1)))
    assert simulator.get_status(ticket).status_code == "0"


def test_tickets_live_in_the_store_not_in_the_simulator(
    make: Callable[..., SunatSimulator], issuer_identity: SigningIdentity, clock: Clock
) -> None:
    ticket = send(make(), issuer_identity, rc(boleta(1)))
    clock.advance(5)
    assert make().get_status(ticket).status_code == "0"  # another instance over the same store


def test_unknown_ticket_and_another_taxpayers_ticket(
    make: Callable[..., SunatSimulator], issuer_identity: SigningIdentity
) -> None:
    simulator = make()
    with pytest.raises(AuthorityError) as unknown:
        simulator.get_status("123456789")
    assert unknown.value.code == "0127"
    assert str(unknown.value) == "Code: 0127; Description: El ticket no existe"
    ticket = send(simulator, issuer_identity, rc(boleta(1)))
    with pytest.raises(AuthorityError) as foreign:
        make(user_ruc="20100066603").get_status(ticket)
    assert foreign.value.code == "0126"


def test_outage_refuses_both_calls(
    make: Callable[..., SunatSimulator], issuer_identity: SigningIdentity
) -> None:
    ticket = send(make(), issuer_identity, rc(boleta(1)))
    down = make(outage=True)
    for call in (lambda: send(down, issuer_identity, rc(boleta(2), n=2)), lambda: down.get_status(ticket)):
        with pytest.raises(AuthorityError) as error:
            call()
        assert error.value.code == "0109"


# --- what sendSummary refuses (nothing is kept) ---------------------------------------------------------


def signed_zip(name: str, root: etree._Element, identity: SigningIdentity) -> bytes:
    xml, _ = sign(root, identity)
    return zip_document(name, xml)


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("bad name", "0151"),
        ("other RUC", "0154"),
        ("corrupt zip", "0156"),
        ("entry name", "0161"),
        ("not xml", "0306"),
        ("invoice root", "0301"),
        ("UBL version", "2212"),
        ("customization", "2214"),
        ("schema", "0306"),
        ("altered", "2334"),
        ("id != file name", "2220"),
    ],
)
def test_send_summary_refuses_bad_files(
    simulator: SunatSimulator,
    issuer_identity: SigningIdentity,
    tickets: InMemoryTicketStore,
    case: str,
    code: str,
) -> None:
    name, root = rc(boleta(1))
    data: bytes
    if case == "bad name":
        name, data = f"{ISSUER_RUC}-RC-2025-1", signed_zip(name, root, issuer_identity)
    elif case == "other RUC":
        name = name.replace(ISSUER_RUC, "20100066603")
        data = signed_zip(name, root, issuer_identity)
    elif case == "corrupt zip":
        data = b"PK\x03\x04 not a zip"
    elif case == "entry name":
        data = zip_document(name + "X", sign(root, issuer_identity)[0])
    elif case == "not xml":
        data = zip_document(name, b"<SummaryDocuments><unclosed>")
    elif case == "invoice root":
        data = zip_document(name, signed(invoice(), issuer_identity))
    elif case in ("UBL version", "customization", "schema", "id != file name"):
        path, value = {
            "UBL version": ("cbc:UBLVersionID", "2.1"),
            "customization": ("cbc:CustomizationID", "1.0"),
            "schema": ("cbc:ReferenceDate", "ayer"),
            "id != file name": ("cbc:ID", f"RC-{STAMP}-7"),
        }[case]
        node = root.find(
            path, {"cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"}
        )
        assert node is not None
        node.text = value
        data = signed_zip(name, root, issuer_identity)
    else:  # altered after signing
        xml = sign(root, issuer_identity)[0].replace(b">118.00<", b">119.00<", 1)
        data = zip_document(name, xml)
    with pytest.raises(AuthorityError) as error:
        simulator.send_summary(name, data)
    assert error.value.code == code, error.value.description
    assert len(tickets) == 0


@pytest.mark.filterwarnings("ignore::cryptography.utils.CryptographyDeprecationWarning")
def test_the_real_sample_was_altered_after_signing(simulator: SunatSimulator) -> None:
    name = "20000000001-RC-20171119-001"
    xml = shared_path("examples", "sunat", f"{name}.xml").read_bytes()
    with pytest.raises(AuthorityError) as error:
        SunatSimulator(simulator.identity, simulator.registry, ticket_delay=0).send_summary(
            name, zip_document(name, xml)
        )
    assert error.value.code == "2334"


def test_an_id_is_received_once(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, registry: InMemoryRegistry
) -> None:
    send(simulator, issuer_identity, rc(boleta(1)))
    with pytest.raises(AuthorityError) as summary:
        send(simulator, issuer_identity, rc(boleta(2)))
    assert summary.value.code == "2223"
    send(simulator, issuer_identity, ra(factura(registry, 1)))
    with pytest.raises(AuthorityError) as voided:
        send(simulator, issuer_identity, ra(factura(registry, 2)))
    assert voided.value.code == "2324"


# --- processing: SUNAT's rules ------------------------------------------------------------------------


def rejected(status: TicketStatus, code: str) -> None:
    assert status.status_code == "99" and not status.accepted
    assert status.response is not None and status.response.code == code, status.response
    assert status.response.cdr_zip is not None
    cdr = parse_cdr(read_zip(status.response.cdr_zip)[1])
    assert cdr.code == code and cdr.signed


def test_declaring_a_boleta_twice_is_2282(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, clock: Clock, registry: InMemoryRegistry
) -> None:
    first = send(simulator, issuer_identity, rc(boleta(1)))
    assert processed(simulator, clock, first).accepted
    again = send(simulator, issuer_identity, rc(boleta(1), boleta(2), n=2))
    rejected(processed(simulator, clock, again), "2282")
    assert registry.lookup(RegistryKey(ISSUER_RUC, "03", "B001", 2)) is None  # a rejection records nothing


def test_boleta_over_700_needs_its_customer_2514(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, clock: Clock
) -> None:
    line = boleta(1, total="800", customer_type="", customer_number="")
    rejected(processed(simulator, clock, send(simulator, issuer_identity, rc(line))), "2514")
    line = boleta(1, total="800", customer_type="-", customer_number="-")
    rejected(processed(simulator, clock, send(simulator, issuer_identity, rc(line, n=2))), "2514")
    identified = boleta(1, total="800")
    assert processed(simulator, clock, send(simulator, issuer_identity, rc(identified, n=3))).accepted


def test_voiding_boletas_in_a_summary(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, clock: Clock, registry: InMemoryRegistry
) -> None:
    # never declared: 2663
    rejected(processed(simulator, clock, send(simulator, issuer_identity, rc(boleta(1, VOID)))), "2663")
    assert processed(simulator, clock, send(simulator, issuer_identity, rc(boleta(1), n=2))).accepted
    voided = processed(simulator, clock, send(simulator, issuer_identity, rc(boleta(1, VOID), n=3)))
    assert voided.accepted
    record = registry.lookup(RegistryKey(ISSUER_RUC, "03", "B001", 1))
    assert record is not None and record.status == "voided"
    # voiding it again: 2987
    rejected(processed(simulator, clock, send(simulator, issuer_identity, rc(boleta(1, VOID), n=4))), "2987")


def test_summary_deadlines(
    make: Callable[..., SunatSimulator],
    issuer_identity: SigningIdentity,
    clock: Clock,
    registry: InMemoryRegistry,
) -> None:
    simulator = make()
    old = TODAY - dt.timedelta(days=8)
    late = processed(simulator, clock, send(simulator, issuer_identity, rc(boleta(1), reference=old)))
    assert late.accepted  # accepted with observation 4443
    assert late.response is not None and late.response.note_codes == ("4443",)
    # voiding a boleta more than 7 days after its issue date: 2957
    rejected(
        processed(
            simulator, clock, send(simulator, issuer_identity, rc(boleta(1, VOID), reference=old, n=2))
        ),
        "2957",
    )
    # a sandbox loading history: no date rules
    sandbox = make(check_deadlines=False)
    voided = processed(
        sandbox, clock, send(sandbox, issuer_identity, rc(boleta(1, VOID), reference=old, n=3))
    )
    assert voided.accepted and voided.response is not None and voided.response.notes == ()


def test_summary_dates_must_agree(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, clock: Clock
) -> None:
    # the ID carries today's date but IssueDate says tomorrow: 2346; ReferenceDate after IssueDate: 2671
    tomorrow = TODAY + dt.timedelta(days=1)
    document = DailySummary(ISSUER, f"RC-{STAMP}-1", DAY, tomorrow, (boleta(1),))
    rejected(
        processed(
            simulator, clock, send(simulator, issuer_identity, (document.filename, build_summary(document)))
        ),
        "2346",
    )
    rejected(
        processed(simulator, clock, send(simulator, issuer_identity, rc(boleta(1), n=2, reference=tomorrow))),
        "2671",
    )
    future = DailySummary(ISSUER, f"RC-{tomorrow:%Y%m%d}-1", DAY, tomorrow, (boleta(1),))
    rejected(
        processed(
            simulator, clock, send(simulator, issuer_identity, (future.filename, build_summary(future)))
        ),
        "2236",
    )


@pytest.mark.parametrize(
    ("lines", "code"),
    [
        ((boleta(1), boleta(1)), "3094"),
        ((boleta(1), replace(boleta(1), condition="2")), "3095"),
        ((replace(boleta(1), doc_type="01", document_id="F001-1"),), "2241"),
        ((replace(boleta(1), condition="7"),), "2896"),
    ],
)
def test_summary_line_rules(
    simulator: SunatSimulator,
    issuer_identity: SigningIdentity,
    clock: Clock,
    lines: tuple[SummaryLine, ...],
    code: str,
) -> None:
    rejected(processed(simulator, clock, send(simulator, issuer_identity, rc(*lines))), code)


def test_voided_communication_accepted(
    simulator: SunatSimulator, issuer_identity: SigningIdentity, clock: Clock, registry: InMemoryRegistry
) -> None:
    ticket = send(
        simulator, issuer_identity, ra(factura(registry, 1), replace(factura(registry, 2), reason="x"))
    )
    status = processed(simulator, clock, ticket)
    assert status.accepted and status.response is not None
    assert status.response.description == f"La Comunicación de baja RA-{STAMP}-1, ha sido aceptada"
    # a reason under 3 characters is only observed: 4203, and 2314 (not SUNAT's pattern of a reason)
    assert status.response.note_codes == ("4203", "2314")
    for number in (1, 2):
        record = registry.lookup(RegistryKey(ISSUER_RUC, "01", "F001", number))
        assert record is not None and record.status == "voided" and record.digest == "d"


@pytest.mark.parametrize(
    ("setup", "code"),
    [("unknown", "2105"), ("rejected", "2398"), ("voided", "2323"), ("twice", "2348"), ("late", "2957")],
)
def test_voided_communication_rules(
    simulator: SunatSimulator,
    issuer_identity: SigningIdentity,
    clock: Clock,
    registry: InMemoryRegistry,
    setup: str,
    code: str,
) -> None:
    reference = DAY
    if setup == "unknown":
        lines = (VoidedLine("01", "F001", 99, "Error"),)
    elif setup in ("rejected", "voided"):
        lines = (factura(registry, 1, setup),)
    elif setup == "twice":
        lines = (factura(registry, 1), factura(registry, 1))
    else:
        lines, reference = (factura(registry, 1),), TODAY - dt.timedelta(days=8)
    rejected(
        processed(simulator, clock, send(simulator, issuer_identity, ra(*lines, reference=reference))), code
    )
    if setup == "unknown":
        assert registry.lookup(RegistryKey(ISSUER_RUC, "01", "F001", 99)) is None
    elif setup != "rejected" and setup != "voided":
        record = registry.lookup(RegistryKey(ISSUER_RUC, "01", "F001", 1))
        assert record is not None and record.status == "accepted"  # unchanged by the rejection
