"""The customer: its identity document against the document and operation type (``docs/sunat_domain.md``).

In the order of SUNAT's stylesheets. Facturas (errors): 2014 no number; then the number against its
type: 2017 a RUC that is not 11 digits, 2801 an invalid DNI, 2802 another document's number longer than
15 characters; 2015 no type (``schemeID``); 2800 a type the operation does not allow (a factura's
customer has a RUC except in exports, 0112 and the operations of any customer, where the type must be
one of catalog 06); 3202 a RUC SUNAT does not know (``mode="strict"`` only: the check digit stands in for
the taxpayer registry).

Credit and debit notes (SUNAT's note stylesheets check less): 2679 no number or no type, 2017 a RUC that
is not 11 digits, 2016 a type outside catalog 06 (3202 in strict mode as above).

Boletas (observations): 4207 an invalid DNI, 4208 another document's number of the wrong length.

Every document, after its identity: 2021 no legal name (``cac:PartyLegalEntity/cbc:RegistrationName``),
2022 one shorter than 3 or longer than 1500 characters (debit notes: 2 to 999), or blank.
"""

from __future__ import annotations

import re

from lxml import etree

from facturador.authority.rules.context import Answer, Submission, note
from facturador.ubl.namespaces import CAC, CBC
from sunat import catalogs
from sunat.identity import is_valid_dni, is_valid_ruc

__all__ = ["customer", "recipient"]

_CUSTOMER_ID = f"{CAC('AccountingCustomerParty')}/{CAC('Party')}/{CAC('PartyIdentification')}/{CBC('ID')}"
_CUSTOMER_NAME = (
    f"{CAC('AccountingCustomerParty')}/{CAC('Party')}/{CAC('PartyLegalEntity')}/{CBC('RegistrationName')}"
)
_RUC_FORMAT = re.compile(r"^\d{11}$")
#: Operation types where the factura's customer may have any identity document.
_ANY_CUSTOMER_OPERATIONS = frozenset({"0202", "0401"})


def recipient(root: etree._Element) -> str:
    """The CDR's recipient: ``schemeID-number`` of the customer, empty when the document names none."""
    identification = root.find(_CUSTOMER_ID)
    if identification is None:
        return ""
    return f"{identification.get('schemeID', '')}-{(identification.text or '').strip()}"


def customer(doc: Submission) -> None:
    """The customer's identity document (see the module doc for the codes)."""
    node = doc.root.find(_CUSTOMER_ID)
    number = (node.text or "").strip() if node is not None else ""
    scheme = (node.get("schemeID") or "").strip() if node is not None else ""
    if doc.file.doc_type in ("07", "08"):
        _note_customer(doc, number, scheme)
    elif doc.file.doc_type == "03":  # boletas: identity problems are observations
        if scheme == "1" and not is_valid_dni(number):
            doc.notes.append(note("4207"))
        elif scheme not in ("1", "6", "-", "") and not 1 <= len(number) <= 15:
            doc.notes.append(note("4208"))
    else:
        _factura_customer(doc, number, scheme)
    _legal_name(doc)


def _legal_name(doc: Submission) -> None:
    """The customer's legal name: present (2021), 3 to 1500 characters and not blank (2022)."""
    node = doc.root.find(_CUSTOMER_NAME)
    if node is None:
        raise Answer("2021", _CUSTOMER_NAME)
    name = node.text or ""
    shortest, longest = (2, 999) if doc.file.doc_type == "08" else (3, 1500)  # the debit note's rule
    if not shortest <= len(name) <= longest or not name.strip():
        raise Answer("2022", f'cbc:RegistrationName valor: "{name[:40]}"')


def _factura_customer(doc: Submission, number: str, scheme: str) -> None:
    if not number:
        raise Answer("2014", _CUSTOMER_ID)
    if number != "-":
        if scheme == "6" and not _RUC_FORMAT.match(number):
            raise Answer("2017", f'cbc:ID valor: "{number}"')
        if scheme == "1" and not is_valid_dni(number):
            raise Answer("2801", f'cbc:ID valor: "{number}"')
        if scheme not in ("1", "6") and not 1 <= len(number) <= 15:
            raise Answer("2802", f'cbc:ID valor: "{number}"')
    if not scheme:
        raise Answer("2015", "cac:PartyIdentification/cbc:ID/@schemeID")
    operation = doc.operation
    if operation in _ANY_CUSTOMER_OPERATIONS or operation in catalogs.EXPORT_OPERATION_TYPES:
        if scheme == "6" and operation not in _ANY_CUSTOMER_OPERATIONS:
            raise Answer("2800", 'cbc:ID/@schemeID valor: "6"')
        if scheme != "-" and scheme not in catalogs.IDENTITY_TYPES:
            raise Answer("2800", f'cbc:ID/@schemeID valor: "{scheme}"')
    elif operation == "0112":
        if scheme not in ("1", "6"):
            raise Answer("2800", f'cbc:ID/@schemeID valor: "{scheme}"')
    elif scheme != "6":
        raise Answer("2800", f'cbc:ID/@schemeID valor: "{scheme}"')
    _known_ruc(doc, number, scheme)


def _note_customer(doc: Submission, number: str, scheme: str) -> None:
    if not number:
        raise Answer("2679", _CUSTOMER_ID)
    if scheme == "6" and not _RUC_FORMAT.match(number):
        raise Answer("2017", f'cbc:ID valor: "{number}"')
    if not scheme:
        raise Answer("2679", "cac:PartyIdentification/cbc:ID/@schemeID")
    if scheme != "-" and scheme not in catalogs.IDENTITY_TYPES:
        raise Answer("2016", f'cbc:ID/@schemeID valor: "{scheme}"')
    _known_ruc(doc, number, scheme)


def _known_ruc(doc: Submission, number: str, scheme: str) -> None:
    """Strict mode: the customer's RUC must be one SUNAT knows (the check digit stands in, 3202)."""
    if doc.mode == "strict" and scheme == "6" and not is_valid_ruc(number):
        raise Answer("3202", f'cbc:ID valor: "{number}"')
