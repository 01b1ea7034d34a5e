"""A local SUNAT: ``billService.sendBill`` for facturas, boletas and notes, answered with a signed CDR.

The simulator reproduces what an issuer observes from SUNAT (reference/sunat.md §4, §6, §8, §13), in
this order:

1. file-level exceptions (01xx) for bad names and zips, 0306 for unreadable XML, 0301 unknown root;
2. versions (2072-2075), ID format (1001), file name vs content (1034/1035/1036, 1003/1004);
3. duplicates against a :class:`~facturador.service.authority.registry.Registry`: 1032 after a rejection
   or voiding; an accepted document sent again gets its stored CDR back when unchanged (like
   ``getStatusCdr``) and 1033 when its hash differs;
4. XSD (0306) and the signature (2101 no certificate, 2334 digest mismatch, 2335 signature value
   mismatch, 2327 certificate out of its validity period, 2336 other);
5. business rules where the **first error wins** (a rejection CDR; the number is consumed) and
   observations (4xxx) accumulate as ``cbc:Note`` of an accepting CDR. The amount rules are not written
   here: the XML's amounts are mapped onto :mod:`facturador.sunat.totals` objects and checked there.

Exceptions (01xx-1xxx) carry no CDR and are not recorded; rejections and acceptances are recorded.
``mode="test"`` behaves like SUNAT beta (no taxpayer registries); ``mode="strict"`` adds the checks that
need SUNAT's registries: the customer RUC must exist (check digit, 3202) and a note must modify a
document SUNAT accepted for that issuer (2119/2120/2121 credit, 2207/2208/2209 debit).

Daily summaries (RC) and voided communications (RA) follow SUNAT's ticket flow: ``send_summary`` checks
the file (name and zip 01xx, XML 0306, versions, schema, signature, ``cbc:ID`` = file name 2220, an ID
already received 2223/2324) and raises :class:`AuthorityError` when it does not take it, else stores a
ticket; ``get_status`` answers 98 until the ticket's processing delay has passed, then processes it once
with the rules of :mod:`.tickets` and answers 0 or 99 with the CDR (0127 for an unknown ticket).
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from lxml import etree
from signxml.exceptions import InvalidCertificate, InvalidDigest, InvalidSignature

from facturador.service.authority import cdr as cdr_mod
from facturador.service.authority.dsig import fast_verify
from facturador.service.authority.gateway import AuthorityError, AuthorityResponse, TicketStatus
from facturador.service.authority.packaging import PackagingError, base_name, read_zip
from facturador.service.authority.registry import Registry, RegistryKey, RegistryRecord, RegistryStatus
from facturador.service.authority.tickets import (
    InMemoryTicketStore,
    TicketRecord,
    TicketStore,
    process_ticket,
)
from facturador.service.ubl import xsd
from facturador.service.ubl.namespaces import (
    CAC,
    CBC,
    CREDIT_NOTE,
    DEBIT_NOTE,
    DS,
    INVOICE,
    SUMMARY_DOCUMENTS,
    VOIDED_DOCUMENTS,
)
from facturador.service.ubl.signing import SignatureError, SigningIdentity, verify
from facturador.sunat import catalogs
from facturador.sunat.calendar import peru_now, peru_today
from facturador.sunat.identity import is_valid_dni, is_valid_ruc
from facturador.sunat.rates import ALLOWED_IGV_PERCENTS, icbper_rate
from facturador.sunat.series import document_group, is_contingency_series, is_valid_number, is_valid_series
from facturador.sunat.totals import Discrepancy, DocumentTotals, LineAmounts, check_line, check_totals

__all__ = ["MODES", "SunatSimulator", "message"]

logger = logging.getLogger(__name__)

MODES = ("test", "strict")

# ------------------------------------------------------------------------------------------------------
# Static tables

_FILENAME = re.compile(r"^(\d{11})-([0-9A-Z]{2})-(.+)$")
_DOC_PART = re.compile(r"^([A-Z0-9]{4})-(\d{1,8})$")
_SUMMARY_TYPES = frozenset({"RC", "RA", "RR"})
_SUMMARY_NAME = re.compile(r"^(\d{11})-(RC|RA|RR)-(\d{8})-(\d{1,5})$")
#: Per summary type: root element, CustomizationID, the code of an ID received before, and the codes of
#: a wrong / missing UBLVersionID and CustomizationID.
_SUMMARY_KINDS = {
    "RC": (f"{{{SUMMARY_DOCUMENTS}}}SummaryDocuments", "1.1", "2223", ("2212", "2075", "2214", "2073")),
    "RA": (f"{{{VOIDED_DOCUMENTS}}}VoidedDocuments", "1.0", "2324", ("2074", "2075", "2072", "2073")),
}
#: Seconds a ticket answers 98 before it is processed (``SunatSimulator(ticket_delay=...)``).
DEFAULT_TICKET_DELAY = 2.0
_SUMMARY_SUPPLIER = f"{CAC('AccountingSupplierParty')}/{CBC('CustomerAssignedAccountID')}"
_ROOT_TAGS = {
    "01": f"{{{INVOICE}}}Invoice",
    "03": f"{{{INVOICE}}}Invoice",
    "07": f"{{{CREDIT_NOTE}}}CreditNote",
    "08": f"{{{DEBIT_NOTE}}}DebitNote",
}
_NUMBER = re.compile(r"\d{1,8}")
_REFERENCE_FORMAT = re.compile(r"^(?:[FBSE][A-Z0-9]{3}|\d{1,4})-\d{1,8}$")
_RUC_FORMAT = re.compile(r"^\d{11}$")
_PRODUCT_CODE = re.compile(r"^\d{8}$")
_CUOTA = re.compile(r"^Cuota\d{3}$")
ZERO = Decimal("0")

#: Document types a note may modify, by the first letter of the note's series.
_NOTE_TARGETS = {
    ("07", "F"): ("2116", frozenset({"01", "12"})),
    ("07", "B"): ("2399", frozenset({"03", "12", "16", "55"})),
    ("08", "F"): ("2204", frozenset({"01", "12"})),
    ("08", "B"): ("2400", frozenset({"03", "12", "16", "55"})),
}
#: Strict mode: codes when the modified document is unknown / rejected / voided at SUNAT.
_NOTE_REFERENCE_CODES = {
    "07": {None: "2119", "rejected": "2121", "voided": "2120"},
    "08": {None: "2209", "rejected": "2208", "voided": "2207"},
}
#: Operation types where the factura's customer may have any identity document (reference/sunat.md §8.1).
_ANY_CUSTOMER_OPERATIONS = frozenset({"0202", "0401"})
#: Charges in PEN whatever the document currency (perception, catalog 53) - exempt from 2071.
_PEN_CHARGE_CODES = frozenset({"51", "52", "53"})
_PEN_PAYMENT_TERMS = frozenset({"Detraccion", "Percepcion"})
#: Detraction operation types tied to one good or service of catalog 54 (3129).
_PAYMENT_TERMS = CAC("PaymentTerms")
_PAYMENT_MEANS_ID = CBC("PaymentMeansID")
_AMOUNT = CBC("Amount")
_PAYEE_ACCOUNT = f"{CAC('PayeeFinancialAccount')}/{CBC('ID')}"

_LINE_TAGS = {
    "01": (CAC("InvoiceLine"), CBC("InvoicedQuantity")),
    "03": (CAC("InvoiceLine"), CBC("InvoicedQuantity")),
    "07": (CAC("CreditNoteLine"), CBC("CreditedQuantity")),
    "08": (CAC("DebitNoteLine"), CBC("DebitedQuantity")),
}
_MONETARY_TAGS = {
    "01": CAC("LegalMonetaryTotal"),
    "03": CAC("LegalMonetaryTotal"),
    "07": CAC("LegalMonetaryTotal"),
    "08": CAC("RequestedMonetaryTotal"),
}
#: Line tax schemes of the IGV family (one per line, with the affectation of catalog 07).
_IGV_FAMILY = frozenset({"1000", "1016", "9995", "9996", "9997", "9998"})
#: Financial operation types whose lines may lack an IGV-family tax (3105 does not apply).
_FINANCIAL_OPERATIONS = frozenset({"2100", "2101", "2102", "2103", "2104"})
#: Global discounts/charges that change the tax base (catalog 53): not modelled by facturador.sunat.totals.
_BASE_CHANGING_GLOBAL = frozenset({"02", "04", "05", "06", "20", "49"})
_ID = CBC("ID")
_TAX_TOTAL = CAC("TaxTotal")
_TAX_SUBTOTAL = CAC("TaxSubtotal")
_TAX_CATEGORY = CAC("TaxCategory")
_TAX_SCHEME = CAC("TaxScheme")
_TAX_AMOUNT = CBC("TaxAmount")
_TAXABLE_AMOUNT = CBC("TaxableAmount")
_EXEMPTION_REASON = CBC("TaxExemptionReasonCode")
_PERCENT = CBC("Percent")
_LINE_EXTENSION = CBC("LineExtensionAmount")
_TAX_INCLUSIVE = CBC("TaxInclusiveAmount")
_ALLOWANCE_CHARGE = CAC("AllowanceCharge")
_PRICE = CAC("Price")
_PRICE_AMOUNT = CBC("PriceAmount")
_PRICING_REFERENCE = CAC("PricingReference")
_ALTERNATIVE_PRICE = CAC("AlternativeConditionPrice")
_PRICE_TYPE_CODE = CBC("PriceTypeCode")

_SIG = DS("Signature")
_X509 = f".//{DS('X509Certificate')}"
_CURRENCY_NODES = etree.XPath("//*[@currencyID]")
_CUSTOMER_ID = f"{CAC('AccountingCustomerParty')}/{CAC('Party')}/{CAC('PartyIdentification')}/{CBC('ID')}"
_SUPPLIER_ID = f"{CAC('AccountingSupplierParty')}/{CAC('Party')}/{CAC('PartyIdentification')}/{CBC('ID')}"
_BILLING_REFERENCE = f"{CAC('BillingReference')}/{CAC('InvoiceDocumentReference')}"


_INFLIGHT: set[RegistryKey] = set()
_INFLIGHT_LOCK = threading.Lock()
_TICKETS_INFLIGHT: set[str] = set()
_SEQUENCE = itertools.count(1)


class _Answer(Exception):
    """Stops processing with ``code`` (an exception 01xx/1xxx or a rejection 2xxx/3xxx)."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code} {detail}")
        self.code = code
        self.detail = detail


@dataclass
class _Context:
    """What the simulator learned about one submission so far."""

    name: str
    ruc: str
    doc_type: str
    series: str
    number: str
    received_at: datetime
    doc_id: str = ""
    customer: str = ""
    digest: str = ""
    previous: RegistryRecord | None = None
    looked_up: bool = False  # whether ``previous`` holds the registry's answer yet
    issue_date: date | None = None
    factura_family: bool = True  # facturas and their notes (errors) vs boletas and theirs (observations)
    notes: list[str] = field(default_factory=list)

    @property
    def key(self) -> RegistryKey:
        return RegistryKey(self.ruc, self.doc_type, self.series, int(self.number))


def _text(node: etree._Element | None, path: str) -> str | None:
    """Stripped text at ``path`` below ``node``; None when the element is missing."""
    if node is None:
        return None
    found = node.find(path)
    if found is None:
        return None
    return (found.text or "").strip()


#: SUNAT's wording (CodeErrors.xml) of codes the simulator emits that facturador.sunat.catalogs does not
#: list yet. Only used while RESPONSE_CODES lacks them: they belong there (TODO: move and delete this).


def message(code: str) -> str:
    """SUNAT's wording of a response code (facturador.sunat.catalogs, from SUNAT's CodeErrors catalogue)."""
    return catalogs.response_message(code)


def _description(code: str, detail: str) -> str:
    text = message(code)
    return f"{text} - Detalle: {detail}" if detail else text


class SunatSimulator:
    """An in-process SUNAT ``billService`` implementing :class:`AuthorityGateway`.

    ``identity`` signs the CDRs (SUNAT's certificate in real life); ``registry`` remembers received
    documents; ``mode`` is "test" (beta-like, the default) or "strict" (production-like registries);
    ``today`` gives the Lima date the deadline rules use; ``outage=True`` answers 0109 to everything.
    Cheap to construct (the service may build one per request) and thread-safe: concurrent sends of the
    same document in one process get 0140 for all but one.

    The ticket flow uses ``tickets`` (where tickets are kept; in memory by default), ``ticket_delay``
    (seconds a ticket stays in process), ``clock`` (epoch seconds, for the delay), ``check_deadlines``
    (False: a sandbox loading history, the summaries' date rules 4443/2957/2236/2301 are not applied)
    and ``user_ruc`` (the taxpayer of the SOL user: files and tickets of another RUC get 0154 / 0126).
    """

    def __init__(
        self,
        identity: SigningIdentity,
        registry: Registry,
        *,
        mode: str = "test",
        today: Callable[[], date] = peru_today,
        outage: bool = False,
        tickets: TicketStore | None = None,
        ticket_delay: float = DEFAULT_TICKET_DELAY,
        clock: Callable[[], float] = time.time,
        check_deadlines: bool = True,
        user_ruc: str | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        if ticket_delay < 0:
            raise ValueError("ticket_delay must not be negative")
        self.identity = identity
        self.registry = registry
        self.mode = mode
        self.today = today
        self.outage = outage
        self.tickets: TicketStore = tickets if tickets is not None else InMemoryTicketStore()
        self.ticket_delay = ticket_delay
        self.clock = clock
        self.check_deadlines = check_deadlines
        self.user_ruc = user_ruc

    # --------------------------------------------------------------------------------------------------
    # The gateway

    def send_bill(self, filename: str, zip_bytes: bytes) -> AuthorityResponse:
        """Process one document zip like SUNAT's ``sendBill`` and answer with the CDR (see module doc)."""
        if self.outage:
            return AuthorityResponse.exception("0109", message("0109"))
        received_at = datetime.combine(self.today(), peru_now().time().replace(microsecond=0))
        try:
            ctx = self._parse_name(base_name(filename), received_at)
        except _Answer as answer:
            return AuthorityResponse.exception(answer.code, _description(answer.code, answer.detail))
        try:
            with self._exclusive(ctx.key):
                try:
                    return self._process(ctx, zip_bytes)
                except _Answer as answer:
                    return self._respond(ctx, answer.code, answer.detail)
        except _Answer as answer:  # 0140: the same document is being processed
            return AuthorityResponse.exception(answer.code, _description(answer.code, answer.detail))
        except Exception as exc:  # a simulator bug must not become a 500: SUNAT's "system error" instead
            logger.exception("SUNAT simulator failed on %s", ctx.name)
            return AuthorityResponse.exception("0100", _description("0100", f"{type(exc).__name__}: {exc}"))

    def send_summary(self, filename: str, zip_bytes: bytes) -> str:
        """Receive a daily summary (RC) or voided communication (RA) like SUNAT's ``sendSummary``.

        Returns the ticket (a numeric string) and keeps the file for processing; raises
        :class:`AuthorityError` when SUNAT does not take the file (see module doc): nothing is kept then.
        """
        if self.outage:
            raise AuthorityError("0109", message("0109"))
        name = base_name(filename)
        try:
            record = self._receive_summary(name, zip_bytes)
        except _Answer as answer:
            raise AuthorityError(answer.code, _description(answer.code, answer.detail)) from None
        except Exception as exc:  # a simulator bug must not become a 500: SUNAT's "system error" instead
            logger.exception("SUNAT simulator failed on %s", name)
            raise AuthorityError("0100", _description("0100", f"{type(exc).__name__}: {exc}")) from exc
        self.tickets.add(record)
        return record.ticket

    def get_status(self, ticket: str) -> TicketStatus:
        """Answer ``getStatus(ticket)``: 98 while in process, then 0 or 99 with the CDR (see module doc).

        A ticket is processed once, by the first query after its delay; later queries get the stored
        answer. Raises :class:`AuthorityError` 0127 for an unknown ticket, 0126 for another taxpayer's.
        """
        if self.outage:
            raise AuthorityError("0109", message("0109"))
        record = self.tickets.get(ticket)
        if record is None:
            raise AuthorityError("0127", message("0127"))
        if self.user_ruc is not None and record.issuer_ruc != self.user_ruc:
            raise AuthorityError("0126", message("0126"))
        if record.processed:
            assert record.cdr_zip is not None
            return TicketStatus(record.status_code, cdr_mod.read_cdr(record.cdr_zip))
        if _utc(self.clock()) < record.ready_at:
            return TicketStatus("98")
        with _INFLIGHT_LOCK:
            if ticket in _TICKETS_INFLIGHT:  # another query is processing it right now
                return TicketStatus("98")
            _TICKETS_INFLIGHT.add(ticket)
        try:
            status_code, cdr_zip = process_ticket(
                record,
                registry=self.registry,
                identity=self.identity,
                processed_at=datetime.combine(self.today(), peru_now().time().replace(microsecond=0)),
                check_deadlines=self.check_deadlines,
            )
            self.tickets.complete(ticket, status_code, cdr_zip)
        except Exception as exc:  # not processed: the ticket stays in process and can be asked again
            logger.exception("SUNAT simulator failed processing ticket %s", ticket)
            raise AuthorityError("0100", _description("0100", f"{type(exc).__name__}: {exc}")) from exc
        finally:
            with _INFLIGHT_LOCK:
                _TICKETS_INFLIGHT.discard(ticket)
        return TicketStatus(status_code, cdr_mod.read_cdr(cdr_zip))

    # --------------------------------------------------------------------------------------------------
    # Steps

    def _receive_summary(self, name: str, zip_bytes: bytes) -> TicketRecord:
        """The checks ``sendSummary`` makes before giving a ticket; raises :class:`_Answer`."""
        match = _SUMMARY_NAME.match(name)
        if not match:
            raise _Answer("0151", f"file name {name!r} is not RUC-RC-YYYYMMDD-n or RUC-RA-YYYYMMDD-n")
        ruc, summary_type, day, sequence = match.groups()
        if summary_type not in _SUMMARY_KINDS:
            raise _Answer("0151", f"{summary_type} files go to the otros-CPE service")
        if self.user_ruc is not None and ruc != self.user_ruc:
            raise _Answer("0154", f"file RUC {ruc}")
        root_tag, customization, duplicate_code, version_codes = _SUMMARY_KINDS[summary_type]
        try:
            entry, xml = read_zip(zip_bytes)
        except PackagingError as exc:
            raise _Answer(exc.code, exc.detail) from exc
        if entry[:-4] != name:
            raise _Answer("0161", f"{entry} inside {name}.zip")
        try:
            root = etree.fromstring(xml, cdr_mod.safe_parser())
        except etree.XMLSyntaxError as exc:
            raise _Answer("0306", str(exc)) from exc
        if root.tag != root_tag:
            local = etree.QName(root).localname if isinstance(root.tag, str) else "?"
            raise _Answer("0301", f"root element {local!r} in a {summary_type} file")
        wrong_version, no_version, wrong_customization, no_customization = version_codes
        version = _text(root, CBC("UBLVersionID"))
        if not version:
            raise _Answer(no_version, "cbc:UBLVersionID")
        if version != "2.0":
            raise _Answer(wrong_version, f'cbc:UBLVersionID valor: "{version}"')
        found = _text(root, CBC("CustomizationID"))
        if not found:
            raise _Answer(no_customization, "cbc:CustomizationID")
        if found != customization:
            raise _Answer(wrong_customization, f'cbc:CustomizationID valor: "{found}"')
        self._check_schema(root)
        _verify_signature(root, xml)
        summary_id = _text(root, CBC("ID")) or ""
        if summary_id != f"{summary_type}-{day}-{sequence}":
            raise _Answer("2220", f'cbc:ID valor: "{summary_id}", file {name}')
        supplier = _text(root, _SUMMARY_SUPPLIER)
        if supplier != ruc:
            raise _Answer("1034", f'file RUC {ruc}, XML RUC "{supplier}"')
        if self.tickets.find(ruc, name) is not None:
            raise _Answer(duplicate_code, name)
        now = self.clock()
        return TicketRecord(
            ticket=self._ticket_number(now),
            issuer_ruc=ruc,
            filename=name,
            received_at=datetime.combine(self.today(), peru_now().time().replace(microsecond=0)),
            ready_at=_utc(now) + timedelta(seconds=self.ticket_delay),
            zip_bytes=zip_bytes,
        )

    @staticmethod
    def _ticket_number(now: float) -> str:
        """A numeric ticket like SUNAT's (milliseconds + 3 digits), unique within the process."""
        return f"{int(now * 1000)}{(next(_SEQUENCE) + os.getpid()) % 1000:03d}"

    @staticmethod
    def _parse_name(name: str, received_at: datetime) -> _Context:
        match = _FILENAME.match(name)
        if not match:
            raise _Answer("0151", f"file name {name!r} is not RUC-TT-SERIE-NUMERO")
        ruc, doc_type, rest = match.groups()
        if doc_type in _SUMMARY_TYPES:
            raise _Answer("0152", f"{doc_type} documents go through sendSummary")
        if doc_type not in _ROOT_TAGS:
            raise _Answer("0302", f"document type {doc_type!r} is not sent with sendBill")
        parts = _DOC_PART.match(rest)
        if not parts:
            raise _Answer("0151", f"file name {name!r}: {rest!r} is not SERIE-NUMERO")
        series, number = parts.groups()
        return _Context(name, ruc, doc_type, series, number, received_at, doc_id=f"{series}-{number}")

    @staticmethod
    @contextmanager
    def _exclusive(key: RegistryKey) -> Iterator[None]:
        """Process-wide guard: a document already being processed answers 0140 (the service builds a
        simulator per request, so the set lives at module level)."""
        with _INFLIGHT_LOCK:
            if key in _INFLIGHT:
                raise _Answer("0140", f"{key.series}-{key.number} is being processed")
            _INFLIGHT.add(key)
        try:
            yield
        finally:
            with _INFLIGHT_LOCK:
                _INFLIGHT.discard(key)

    def _process(self, ctx: _Context, zip_bytes: bytes) -> AuthorityResponse:
        try:
            entry, xml = read_zip(zip_bytes)
        except PackagingError as exc:
            raise _Answer(exc.code, exc.detail) from exc
        if entry[:-4] != ctx.name:
            raise _Answer("0161", f"{entry} inside {ctx.name}.zip")
        try:
            root = etree.fromstring(xml, cdr_mod.safe_parser())
        except etree.XMLSyntaxError as exc:
            raise _Answer("0306", str(exc)) from exc
        identification = root.find(_CUSTOMER_ID)
        if identification is not None:
            ctx.customer = f"{identification.get('schemeID', '')}-{(identification.text or '').strip()}"
        if root.tag != _ROOT_TAGS[ctx.doc_type]:
            local = etree.QName(root).localname if isinstance(root.tag, str) else "?"
            if local in ("Invoice", "CreditNote", "DebitNote"):
                raise _Answer("1003", f"root {local} does not match type {ctx.doc_type} of the file name")
            raise _Answer("0301", f"root element {local!r}")
        self._check_versions(root)
        self._check_identification(ctx, root)
        previous = self.registry.lookup(ctx.key)
        ctx.looked_up, ctx.previous = True, previous
        if previous is not None and previous.status != "accepted":
            raise _Answer("1032", f"{ctx.doc_id} is {previous.status}")
        self._check_schema(root)
        self._check_signature(ctx, root, xml)
        if previous is not None:
            return self._resend(ctx, previous)
        self._check_rules(ctx, root)
        return self._respond(ctx, "0", "")

    @staticmethod
    def _check_schema(root: etree._Element) -> None:
        errors = xsd.validate(root)
        if errors:
            raise _Answer("0306", "; ".join(errors[:3]))

    @staticmethod
    def _check_signature(ctx: _Context, root: etree._Element, xml: bytes) -> None:
        ctx.digest = _verify_signature(root, xml)

    @staticmethod
    def _check_identification(ctx: _Context, root: etree._Element) -> None:
        """ID format (1001) and file name vs content (1034-1036, 1003/1004): exceptions, nothing consumed."""
        doc_id = _text(root, CBC("ID")) or ""
        series, _, number = doc_id.partition("-")
        if (
            not is_valid_series(ctx.doc_type, series)
            or not _NUMBER.fullmatch(number)
            or not is_valid_number(int(number))
        ):
            raise _Answer("1001", f'cbc:ID valor: "{doc_id}"')
        ctx.doc_id = doc_id
        supplier = _text(root, _SUPPLIER_ID)
        if supplier != ctx.ruc:
            raise _Answer("1034", f'file RUC {ctx.ruc}, XML RUC "{supplier}"')
        if series != ctx.series:
            raise _Answer("1035", f'file series {ctx.series}, XML series "{series}"')
        if number != ctx.number:
            raise _Answer("1036", f'file number {ctx.number}, XML number "{number}"')
        if ctx.doc_type in ("01", "03"):
            type_code = _text(root, CBC("InvoiceTypeCode"))
            if not type_code:
                raise _Answer("1004", "cbc:InvoiceTypeCode")
            if type_code != ctx.doc_type:
                raise _Answer("1003", f'cbc:InvoiceTypeCode valor: "{type_code}"')

    @staticmethod
    def _check_versions(root: etree._Element) -> None:
        version = _text(root, CBC("UBLVersionID"))
        if not version:
            raise _Answer("2075", "cbc:UBLVersionID")
        if version != "2.1":
            raise _Answer("2074", f'cbc:UBLVersionID valor: "{version}"')
        customization = _text(root, CBC("CustomizationID"))
        if not customization:
            raise _Answer("2073", "cbc:CustomizationID")
        if customization != "2.0":
            raise _Answer("2072", f'cbc:CustomizationID valor: "{customization}"')

    @staticmethod
    def _resend(ctx: _Context, previous: RegistryRecord) -> AuthorityResponse:
        """An accepted document sent again: its stored CDR when unchanged (like getStatusCdr), else 1033."""
        if previous.digest != ctx.digest:
            raise _Answer("1033", f"{ctx.doc_id} was accepted with hash {previous.digest}")
        if previous.cdr_zip:
            return cdr_mod.read_cdr(previous.cdr_zip)
        return AuthorityResponse(previous.code, cdr_mod.accepted_description(ctx.doc_type, ctx.doc_id))

    # --------------------------------------------------------------------------------------------------
    # Business rules (first error wins, observations accumulate in ctx.notes)

    def _check_rules(self, ctx: _Context, root: etree._Element) -> None:
        ctx.factura_family = _factura_family(ctx, root)
        operation = self._check_operation(ctx, root)
        self._check_currency(root)
        self._check_customer(ctx, root, operation)
        self._check_payment_form(ctx, root)
        self._check_detraction(root, operation)
        self._check_dates(ctx, root)
        if ctx.doc_type in ("07", "08"):
            self._check_note_reference(ctx, root)
        self._check_amounts(ctx, root, operation)
        self._observe(ctx, root, operation)

    @staticmethod
    def _check_operation(ctx: _Context, root: etree._Element) -> str:
        if ctx.doc_type not in ("01", "03"):
            return ""
        type_code = root.find(CBC("InvoiceTypeCode"))
        operation = (type_code.get("listID", "") if type_code is not None else "").strip()
        if not operation:
            raise _Answer("3205", "cbc:InvoiceTypeCode/@listID")
        if operation not in catalogs.OPERATION_TYPES_BY_DOCUMENT[ctx.doc_type]:
            raise _Answer("3206", f'cbc:InvoiceTypeCode/@listID valor: "{operation}"')
        return operation

    @staticmethod
    def _check_currency(root: etree._Element) -> None:
        currency = _text(root, CBC("DocumentCurrencyCode"))
        if not currency:
            raise _Answer("2070", "cbc:DocumentCurrencyCode")
        if currency not in catalogs.CURRENCIES:
            raise _Answer("3088", f'cbc:DocumentCurrencyCode valor: "{currency}"')
        for node in _CURRENCY_NODES(root):
            if node.get("currencyID") != currency and not _pen_exempt(node):
                tag = etree.QName(node).localname
                raise _Answer("2071", f'cbc:{tag}/@currencyID valor: "{node.get("currencyID")}"')

    def _check_customer(self, ctx: _Context, root: etree._Element, operation: str) -> None:
        node = root.find(_CUSTOMER_ID)
        number = (node.text or "").strip() if node is not None else ""
        scheme = (node.get("schemeID") or "").strip() if node is not None else ""
        if not ctx.factura_family:  # boletas and their notes: identity problems are observations
            if scheme == "1" and not is_valid_dni(number):
                ctx.notes.append(_note("4207"))
            elif scheme not in ("1", "6", "-", "") and not 1 <= len(number) <= 15:
                ctx.notes.append(_note("4208"))
            return
        if not number:
            raise _Answer("2014", _CUSTOMER_ID)
        if not scheme:
            raise _Answer("2015", "cac:PartyIdentification/cbc:ID/@schemeID")
        if scheme not in catalogs.IDENTITY_TYPES:
            raise _Answer("2016", f'cbc:ID/@schemeID valor: "{scheme}"')
        if ctx.doc_type == "01" and operation not in _ANY_CUSTOMER_OPERATIONS:
            if operation in catalogs.EXPORT_OPERATION_TYPES:
                if scheme == "6":
                    raise _Answer("2800", f'export operation {operation} with schemeID "6"')
            elif operation == "0112":
                if scheme not in ("1", "6"):
                    raise _Answer("2800", f'cbc:ID/@schemeID valor: "{scheme}"')
            elif scheme != "6":
                raise _Answer("2800", f'cbc:ID/@schemeID valor: "{scheme}"')
        if scheme == "6":
            if not _RUC_FORMAT.match(number):
                raise _Answer("2017", f'cbc:ID valor: "{number}"')
            if self.mode == "strict" and not is_valid_ruc(number):
                raise _Answer("3202", f'cbc:ID valor: "{number}"')
        elif scheme == "1":
            if not is_valid_dni(number):
                raise _Answer("2801", f'cbc:ID valor: "{number}"')
        elif not 1 <= len(number) <= 15:
            raise _Answer("2802", f'cbc:ID valor: "{number}"')

    @staticmethod
    def _check_payment_form(ctx: _Context, root: etree._Element) -> None:
        """FormaPago of a factura (reference/sunat.md §2.4): Contado, or Credito with its instalments."""
        if ctx.doc_type != "01":
            return
        forms: dict[str, etree._Element] = {}  # PaymentMeansID -> its PaymentTerms
        for terms in root.iterchildren(_PAYMENT_TERMS):
            if _text(terms, _ID) != "FormaPago":
                continue
            value = _text(terms, _PAYMENT_MEANS_ID) or ""
            if value not in ("Contado", "Credito") and not _CUOTA.match(value):
                raise _Answer("3246", f'cbc:PaymentMeansID valor: "{value}"')
            if value in forms:
                raise _Answer("3248", f'cbc:PaymentMeansID valor: "{value}"')
            forms[value] = terms
        if not forms:
            raise _Answer("3244", "cac:PaymentTerms/cbc:ID FormaPago")
        has_cash, has_credit = "Contado" in forms, "Credito" in forms
        cuotas = {value: terms for value, terms in forms.items() if _CUOTA.match(value)}
        if has_cash and has_credit:
            raise _Answer("3247", "Contado and Credito")
        if not has_cash and not has_credit:
            raise _Answer("3245" if not cuotas else "3252", "FormaPago without Contado/Credito")
        if has_credit and not cuotas:
            raise _Answer("3249", "FormaPago Credito without Cuota001")
        if has_cash and cuotas:
            raise _Answer("3252", "Cuota with FormaPago Contado")
        if has_credit:
            _check_instalments(root, forms["Credito"], cuotas)

    @staticmethod
    def _check_detraction(root: etree._Element, operation: str) -> None:
        """Detraction (SPOT) of operations 1001-1004: goods code (catalog 54), amount and account."""
        if not operation:  # notes carry no operation type and no detraction
            return
        terms = [t for t in root.iterchildren(_PAYMENT_TERMS) if _text(t, _ID) == "Detraccion"]
        code = next((c for c in (_text(t, _PAYMENT_MEANS_ID) for t in terms) if c), "")
        if operation not in catalogs.DETRACTION_OPERATION_TYPES:
            if code:
                raise _Answer("3128", f'operation {operation} with detraction code "{code}"')
            return
        if not code:
            raise _Answer("3127", 'cac:PaymentTerms[cbc:ID="Detraccion"]/cbc:PaymentMeansID')
        if code not in catalogs.DETRACTION_TYPES:
            raise _Answer("3033", f'cbc:PaymentMeansID valor: "{code}"')
        expected = catalogs.DETRACTION_GOODS_BY_OPERATION.get(operation)
        if expected is not None and code != expected:
            raise _Answer("3129", f'operation {operation} expects "{expected}", cbc:PaymentMeansID "{code}"')
        if not any(_text(t, _AMOUNT) for t in terms):
            raise _Answer("3035", 'cac:PaymentTerms[cbc:ID="Detraccion"]/cbc:Amount')
        means = (m for m in root.iterchildren(CAC("PaymentMeans")) if _text(m, _ID) == "Detraccion")
        if not any(_text(m, _PAYEE_ACCOUNT) for m in means):
            raise _Answer("3034", 'cac:PaymentMeans[cbc:ID="Detraccion"]/cac:PayeeFinancialAccount/cbc:ID')

    def _check_dates(self, ctx: _Context, root: etree._Element) -> None:
        text = _text(root, CBC("IssueDate")) or ""
        try:  # xsd:date may carry a time zone ("2025-01-10-05:00"): the date is the first 10 characters
            issued = date.fromisoformat(text[:10])
        except ValueError as exc:
            raise _Answer("0306", f'cbc:IssueDate valor: "{text}"') from exc
        ctx.issue_date = issued
        today = self.today()
        if (issued - today).days > 2:
            raise _Answer("2329", f'cbc:IssueDate valor: "{text}"')
        # facturas and their notes: 3 calendar days (RS 000003-2023); contingency (numeric) series exempt
        if ctx.factura_family and not is_contingency_series(ctx.series):
            if (today - issued).days > 3:
                raise _Answer("2108", f'cbc:IssueDate valor: "{text}"')

    def _check_note_reference(self, ctx: _Context, root: etree._Element) -> None:
        reference = root.find(_BILLING_REFERENCE)
        ref_id = _text(reference, CBC("ID"))
        if not ref_id:
            raise _Answer("2524", "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID")
        if not _REFERENCE_FORMAT.match(ref_id):
            raise _Answer("2117" if ctx.doc_type == "07" else "2205", f'cbc:ID valor: "{ref_id}"')
        ref_type = _text(reference, CBC("DocumentTypeCode")) or ""
        letter = ctx.series[0]
        if letter in ("F", "B"):
            code, allowed = _NOTE_TARGETS[(ctx.doc_type, letter)]
            if ref_type not in allowed:
                raise _Answer(code, f'cbc:DocumentTypeCode valor: "{ref_type}"')
        if self.mode == "strict" and not is_contingency_series(ref_id.partition("-")[0]):
            key = RegistryKey.from_id(ctx.ruc, ref_type, ref_id)
            found = self.registry.lookup(key)
            status = None if found is None else found.status
            if status != "accepted":
                raise _Answer(_NOTE_REFERENCE_CODES[ctx.doc_type][status], f"{ref_type} {ref_id}")

    def _check_amounts(self, ctx: _Context, root: etree._Element, operation: str) -> None:
        """Amount rules of reference/sunat.md §2.3: the XML's amounts go through facturador.sunat.totals."""
        monetary_node = root.find(_MONETARY_TAGS[ctx.doc_type])
        monetary = _children(monetary_node)
        if _LINE_EXTENSION not in monetary:
            raise _Answer("3288", "cac:LegalMonetaryTotal/cbc:LineExtensionAmount")
        if _TAX_INCLUSIVE not in monetary:
            raise _Answer("3305", "cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount")
        rounding = _dec(monetary.get(CBC("PayableRoundingAmount")))
        if abs(rounding) > 1:
            raise _Answer("3303", f'cbc:PayableRoundingAmount valor: "{rounding}"')
        issued = ctx.issue_date or self.today()
        percents = ALLOWED_IGV_PERCENTS(issued)
        bag_rate = icbper_rate(issued)
        line_tag, quantity_tag = _LINE_TAGS[ctx.doc_type]
        lines: list[LineAmounts] = []
        complete = True  # every line could be mapped onto LineAmounts
        for index, node in enumerate(root.iterchildren(line_tag)):
            line = _read_line(node, quantity_tag, operation)
            if line is None:
                complete = False
                continue
            lines.append(line)
            self._apply(ctx, check_line(line, index, allowed_percents=percents, icbper_rate=bag_rate))
        if not complete or any(
            _text(charge, CBC("AllowanceChargeReasonCode")) in _BASE_CHANGING_GLOBAL
            for charge in root.iterchildren(CAC("AllowanceCharge"))
        ):
            return  # charges/discounts that change the tax base, ISC, "otros tributos": not modelled
        bases: dict[str, Decimal] = {}  # header TaxSubtotal amounts by tax scheme
        taxes: dict[str, Decimal] = {}
        tax_total = root.find(_TAX_TOTAL)
        if tax_total is not None:
            for subtotal in tax_total.iterchildren(_TAX_SUBTOTAL):
                scheme, fields, _category = _subtotal(subtotal)
                bases[scheme] = bases.get(scheme, ZERO) + _dec(fields.get(_TAXABLE_AMOUNT))
                taxes[scheme] = taxes.get(scheme, ZERO) + _dec(fields.get(_TAX_AMOUNT))
        totals = DocumentTotals(
            export=bases.get("9995", ZERO),
            taxed=bases.get("1000", ZERO),
            unaffected=bases.get("9998", ZERO),
            exonerated=bases.get("9997", ZERO),
            free=bases.get("9996", ZERO),
            igv=taxes.get("1000", ZERO) + taxes.get("1016", ZERO),
            igv_free=taxes.get("9996", ZERO),
            icbper=taxes.get("7152", ZERO),
            taxes=_dec(_children(tax_total).get(_TAX_AMOUNT)),
            value=_dec(monetary.get(_LINE_EXTENSION)),
            subtotal=_dec(monetary.get(_TAX_INCLUSIVE)),
            total=_dec(monetary.get(CBC("PayableAmount"))),
            ivap_base=bases.get("1016", ZERO),
            ivap=taxes.get("1016", ZERO),
        )
        found = check_totals(
            lines,
            totals,
            charges=_dec(monetary.get(CBC("ChargeTotalAmount"))) + rounding,
            discounts=_dec(monetary.get(CBC("AllowanceTotalAmount"))),
            prepaid=_dec(monetary.get(CBC("PrepaidAmount"))),
        )
        self._apply(ctx, found)

    @staticmethod
    def _apply(ctx: _Context, found: list[Discrepancy]) -> None:
        """First error (< 4000) rejects; observations become notes once per code."""
        for discrepancy in found:
            if int(discrepancy.code) < 4000:
                raise _Answer(discrepancy.code, discrepancy.message)
            note = _note(discrepancy.code)
            if note not in ctx.notes:
                ctx.notes.append(note)

    @staticmethod
    def _observe(ctx: _Context, root: etree._Element, operation: str) -> None:
        if operation in catalogs.DETRACTION_OPERATION_TYPES:
            legends = {n.get("languageLocaleID") for n in root.iterchildren(CBC("Note"))}
            if "2006" not in legends:
                ctx.notes.append(_note("4265"))
        codes = root.iterfind(f".//{CAC('CommodityClassification')}/{CBC('ItemClassificationCode')}")
        seen: set[str] = set()
        for node in codes:
            value = (node.text or "").strip()
            if not _PRODUCT_CODE.match(value):
                code = "4332"
            elif value[4:6] == "00":  # segment or family only: SUNAT wants at least the class level
                code = "4337"
            else:
                continue
            if code not in seen:
                seen.add(code)
                ctx.notes.append(_note(code))

    # --------------------------------------------------------------------------------------------------
    # Answers

    def _respond(self, ctx: _Context, code: str, detail: str) -> AuthorityResponse:
        value = int(code)
        if 0 < value < 2000:  # exception: not processed, no CDR, nothing recorded
            return AuthorityResponse.exception(code, _description(code, detail))
        if value == 0:
            description = cdr_mod.accepted_description(ctx.doc_type, ctx.doc_id)
            notes = tuple(ctx.notes)
        else:
            description = _description(code, detail)
            notes = ()
        xml = cdr_mod.build_cdr(
            self.identity,
            cdr_id=self._cdr_id(),
            issuer_ruc=ctx.ruc,
            reference_id=ctx.doc_id,
            code=code,
            description=description,
            notes=notes,
            recipient=ctx.customer,
            received_at=ctx.received_at,
            issued_at=datetime.combine(ctx.received_at.date(), peru_now().time().replace(microsecond=0)),
        )
        cdr_zip = cdr_mod.zip_cdr(ctx.name, xml)
        previous = ctx.previous if ctx.looked_up else self.registry.lookup(ctx.key)
        if previous is None:  # never overwrite what SUNAT already holds (e.g. an altered resend)
            status: RegistryStatus = "accepted" if value == 0 else "rejected"
            self.registry.record(ctx.key, RegistryRecord(status, ctx.digest, code, cdr_zip))
        return AuthorityResponse(code=code, description=description, notes=notes, cdr_zip=cdr_zip)

    @staticmethod
    def _cdr_id() -> str:
        """A numeric constancy id, unique within the process (milliseconds + a 3-digit sequence)."""
        return f"{time.time_ns() // 1_000_000}{next(_SEQUENCE) % 1000:03d}"


def _verify_signature(root: etree._Element, xml: bytes) -> str:
    """Verify the document's enveloped signature and return its DigestValue; raises :class:`_Answer`
    2101 (no certificate), 2334 (digest), 2327 (certificate validity), 2335 (signature value), 2336."""
    signature = root.find(f".//{_SIG}")
    if signature is None or not (signature.findtext(_X509) or "").strip():
        raise _Answer("2101", "ds:Signature/ds:KeyInfo/ds:X509Data/ds:X509Certificate")
    digest = fast_verify(root)
    if digest is not None:
        return digest
    try:
        verified = verify(xml)
    except SignatureError as exc:
        cause = exc.__cause__
        if isinstance(cause, InvalidDigest):
            raise _Answer("2334", "DigestValue does not match the document") from exc
        if isinstance(cause, InvalidCertificate):
            raise _Answer("2327", str(cause)) from exc
        if isinstance(cause, InvalidSignature):
            raise _Answer("2335", "SignatureValue does not match SignedInfo") from exc
        raise _Answer("2336", str(exc)) from exc
    return verified.digest_value


def _utc(epoch_seconds: float) -> datetime:
    """Naive UTC datetime of an epoch time (how ticket records keep ``ready_at``)."""
    return datetime.fromtimestamp(epoch_seconds, UTC).replace(tzinfo=None)


def _children(node: etree._Element | None) -> dict[str, etree._Element]:
    """The first child element of each tag: one pass instead of a path search per field."""
    found: dict[str, etree._Element] = {}
    if node is not None:
        for child in node:
            found.setdefault(child.tag, child)  # type: ignore[arg-type]
    return found


def _dec(node: etree._Element | None) -> Decimal:
    """The decimal text of an element (XSD-checked ``xsd:decimal``); 0 when the element is absent."""
    if node is None or not node.text:
        return ZERO
    return Decimal(node.text.strip())


def _subtotal(subtotal: etree._Element) -> tuple[str, dict[str, etree._Element], dict[str, etree._Element]]:
    """(tax scheme id, children of the TaxSubtotal, children of its TaxCategory)."""
    fields = _children(subtotal)
    category = _children(fields.get(_TAX_CATEGORY))
    scheme = _children(category.get(_TAX_SCHEME)).get(_ID)
    return ((scheme.text or "").strip() if scheme is not None else ""), fields, category


def _read_line(node: etree._Element, quantity_tag: str, operation: str) -> LineAmounts | None:
    """A line's amounts as :class:`LineAmounts`, or None when the line uses what totals does not model."""
    fields = _children(node)
    if _ALLOWANCE_CHARGE in fields:
        return None
    tax_total = fields.get(_TAX_TOTAL)
    main: tuple[dict[str, etree._Element], dict[str, etree._Element]] | None = None
    icbper = ZERO
    if tax_total is not None:
        for subtotal in tax_total.iterchildren(_TAX_SUBTOTAL):
            scheme, sub_fields, category = _subtotal(subtotal)
            if scheme in _IGV_FAMILY:
                main = main or (sub_fields, category)
            elif scheme == "7152":
                icbper += _dec(sub_fields.get(_TAX_AMOUNT))
            else:  # ISC (2000) and "otros tributos" (9999) change the base and the taxes
                return None
    line_id = (fields[_ID].text or "").strip() if _ID in fields else "?"
    if main is None:
        if operation in _FINANCIAL_OPERATIONS:
            return None
        raise _Answer("3105", f"line {line_id}: no IGV/IVAP/EXP/GRA/EXO/INA tax")
    sub_fields, category = main
    reason = category.get(_EXEMPTION_REASON)
    affectation = (reason.text or "").strip() if reason is not None else ""
    if not affectation:
        raise _Answer("2371", f"line {line_id}: cbc:TaxExemptionReasonCode")
    if affectation not in catalogs.AFFECTATIONS:
        raise _Answer("2040", f'line {line_id}: cbc:TaxExemptionReasonCode valor: "{affectation}"')
    value = _dec(fields.get(_LINE_EXTENSION))
    taxes = _dec(_children(tax_total).get(_TAX_AMOUNT))
    price = _children(fields.get(_PRICE))
    alternative = _children(_children(fields.get(_PRICING_REFERENCE)).get(_ALTERNATIVE_PRICE))
    price_type = alternative.get(_PRICE_TYPE_CODE)
    return LineAmounts(
        quantity=_dec(fields.get(quantity_tag)),
        unit_value=_dec(price.get(_PRICE_AMOUNT)),
        unit_price=_dec(alternative.get(_PRICE_AMOUNT)),
        price_type=(price_type.text or "").strip() if price_type is not None else "",
        affectation=affectation,
        igv_base=_dec(sub_fields.get(_TAXABLE_AMOUNT)),
        igv_percent=_dec(category.get(_PERCENT)),
        igv=_dec(sub_fields.get(_TAX_AMOUNT)),
        icbper=icbper,
        taxes=taxes,
        value=value,
        # not in the XML: the line total follows from the rest
        total=icbper if catalogs.is_free(affectation) else value + taxes,
    )


def _check_instalments(
    root: etree._Element, credit: etree._Element, cuotas: dict[str, etree._Element]
) -> None:
    """Credito's net pending amount and its ``Cuota`` terms (3251, 3265, 3254, 3266, 3256, 3267, 3319)."""
    payable = _dec(_children(root.find(_MONETARY_TAGS["01"])).get(CBC("PayableAmount")))
    pending = _amount_of(credit)
    if pending is None or pending <= 0:
        raise _Answer("3251", "FormaPago Credito without cbc:Amount")
    if pending > payable:
        raise _Answer("3265", f'cbc:Amount valor: "{pending}", cbc:PayableAmount "{payable}"')
    issue_text = _text(root, CBC("IssueDate")) or ""
    try:
        issued: date | None = date.fromisoformat(issue_text[:10])
    except ValueError:
        issued = None  # reported by the date rules
    total = ZERO
    for value, terms in sorted(cuotas.items()):
        cuota_amount = _amount_of(terms)
        if cuota_amount is None:
            raise _Answer("3254", f"{value}: cbc:Amount")
        if cuota_amount > payable:
            raise _Answer("3266", f'{value}: cbc:Amount valor: "{cuota_amount}"')
        due_text = _text(terms, CBC("PaymentDueDate"))
        if not due_text:
            raise _Answer("3256", f"{value}: cbc:PaymentDueDate")
        try:
            due = date.fromisoformat(due_text[:10])
        except ValueError as exc:
            raise _Answer("3255", f'{value}: cbc:PaymentDueDate valor: "{due_text}"') from exc
        if issued is not None and due < issued:
            raise _Answer("3267", f'{value}: cbc:PaymentDueDate "{due_text}" before cbc:IssueDate')
        total += cuota_amount
    if total != pending:
        raise _Answer("3319", f'sum of cuotas "{total}", FormaPago Credito cbc:Amount "{pending}"')


def _amount_of(terms: etree._Element) -> Decimal | None:
    """The ``cbc:Amount`` of a PaymentTerms; None when absent or empty."""
    text = _text(terms, _AMOUNT)
    if not text:
        return None
    try:
        return Decimal(text)
    except ArithmeticError:
        return None


def _factura_family(ctx: _Context, root: etree._Element) -> bool:
    """True for facturas and their notes (sending group 01), False for boletas and theirs (group 02)."""
    affected = None
    if ctx.doc_type in ("07", "08"):
        affected = _text(root.find(_BILLING_REFERENCE), CBC("DocumentTypeCode"))
    return document_group(ctx.doc_type, ctx.series, affected) == "01"


def _note(code: str) -> str:
    return f"{code} - {message(code)}"


def _pen_exempt(node: etree._Element) -> bool:
    """Amounts SUNAT wants in PEN whatever the document currency (perception, detraction)."""
    parent = node.getparent()
    if parent is None:
        return False
    if parent.tag == CAC("PaymentTerms"):
        return _text(parent, CBC("ID")) in _PEN_PAYMENT_TERMS
    if parent.tag == CAC("AllowanceCharge"):
        return _text(parent, CBC("AllowanceChargeReasonCode")) in _PEN_CHARGE_CODES
    return False
