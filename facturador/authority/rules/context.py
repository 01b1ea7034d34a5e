"""What every check shares: the submission it looks at, how it answers, and SUNAT's wording.

A check is a function ``check(doc: Submission) -> None`` (:data:`Check`). It either returns (the
document passes, perhaps with observations appended to ``doc.notes``) or raises :class:`Answer` with
SUNAT's code; :class:`StoredAnswer` ends the checks with an answer SUNAT already gave.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property
from typing import Any, NamedTuple

from lxml import etree

from facturador.authority.gateway import AuthorityResponse
from facturador.authority.reading import BILLING_REFERENCE, text
from facturador.authority.registry import Registry, RegistryKey, RegistryRecord
from facturador.ubl.namespaces import CBC
from sunat import catalogs
from sunat.series import document_group

__all__ = ["Answer", "Check", "FileName", "StoredAnswer", "Submission", "message", "note"]


class Answer(Exception):
    """Stops processing with ``code`` (an exception 01xx/1xxx or a rejection 2xxx/3xxx)."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code} {detail}")
        self.code = code
        self.detail = detail


class StoredAnswer(Exception):
    """Stops processing with ``response``: what SUNAT answered before to this very document."""

    def __init__(self, response: AuthorityResponse) -> None:
        super().__init__(response.code)
        self.response = response


class FileName(NamedTuple):
    """What the name of a ``sendBill`` file says (``RUC-TT-SERIE-NUMERO``, without ``.zip``)."""

    name: str
    ruc: str
    doc_type: str
    series: str
    number: str

    @property
    def key(self) -> RegistryKey:
        return RegistryKey(self.ruc, self.doc_type, self.series, int(self.number))


@dataclass
class Submission:
    """One document sent with ``sendBill``: its file, its parsed XML, the simulator's settings, and what
    the checks learned so far (checks run in order; a later one may use what an earlier one set)."""

    file: FileName
    received_at: datetime
    xml: bytes
    root: etree._Element
    #: "test" (SUNAT beta) or "strict" (SUNAT's taxpayer registries are consulted).
    mode: str
    #: The Lima date of the deadline rules (called when a rule needs it).
    today: Callable[[], date]
    #: SUNAT's memory of received documents (duplicates, a note's modified document).
    registry: Registry
    #: The CDR's recipient, ``schemeID-number`` of the customer (empty when absent).
    customer: str = ""
    #: ``SERIE-NUMERO``: the file name's until the XML's ``cbc:ID`` passed its format check (1001).
    doc_id: str = ""
    #: The signature's DigestValue (the document's hash at SUNAT).
    digest: str = ""
    #: The registry's record of this document, once ``looked_up``.
    previous: RegistryRecord | None = None
    looked_up: bool = False
    #: The operation type (catalog 51, ``InvoiceTypeCode/@listID``); empty for notes.
    operation: str = ""
    issue_date: date | None = None
    #: Observations (``"4xxx - wording"``) of an accepting CDR, in the order they were found.
    notes: list[str] = field(default_factory=list)
    #: Answered as SUNAT's production path (an accepted document sent again, even unchanged, is 1033).
    production: bool = False
    #: SUNAT's published stylesheets when the tenant points at them
    #: (:class:`~facturador.authority.stylesheets.SunatStylesheets`), else None.
    stylesheets: Any = None

    def __post_init__(self) -> None:
        if not self.doc_id:
            self.doc_id = f"{self.file.series}-{self.file.number}"

    @cached_property
    def factura_family(self) -> bool:
        """True for facturas and their notes (sending group 01: errors), False for boletas and theirs
        (group 02: some problems are only observations)."""
        affected = None
        if self.file.doc_type in ("07", "08"):
            affected = text(self.root.find(BILLING_REFERENCE), CBC("DocumentTypeCode"))
        return document_group(self.file.doc_type, self.file.series, affected) == "01"


#: A check of one group: returns when the document passes, raises :class:`Answer` otherwise.
Check = Callable[[Submission], None]


def message(code: str) -> str:
    """SUNAT's wording of a response code (sunat.catalogs, from SUNAT's CodeErrors catalogue)."""
    return catalogs.response_message(code)


def note(code: str) -> str:
    """An observation as an accepting CDR carries it: ``"4xxx - wording"``."""
    return f"{code} - {message(code)}"
