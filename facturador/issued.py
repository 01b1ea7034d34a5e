"""The documents the service issues, as checked values: a sales document (:class:`SalesDocument`) and a
dispatch guide (:class:`Dispatch`) with their parts.

The domain turns a Spanish JSON body into these after checking it; everything downstream (the UBL XML,
the PDF, the QR, the authority gateway) reads only these. They are not the stored rows
(:mod:`facturador.store.models`). Money is ``Decimal`` throughout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, time
from decimal import Decimal

from sunat.catalogs import CHARGE_CODES, PAYMENT_METHODS
from sunat.frozen import one_store_init


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


@one_store_init
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


@one_store_init
@dataclass(frozen=True)
class AllowanceCharge:
    """A discount or charge of catalog 53, of a line (00, 01, 47, 48) or of the document (02-06, 45-50).

    ``amount = base x factor`` when a factor is given (checked by ``sunat.totals.check_allowance``).
    """

    code: str  # catalog 53
    amount: Decimal
    base: Decimal
    factor: Decimal | None = None
    description: str = ""

    @property
    def is_charge(self) -> bool:
        """True for charges (``cbc:ChargeIndicator`` true), False for discounts."""
        return self.code in CHARGE_CODES


@dataclass(frozen=True)
class ItemProperty:
    """An item attribute of catalog 55 (``datos_adicionales[]``), e.g. 5010 the vehicle's plate number."""

    code: str  # catalog 55
    name: str  # descripcion
    value: str = ""
    start: date | None = None  # fecha_inicio
    end: date | None = None  # fecha_fin
    days: Decimal | None = None  # duracion (days)


@one_store_init  # made per line / per document: one store, not one per field
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
    allowances: tuple[AllowanceCharge, ...] = ()  # the line's discounts (00, 01) and charges (47, 48)
    properties: tuple[ItemProperty, ...] = ()  # datos_adicionales (catalog 55)
    # ISC (scheme 2000; its amount is inside igv_base, taxes and total) and other taxes (scheme 9999)
    isc_system: str = ""  # codigo_tipo_sistema_isc (catalog 08: 01, 02, 03)
    isc_base: Decimal = Decimal("0")  # total_base_isc
    isc_percent: Decimal = Decimal("0")  # porcentaje_isc
    isc: Decimal = Decimal("0")  # total_isc
    other_base: Decimal = Decimal("0")  # total_base_otros_impuestos
    other_percent: Decimal = Decimal("0")  # porcentaje_otros_impuestos
    other: Decimal = Decimal("0")  # total_otros_impuestos


@one_store_init
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
    discounts: Decimal = Decimal("0")  # AllowanceTotalAmount: line 01 + global 03
    charges: Decimal = Decimal("0")  # ChargeTotalAmount: line 48 + global 45, 46, 50
    prepaid: Decimal = Decimal("0")  # PrepaidAmount: the advances deducted
    isc_base: Decimal = Decimal("0")  # total_base_isc (TaxSubtotal 2000)
    isc: Decimal = Decimal("0")  # total_isc
    other_base: Decimal = Decimal("0")  # total_base_otros_impuestos (TaxSubtotal 9999)
    other: Decimal = Decimal("0")  # total_otros_impuestos


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
class Detraction:
    """The SPOT detraction of a sale (operation types 1001-1004, the body's ``detraccion``).

    The amount is in PEN whatever the document currency (SUNAT wants ``cbc:Amount@currencyID="PEN"``).
    """

    code: str  # catalog 54: goods or service subject to detraction
    percent: Decimal
    amount: Decimal  # in PEN
    payment_means: str  # catalog 59 (001 = depósito en cuenta)
    account: str  # the issuer's detraction account at Banco de la Nación
    trip: CargoTrip | None = None  # operation 1004 (cargo transport) only


@dataclass(frozen=True)
class CargoTrip:
    """The trip of a cargo transport service subject to detraction (operation 1004, ``detraccion``).

    Written on every line as ``cac:Delivery`` (SUNAT 3116-3126): origin (``cac:Despatch``), destination
    (``cac:DeliveryLocation``), the trip detail (``cac:Despatch/cbc:Instructions``) and the three
    reference values (``cac:DeliveryTerms`` 01 service, 02 effective load, 03 nominal payload).
    """

    detail: str
    origin_ubigeo: str
    origin_address: str
    destination_ubigeo: str
    destination_address: str
    service_value: Decimal  # 01 valor referencial del servicio de transporte
    effective_load_value: Decimal  # 02 valor referencial sobre la carga efectiva
    payload_value: Decimal  # 03 valor referencial sobre la carga útil nominal


@dataclass(frozen=True)
class Instalment:
    """One instalment (``cuota``) of a sale on credit, in the document currency."""

    due_date: date
    amount: Decimal


@dataclass(frozen=True)
class Prepayment:
    """An advance payment invoice (or boleta) that a final invoice deducts (``anticipos[]``)."""

    number: str  # SERIE-NUMERO of the advance document
    doc_type: str  # catalog 12: 02 factura de anticipo, 03 boleta de anticipo
    amount: Decimal  # monto: the advance's value deducted (PrepaidPayment/PaidAmount)
    total: Decimal  # total: what the advance document charged, taxes included (printed)


@dataclass(frozen=True)
class RelatedDocument:
    """Another document the sale refers to (``relacionados[]``, catalog 12 other than advances)."""

    number: str
    doc_type: str  # catalog 12: 04-09, 99
    amount: Decimal = Decimal("0")  # printed only


@dataclass(frozen=True)
class Guide:
    """A dispatch guide of the sale (``guias[]``): 09 remitente, 31 transportista."""

    number: str
    doc_type: str  # catalog 01: 09 or 31
    external_id: str = ""  # a guide of the issuer's, by its external_id (resolved when issuing)


@dataclass(frozen=True)
class Payment:
    """A payment received for the sale (``pagos[]``): not in the XML; stored, printed and listed."""

    method: str  # codigo_metodo_pago (the service's payment methods: 01 Efectivo, ...)
    amount: Decimal
    destination: str = "cash"  # codigo_destino_pago: "cash" or a bank account reference
    reference: str = ""

    @property
    def method_name(self) -> str:
        return PAYMENT_METHODS.get(self.method, self.method)


@dataclass(frozen=True)
class Withholding:
    """An IGV perception (catalog 53: 51, 52, 53; operation 2001, amounts in PEN) or retention (62, 3 %)
    charged on the sale (``percepcion`` / ``retencion``)."""

    code: str
    percent: Decimal
    amount: Decimal
    base: Decimal

    @property
    def factor(self) -> Decimal:
        """MultiplierFactorNumeric: the percent as a fraction (2 % -> 0.02)."""
        return self.percent / 100


@one_store_init
@dataclass(frozen=True)
class SalesDocument:
    """A factura (01), boleta (03), credit note (07) or debit note (08) ready to be rendered.

    Its scenario blocks are typed fields, empty (``None``, ``()``, ``False``) when the document has none.
    """

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
    exchange_rate: Decimal | None = None  # factor_tipo_de_cambio of a foreign-currency document (printed)
    #: The detraction block, if the sale is subject to one (operations 1001-1004).
    detraction: Detraction | None = None
    #: The instalments of a sale on credit, in order (Cuota001, Cuota002, ...); empty for a cash sale.
    instalments: tuple[Instalment, ...] = ()
    #: The document's global discounts and charges (catalog 53), in the order given.
    allowances: tuple[AllowanceCharge, ...] = ()
    #: The advances this invoice deducts (AdditionalDocumentReference + PrepaidPayment), in order.
    prepayments: tuple[Prepayment, ...] = ()
    #: The document is itself an advance payment (``pago_anticipado``).
    is_advance: bool = False
    #: Related documents (``cac:AdditionalDocumentReference`` other than advances).
    related_documents: tuple[RelatedDocument, ...] = ()
    #: Dispatch guides (``cac:DespatchDocumentReference``).
    guides: tuple[Guide, ...] = ()
    #: The payments registered with the sale (printed; not in the XML).
    payments: tuple[Payment, ...] = ()
    #: The IGV perception charged inside the invoice (operation 2001).
    perception: Withholding | None = None
    #: The IGV retention (code 62) the customer withholds.
    retention: Withholding | None = None

    @property
    def pending_amount(self) -> Decimal:
        """Monto neto pendiente de pago of a sale on credit: the sum of its instalments.

        The input checked that it is the total less the detraction (within a cent), so the XML's
        ``FormaPago Credito`` amount and the sum of its ``Cuota`` amounts always agree (SUNAT 3319).
        """
        return sum((instalment.amount for instalment in self.instalments), Decimal("0"))

    @property
    def full_number(self) -> str:
        """``SERIE-NUMERO`` as SUNAT writes it (no zero padding)."""
        return f"{self.series}-{self.number}"

    @property
    def filename(self) -> str:
        """``RUC-TT-SERIE-NUMERO``: the base name of the XML, ZIP and PDF files."""
        return self.filename_for(self.number)

    def filename_for(self, number: int) -> str:
        """:attr:`filename` with the correlative ``number`` (what it is once the document is numbered)."""
        return f"{self.issuer.ruc}-{self.doc_type}-{self.series}-{number}"


# -- dispatch guides (GRE 2022: 09 remitente, 31 transportista) ---------------------------------------


@dataclass(frozen=True)
class DispatchParty:
    """A person or company: identity type (catalog 06), number, name; ``mtc`` for a carrier."""

    identity_type: str
    number: str
    name: str
    mtc: str = ""


@dataclass(frozen=True)
class Driver:
    """A driver: identity document, first and family names, licence; ``principal`` or secondary."""

    identity_type: str
    number: str
    first_name: str
    family_name: str
    licence: str
    principal: bool = True


@dataclass(frozen=True)
class Place:
    """Where goods leave from or arrive: ubigeo (catalog 13), address and, for an establishment of a
    registered company, its RUC and establishment code (``cbc:AddressTypeCode``)."""

    ubigeo: str
    address: str
    ruc: str = ""
    establishment_code: str = ""


@dataclass(frozen=True)
class DispatchDocument:
    """A document related to the transfer (catalog 61): type, number, issuer's RUC."""

    doc_type: str
    number: str
    description: str
    issuer_ruc: str = ""


@dataclass(frozen=True)
class DispatchLine:
    """One item moved: quantity in a unit (catalog 03), description, internal and SUNAT codes."""

    quantity: Decimal
    unit: str
    description: str
    code: str = ""
    sunat_code: str = ""


@dataclass(frozen=True)
class Dispatch:
    """Everything a dispatch guide's XML says.

    ``doc_type`` "09" (the issuer sends its goods: ``customer`` receives them, ``transfer_reason`` of
    catalog 20, ``transport_mode`` 01 public with ``carrier`` or 02 private with ``vehicles`` and
    ``drivers``) or "31" (the issuer carries someone's goods: ``sender`` and ``customer``, always
    ``vehicles`` and ``drivers``). ``vehicles[0]`` is the main plate, the rest secondary.
    """

    doc_type: str
    issuer: Issuer
    series: str
    number: int
    issue_date: date
    issue_time: time
    customer: DispatchParty
    origin: Place
    delivery: Place
    start_date: date
    gross_weight: Decimal
    weight_unit: str
    lines: tuple[DispatchLine, ...]
    transfer_reason: str = ""
    transfer_description: str = ""
    transport_mode: str = ""
    note: str = ""
    packages: int | None = None
    transshipment: bool = False
    carrier: DispatchParty | None = None
    sender: DispatchParty | None = None
    issuer_mtc: str = ""
    drivers: tuple[Driver, ...] = ()
    vehicles: tuple[str, ...] = ()
    vehicle_certificate: str = ""
    freight_payer: str = ""  # carrier guides: "Remitente", "Subcontratador" or "Tercero"
    #: who pays the freight when it is not the sender (``cac:OriginatorCustomerParty``)
    freight_payer_party: DispatchParty | None = None
    related: tuple[DispatchDocument, ...] = field(default_factory=tuple)

    @property
    def document_id(self) -> str:
        return f"{self.series}-{self.number}"

    @property
    def filename(self) -> str:
        """``RUC-09-T001-1``."""
        return self.filename_for(self.number)

    def filename_for(self, number: int) -> str:
        """:attr:`filename` with the correlative ``number``."""
        return f"{self.issuer.ruc}-{self.doc_type}-{self.series}-{number}"
