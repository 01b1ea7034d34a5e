"""The normalized, validated view of a sales document that the XML builders and renderers consume.

The API layer turns the Spanish JSON body into these objects after validation; everything downstream
(UBL, PDF, QR, the authority gateway) reads only these. Money is ``Decimal`` throughout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, time
from decimal import Decimal


@dataclass(frozen=True)
class Issuer:
    """The company issuing the document (the tenant) and its establishment."""

    ruc: str
    name: str
    trade_name: str = ""
    address: str = ""
    ubigeo: str = ""
    department: str = ""
    province: str = ""
    district: str = ""
    establishment_code: str = "0000"
    country: str = "PE"


@dataclass(frozen=True)
class Party:
    """Customer (receptor) of the document."""

    identity_type: str  # catalog 06
    number: str
    name: str
    country: str = "PE"
    ubigeo: str = ""
    address: str = ""
    email: str = ""
    phone: str = ""
    trade_name: str = ""


@dataclass(frozen=True)
class Line:
    """One item line with its amounts as sent by the client (already checked against SUNAT's formulas)."""

    index: int  # 1-based
    description: str
    unit: str  # catalog 03
    quantity: Decimal
    unit_value: Decimal  # valor unitario, without IGV (0 for free lines)
    price_type: str  # catalog 16: 01 price with taxes, 02 referential value (free lines)
    unit_price: Decimal  # precio unitario with IGV (or referential value for free lines)
    affectation: str  # catalog 07
    igv_base: Decimal
    igv_percent: Decimal
    igv: Decimal
    taxes: Decimal  # total_impuestos of the line (IGV + ICBPER + ...)
    value: Decimal  # total_valor_item (quantity x unit value)
    total: Decimal  # total_item
    icbper: Decimal = Decimal("0")  # bag tax amount of the line
    internal_code: str = ""
    sunat_code: str = ""  # catalog 25 (UNSPSC)


@dataclass(frozen=True)
class Totals:
    """Header totals (the ``totales`` block)."""

    export: Decimal = Decimal("0")
    taxed: Decimal = Decimal("0")
    unaffected: Decimal = Decimal("0")
    exonerated: Decimal = Decimal("0")
    free: Decimal = Decimal("0")
    igv: Decimal = Decimal("0")
    igv_free: Decimal = Decimal("0")  # informative IGV of free taxed lines (11-16)
    icbper: Decimal = Decimal("0")
    taxes: Decimal = Decimal("0")
    value: Decimal = Decimal("0")
    subtotal: Decimal = Decimal("0")
    total: Decimal = Decimal("0")


@dataclass(frozen=True)
class AffectedDocument:
    """The document a credit or debit note modifies."""

    doc_type: str  # 01, 03, ...
    series: str
    number: str

    @property
    def full_number(self) -> str:
        return f"{self.series}-{self.number}"


@dataclass(frozen=True)
class NoteInfo:
    """What makes a document a credit (07) or debit (08) note."""

    type_code: str  # catalog 09 (credit) or 10 (debit)
    reason: str
    affected: AffectedDocument


@dataclass(frozen=True)
class Legend:
    code: str  # catalog 52
    text: str


@dataclass(frozen=True)
class SalesDocument:
    """A factura (01), boleta (03), credit note (07) or debit note (08) ready to be rendered."""

    issuer: Issuer
    doc_type: str
    series: str
    number: int
    issue_date: date
    issue_time: time
    currency: str
    customer: Party
    lines: tuple[Line, ...]
    totals: Totals
    legends: tuple[Legend, ...] = ()
    operation_type: str = ""  # catalog 51, facturas and boletas only
    due_date: date | None = None
    purchase_order: str = ""
    note: NoteInfo | None = None
    additional_information: str = ""
    payment_form: str = "Contado"  # FormaPago: Contado | Credito
    extensions: dict = field(default_factory=dict)  # room for scenario blocks (detraction, instalments, ...)

    @property
    def full_number(self) -> str:
        """``SERIE-NUMERO`` as SUNAT writes it (no zero padding)."""
        return f"{self.series}-{self.number}"

    @property
    def filename(self) -> str:
        """``RUC-TT-SERIE-NUMERO``: the base name of the XML, ZIP and PDF files."""
        return f"{self.issuer.ruc}-{self.doc_type}-{self.series}-{self.number}"
