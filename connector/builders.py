"""Builders of ``POST /api/documents`` payloads: give lines, get the Spanish wire payload with totals.

Line and header amounts are computed by :mod:`sunat.totals` (``compute_line`` /
``compute_totals``), the same code the service uses to check them, so a built payload is accepted by
this service and matches what SUNAT recomputes::

    from connector.builders import Customer, Invoice, Line

    invoice = Invoice(
        customer=Customer.ruc("20601030013", "EMPRESA XYZ S.A.C."),
        lines=[Line("Inca Kola 250 ml", 2, unit_price=59)],      # 59.00 with IGV
    )
    client.documents.issue(invoice)

Lines (:class:`Line`):

* onerous taxed (affectation ``10``): give ``unit_price`` (with IGV) *or* ``unit_value`` (without);
* exonerated ``20``, unaffected ``30``, export ``40``: no IGV, price = value;
* free lines (``11``–``16``, ``21``, ``31``–``37``): the price you give is the *referential* unit
  value. Written the way the real manual samples do: ``valor_unitario`` = referential value,
  ``precio_unitario`` = 0, ``codigo_tipo_precio`` ``02``, ``total_impuestos`` 0 and ``total_item`` 0
  (the line's IGV, informative, in ``total_igv`` for 11–16); the header carries
  ``total_operaciones_gratuitas`` / ``total_igv_operaciones_gratuitas`` and legend ``1002``;
* ``bag_tax=True``: plastic bags; ICBPER = quantity × :func:`sunat.rates.icbper_rate` of the
  issue date, in ``total_impuestos_bolsa_plastica`` of the line and of ``totales``;
* ``isc=Isc("01", percent=30)`` (al valor), ``Isc("02", per_unit=1.50)`` (monto fijo) or
  ``Isc("03", percent=30, public_price=12)`` (precio de venta al público): the ISC of catalog 08,
  inside the IGV base; ``other_taxes_percent=5``: other taxes (scheme 9999) on the line value. Both
  need ``unit_value`` and go in the line's and the header's taxes (:func:`sunat.totals.apply_line_taxes`).

Blocks: ``detraction=Detraction("027", 4, account, trip=CargoTrip(...))`` (operation 1001, or 1004 for
cargo transport with its trip; the amount in soles is the percent of the total unless given) and
``instalments=[Instalment(date, amount), ...]`` (condition 02 and ``cuotas``; on invoices they add up to
:meth:`Invoice.pending_amount`; a credit note of type 13 has a total of 0 and restates the factura's
instalments; a debit note on credit has instalments adding up to its total).

Amounts are Decimal until the JSON edge: totals are written as JSON numbers with two decimals, unit
values and prices with up to ten. ``extra`` adds or overrides top-level keys of the payload (e.g.
``{"informacion_adicional": "..."}``); :meth:`to_payload` returns a new dict every call.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar, Protocol

from sunat import catalogs
from sunat.calendar import peru_now, peru_today
from sunat.detraction import detraction_amount
from sunat.money import round2, to_decimal
from sunat.rates import IGV_PERCENT, icbper_rate
from sunat.totals import (
    Allowance,
    DocumentTotals,
    Isc,
    LineAmounts,
    apply_line_allowances,
    apply_line_taxes,
    compute_line,
    compute_totals,
)

__all__ = [
    "Attribute",
    "Builder",
    "CargoTrip",
    "Charge",
    "CreditNote",
    "Customer",
    "DebitNote",
    "Detraction",
    "Discount",
    "Guide",
    "Instalment",
    "Invoice",
    "Isc",
    "Line",
    "Payment",
    "Prepayment",
    "Receipt",
    "Related",
]


def money(value: Decimal) -> float:
    """An amount at the JSON edge: a float with two decimals."""
    return float(round2(value))


def unit(value: Decimal) -> float | int:
    """A unit value or price at the JSON edge (up to ten decimals, already rounded by ``sunat``)."""
    return int(value) if value == value.to_integral_value() else float(value)


def _quantity(value: Decimal) -> float | int:
    return int(value) if value == value.to_integral_value() else float(value)


@dataclass(frozen=True)
class Customer:
    """The customer (``datos_del_cliente_o_receptor``).

    ``identity_type`` is catalog 06: ``6`` RUC, ``1`` DNI, ``4`` carné de extranjería, ``7`` passport,
    ``0`` foreign without RUC (exports), ``-`` unidentified (boletas under S/ 700).
    """

    identity_type: str
    number: str
    name: str
    address: str = ""
    email: str = ""
    country: str = "PE"
    ubigeo: str = ""

    @classmethod
    def ruc(cls, number: str, name: str, **kw: Any) -> Customer:
        """A company identified by its RUC (``identity_type`` 6)."""
        return cls("6", number, name, **kw)

    @classmethod
    def dni(cls, number: str, name: str, **kw: Any) -> Customer:
        """A person identified by DNI (``identity_type`` 1)."""
        return cls("1", number, name, **kw)

    def to_payload(self) -> dict[str, Any]:
        """The ``datos_del_cliente_o_receptor`` object."""
        payload: dict[str, Any] = {
            "codigo_tipo_documento_identidad": self.identity_type,
            "numero_documento": self.number,
            "apellidos_y_nombres_o_razon_social": self.name,
            "codigo_pais": self.country or "PE",
        }
        if self.ubigeo:
            payload["ubigeo"] = self.ubigeo
        if self.address:
            payload["direccion"] = self.address
        if self.email:
            payload["correo_electronico"] = self.email
        return payload


@dataclass(frozen=True)
class Discount:
    """A discount of catalog 53: line ``00`` (in the IGV base) / ``01`` (not); global ``02`` / ``03``,
    ``04``-``06`` (advances). Give ``amount``, or ``base`` and ``factor`` (amount = base x factor)."""

    code: str
    amount: Decimal | float | int | str | None = None
    base: Decimal | float | int | str | None = None
    factor: Decimal | float | int | str | None = None
    description: str = ""

    def allowance(self) -> Allowance:
        """The discount as :class:`sunat.totals.Allowance` (its amount computed when not given)."""
        factor = None if self.factor is None else to_decimal(self.factor)
        if self.amount is None:
            if self.base is None or factor is None:
                raise ValueError(f"discount/charge {self.code}: give amount, or base and factor")
            amount = round2(to_decimal(self.base) * factor)
        else:
            amount = round2(to_decimal(self.amount))
        base = round2(to_decimal(self.base)) if self.base is not None else amount
        return Allowance(self.code, amount, base, factor)

    def to_payload(self) -> dict[str, Any]:
        allowance = self.allowance()
        entry: dict[str, Any] = {
            "codigo": self.code,
            "descripcion": self.description or catalogs.CHARGE_DISCOUNT_TYPES.get(self.code, self.code),
            "monto": money(allowance.amount),
            "base": money(allowance.base),
        }
        if allowance.factor is not None:
            entry["factor"] = float(allowance.factor)
        return entry


@dataclass(frozen=True)
class Charge(Discount):
    """A charge of catalog 53: line ``47`` (in the base) / ``48``; global ``49`` (in the base), ``45``,
    ``46`` (tips), ``50``."""


@dataclass(frozen=True)
class Attribute:
    """An item attribute of catalog 55 (``datos_adicionales``): ``Attribute("5010", "Placa", "ABC-123")``."""

    code: str
    name: str
    value: str = ""

    def to_payload(self) -> dict[str, Any]:
        return {"codigo": self.code, "descripcion": self.name, "valor": self.value}


@dataclass(frozen=True)
class Prepayment:
    """An advance invoice (``02``) or boleta (``03``) deducted: ``amount`` its value, ``total`` its total."""

    number: str
    amount: Decimal | float | int | str
    total: Decimal | float | int | str | None = None
    doc_type: str = "02"

    def to_payload(self) -> dict[str, Any]:
        amount = to_decimal(self.amount)
        total = to_decimal(self.total) if self.total is not None else amount
        return {
            "numero": self.number,
            "codigo_tipo_documento": self.doc_type,
            "monto": money(amount),
            "total": money(total),
        }


@dataclass(frozen=True)
class Related:
    """A related document (catalog 12: 01, 04-09, 99)."""

    number: str
    doc_type: str = "99"
    amount: Decimal | float | int | str | None = None

    def to_payload(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"numero": self.number, "codigo_tipo_documento": self.doc_type}
        if self.amount is not None:
            entry["monto"] = money(to_decimal(self.amount))
        return entry


@dataclass(frozen=True)
class Guide:
    """A dispatch guide: ``09`` (remitente) or ``31`` (transportista)."""

    number: str
    doc_type: str = "09"

    def to_payload(self) -> dict[str, Any]:
        return {"numero": self.number, "codigo_tipo_documento": self.doc_type}


@dataclass(frozen=True)
class Payment:
    """A payment received (``pagos``): method ``01`` cash, ``02`` credit card, ...; destination cash."""

    amount: Decimal | float | int | str
    method: str = "01"
    reference: str = ""
    destination: str = "cash"

    def to_payload(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "codigo_metodo_pago": self.method,
            "codigo_destino_pago": self.destination,
            "monto": money(to_decimal(self.amount)),
        }
        if self.reference:
            entry["referencia"] = self.reference
        return entry


@dataclass(frozen=True)
class Line:
    """One item. Give exactly one of ``unit_price`` (with IGV) or ``unit_value`` (without IGV); on free
    lines either one is the referential unit value.

    :param affectation: catalog 07 (``10`` taxed, ``20`` exonerated, ``30`` unaffected, ``40`` export,
        ``11``–``16`` / ``21`` / ``31``–``37`` free).
    :param unit: catalog 03 (``NIU`` goods, ``ZZ`` services, ``KGM`` ...).
    :param code: your internal product code (``codigo_interno``).
    :param sunat_code: SUNAT product code, catalog 25 (``codigo_producto_sunat``).
    :param bag_tax: the line is plastic bags subject to ICBPER.
    :param igv_percent: IGV percent of a taxed line (default 18; 10.5 for MYPE restaurants/hotels).
    :param isc: the line's ISC (:class:`Isc`: system 01, 02 or 03 of catalog 08), on 10, 20 or 30 lines.
    :param other_taxes_percent: other taxes (scheme 9999) as a percent of the line value.
    """

    description: str
    quantity: Decimal | float | int | str
    unit_price: Decimal | float | int | str | None = None
    unit_value: Decimal | float | int | str | None = None
    affectation: str = "10"
    unit: str = "NIU"
    code: str = ""
    sunat_code: str = ""
    bag_tax: bool = False
    igv_percent: Decimal | float | int | str | None = None
    discounts: Sequence[Discount] = ()
    charges: Sequence[Charge] = ()
    attributes: Sequence[Attribute] = ()
    isc: Isc | None = None
    other_taxes_percent: Decimal | float | int | str | None = None

    def __post_init__(self) -> None:
        if (self.unit_price is None) == (self.unit_value is None):
            raise ValueError(f"line {self.description!r}: give exactly one of unit_price or unit_value")
        if (self.isc is not None or self.other_taxes_percent is not None) and self.unit_value is None:
            raise ValueError(f"line {self.description!r}: a line with ISC or other taxes takes unit_value")
        if self.affectation not in catalogs.AFFECTATIONS:
            raise ValueError(f"line {self.description!r}: affectation {self.affectation!r} not in catalog 07")

    @property
    def free(self) -> bool:
        """True for non-onerous (free) lines."""
        return catalogs.is_free(self.affectation)

    def amounts(self, on: dt.date) -> LineAmounts:
        """The line's amounts by :func:`sunat.totals.compute_line` for an issue date."""
        computed = compute_line(
            self.quantity,
            self.affectation,
            unit_value=self.unit_value,
            unit_price=self.unit_price,
            igv_percent=IGV_PERCENT if self.igv_percent is None else self.igv_percent,
            icbper_rate=icbper_rate(on) if self.bag_tax else Decimal("0"),
        )
        allowances = [d.allowance() for d in (*self.discounts, *self.charges)]
        other = None if self.other_taxes_percent is None else to_decimal(self.other_taxes_percent)
        return apply_line_taxes(apply_line_allowances(computed, allowances), self.isc, other)

    def to_payload(self, amounts: LineAmounts) -> dict[str, Any]:
        """The ``items[]`` entry for ``amounts`` (from :meth:`amounts`)."""
        free = self.free
        item: dict[str, Any] = {
            "codigo_interno": self.code,
            "descripcion": self.description,
            "unidad_de_medida": self.unit,
            "cantidad": _quantity(amounts.quantity),
            # free lines, as the manual samples: valor_unitario = referential value, precio_unitario = 0
            "valor_unitario": unit(amounts.unit_price if free else amounts.unit_value),
            "codigo_tipo_precio": "02" if free else "01",
            "precio_unitario": 0 if free else unit(amounts.unit_price),
            "codigo_tipo_afectacion_igv": self.affectation,
            "total_base_igv": money(amounts.igv_base),
            "porcentaje_igv": unit(amounts.igv_percent),
            "total_igv": money(amounts.igv),
            "total_impuestos": money(amounts.taxes),
            "total_valor_item": money(amounts.value),
            "total_item": money(amounts.total),
        }
        if self.sunat_code:
            item["codigo_producto_sunat"] = self.sunat_code
        if self.bag_tax:
            item["total_impuestos_bolsa_plastica"] = money(amounts.icbper)
        if self.isc is not None:
            item["codigo_tipo_sistema_isc"] = amounts.isc_system
            item["total_base_isc"] = money(amounts.isc_base)
            item["porcentaje_isc"] = unit(amounts.isc_percent)
            item["total_isc"] = money(amounts.isc)
        if self.other_taxes_percent is not None:
            item["total_base_otros_impuestos"] = money(amounts.other_base)
            item["porcentaje_otros_impuestos"] = unit(amounts.other_percent)
            item["total_otros_impuestos"] = money(amounts.other)
        if self.discounts:
            item["descuentos"] = [d.to_payload() for d in self.discounts]
        if self.charges:
            item["cargos"] = [c.to_payload() for c in self.charges]
        if self.attributes:
            item["datos_adicionales"] = [a.to_payload() for a in self.attributes]
        return item


def totals_payload(totals: DocumentTotals) -> dict[str, Any]:
    """The ``totales`` object of :class:`~sunat.totals.DocumentTotals` (JSON numbers, two decimals)."""
    optional = {"total_descuentos": totals.discounts, "total_cargos": totals.charges}
    optional["total_anticipos"] = totals.prepaid
    if totals.isc_base or totals.isc:
        optional |= {"total_base_isc": totals.isc_base, "total_isc": totals.isc}
    if totals.other_base or totals.other:
        optional |= {"total_base_otros_impuestos": totals.other_base, "total_otros_impuestos": totals.other}
    return {
        **{key: money(amount) for key, amount in optional.items() if amount},
        "total_exportacion": money(totals.export),
        "total_operaciones_gravadas": money(totals.taxed),
        "total_operaciones_inafectas": money(totals.unaffected),
        "total_operaciones_exoneradas": money(totals.exonerated),
        "total_operaciones_gratuitas": money(totals.free),
        "total_igv_operaciones_gratuitas": money(totals.igv_free),
        "total_igv": money(totals.igv),
        "total_impuestos_bolsa_plastica": money(totals.icbper),
        "total_impuestos": money(totals.taxes),
        "total_valor": money(totals.value),
        "subtotal_venta": money(totals.subtotal),
        "total_venta": money(totals.total),
    }


class _Entry(Protocol):
    def to_payload(self) -> dict[str, Any]: ...


def _now_time() -> dt.time:
    return peru_now().time().replace(microsecond=0, tzinfo=None)


@dataclass(frozen=True, kw_only=True)
class Builder:
    """Common part of the document builders (keyword arguments only).

    :param series: the document series; :param number: a concrete correlative, or ``None`` for ``"#"``
        (the next one, assigned by the service);
    :param issue_date: default today in Lima; :param issue_time: default now in Lima;
    :param send: ``acciones.enviar_xml_firmado`` (False: issue without sending to the authority);
    :param pdf_format: ``a4``, ``ticket`` or ``ticket_58``; :param exchange_rate:
        ``factor_tipo_de_cambio`` (USD documents); :param extra: top-level keys added last (they win).
    """

    DOCUMENT_TYPE: ClassVar[str] = ""

    series: str
    customer: Customer
    lines: Sequence[Line]
    currency: str = "PEN"
    issue_date: dt.date = field(default_factory=peru_today)
    issue_time: dt.time = field(default_factory=_now_time)
    number: int | None = None
    send: bool = True
    pdf_format: str = "a4"
    exchange_rate: Decimal | float | str | None = None
    discounts: Sequence[Discount] = ()
    charges: Sequence[Charge] = ()
    prepayments: Sequence[Prepayment] = ()
    related: Sequence[Related] = ()
    guides: Sequence[Guide] = ()
    payments: Sequence[Payment] = ()
    #: A sale (or note) on credit: ``codigo_condicion_de_pago`` 02 and these ``cuotas``.
    instalments: Sequence[Instalment] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def document_type(self) -> str:
        """Catalog 01 code: ``01`` factura, ``03`` boleta, ``07`` credit note, ``08`` debit note."""
        return self.DOCUMENT_TYPE

    def line_amounts(self) -> list[LineAmounts]:
        """Amounts of every line (``sunat.totals.compute_line``)."""
        if not self.lines:
            raise ValueError("a document needs at least one line")
        return [line.amounts(self.issue_date) for line in self.lines]

    def global_discounts(self) -> list[Discount]:
        """The global discounts, with a discount 04 for the advances when none of 04-06 is given."""
        discounts = list(self.discounts)
        if self.prepayments and not any(d.code in catalogs.PREPAYMENT_DISCOUNTS for d in discounts):
            deducted = sum((to_decimal(p.amount) for p in self.prepayments), Decimal("0"))
            discounts.append(Discount("04", deducted, deducted, 1, "Anticipos"))
        return discounts

    def allowances(self) -> list[Allowance]:
        return [d.allowance() for d in (*self.global_discounts(), *self.charges)]

    def totals(self) -> DocumentTotals:
        """Header totals (``sunat.totals.compute_totals``, with the global discounts, charges, advances)."""
        prepaid = sum((to_decimal(p.amount) for p in self.prepayments), Decimal("0"))
        return compute_totals(self.line_amounts(), self.allowances(), prepaid=prepaid)

    def _header(self) -> dict[str, Any]:
        return {}

    def to_payload(self) -> dict[str, Any]:
        """The Spanish wire payload of ``POST /api/documents`` (a new dict each call)."""
        amounts = self.line_amounts()
        totals = self.totals()
        payload: dict[str, Any] = {
            "serie_documento": self.series,
            "numero_documento": "#" if self.number is None else str(self.number),
            "fecha_de_emision": self.issue_date.isoformat(),
            "hora_de_emision": self.issue_time.strftime("%H:%M:%S"),
            "codigo_tipo_documento": self.document_type,
            "codigo_tipo_moneda": self.currency,
        }
        payload.update(self._header())
        if self.exchange_rate is not None:
            payload["factor_tipo_de_cambio"] = float(to_decimal(self.exchange_rate))
        payload["datos_del_cliente_o_receptor"] = self.customer.to_payload()
        payload["totales"] = totals_payload(totals)
        payload["items"] = [line.to_payload(a) for line, a in zip(self.lines, amounts, strict=True)]
        legends = ["1002"] if any(line.free for line in self.lines) else []
        if getattr(self, "detraction", None) is not None:
            legends.append("2006")  # without it SUNAT observes the detraction (4265)
        if legends:
            payload["leyendas"] = [{"codigo": code, "valor": catalogs.LEGENDS[code]} for code in legends]
        blocks: dict[str, Sequence[_Entry]] = {
            "descuentos": self.global_discounts(),
            "cargos": self.charges,
            "anticipos": self.prepayments,
            "relacionados": self.related,
            "guias": self.guides,
            "pagos": self.payments,
        }
        for key, entries in blocks.items():
            if entries:
                payload[key] = [entry.to_payload() for entry in entries]
        payload.update(self._credit_blocks(totals))
        payload["acciones"] = {"enviar_xml_firmado": self.send, "formato_pdf": self.pdf_format}
        payload.update(dict(self.extra))
        return payload

    def _credit_blocks(self, totals: DocumentTotals) -> dict[str, Any]:
        """``codigo_condicion_de_pago`` 02 and ``cuotas`` when the document is on credit."""
        if not self.instalments:
            return {}
        return {
            "codigo_condicion_de_pago": "02",
            "cuotas": [i.to_payload(self.currency) for i in self.instalments],
        }


@dataclass(frozen=True, kw_only=True)
class _Sale(Builder):
    operation_type: str = "0101"
    due_date: dt.date | None = None
    purchase_order: str = ""
    #: SPOT detraction; the operation type becomes 1001 (1004 with a trip) unless another is given.
    detraction: Detraction | None = None

    @property
    def operation(self) -> str:
        """The operation type (catalog 51), 1001 / 1004 for a detraction given with the default 0101."""
        if self.detraction is not None and self.operation_type == "0101":
            return "1004" if self.detraction.trip is not None else "1001"
        return self.operation_type

    def pending_amount(self) -> Decimal:
        """Monto neto pendiente de pago: the total less the detraction (in soles, converted with
        ``exchange_rate`` outside soles); what the instalments must add up to."""
        total = self.totals().total
        if self.detraction is None:
            return total
        return total - self.detraction.in_document_currency(total, self.currency, self.exchange_rate)

    def _credit_blocks(self, totals: DocumentTotals) -> dict[str, Any]:
        blocks = super()._credit_blocks(totals)
        if self.detraction is not None:
            blocks["detraccion"] = self.detraction.to_payload(totals.total, self.currency, self.exchange_rate)
        return blocks

    def _header(self) -> dict[str, Any]:
        header: dict[str, Any] = {
            "codigo_tipo_operacion": self.operation,
            # NOT NULL in real tenants (invoices.date_of_due): the issue date when none is given
            "fecha_de_vencimiento": (self.due_date or self.issue_date).isoformat(),
        }
        if self.purchase_order:
            header["numero_orden_de_compra"] = self.purchase_order
        return header


@dataclass(frozen=True, kw_only=True)
class Invoice(_Sale):
    """A factura (01). Default series ``F001``, operation ``0101`` (``0200`` for exports)."""

    DOCUMENT_TYPE: ClassVar[str] = "01"
    series: str = "F001"


@dataclass(frozen=True, kw_only=True)
class Receipt(_Sale):
    """A boleta de venta (03). Default series ``B001``."""

    DOCUMENT_TYPE: ClassVar[str] = "03"
    series: str = "B001"


@dataclass(frozen=True, kw_only=True)
class _Note(Builder):
    affected_external_id: str | None = None
    affected: tuple[str, str, int | str] | None = None
    note_type: str = "01"
    reason: str = ""

    def __post_init__(self) -> None:
        if (self.affected_external_id is None) == (self.affected is None):
            raise ValueError(
                "a note needs exactly one of affected_external_id or affected=(doc_type, series, number)"
            )
        if not self.reason:
            raise ValueError("a note needs a reason (motivo_o_sustento_de_nota)")

    def _header(self) -> dict[str, Any]:
        if self.affected_external_id is not None:
            affected: dict[str, Any] = {"external_id": self.affected_external_id}
        else:
            assert self.affected is not None
            doc_type, series, number = self.affected
            affected = {
                "serie_documento": series,
                "numero_documento": str(number),
                "codigo_tipo_documento": doc_type,
            }
        return {
            "codigo_tipo_nota": self.note_type,
            "motivo_o_sustento_de_nota": self.reason,
            "documento_afectado": affected,
        }


@dataclass(frozen=True, kw_only=True)
class CreditNote(_Note):
    """A credit note (07), catalog 09 ``note_type``. Default series ``FC01`` (``BC01`` for boletas)."""

    DOCUMENT_TYPE: ClassVar[str] = "07"
    series: str = "FC01"


@dataclass(frozen=True, kw_only=True)
class DebitNote(_Note):
    """A debit note (08), catalog 10 ``note_type``. Default series ``FD01`` (``BD01`` for boletas)."""

    DOCUMENT_TYPE: ClassVar[str] = "08"
    series: str = "FD01"


@dataclass(frozen=True)
class Instalment:
    """A ``cuota`` of a document on credit, in the document's currency: ``Instalment(date, 59)``."""

    due_date: dt.date
    amount: Decimal | float | int | str

    def to_payload(self, currency: str) -> dict[str, Any]:
        return {
            "fecha": self.due_date.isoformat(),
            "codigo_tipo_moneda": currency,
            "monto": money(to_decimal(self.amount)),
        }


@dataclass(frozen=True)
class CargoTrip:
    """The trip of a cargo transport service subject to detraction (operation 1004): origin and
    destination (ubigeo of catalog 13 and address), what is carried, and the three reference values
    (the transport service, the effective load, the nominal payload)."""

    detail: str
    origin_ubigeo: str
    origin_address: str
    destination_ubigeo: str
    destination_address: str
    service_value: Decimal | float | int | str
    effective_load_value: Decimal | float | int | str
    payload_value: Decimal | float | int | str

    def to_payload(self) -> dict[str, Any]:
        return {
            "detalle_viaje": self.detail,
            "direccion_origen": self.origin_address,
            "ubigeo_origen": self.origin_ubigeo,
            "direccion_destino": self.destination_address,
            "ubigeo_destino": self.destination_ubigeo,
            "valor_referencial_servicio_transporte": money(to_decimal(self.service_value)),
            "valor_referencia_carga_efectiva": money(to_decimal(self.effective_load_value)),
            "valor_referencial_carga_util": money(to_decimal(self.payload_value)),
        }


@dataclass(frozen=True)
class Detraction:
    """SPOT detraction (``detraccion``): catalog 54 ``code``, ``percent`` of the total, deposited in the
    issuer's Banco de la Nación ``account``. ``amount`` (soles) defaults to ``percent`` of the total
    (converted with the exchange rate outside soles); ``trip`` makes it cargo transport (1004)."""

    code: str
    percent: Decimal | float | int | str
    account: str
    payment_means: str = "001"
    amount: Decimal | float | int | str | None = None
    trip: CargoTrip | None = None

    def in_soles(self, total: Decimal, currency: str, exchange_rate: Any) -> Decimal:
        """The detraction in soles for a document ``total``."""
        if self.amount is not None:
            return round2(to_decimal(self.amount))
        rate = Decimal("1") if currency == "PEN" else to_decimal(exchange_rate or 0)
        if rate <= 0:
            raise ValueError("a detraction outside soles needs the exchange rate (factor_tipo_de_cambio)")
        return detraction_amount(total, to_decimal(self.percent), rate)

    def in_document_currency(self, total: Decimal, currency: str, exchange_rate: Any) -> Decimal:
        """The detraction in the document's currency (what it withholds from the pending amount)."""
        soles = self.in_soles(total, currency, exchange_rate)
        return soles if currency == "PEN" else round2(soles / to_decimal(exchange_rate))

    def to_payload(self, total: Decimal, currency: str, exchange_rate: Any) -> dict[str, Any]:
        block: dict[str, Any] = {
            "codigo_tipo_detraccion": self.code,
            "porcentaje": unit(to_decimal(self.percent)),
            "monto": money(self.in_soles(total, currency, exchange_rate)),
            "codigo_metodo_pago": self.payment_means,
            "cuenta_bancaria": self.account,
        }
        if self.trip is not None:
            block.update(self.trip.to_payload())
        return block
