"""SUNAT's other-documents ``billService`` (otros CPE): retentions (20) and perceptions (40), answered
synchronously with a CDR, like ``sendBill`` of invoices (``docs/sunat_domain.md``: retention and perception
receipts, transport).

What it checks, in order (the codes of SUNAT's stylesheets ``ValidaExprRegRetencion-1.0.3`` and
``ValidaExprRegPercepcion-1.0.2`` and of its code catalogue):

- the file: 0151 name not ``RUC-20|40-SERIE-NUMERO``, 0302 another type, 0155-0161 the zip, 0306 the XML
  or its schema, 0301 another root element (exceptions: nothing recorded);
- 2111 / 2110 ``UBLVersionID`` 2.0, 2113 / 2112 ``CustomizationID`` 1.0, 1001 the ``cbc:ID`` format,
  1049 the ID against the file name, 1034 the agent's RUC against the file's (exceptions);
- 1032 rejected before; the signature (2101, 2334-2336); an accepted document sent again gets its
  stored CDR back when unchanged, 1033 when it differs;
- rejections (a CDR; the number is consumed), first what SUNAT's stylesheet checks: the receiver (2511
  a retention's supplier without RUC, 2724 its number, 2620 / 2604 the receiver is the issuer), the
  regime (2618 / 2602) and its rate (2619 / 2603, catalogs 23 / 22 through :mod:`sunat.withholding`),
  each payment's currencies (2626 the same document and payment twice, 2622 the payment's currency is
  not the document's, 2749 the exchange rate's source currency, 2719 / 2721 no exchange rate for a
  document in another currency) and the totals (2628 / 2667 retained or perceived, 2629 / 2668 paid or
  collected: the sums of the payments, to the cent); then what SUNAT's backend checks (the stylesheet
  does not): the issue date (2329 after SUNAT's day), the payment dates (2661 / 2659 outside the issue
  date's month or after it) and each payment's amounts (2623 / 2608 not the regime's rate of the
  payment in soles, within SUNAT's tolerance of 1.00).

The RR reversion's file checks are :func:`receive_reversion`; its ticket is processed like a voided
communication's (:func:`facturador.authority.tickets.process_ticket`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Protocol

from lxml import etree

from facturador.authority import cdr as cdr_mod
from facturador.authority.detail import described
from facturador.authority.gateway import AuthorityResponse
from facturador.authority.packaging import base_name
from facturador.authority.reading import text
from facturador.authority.registry import Registry, RegistryKey, RegistryRecord, RegistryStatus
from facturador.authority.rules.context import Answer, FileName, message
from facturador.authority.rules.identification import (
    _issuer,
    _valid_schema,
    _verify_signature,
    read_document,
)
from facturador.authority.tickets import TicketStore
from facturador.ubl.namespaces import CAC, CBC, PERCEPTION, RETENTION, SAC, VOIDED_DOCUMENTS
from facturador.ubl.signing import SigningIdentity
from sunat import withholding
from sunat.calendar import peru_now
from sunat.money import TOLERANCE


class Authority(Protocol):
    """What these rules use of the simulator (:class:`~facturador.authority.simulator.SunatSimulator`)."""

    identity: SigningIdentity
    registry: Registry
    today: Callable[[], date]
    outage: bool

    def _exclusive(self, key: RegistryKey) -> AbstractContextManager[None]: ...

    def _cdr_id(self) -> str: ...


__all__ = ["receive_reversion", "send_other_bill"]

_REVERSION_NAME = re.compile(r"^(\d{11})-RR-(\d{8})-(\d{1,5})$")
_FILENAME = re.compile(r"^(\d{11})-(\d{2})-([A-Z0-9]{4})-(\d{1,8})$")
_ID = {
    "20": re.compile(r"^(R[A-Z0-9]{3}|\d{4})-\d{1,8}$"),
    "40": re.compile(r"^(P[A-Z0-9]{3}|\d{4})-\d{1,8}$"),
}


@dataclass(frozen=True)
class _Kind:
    root: str
    word: str  # Retention / Perception
    net: str  # NetTotalPaid / NetTotalCashed
    total: str  # TotalPaid / TotalCashed
    receiver_is_issuer: str
    regime: str
    rate: str
    amounts: str
    dates: str
    total_amount: str
    total_net: str


_KINDS = {
    "20": _Kind(
        f"{{{RETENTION}}}Retention",
        "Retention",
        "NetTotalPaid",
        "TotalPaid",
        "2620",
        "2618",
        "2619",
        "2623",
        "2661",
        "2628",
        "2629",
    ),
    "40": _Kind(
        f"{{{PERCEPTION}}}Perception",
        "Perception",
        "NetTotalCashed",
        "TotalCashed",
        "2604",
        "2602",
        "2603",
        "2608",
        "2659",
        "2667",
        "2668",
    ),
}


@dataclass
class _Received:
    file: FileName
    kind: _Kind
    root: etree._Element
    xml: bytes
    received_at: datetime
    doc_id: str = ""
    digest: str = ""
    receiver: str = ""
    notes: list[str] = field(default_factory=list)


def _description(code: str, detail: str) -> str:
    return described(code, detail)


def send_other_bill(simulator: Authority, filename: str, zip_bytes: bytes) -> AuthorityResponse:
    """Process a retention or perception zip like SUNAT's otros-CPE ``sendBill`` (see module doc)."""
    if simulator.outage:
        return AuthorityResponse.exception("0109", message("0109"))
    received_at = datetime.combine(simulator.today(), peru_now().time().replace(microsecond=0))
    name = base_name(filename)
    try:
        file = _file_name(name)
    except Answer as answer:
        return AuthorityResponse.exception(answer.code, _description(answer.code, answer.detail))
    try:
        with simulator._exclusive(file.key):
            return _process(simulator, file, received_at, zip_bytes)
    except Answer as answer:
        return AuthorityResponse.exception(answer.code, _description(answer.code, answer.detail))


def _file_name(name: str) -> FileName:
    match = _FILENAME.match(name)
    if not match:
        raise Answer("0151", f'fileName valor: "{name}.zip"')
    ruc, doc_type, series, number = match.groups()
    if doc_type not in _KINDS:
        raise Answer("0302", f'fileName valor: "{name}.zip"')
    return FileName(name, ruc, doc_type, series, number)


def _process(
    simulator: Authority, file: FileName, received_at: datetime, zip_bytes: bytes
) -> AuthorityResponse:
    xml, root = read_document(file.name, zip_bytes)
    kind = _KINDS[file.doc_type]
    doc = _Received(file, kind, root, xml, received_at, doc_id=f"{file.series}-{file.number}")
    _identification(doc)
    previous = simulator.registry.lookup(file.key)
    if previous is not None and previous.status != "accepted":
        raise Answer("1032", f'cbc:ID valor: "{doc.doc_id}"')
    _valid_schema(root)
    doc.digest = _verify_signature(root, xml)
    if previous is not None:
        if previous.digest != doc.digest:
            raise Answer("1033", f'cbc:ID valor: "{doc.doc_id}"')
        if previous.cdr_zip:
            return cdr_mod.read_cdr(previous.cdr_zip)
    try:
        _business_rules(doc, simulator.today())
    except Answer as answer:
        return _respond(simulator, doc, answer.code, answer.detail)
    return _respond(simulator, doc, "0", "")


def _identification(doc: _Received) -> None:
    """Root, versions, ID and agent (exceptions: SUNAT does not process the file)."""
    root, file = doc.root, doc.file
    if root.tag != doc.kind.root:
        local = etree.QName(root).localname if isinstance(root.tag, str) else "?"
        raise Answer("0301", f'{local} valor: ""')
    version = text(root, CBC("UBLVersionID"))
    if not version:
        raise Answer("2111", "cbc:UBLVersionID")
    if version != "2.0":
        raise Answer("2110", f'cbc:UBLVersionID valor: "{version}"')
    customization = text(root, CBC("CustomizationID"))
    if not customization:
        raise Answer("2113", "cbc:CustomizationID")
    if customization != "1.0":
        raise Answer("2112", f'cbc:CustomizationID valor: "{customization}"')
    xml_id = text(root, CBC("ID")) or ""
    if not _ID[file.doc_type].fullmatch(xml_id):
        raise Answer("1001", f'cbc:ID valor: "{xml_id}"')
    if xml_id != f"{file.series}-{file.number}":
        raise Answer("1049", f'cbc:ID valor: "{xml_id}"')
    doc.doc_id = xml_id
    agent = text(root, f"{CAC('AgentParty')}/{CAC('PartyIdentification')}/{CBC('ID')}")
    if agent != file.ruc:
        raise Answer("1034", f'cac:PartyIdentification/cbc:ID valor: "{agent}"')


def _amount(node: etree._Element | None, path: str) -> Decimal:
    value = text(node, path)
    try:
        return Decimal(value or "")
    except InvalidOperation:
        return Decimal(0)


def _day(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value or "")
    except ValueError:
        return None


def _business_rules(doc: _Received, today: date) -> None:
    """The rules whose failure rejects the document (see module doc)."""
    root, kind, file = doc.root, doc.kind, doc.file
    receiver = root.find(f"{CAC('ReceiverParty')}/{CAC('PartyIdentification')}/{CBC('ID')}")
    scheme = receiver.get("schemeID", "") if receiver is not None else ""
    number = (receiver.text or "").strip() if receiver is not None else ""
    doc.receiver = f"{scheme}-{number}"
    if file.doc_type == withholding.RETENTION:
        if scheme != "6":
            raise Answer(
                "2511", f'cac:ReceiverParty/cac:PartyIdentification/cbc:ID/@schemeID valor: "{scheme}"'
            )
        if not re.fullmatch(r"\d{11}", number):
            raise Answer("2724", f'cac:ReceiverParty/cac:PartyIdentification/cbc:ID valor: "{number}"')
    if number == file.ruc:
        raise Answer(kind.receiver_is_issuer, number)
    regime = text(root, SAC(f"SUNAT{kind.word}SystemCode")) or ""
    if regime not in withholding.regimes(file.doc_type):
        raise Answer(kind.regime, f'cbc:SystemCode valor: "{regime}"')
    percent = _amount(root, SAC(f"SUNAT{kind.word}Percent"))
    if percent != withholding.rate(file.doc_type, regime):
        raise Answer(kind.rate, f'cbc:Percent valor: "{percent}"')
    issue_date = _day(text(root, CBC("IssueDate")))
    assert issue_date is not None  # the schema checked the date
    total_amount, total_net = Decimal(0), Decimal(0)
    seen: set[tuple[str, str, str]] = set()
    payments: list[tuple[str, Decimal, Decimal, Decimal, Decimal, date | None]] = []
    # first what SUNAT's stylesheet checks: each payment's currencies and the sums
    for position, reference in enumerate(root.iter(SAC(f"SUNAT{kind.word}DocumentReference")), start=1):
        where = f"linea {position}"
        related = reference.find(CBC("ID"))
        related_type = related.get("schemeID", "") if related is not None else ""
        related_id = (related.text or "").strip() if related is not None else ""
        total = reference.find(CBC("TotalInvoiceAmount"))
        currency = total.get("currencyID", "") if total is not None else ""
        paid = reference.find(f"{CAC('Payment')}/{CBC('PaidAmount')}")
        payment_id = text(reference, f"{CAC('Payment')}/{CBC('ID')}") or ""
        if (related_type, related_id, payment_id) in seen:
            raise Answer("2626", f"{related_id} pago {payment_id}, {where}")
        seen.add((related_type, related_id, payment_id))
        if paid is not None and paid.get("currencyID", "") != currency:
            raise Answer("2622", where)
        information = reference.find(SAC(f"SUNAT{kind.word}Information"))
        exchange = information.find(CAC("ExchangeRate")) if information is not None else None
        source = text(exchange, CBC("SourceCurrencyCode"))
        if exchange is not None and source != currency:
            raise Answer("2749", where)
        if currency != "PEN" and (exchange is None or source is None):
            raise Answer("2719", where)
        factor = _amount(exchange, CBC("CalculationRate")) if exchange is not None else Decimal(1)
        if currency != "PEN" and not factor:
            raise Answer("2721", where)
        amount = _amount(information, SAC(f"SUNAT{kind.word}Amount"))
        net = _amount(information, SAC(f"SUNAT{kind.net}"))
        payment = _amount(reference, f"{CAC('Payment')}/{CBC('PaidAmount')}")
        paid_on = _day(text(reference, f"{CAC('Payment')}/{CBC('PaidDate')}"))
        payments.append((where, payment, factor or Decimal(1), amount, net, paid_on))
        if related_type not in ("07", file.doc_type):  # SUNAT's sums leave credit notes and reversals out
            total_amount += amount
            total_net += net
    declared_amount = _amount(root, CBC("TotalInvoiceAmount"))
    if declared_amount != total_amount:
        raise Answer(kind.total_amount, f"total {declared_amount}, suma {total_amount}")
    declared_net = _amount(root, SAC(f"SUNAT{kind.total}"))
    if declared_net != total_net:
        raise Answer(kind.total_net, f"total {declared_net}, suma {total_net}")
    # then what SUNAT's backend checks: the dates and each payment's amounts at the regime's rate
    if issue_date > today:
        raise Answer("2329", f'cbc:IssueDate valor: "{issue_date}"')
    for where, payment, factor, amount, net, paid_on in payments:
        if (
            paid_on is None
            or paid_on > issue_date
            or (paid_on.year, paid_on.month)
            != (
                issue_date.year,
                issue_date.month,
            )
        ):
            raise Answer(kind.dates, f"{where}: fecha {paid_on}, emisión {issue_date}")
        expected = withholding.payment_amounts(file.doc_type, regime, payment, factor)
        if abs(amount - expected.amount) > TOLERANCE or abs(net - expected.net) > TOLERANCE:
            raise Answer(
                kind.amounts,
                f"{where}: pago {payment} x {factor} al {percent} %: {expected.amount} y {expected.net}, "
                f"se informó {amount} y {net}",
            )


def _respond(simulator: Authority, doc: _Received, code: str, detail: str) -> AuthorityResponse:
    """A signed CDR (accepted or rejected), recorded in SUNAT's registry."""
    if int(code) == 0:
        description = cdr_mod.accepted_description(doc.file.doc_type, doc.doc_id)
    else:
        description = _description(code, detail)
    xml = cdr_mod.build_cdr(
        simulator.identity,
        cdr_id=simulator._cdr_id(),
        issuer_ruc=doc.file.ruc,
        reference_id=doc.doc_id,
        code=code,
        description=description,
        notes=tuple(doc.notes),
        recipient=doc.receiver,
        received_at=doc.received_at,
        issued_at=datetime.combine(doc.received_at.date(), peru_now().time().replace(microsecond=0)),
    )
    cdr_zip = cdr_mod.zip_cdr(doc.file.name, xml)
    status: RegistryStatus = "accepted" if int(code) == 0 else "rejected"
    simulator.registry.record(doc.file.key, RegistryRecord(status, doc.digest, code, cdr_zip))
    return AuthorityResponse(code=code, description=description, notes=tuple(doc.notes), cdr_zip=cdr_zip)


def receive_reversion(name: str, zip_bytes: bytes, *, user_ruc: str | None, tickets: TicketStore) -> str:
    """The checks the otros-CPE ``sendSummary`` makes on a reversion (RR) before giving a ticket; returns
    the RUC. 0151 file name, 0154 another taxpayer's file, the zip and XML (0155-0161, 0306), 0301 another
    root, 2075 / 2074 ``UBLVersionID`` 2.0, 2073 / 2072 ``CustomizationID`` 1.0, the schema, the
    signature, 2220 ``cbc:ID`` against the file name, 1034 the issuer and 2324 a file received before."""
    match = _REVERSION_NAME.match(name)
    if not match:
        raise Answer("0151", f'fileName valor: "{name}.zip"')
    ruc, day, sequence = match.groups()
    if user_ruc is not None and ruc != user_ruc:
        raise Answer("0154", f'fileName valor: "{name}.zip"')
    xml, root = read_document(name, zip_bytes)
    if root.tag != f"{{{VOIDED_DOCUMENTS}}}VoidedDocuments":
        local = etree.QName(root).localname if isinstance(root.tag, str) else "?"
        raise Answer("0301", f'{local} valor: ""')
    version = text(root, CBC("UBLVersionID"))
    if not version:
        raise Answer("2075", "cbc:UBLVersionID")
    if version != "2.0":
        raise Answer("2074", f'cbc:UBLVersionID valor: "{version}"')
    customization = text(root, CBC("CustomizationID"))
    if not customization:
        raise Answer("2073", "cbc:CustomizationID")
    if customization != "1.0":
        raise Answer("2072", f'cbc:CustomizationID valor: "{customization}"')
    _valid_schema(root)
    _verify_signature(root, xml)
    reversion_id = text(root, CBC("ID")) or ""
    if reversion_id != f"RR-{day}-{sequence}":
        raise Answer("2220", f'cbc:ID valor: "{reversion_id}", file {name}')
    _issuer(ruc, text(root, f"{CAC('AccountingSupplierParty')}/{CBC('CustomerAssignedAccountID')}"))
    if tickets.find(ruc, name) is not None:
        raise Answer("2324", f'fileName valor: "{name}.zip"')
    return ruc
