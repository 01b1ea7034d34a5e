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
  issue date, in ``total_impuestos_bolsa_plastica`` of the line and of ``totales``.

Amounts are Decimal until the JSON edge: totals are written as JSON numbers with two decimals, unit
values and prices with up to ten. ``extra`` adds or overrides top-level keys of the payload (e.g.
``{"informacion_adicional": "..."}``); :meth:`to_payload` returns a new dict every call.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from sunat import catalogs
from sunat.calendar import peru_now, peru_today
from sunat.money import round2, to_decimal
from sunat.rates import IGV_PERCENT, icbper_rate
from sunat.totals import DocumentTotals, LineAmounts, compute_line, compute_totals

__all__ = ["Builder", "CreditNote", "Customer", "DebitNote", "Invoice", "Line", "Receipt"]


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

    def __post_init__(self) -> None:
        if (self.unit_price is None) == (self.unit_value is None):
            raise ValueError(f"line {self.description!r}: give exactly one of unit_price or unit_value")
        if self.affectation not in catalogs.AFFECTATIONS:
            raise ValueError(f"line {self.description!r}: affectation {self.affectation!r} not in catalog 07")

    @property
    def free(self) -> bool:
        """True for non-onerous (free) lines."""
        return catalogs.is_free(self.affectation)

    def amounts(self, on: dt.date) -> LineAmounts:
        """The line's amounts by :func:`sunat.totals.compute_line` for an issue date."""
        return compute_line(
            self.quantity,
            self.affectation,
            unit_value=self.unit_value,
            unit_price=self.unit_price,
            igv_percent=IGV_PERCENT if self.igv_percent is None else self.igv_percent,
            icbper_rate=icbper_rate(on) if self.bag_tax else Decimal("0"),
        )

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
        return item


def _totals_payload(totals: DocumentTotals) -> dict[str, Any]:
    return {
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

    def totals(self) -> DocumentTotals:
        """Header totals (``sunat.totals.compute_totals``)."""
        return compute_totals(self.line_amounts())

    def _header(self) -> dict[str, Any]:
        return {}

    def to_payload(self) -> dict[str, Any]:
        """The Spanish wire payload of ``POST /api/documents`` (a new dict each call)."""
        amounts = self.line_amounts()
        totals = compute_totals(amounts)
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
        payload["totales"] = _totals_payload(totals)
        payload["items"] = [line.to_payload(a) for line, a in zip(self.lines, amounts, strict=True)]
        if any(line.free for line in self.lines):
            payload["leyendas"] = [{"codigo": "1002", "valor": catalogs.LEGENDS["1002"]}]
        payload["acciones"] = {"enviar_xml_firmado": self.send, "formato_pdf": self.pdf_format}
        payload.update(dict(self.extra))
        return payload


@dataclass(frozen=True, kw_only=True)
class _Sale(Builder):
    operation_type: str = "0101"
    due_date: dt.date | None = None
    purchase_order: str = ""

    def _header(self) -> dict[str, Any]:
        header: dict[str, Any] = {
            "codigo_tipo_operacion": self.operation_type,
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
