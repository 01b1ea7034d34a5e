"""Credit and debit notes: the document they modify (``docs/sunat_domain.md``, documents and series).

2172 a note type (``DiscrepancyResponse/ResponseCode``) outside catalog 09 (credit) / 10 (debit);
2524 no ``BillingReference`` ID; 2117 (credit) / 2205 (debit) a reference that is not ``SERIE-NUMERO``
of the referenced type (a factura's F series, a boleta's B series, or a contingency number);
a note of an F series modifies a factura (or 12) and one of a B series a boleta (or 12, 16, 55), else
2116 (credit) / 2204 (debit) for an F series and 2399 / 2400 for a B series. In ``mode="strict"`` the
modified document must be one SUNAT accepted for the issuer (contingency series aside): 2119 / 2209
unknown, 2121 / 2208 rejected, 2120 / 2207 voided (credit / debit).

Credit notes' FormaPago (:func:`credit_note_terms`, SUNAT's NC stylesheet): 3248 a PaymentMeansID given
twice, 3246 one other than ``Credito`` / ``CuotaNNN``; for a RUC customer 3249 ``Credito`` without
instalments, 3251 without its amount, 3252 instalments without ``Credito``, 3254 / 3256 an instalment
without amount / due date. Type 13 (ajustes – montos y/o fechas de pago): 3261 more than one modified
document, 3257 no FormaPago, 3259 a modified document other than a factura, 3319 (RUC customer)
instalments that do not add up to the pending amount, 3315 a total other than zero.
"""

from __future__ import annotations

import re
from decimal import Decimal

from facturador.authority.reading import BILLING_REFERENCE, ID, MONETARY_TAGS, ZERO, children, dec, text
from facturador.authority.registry import RegistryKey
from facturador.authority.rules.context import Answer, Submission
from facturador.ubl.namespaces import CAC, CBC
from sunat import catalogs
from sunat.series import is_contingency_series

__all__ = ["adjustment_total", "credit_note_terms", "reference"]

_REFERENCE_FORMAT = re.compile(r"^(?:[FBSE][A-Z0-9]{3}|\d{1,4})-\d{1,8}$")
#: The format of the reference by the referenced document's type (SUNAT's note stylesheets).
_REFERENCE_FORMATS = {
    "01": re.compile(r"^(?:F[A-Z0-9]{3}|E001|\d{1,4})-\d{1,8}$"),
    "03": re.compile(r"^(?:B[A-Z0-9]{3}|EB01|\d{1,4})-\d{1,8}$"),
}
#: The note types of each note (catalogs 09 and 10).
_NOTE_TYPES = {"07": catalogs.CREDIT_NOTE_TYPES, "08": catalogs.DEBIT_NOTE_TYPES}
_RESPONSE_CODE = f"{CAC('DiscrepancyResponse')}/{CBC('ResponseCode')}"
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


def reference(doc: Submission) -> None:
    """The modified document of a note (see the module doc for the codes); facturas and boletas pass."""
    doc_type = doc.file.doc_type
    if doc_type not in ("07", "08"):
        return
    note_type = text(doc.root, _RESPONSE_CODE)
    if note_type and note_type not in _NOTE_TYPES[doc_type]:
        raise Answer("2172", f'cac:DiscrepancyResponse/cbc:ResponseCode valor: "{note_type}"')
    if doc_type == "07" and note_type == _ADJUSTMENT:
        _adjustment_header(doc)
    billing = doc.root.find(BILLING_REFERENCE)
    ref_id = text(billing, CBC("ID"))
    if not ref_id:
        raise Answer("2524", "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID")
    ref_type = text(billing, CBC("DocumentTypeCode")) or ""
    if not _REFERENCE_FORMATS.get(ref_type, _REFERENCE_FORMAT).match(ref_id):
        raise Answer("2117" if doc_type == "07" else "2205", f'cbc:ID valor: "{ref_id}"')
    letter = doc.file.series[0]
    if letter in ("F", "B"):
        code, allowed = _NOTE_TARGETS[(doc_type, letter)]
        if ref_type not in allowed:
            raise Answer(code, f'cbc:DocumentTypeCode valor: "{ref_type}"')
    if doc.mode == "strict" and not is_contingency_series(ref_id.partition("-")[0]):
        key = RegistryKey.from_id(doc.file.ruc, ref_type, ref_id)
        found = doc.registry.lookup(key)
        status = None if found is None else found.status
        if status != "accepted":
            raise Answer(_NOTE_REFERENCE_CODES[doc_type][status], f"{ref_type} {ref_id}")


_CUOTA = re.compile(r"^Cuota[0-9]{3}$")
_ADJUSTMENT = "13"


def credit_note_terms(doc: Submission) -> None:
    """A credit note's FormaPago and the rules of type 13 (see the module doc for the codes)."""
    if doc.file.doc_type != "07":
        return
    root = doc.root
    adjustment = text(root, _RESPONSE_CODE) == _ADJUSTMENT
    forms: dict[str, tuple[str | None, str | None]] = {}  # PaymentMeansID -> (Amount, PaymentDueDate)
    for terms in root.iterchildren(CAC("PaymentTerms")):
        if text(terms, ID) != "FormaPago":
            continue
        value = text(terms, CBC("PaymentMeansID")) or ""
        if value in forms:
            raise Answer("3248", f'cac:PaymentTerms/cbc:PaymentMeansID valor: "{value}"')
        if value != "Credito" and not _CUOTA.match(value):
            raise Answer("3246", f'cbc:PaymentMeansID valor: "{value}"')
        forms[value] = (text(terms, CBC("Amount")), text(terms, CBC("PaymentDueDate")))
    customer = f"{CAC('AccountingCustomerParty')}/{CAC('Party')}/{CAC('PartyIdentification')}/{ID}"
    found = root.find(customer)
    if found is not None and found.get("schemeID") == "6" and forms:
        cuotas = {value: terms for value, terms in forms.items() if value != "Credito"}
        if "Credito" in forms:
            if not cuotas:
                raise Answer("3249", 'cac:PaymentTerms/cbc:PaymentMeansID valor: "Credito"')
            if not forms["Credito"][0]:
                raise Answer("3251", "cac:PaymentTerms/cbc:Amount")
        for value, (amount, due) in sorted(cuotas.items()):
            if "Credito" not in forms:
                raise Answer("3252", f"Error en {value}")
            if not amount:
                raise Answer("3254", f"Error en {value}")
            if not due:
                raise Answer("3256", f"Error en {value}")
        if adjustment and "Credito" in forms:
            total = sum((Decimal(amount or "0") for amount, _ in cuotas.values()), ZERO)
            pending = Decimal(forms["Credito"][0] or "0")
            if total != pending:
                raise Answer("3319", f'cac:PaymentTerms/cbc:Amount valor: "{total}"')


def _adjustment_header(doc: Submission) -> None:
    """A credit note of type 13 modifies one factura (3261, 3259) and carries FormaPago (3257)."""
    root = doc.root
    if len(root.findall(BILLING_REFERENCE)) > 1:
        raise Answer("3261", "cac:BillingReference")
    forms = [t for t in root.iterchildren(CAC("PaymentTerms")) if text(t, ID) == "FormaPago"]
    if not forms:
        raise Answer("3257", "cac:PaymentTerms/cbc:ID FormaPago")
    if text(root.find(BILLING_REFERENCE), CBC("DocumentTypeCode")) != "01":
        raise Answer("3259", "cac:InvoiceDocumentReference/cbc:DocumentTypeCode")


def adjustment_total(doc: Submission) -> None:
    """3315: a credit note of type 13 changes no amount, its total is zero (after the totals' rules)."""
    if doc.file.doc_type != "07" or text(doc.root, _RESPONSE_CODE) != _ADJUSTMENT:
        return
    payable = dec(children(doc.root.find(MONETARY_TAGS["07"])).get(CBC("PayableAmount")))
    if payable != 0:
        raise Answer("3315", f'cbc:PayableAmount valor: "{payable}"')
