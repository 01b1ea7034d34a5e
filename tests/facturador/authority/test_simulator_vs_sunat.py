# ruff: noqa: E501 - the corpus below is a table, one variant a line
"""Differential test of the simulator: on broken variants of our own XML it answers what SUNAT's
stylesheets answer.

Each :class:`Variant` takes a document the service generates (``facturador.ubl``, from the sales
documents of ``tests/samples/documents.py``, or a daily summary / voided communication), breaks one
thing in its tree (a wrong amount, code, rate, a missing element, a bad customer id or date), signs it
and gives it both to the :class:`~facturador.authority.simulator.SunatSimulator` (``sendBill``, or
``sendSummary`` + ``getStatus``) and to SUNAT's published stylesheets (``tests/sunat_judge.py``). Their
answers - accepted, observed (and the observation codes) or rejected (and the first rejection's code) -
must be equal. The unbroken documents are in the corpus too: both accept them without observations.

What the stylesheets cannot decide stays the simulator's own, and is not in this corpus (see
:data:`SIMULATOR_ONLY`): SUNAT's registries and the file/transport rules. Variants marked
``sunat_accepts`` are changes SUNAT's published rules let through (a header IGV that disagrees with the
lines while TaxAmount and the payable amount agree; a note's customer DNI): the simulator accepts them too.

Each variant also goes to a simulator given SUNAT's stylesheets (the tenant setting
``authority_rules_dir``, :mod:`facturador.authority.stylesheets`): its answer must be the same, which
also checks the product's own way of running the stylesheets against the reference runner. Variants
marked ``needs_catalogue`` need one of SUNAT's large catalogues the simulator does not carry (catalogue
25 of product codes): only the simulator with the stylesheets is held to them.

Skipped with a reason without the reference folder or saxonche; CI (FACTURADOR_REQUIRE_SHARED=1) runs it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

import pytest
from lxml import etree

from facturador.authority.gateway import AuthorityError
from facturador.authority.packaging import zip_document
from facturador.authority.registry import InMemoryRegistry, RegistryKey, RegistryRecord
from facturador.authority.simulator import SunatSimulator
from facturador.authority.stylesheets import SunatStylesheets
from facturador.issued import AffectedDocument, NoteInfo, SalesDocument, Totals
from facturador.ubl import xsd
from facturador.ubl.invoice import build_sales_document
from facturador.ubl.signing import SigningIdentity, generate_identity, sign
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
from sunat.totals import compute_totals
from tests.reference import requires_shared, shared_path
from tests.samples import documents
from tests.samples.tenants import ACME_RUC
from tests.sunat_judge import Judge, Verdict, load_judge

pytestmark = requires_shared

#: The rules the simulator keeps as its own because SUNAT's stylesheets cannot decide them.
SIMULATOR_ONLY = {
    "0151-0161, 0301-0306": "the file name, the zip and the XML schema (the gateway, before any stylesheet)",
    "1032, 1033, 2223, 2324": "a document or summary SUNAT received before (SUNAT's own records)",
    "2101, 2327, 2334-2336": "the signature and its certificate",
    "3202": "a customer RUC SUNAT does not know (the padrón; strict mode stands in with the check digit)",
    "2108": "the sending window of a factura (3 days): SUNAT's reception date",
    "2119-2121, 2207-2209": "the document a note modifies exists and is accepted (strict mode)",
    "2105, 2282, 2398, 2323, 2663, 2987": "the state at SUNAT of each document a summary line names",
    "4443, 2957": "the summaries' deadlines (7 days) against the reception date",
    "2329": "an issue date after SUNAT's day (the reception date)",
    "4438": "the IGV rate in force on the issue date (the published stylesheets do not check the rate)",
}

DAY = date(2026, 3, 2)  # the sales documents' issue date: the simulator's and the stylesheets' today
AnswerKey = tuple[str, tuple[str, ...]]  # ("rejected", (code,)) / ("observed", codes) / ("accepted", ())


# ------------------------------------------------------------------------------------------ base documents

NS = {
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "sac": "urn:sunat:names:specification:ubl:peru:schema:xsd:SunatAggregateComponents-1",
}
SALES = documents.scenarios()
NOTES_AND_CARGO = documents.notes_and_cargo()
BOLETA_NOTE = documents.document(
    doc_type="07",
    series="BC01",
    number=4,
    customer=documents.DNI_CUSTOMER,
    note=NoteInfo("01", "ANULACION DE LA OPERACION", AffectedDocument("03", "B001", "5")),
)


def isc_document(doc_type: str = "01") -> SalesDocument:
    """A line with ISC system 01 (10 x 5.00, ISC 30 % = 15.00, IGV 18 % of 65.00 = 11.70, total 76.70)
    and a line with other taxes (2 x 50.00, 5 % = 5.00, IGV 18.00, total 123.00): payable 199.70."""
    D = Decimal
    isc_line = dataclasses.replace(
        documents.line(1, quantity="10", unit_value="5"),
        isc_system="01",
        isc_base=D("50.00"),
        isc_percent=D("30"),
        isc=D("15.00"),
        igv_base=D("65.00"),
        igv=D("11.70"),
        taxes=D("26.70"),
        total=D("76.70"),
        unit_price=D("7.67"),
    )
    other_line = dataclasses.replace(
        documents.line(2),
        other_base=D("100.00"),
        other_percent=D("5"),
        other=D("5.00"),
        taxes=D("23.00"),
        total=D("123.00"),
        unit_price=D("61.50"),
    )
    lines = (isc_line, other_line)
    computed = compute_totals(lines)
    totals = Totals(**{name: getattr(computed, name) for name in Totals.__dataclass_fields__})
    if doc_type == "03":
        return documents.document(
            lines, doc_type="03", series="B001", number=7, customer=documents.DNI_CUSTOMER, totals=totals
        )
    return documents.document(lines, totals=totals)


#: Base documents by name: a sales document, or a builder of a summary tree.
BASES: dict[str, Callable[[], etree._Element]] = {
    "factura": lambda: build_sales_document(SALES["taxed_invoice"]),
    "boleta": lambda: build_sales_document(SALES["boleta"]),
    "credit_note": lambda: build_sales_document(SALES["credit_note"]),
    "debit_note": lambda: build_sales_document(SALES["debit_note"]),
    "boleta_note": lambda: build_sales_document(BOLETA_NOTE),
    "free": lambda: build_sales_document(SALES["free_16_31"]),
    "export": lambda: build_sales_document(SALES["export_40"]),
    "bag": lambda: build_sales_document(SALES["icbper_bag"]),
    "detraction": lambda: build_sales_document(SALES["detraction_1001"]),
    "instalments": lambda: build_sales_document(SALES["credit_instalments"]),
    "cargo": lambda: build_sales_document(NOTES_AND_CARGO["cargo_1004"]),
    "credit_note_13": lambda: build_sales_document(NOTES_AND_CARGO["credit_note_13"]),
    "debit_note_credit": lambda: build_sales_document(NOTES_AND_CARGO["debit_note_credit"]),
    "isc": lambda: build_sales_document(isc_document()),
    "isc_boleta": lambda: build_sales_document(isc_document("03")),
    "summary": lambda: build_summary(SUMMARY),
    "voided": lambda: build_voided(VOIDED),
}

SUMMARY = DailySummary(
    documents.ISSUER,
    f"RC-{DAY:%Y%m%d}-1",
    DAY,
    DAY,
    (
        SummaryLine(
            "03",
            "B001-5",
            ADD,
            "PEN",
            Decimal("118.00"),
            taxed=Decimal("100.00"),
            igv=Decimal("18.00"),
            customer_type="1",
            customer_number="12345678",
        ),
        SummaryLine("03", "B001-6", ADD, "PEN", Decimal("10.00"), exonerated=Decimal("10.00")),
        SummaryLine(
            "07",
            "BC01-4",
            ADD,
            "PEN",
            Decimal("118.00"),
            taxed=Decimal("100.00"),
            igv=Decimal("18.00"),
            customer_type="1",
            customer_number="12345678",
            reference_type="03",
            reference_id="B001-5",
        ),
        SummaryLine("03", "B001-2", VOID, "PEN", Decimal("59.00"), taxed=Decimal("50"), igv=Decimal("9")),
    ),
)
VOIDED = VoidedCommunication(
    documents.ISSUER,
    f"RA-{DAY:%Y%m%d}-1",
    DAY,
    DAY,
    (VoidedLine("01", "F001", 1, "Error en el RUC del cliente"), VoidedLine("07", "FC01", 3, "Duplicado")),
)
#: What SUNAT holds before the summaries arrive: the boleta voided by the summary, the voided documents.
KNOWN = (
    RegistryKey(ACME_RUC, "03", "B001", 2),
    RegistryKey(ACME_RUC, "01", "F001", 1),
    RegistryKey(ACME_RUC, "07", "FC01", 3),
)


# ------------------------------------------------------------------------------------------ the variants


def _find(root: etree._Element, path: str) -> etree._Element:
    found = root.find(path, NS)
    assert found is not None, path
    return found


def set_text(path: str, value: str) -> Callable[[etree._Element], None]:
    """Set the text of the first element at ``path``."""

    def change(root: etree._Element) -> None:
        _find(root, path).text = value

    return change


def set_attribute(path: str, name: str, value: str) -> Callable[[etree._Element], None]:
    def change(root: etree._Element) -> None:
        _find(root, path).set(name, value)

    return change


def drop(path: str) -> Callable[[etree._Element], None]:
    """Remove the first element at ``path``."""

    def change(root: etree._Element) -> None:
        node = _find(root, path)
        parent = node.getparent()
        assert parent is not None
        parent.remove(node)

    return change


def add(path: str, amount: str) -> Callable[[etree._Element], None]:
    """Add ``amount`` to the decimal at ``path``."""

    def change(root: etree._Element) -> None:
        node = _find(root, path)
        node.text = str(Decimal(node.text or "0") + Decimal(amount))

    return change


def currency(code: str) -> Callable[[etree._Element], None]:
    """The document's currency and every amount's ``currencyID``."""

    def change(root: etree._Element) -> None:
        _find(root, "cbc:DocumentCurrencyCode").text = code
        for node in root.iter():
            if node.get("currencyID"):
                node.set("currencyID", code)

    return change


def both(*changes: Callable[[etree._Element], None]) -> Callable[[etree._Element], None]:
    def change(root: etree._Element) -> None:
        for one in changes:
            one(root)

    return change


@dataclass(frozen=True)
class Variant:
    """One broken (or intact, ``breaks=None``) document of the corpus."""

    base: str
    name: str
    breaks: Callable[[etree._Element], None] | None = None
    #: A change SUNAT's stylesheets let through: the simulator must accept it as well.
    sunat_accepts: bool = False
    #: Decided with a SUNAT catalogue the simulator does not carry (only the stylesheets answer it).
    needs_catalogue: bool = False

    @property
    def id(self) -> str:
        return f"{self.base}-{self.name}"


CUSTOMER_ID = "cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID"
LINE = "cac:InvoiceLine"
LINE_TAX = f"{LINE}/cac:TaxTotal/cac:TaxSubtotal"
HEADER_TAX = "cac:TaxTotal/cac:TaxSubtotal"
TOTAL = "cac:LegalMonetaryTotal"
CN_LINE = "cac:CreditNoteLine"
DN_LINE = "cac:DebitNoteLine"
RC_LINE = "sac:SummaryDocumentsLine"
RA_LINE = "sac:VoidedDocumentsLine"

VARIANTS: tuple[Variant, ...] = (
    *(Variant(base, "intact") for base in BASES),
    # factura: identification, customer, currency, lines, totals, payment form
    Variant("factura", "operation_unknown", set_attribute("cbc:InvoiceTypeCode", "listID", "0999")),
    Variant("factura", "customer_ruc_10_digits", set_text(CUSTOMER_ID, "2060103001")),
    Variant("factura", "customer_dni", set_attribute(CUSTOMER_ID, "schemeID", "1")),
    Variant("factura", "customer_type_unknown", set_attribute(CUSTOMER_ID, "schemeID", "Z")),
    Variant("factura", "currency_unknown", currency("ABC")),
    Variant("factura", "amount_in_other_currency", set_attribute(f"{TOTAL}/cbc:PayableAmount", "currencyID", "USD")),
    Variant("factura", "affectation_unknown", set_text(f"{LINE_TAX}/cac:TaxCategory/cbc:TaxExemptionReasonCode", "19")),
    Variant("factura", "line_igv_amount", both(add(f"{LINE_TAX}/cbc:TaxAmount", "5.00"), add(f"{LINE}/cac:TaxTotal/cbc:TaxAmount", "5.00"))),
    Variant("factura", "line_value", add(f"{LINE}/cbc:LineExtensionAmount", "10.00")),
    Variant("factura", "header_igv", both(add(f"{HEADER_TAX}/cbc:TaxAmount", "5.00"), add("cac:TaxTotal/cbc:TaxAmount", "5.00")), sunat_accepts=True),
    Variant("factura", "header_taxes", add("cac:TaxTotal/cbc:TaxAmount", "5.00")),
    Variant("factura", "header_value", add(f"{TOTAL}/cbc:LineExtensionAmount", "10.00")),
    Variant("factura", "header_tax_inclusive", add(f"{TOTAL}/cbc:TaxInclusiveAmount", "10.00")),
    Variant("factura", "header_payable", add(f"{TOTAL}/cbc:PayableAmount", "10.00")),
    Variant("factura", "no_payment_form", drop("cac:PaymentTerms")),
    Variant("factura", "payment_form_unknown", set_text("cac:PaymentTerms/cbc:PaymentMeansID", "Cheque")),
    Variant("boleta", "product_code_not_in_catalogue", set_text(f"{LINE}/cac:Item/cac:CommodityClassification/cbc:ItemClassificationCode", "99999999"), needs_catalogue=True),
    Variant("boleta", "product_code_7_digits", set_text(f"{LINE}/cac:Item/cac:CommodityClassification/cbc:ItemClassificationCode", "1234567")),
    Variant("factura", "ubl_version", set_text("cbc:UBLVersionID", "2.0")),
    Variant("factura", "customization", set_text("cbc:CustomizationID", "1.0")),
    # boleta: identity problems are observations
    Variant("boleta", "dni_7_digits", set_text(CUSTOMER_ID, "1234567")),
    Variant("boleta", "dni_letters", set_text(CUSTOMER_ID, "1234567A")),
    Variant("boleta", "passport_too_long", both(set_attribute(CUSTOMER_ID, "schemeID", "7"), set_text(CUSTOMER_ID, "P12345678901234567"))),
    Variant("boleta", "currency_unknown", currency("ABC")),
    Variant("boleta", "operation_unknown", set_attribute("cbc:InvoiceTypeCode", "listID", "0999")),
    Variant("boleta", "line_price", add(f"{LINE}/cac:PricingReference/cac:AlternativeConditionPrice/cbc:PriceAmount", "5")),
    Variant("boleta", "line_igv_amount", both(add(f"{LINE_TAX}/cbc:TaxAmount", "5.00"), add(f"{LINE}/cac:TaxTotal/cbc:TaxAmount", "5.00"))),
    Variant("boleta", "header_value", add(f"{TOTAL}/cbc:LineExtensionAmount", "10.00")),
    Variant("boleta", "header_payable", add(f"{TOTAL}/cbc:PayableAmount", "10.00")),
    Variant("boleta", "header_igv", both(add(f"{HEADER_TAX}/cbc:TaxAmount", "5.00"), add("cac:TaxTotal/cbc:TaxAmount", "5.00")), sunat_accepts=True),
    Variant("boleta", "header_taxes", add("cac:TaxTotal/cbc:TaxAmount", "5.00")),
    Variant("boleta", "line_value", add(f"{LINE}/cbc:LineExtensionAmount", "10.00")),
    Variant("factura", "customer_name_missing", drop("cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName")),
    Variant("boleta", "customer_name_dash", set_text("cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName", "-")),
    Variant("debit_note", "customer_name_2", set_text("cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName", "AB"), sunat_accepts=True),
    Variant("factura", "customer_name_short", set_text("cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName", "AB")),
    Variant("factura", "tax_inclusive_and_payable", both(add(f"{TOTAL}/cbc:TaxInclusiveAmount", "10.00"), add(f"{TOTAL}/cbc:PayableAmount", "10.00")), sunat_accepts=True),
    # notes: their totals (the header first; no 3278/3279) and the document they modify
    Variant("credit_note", "line_value", add(f"{CN_LINE}/cbc:LineExtensionAmount", "10.00")),
    Variant("credit_note", "header_value", add(f"{TOTAL}/cbc:LineExtensionAmount", "10.00"), sunat_accepts=True),
    Variant("credit_note", "header_tax_inclusive", add(f"{TOTAL}/cbc:TaxInclusiveAmount", "10.00"), sunat_accepts=True),
    Variant("credit_note", "header_payable", add(f"{TOTAL}/cbc:PayableAmount", "10.00")),
    Variant("credit_note", "header_taxes", add("cac:TaxTotal/cbc:TaxAmount", "5.00")),
    Variant("credit_note", "header_igv", both(add(f"{HEADER_TAX}/cbc:TaxAmount", "5.00"), add("cac:TaxTotal/cbc:TaxAmount", "5.00"))),
    Variant("debit_note", "line_value", add(f"{DN_LINE}/cbc:LineExtensionAmount", "10.00")),
    Variant("debit_note", "header_value", add("cac:RequestedMonetaryTotal/cbc:LineExtensionAmount", "10.00"), sunat_accepts=True),
    Variant("debit_note", "header_payable", add("cac:RequestedMonetaryTotal/cbc:PayableAmount", "10.00")),
    Variant("boleta_note", "line_value", add(f"{CN_LINE}/cbc:LineExtensionAmount", "10.00")),
    Variant("boleta_note", "header_payable", add(f"{TOTAL}/cbc:PayableAmount", "10.00")),
    Variant("credit_note", "reference_format", set_text("cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID", "F001/1")),
    Variant("credit_note", "reference_boleta", set_text("cac:BillingReference/cac:InvoiceDocumentReference/cbc:DocumentTypeCode", "03")),
    Variant("credit_note", "note_type_unknown", set_text("cac:DiscrepancyResponse/cbc:ResponseCode", "99")),
    Variant("credit_note", "customer_dni", set_attribute(CUSTOMER_ID, "schemeID", "1"), sunat_accepts=True),
    Variant("debit_note", "reference_format", set_text("cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID", "F001/1")),
    Variant("debit_note", "reference_boleta", set_text("cac:BillingReference/cac:InvoiceDocumentReference/cbc:DocumentTypeCode", "03")),
    Variant("debit_note", "note_type_unknown", set_text("cac:DiscrepancyResponse/cbc:ResponseCode", "99")),
    Variant("boleta_note", "reference_factura", set_text("cac:BillingReference/cac:InvoiceDocumentReference/cbc:DocumentTypeCode", "01")),
    Variant("boleta_note", "dni_7_digits", set_text(CUSTOMER_ID, "1234567"), sunat_accepts=True),
    # free lines, exports, the bag tax
    Variant("free", "free_base", add("cac:TaxTotal/cac:TaxSubtotal/cbc:TaxableAmount", "10.00")),
    Variant("export", "customer_ruc", both(set_attribute(CUSTOMER_ID, "schemeID", "6"), set_text(CUSTOMER_ID, "20601030013"))),
    Variant("bag", "bag_rate", add(f"{LINE}[2]/cac:TaxTotal/cac:TaxSubtotal[2]/cbc:TaxAmount", "0.10")),
    # detraction and instalments
    Variant("detraction", "goods_code_unknown", set_text("cac:PaymentTerms[cbc:ID='Detraccion']/cbc:PaymentMeansID", "999")),
    Variant("detraction", "no_account", drop("cac:PaymentMeans/cac:PayeeFinancialAccount")),
    Variant("detraction", "no_legend", drop("cbc:Note[@languageLocaleID='2006']")),
    Variant("instalments", "cuotas_do_not_add_up", add("cac:PaymentTerms[cbc:PaymentMeansID='Cuota001']/cbc:Amount", "1.00")),
    Variant("instalments", "cuota_before_issue", set_text("cac:PaymentTerms[cbc:PaymentMeansID='Cuota001']/cbc:PaymentDueDate", "2026-03-01")),
    Variant("instalments", "no_cuotas", both(drop("cac:PaymentTerms[cbc:PaymentMeansID='Cuota001']"), drop("cac:PaymentTerms[cbc:PaymentMeansID='Cuota002']"))),
    # cargo transport detraction (1004): the trip on each line
    Variant("cargo", "no_origin_ubigeo", drop(f"{LINE}/cac:Delivery/cac:Despatch/cac:DespatchAddress/cbc:ID")),
    Variant("cargo", "no_origin_address", drop(f"{LINE}/cac:Delivery/cac:Despatch/cac:DespatchAddress/cac:AddressLine")),
    Variant("cargo", "no_destination_ubigeo", drop(f"{LINE}/cac:Delivery/cac:DeliveryLocation/cac:Address/cbc:ID")),
    Variant("cargo", "no_destination_address", drop(f"{LINE}/cac:Delivery/cac:DeliveryLocation/cac:Address/cac:AddressLine")),
    Variant("cargo", "no_trip_detail", drop(f"{LINE}/cac:Delivery/cac:Despatch/cbc:Instructions")),
    Variant("cargo", "no_service_value", drop(f"{LINE}/cac:Delivery/cac:DeliveryTerms[cbc:ID='01']")),
    Variant("cargo", "no_effective_load_value", drop(f"{LINE}/cac:Delivery/cac:DeliveryTerms[cbc:ID='02']")),
    Variant("cargo", "no_payload_value", drop(f"{LINE}/cac:Delivery/cac:DeliveryTerms[cbc:ID='03']")),
    Variant("cargo", "no_trip", drop(f"{LINE}/cac:Delivery")),
    Variant("cargo", "ubigeo_not_in_catalogue", set_text(f"{LINE}/cac:Delivery/cac:DeliveryLocation/cac:Address/cbc:ID", "999999")),
    Variant("cargo", "goods_code_not_027", set_text("cac:PaymentTerms[cbc:ID='Detraccion']/cbc:PaymentMeansID", "037")),
    # credit note 13 and notes on credit
    Variant("credit_note_13", "no_payment_terms", both(*(drop("cac:PaymentTerms") for _ in range(3)))),
    Variant("credit_note_13", "cuotas_do_not_add_up", add("cac:PaymentTerms[cbc:PaymentMeansID='Cuota001']/cbc:Amount", "1.00")),
    Variant("credit_note_13", "no_cuotas", both(drop("cac:PaymentTerms[cbc:PaymentMeansID='Cuota001']"), drop("cac:PaymentTerms[cbc:PaymentMeansID='Cuota002']"))),
    Variant("credit_note_13", "cuotas_without_credito", drop("cac:PaymentTerms[cbc:PaymentMeansID='Credito']")),
    Variant("credit_note_13", "contado", set_text("cac:PaymentTerms[cbc:PaymentMeansID='Credito']/cbc:PaymentMeansID", "Contado")),
    Variant("credit_note_13", "reference_boleta", set_text("cac:BillingReference/cac:InvoiceDocumentReference/cbc:DocumentTypeCode", "03")),
    Variant("credit_note_13", "total_not_zero", both(add(f"{CN_LINE}/cbc:LineExtensionAmount", "10.00"), add(f"{TOTAL}/cbc:LineExtensionAmount", "10.00"), add(f"{TOTAL}/cbc:TaxInclusiveAmount", "10.00"), add(f"{TOTAL}/cbc:PayableAmount", "10.00"))),
    Variant("credit_note_13", "duplicate_cuota", set_text("cac:PaymentTerms[cbc:PaymentMeansID='Cuota002']/cbc:PaymentMeansID", "Cuota001")),
    Variant("debit_note_credit", "cuotas_do_not_add_up", add("cac:PaymentTerms[cbc:PaymentMeansID='Cuota001']/cbc:Amount", "1.00"), sunat_accepts=True),
    # ISC (line 1: IGV subtotal [1], ISC [2]) and other taxes (line 2: IGV [1], 9999 [2]); header: 1000, 2000, 9999
    Variant("isc", "isc_amount", both(add(f"{LINE}/cac:TaxTotal/cac:TaxSubtotal[2]/cbc:TaxAmount", "5.00"), add(f"{LINE}/cac:TaxTotal/cbc:TaxAmount", "5.00"))),
    Variant("isc", "isc_rate_zero", set_text(f"{LINE}/cac:TaxTotal/cac:TaxSubtotal[2]/cac:TaxCategory/cbc:Percent", "0")),
    Variant("isc", "isc_no_system", drop(f"{LINE}/cac:TaxTotal/cac:TaxSubtotal[2]/cac:TaxCategory/cbc:TierRange")),
    Variant("isc", "isc_system_unknown", set_text(f"{LINE}/cac:TaxTotal/cac:TaxSubtotal[2]/cac:TaxCategory/cbc:TierRange", "04")),
    Variant("isc", "igv_base_without_isc", add(f"{LINE}/cac:TaxTotal/cac:TaxSubtotal[1]/cbc:TaxableAmount", "-15.00")),
    Variant("isc", "igv_base_without_isc_and_its_igv", both(add(f"{LINE}/cac:TaxTotal/cac:TaxSubtotal[1]/cbc:TaxableAmount", "-15.00"), add(f"{LINE}/cac:TaxTotal/cac:TaxSubtotal[1]/cbc:TaxAmount", "-2.70"), add(f"{LINE}/cac:TaxTotal/cbc:TaxAmount", "-2.70"))),
    Variant("isc", "header_isc", both(add(f"{HEADER_TAX}[2]/cbc:TaxAmount", "5.00"), add("cac:TaxTotal/cbc:TaxAmount", "5.00"))),
    Variant("isc", "header_isc_base", add(f"{HEADER_TAX}[2]/cbc:TaxableAmount", "10.00")),
    Variant("isc", "other_taxes_amount", both(add(f"{LINE}[2]/cac:TaxTotal/cac:TaxSubtotal[2]/cbc:TaxAmount", "3.00"), add(f"{LINE}[2]/cac:TaxTotal/cbc:TaxAmount", "3.00"))),
    Variant("isc", "header_other_taxes", both(add(f"{HEADER_TAX}[3]/cbc:TaxAmount", "3.00"), add("cac:TaxTotal/cbc:TaxAmount", "3.00"))),
    Variant("isc", "header_other_taxes_base", add(f"{HEADER_TAX}[3]/cbc:TaxableAmount", "10.00")),
    Variant("isc", "payable_without_isc", add(f"{TOTAL}/cbc:PayableAmount", "-15.00")),
    Variant("isc_boleta", "isc_amount", both(add(f"{LINE}/cac:TaxTotal/cac:TaxSubtotal[2]/cbc:TaxAmount", "5.00"), add(f"{LINE}/cac:TaxTotal/cbc:TaxAmount", "5.00"))),
    Variant("isc_boleta", "isc_no_system", drop(f"{LINE}/cac:TaxTotal/cac:TaxSubtotal[2]/cac:TaxCategory/cbc:TierRange")),
    Variant("isc_boleta", "igv_base_without_isc", add(f"{LINE}/cac:TaxTotal/cac:TaxSubtotal[1]/cbc:TaxableAmount", "-15.00")),
    # daily summary and voided communication
    Variant("summary", "dni_7_digits", set_text(f"{RC_LINE}/cac:AccountingCustomerParty/cbc:CustomerAssignedAccountID", "1234567")),
    Variant("summary", "ruc_10_digits", both(set_text(f"{RC_LINE}/cac:AccountingCustomerParty/cbc:AdditionalAccountID", "6"), set_text(f"{RC_LINE}/cac:AccountingCustomerParty/cbc:CustomerAssignedAccountID", "2060103001"))),
    Variant("summary", "passport_too_long", both(set_text(f"{RC_LINE}/cac:AccountingCustomerParty/cbc:AdditionalAccountID", "7"), set_text(f"{RC_LINE}/cac:AccountingCustomerParty/cbc:CustomerAssignedAccountID", "P12345678901234567"))),
    Variant("summary", "document_type_01", set_text(f"{RC_LINE}/cbc:DocumentTypeCode", "01")),
    Variant("summary", "condition_unknown", set_text(f"{RC_LINE}/cac:Status/cbc:ConditionCode", "9")),
    Variant("summary", "reference_after_issue", set_text("cbc:ReferenceDate", "2026-03-03")),
    Variant("summary", "total_negative", set_text(f"{RC_LINE}/sac:TotalAmount", "-1.00")),
    Variant("voided", "document_type_03", set_text(f"{RA_LINE}/cbc:DocumentTypeCode", "03")),
    Variant("voided", "short_reason", set_text(f"{RA_LINE}/sac:VoidReasonDescription", "X")),
    Variant("voided", "reason_leading_space", set_text(f"{RA_LINE}/sac:VoidReasonDescription", " Duplicado")),
    Variant("voided", "reference_after_issue", set_text("cbc:ReferenceDate", "2026-03-03")),
)  # fmt: skip


# ------------------------------------------------------------------------------------------ both answers


@pytest.fixture(scope="module")
def judge() -> Judge:
    return load_judge()


@pytest.fixture(scope="module")
def stylesheets(tmp_path_factory: pytest.TempPathFactory) -> SunatStylesheets:
    """SUNAT's stylesheets as the product runs them for a tenant's ``authority_rules_dir``."""
    return SunatStylesheets(shared_path("sunat-rules", "contenido"), tmp_path_factory.mktemp("xsl"))


@pytest.fixture(scope="module")
def identities() -> tuple[SigningIdentity, SigningIdentity]:
    """(SUNAT's, the issuer's)."""
    return (
        SigningIdentity.from_pem(*generate_identity("20131312955", "SUNAT")),
        SigningIdentity.from_pem(*generate_identity(ACME_RUC, "ACME")),
    )


def _filename(root: etree._Element) -> str:
    local = etree.QName(root).localname
    number = root.findtext("cbc:ID", namespaces=NS)
    if local in ("SummaryDocuments", "VoidedDocuments"):
        return f"{ACME_RUC}-{number}"
    doc_type = {"CreditNote": "07", "DebitNote": "08"}.get(local) or root.findtext(
        "cbc:InvoiceTypeCode", namespaces=NS
    )
    return f"{ACME_RUC}-{doc_type}-{number}"


def _codes(notes: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(sorted({note.split(" - ")[0].strip() for note in notes}))


def simulator_answer(
    sunat: SigningIdentity, name: str, xml: bytes, stylesheets: SunatStylesheets | None = None
) -> AnswerKey:
    registry = InMemoryRegistry()
    simulator = SunatSimulator(sunat, registry, today=lambda: DAY, ticket_delay=0.0, stylesheets=stylesheets)
    package = zip_document(name, xml)
    if "-RC-" in name or "-RA-" in name:
        for key in KNOWN:
            registry.record(key, RegistryRecord("accepted", digest="", code="0"))
        try:
            ticket = simulator.send_summary(name, package)
        except AuthorityError as error:
            return "rejected", (error.code,)
        status = simulator.get_status(ticket)
        response = status.response
        assert response is not None
    else:
        response = simulator.send_bill(name, package)
    if response.code != "0":
        return "rejected", (response.code,)
    codes = _codes(response.notes)
    return ("observed", codes) if codes else ("accepted", ())


def sunat_answer(verdict: Verdict) -> AnswerKey:
    if verdict.rejections:
        return "rejected", (verdict.rejections[0].code,)
    codes = tuple(sorted(verdict.observation_codes))
    return ("observed", codes) if codes else ("accepted", ())


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_the_simulator_answers_what_sunats_stylesheets_answer(
    judge: Judge,
    stylesheets: SunatStylesheets,
    identities: tuple[SigningIdentity, SigningIdentity],
    variant: Variant,
) -> None:
    sunat, issuer = identities
    root = BASES[variant.base]()
    if variant.breaks is not None:
        variant.breaks(root)
    xml, _digest = sign(root, issuer)
    errors = xsd.validate(etree.fromstring(xml))
    assert errors == [], f"a variant must stay schema-valid (the schema is the simulator's own): {errors}"
    name = _filename(root)
    verdict = judge(xml, name, today=DAY.isoformat())
    expected = sunat_answer(verdict)
    if variant.breaks is None or variant.sunat_accepts:
        assert expected == ("accepted", ()), verdict.describe()
    else:
        assert expected != ("accepted", ()), f"SUNAT's stylesheets do not catch {variant.id}"
    assert simulator_answer(sunat, name, xml, stylesheets) == expected, verdict.describe()
    own = simulator_answer(sunat, name, xml)
    if variant.needs_catalogue:
        assert own == ("accepted", ()), "the simulator's own rules do not carry the catalogue"
    else:
        assert own == expected, verdict.describe()


def test_the_variants_are_distinct() -> None:
    assert len({v.id for v in VARIANTS}) == len(VARIANTS)
    assert {v.base for v in VARIANTS} == set(BASES)
