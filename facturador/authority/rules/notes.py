"""Credit and debit notes: the document they modify (reference/sunat.md §6).

2172 a note type (``DiscrepancyResponse/ResponseCode``) outside catalog 09 (credit) / 10 (debit);
2524 no ``BillingReference`` ID; 2117 (credit) / 2205 (debit) a reference that is not ``SERIE-NUMERO``
of the referenced type (a factura's F series, a boleta's B series, or a contingency number);
a note of an F series modifies a factura (or 12) and one of a B series a boleta (or 12, 16, 55), else
2116 (credit) / 2204 (debit) for an F series and 2399 / 2400 for a B series. In ``mode="strict"`` the
modified document must be one SUNAT accepted for the issuer (contingency series aside): 2119 / 2209
unknown, 2121 / 2208 rejected, 2120 / 2207 voided (credit / debit).
"""

from __future__ import annotations

import re

from facturador.authority.registry import RegistryKey
from facturador.authority.rules.context import Answer, Submission
from facturador.authority.rules.reading import BILLING_REFERENCE, text
from facturador.ubl.namespaces import CAC, CBC
from sunat import catalogs
from sunat.series import is_contingency_series

__all__ = ["reference"]

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
