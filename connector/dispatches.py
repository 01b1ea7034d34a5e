"""Dispatch guides (guías de remisión electrónicas): builders, typed answers and ``client.dispatches``.

A guide is built with :class:`SenderGuide` (09, remitente: the company sends its own goods) or
:class:`CarrierGuide` (31, transportista: the company carries someone else's), issued in state 01, sent
to SUNAT's GRE REST API, and its ticket followed until SUNAT answers (``docs/dispatch_guides.md``)::

    from connector.dispatches import Driver, Place, PrivateTransport, SenderGuide, GuideItem, Party

    guide = SenderGuide(
        customer=Party("6", "20100070970", "CLIENTE S.A.C."),
        origin=Place("150101", "Av. Principal 123", establishment="0000"),
        delivery=Place("150132", "Jr. Los Olivos 456"),
        transport=PrivateTransport(Driver("1", "12345678", "PEREZ, JUAN", "Q12345678"), plate="ABC123"),
        weight="25.5",
        items=[GuideItem("Mercadería", 10, code="ASD")],
    )
    ref = client.dispatches.issue(guide)             # GuideRef: number, external_id, links
    # or, for an accepted factura: the same guide with its customer, lines and reference filled in
    guide = client.dispatches.from_document(factura_external_id, origin=..., delivery=..., transport=...,
                                            weight="25.5")
    sent = client.dispatches.send(ref.external_id)   # GuideSent: the ticket
    status = sent.wait(timeout=30)                   # GuideStatus once SUNAT answered
    status.accepted, status.message, status.qr_url   # 05 with the CDR's QR link, or 09 and SUNAT's error

Issuing runs the family's plugin pipeline (``facturador_prepare_payload`` →
``facturador_validate_payload`` → POST → ``facturador_issued`` with the :class:`GuideRef`), as documents
do.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from connector.documents import DocumentsResource
from connector.errors import NotFoundError
from connector.http import Connection
from connector.lists import RecordList
from connector.models import DocumentRecord, TicketFamily, WaitsForItself
from connector.parsing import coerce_date, data_of, links_of, parse_date, text
from connector.resources import FilesResource, offered
from connector.states import State, WithState
from connector.tickets import PolledResource
from sunat.calendar import peru_now, peru_today

__all__ = [
    "CarrierGuide",
    "DispatchesResource",
    "Driver",
    "GuideItem",
    "GuideRecord",
    "GuideRef",
    "GuideSent",
    "GuideStatus",
    "Party",
    "Place",
    "PrivateTransport",
    "PublicTransport",
    "RelatedDocument",
    "SenderGuide",
]

#: The message real tenants and this service give while SUNAT still processes a guide.
IN_PROCESS_MESSAGE = "La guía aún está en proceso, vuelva a consultar."


# -- builders -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Party:
    """A person or company: identity type (catalog 06: "6" RUC, "1" DNI...), number and name."""

    identity_type: str
    number: str
    name: str

    def wire(self) -> dict[str, str]:
        return {
            "codigo_tipo_documento_identidad": self.identity_type,
            "numero_documento": self.number,
            "apellidos_y_nombres_o_razon_social": self.name,
        }


@dataclass(frozen=True)
class Place:
    """A starting or arrival point: ubigeo (INEI, 6 digits), address (up to 100 characters) and, for an
    establishment of the issuer, its SUNAT code (``"0000"``)."""

    ubigeo: str
    address: str
    establishment: str = ""

    def wire(self) -> dict[str, str]:
        place = {"ubigeo": self.ubigeo, "direccion": self.address}
        if self.establishment:
            place["codigo_del_domicilio_fiscal"] = self.establishment
        return place


@dataclass(frozen=True)
class Driver:
    """A driver: identity document, names as ``"APELLIDOS, NOMBRES"`` and licence."""

    identity_type: str
    number: str
    names: str
    licence: str
    phone: str = ""

    def wire(self) -> dict[str, str]:
        return {
            "codigo_tipo_documento_identidad": self.identity_type,
            "numero_documento": self.number,
            "nombres": self.names,
            "numero_licencia": self.licence,
            **({"telefono": self.phone} if self.phone else {}),
        }


@dataclass(frozen=True)
class PublicTransport:
    """Mode 01: a carrier company (RUC) moves the goods; ``mtc`` its MTC registration."""

    carrier: Party
    mtc: str = ""

    mode: ClassVar[str] = "01"


@dataclass(frozen=True)
class PrivateTransport:
    """Mode 02 (and every carrier guide): the main driver and plate, secondary ones (up to 2 each) and
    the vehicle's certificate (TUC)."""

    driver: Driver
    plate: str
    secondary_drivers: Sequence[Driver] = ()
    secondary_plates: Sequence[str] = ()
    certificate: str = ""

    mode: ClassVar[str] = "02"

    def wire(self) -> dict[str, Any]:
        vehicle = {"numero_de_placa": self.plate}
        if self.certificate:
            vehicle["certificado_habilitacion_vehicular"] = self.certificate
        return {
            "chofer": self.driver.wire(),
            "vehiculo": vehicle,
            "chofer_secundario": [d.wire() for d in self.secondary_drivers],
            "vehiculo_secundario": [{"numero_de_placa": p} for p in self.secondary_plates],
        }


@dataclass(frozen=True)
class GuideItem:
    """A line: description, quantity, unit (catalog 03, ``NIU`` by default), internal code."""

    description: str
    quantity: Decimal | int | float | str
    unit: str = "NIU"
    code: str = ""
    sunat_code: str = ""

    def wire(self) -> dict[str, Any]:
        item: dict[str, Any] = {
            "descripcion": self.description,
            "unidad_de_medida": self.unit,
            "cantidad": str(Decimal(str(self.quantity))),
        }
        if self.code:
            item["codigo_interno"] = self.code
        if self.sunat_code:
            item["codigo_producto_sunat"] = self.sunat_code
        return item


@dataclass(frozen=True)
class RelatedDocument:
    """A document related to the transfer (catalog 61: "01" factura, "03" boleta, "50" DAM...)."""

    doc_type: str
    number: str
    ruc: str = ""
    description: str = ""

    def wire(self) -> dict[str, Any]:
        return {
            "numero": self.number,
            "ruc": self.ruc,
            "documento": {"id": self.doc_type, "descripcion": self.description},
        }


@dataclass(frozen=True)
class _Guide:
    origin: Place
    delivery: Place
    weight: Decimal | int | float | str
    items: Sequence[GuideItem]
    weight_unit: str = "KGM"
    series: str = ""
    number: int | None = None
    issue_date: dt.date | str | None = None
    start_date: dt.date | str | None = None
    packages: int | None = None
    note: str = ""
    related: Sequence[RelatedDocument] = ()
    establishment: str = "0000"

    doc_type: ClassVar[str] = ""
    default_series: ClassVar[str] = ""

    def _common(self) -> dict[str, Any]:
        issued = coerce_date(self.issue_date, "issue_date") if self.issue_date else peru_today()
        start = coerce_date(self.start_date, "start_date") if self.start_date else issued
        payload: dict[str, Any] = {
            "serie_documento": self.series or self.default_series,
            "numero_documento": "#" if self.number is None else str(self.number),
            "fecha_de_emision": issued.isoformat(),
            "hora_de_emision": peru_now().strftime("%H:%M:%S"),
            "codigo_tipo_documento": self.doc_type,
            "datos_del_emisor": {"codigo_del_domicilio_fiscal": self.establishment},
            "fecha_de_traslado": start.isoformat(),
            "unidad_peso_total": self.weight_unit,
            "peso_total": str(Decimal(str(self.weight))),
            "direccion_partida": self.origin.wire(),
            "direccion_llegada": self.delivery.wire(),
            "items": [item.wire() for item in self.items],
        }
        if self.packages:
            payload["numero_de_bultos"] = self.packages
        if self.note:
            payload["observaciones"] = self.note
        if self.related:
            payload["documento_relacionado"] = [r.wire() for r in self.related]
        return payload


@dataclass(frozen=True)
class SenderGuide(_Guide):
    """A sender's guide (09, ``POST /api/dispatches``): ``customer`` receives the goods, ``reason`` is
    catalog 20 (``"01"`` sale, ``"04"`` between establishments...), ``transport`` public (a carrier) or
    private (a driver and a vehicle)."""

    customer: Party = field(default_factory=lambda: Party("", "", ""))
    transport: PublicTransport | PrivateTransport | None = None
    reason: str = "01"
    reason_description: str = ""
    #: The factura or boleta (of the same company) the goods belong to, by its external_id: sent as
    #: ``documento_afectado`` (P9's key); the service adds it as related document and does not move the
    #: stock a second time.
    document_external_id: str = ""

    doc_type: ClassVar[str] = "09"
    default_series: ClassVar[str] = "T001"

    def to_payload(self) -> dict[str, Any]:
        """The wire payload of ``POST /api/dispatches``."""
        if self.transport is None:
            raise ValueError("a sender's guide needs a transport (PublicTransport or PrivateTransport)")
        payload = self._common()
        payload["datos_del_cliente_o_receptor"] = self.customer.wire()
        payload["codigo_motivo_traslado"] = self.reason
        if self.reason_description:
            payload["descripcion_motivo_traslado"] = self.reason_description
        payload["codigo_modo_transporte"] = self.transport.mode
        if self.document_external_id:
            payload["documento_afectado"] = {"external_id": self.document_external_id}
        if isinstance(self.transport, PublicTransport):
            payload["transportista"] = {**self.transport.carrier.wire(), "numero_mtc": self.transport.mtc}
        else:
            payload.update(self.transport.wire())
        return payload


@dataclass(frozen=True)
class CarrierGuide(_Guide):
    """A carrier's guide (31, ``POST /api/dispatch-carrier``): ``sender`` hands the goods over,
    ``recipient`` receives them; the issuer drives (``transport``) and ``mtc`` is its registration."""

    sender: Party = field(default_factory=lambda: Party("", "", ""))
    recipient: Party = field(default_factory=lambda: Party("", "", ""))
    transport: PrivateTransport | None = None
    mtc: str = ""
    freight_payer: str = "Remitente"

    doc_type: ClassVar[str] = "31"
    default_series: ClassVar[str] = "V001"

    def to_payload(self) -> dict[str, Any]:
        """The wire payload of ``POST /api/dispatch-carrier``."""
        if self.transport is None:
            raise ValueError("a carrier's guide needs a PrivateTransport (driver and vehicle)")
        payload = self._common()
        payload["datos_remitente"] = self.sender.wire()
        payload["datos_destinatario"] = self.recipient.wire()
        payload.update(self.transport.wire())
        if self.mtc:
            payload["numero_mtc"] = self.mtc
        if self.freight_payer:
            payload["pagador_flete"] = {"indicador_pagador_flete": self.freight_payer}
        return payload


# -- typed answers ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GuideRef:
    """The answer to issuing a guide: ``number`` (``T001-1``), ``filename``, ``external_id``, the
    ``links`` of its XML and PDF; ``raw`` is the whole answer."""

    number: str
    filename: str
    external_id: str
    links: dict[str, str]
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_body(cls, body: Mapping[str, Any], url: str | None = None) -> GuideRef:
        """Build from the JSON answer; :class:`~connector.errors.ServerError` without
        ``data.external_id``."""
        data = data_of(body, url, required="external_id")
        return cls(
            text(data.get("number")),
            text(data.get("filename")),
            str(data["external_id"]),
            links_of(body, keep_empty=False),
            dict(body),
        )


@dataclass(frozen=True)
class GuideSent(WaitsForItself["GuideStatus"]):
    """The answer to sending a guide: SUNAT's ``ticket`` and the service's ``message``; :meth:`wait`
    asks how it went until SUNAT answers (``resource``: the client's dispatches that sent it)."""

    external_id: str
    ticket: str
    message: str
    raw: dict[str, Any] = field(repr=False)
    resource: TicketFamily[GuideStatus] | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class GuideStatus(WithState):
    """How a guide's ticket stands: ``processing`` while SUNAT works on it (state 03), else
    ``accepted`` (05, ``qr_url`` is the CDR's QR link) or rejected (09, ``message`` is SUNAT's error);
    ``links`` has the ``xml``, ``pdf`` and ``cdr`` URLs."""

    external_id: str
    state_type_id: str
    message: str
    processing: bool
    ticket: str = ""
    qr_url: str = ""
    links: dict[str, str] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def accepted(self) -> bool | None:
        """True (05), False (09), None while in process."""
        return None if self.processing else self.state is State.ACCEPTED


@dataclass(frozen=True)
class GuideRecord(WithState):
    """A row of ``GET /api/dispatches/lists/{start}/{end}`` (this service)."""

    external_id: str
    number: str
    document_type_id: str
    date_of_issue: dt.date | None
    state_type_id: str
    customer_number: str
    customer_name: str
    ticket: str
    qr_url: str
    total_weight: Decimal
    links: dict[str, str]

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> GuideRecord:
        """Build from a list row."""
        return cls(
            external_id=str(row.get("external_id") or ""),
            number=str(row.get("number") or ""),
            document_type_id=str(row.get("document_type_id") or ""),
            date_of_issue=parse_date(row.get("date_of_issue")),
            state_type_id=str(row.get("state_type_id") or ""),
            customer_number=str(row.get("customer_number") or ""),
            customer_name=str(row.get("customer_name") or ""),
            ticket=str(row.get("ticket") or ""),
            qr_url=str(row.get("qr_url") or ""),
            total_weight=Decimal(str(row.get("total_weight") or "0")),
            links=links_of(row, keep_empty=False),
        )


# -- the resource -------------------------------------------------------------------------------------


class DispatchesResource(PolledResource["GuideStatus"], FilesResource):
    """``client.dispatches``: issue sender's (09) and carrier's (31) guides, send them, follow their
    tickets (:meth:`status`, :meth:`wait`, or the :class:`GuideSent`'s own ``wait``), list and download."""

    family: ClassVar[str] = "dispatches"
    files: ClassVar[str] = "dispatch"

    def issue(
        self,
        guide: SenderGuide | CarrierGuide | Mapping[str, Any],
        *,
        form_values: Mapping[str, Any] | None = None,
    ) -> GuideRef:
        """Issue a guide (state 01, not sent) from a builder or a raw payload; never retried.

        :raises ValidationError: plugins found problems (nothing sent), or the service refused a field.
        """
        if isinstance(guide, SenderGuide | CarrierGuide):
            payload, path = (
                guide.to_payload(),
                ("/api/dispatches" if guide.doc_type == "09" else "/api/dispatch-carrier"),
            )
        else:
            payload = dict(guide)
            path = (
                "/api/dispatch-carrier"
                if str(payload.get("codigo_tipo_documento")) == "31"
                else "/api/dispatches"
            )
        carrier = path == "/api/dispatch-carrier"
        return self._submit(
            path,
            payload,
            lambda reply: GuideRef.from_body(reply.body, reply.url),
            form_values=form_values,
            what="la guía",
            check="Revise las guías de la empresa antes de emitirla otra vez.",
            changes=(self.lists_tag,),
            offered_as="la guía del transportista" if carrier else "las guías de remisión",
        )

    def from_document(
        self,
        document: str | DocumentRecord,
        *,
        origin: Place,
        delivery: Place,
        transport: PublicTransport | PrivateTransport,
        weight: Decimal | int | float | str,
        reason: str = "01",
        reason_description: str = "Venta",
        days: int = 31,
        **options: Any,
    ) -> SenderGuide:
        """A sender's guide (not issued) for an accepted factura or boleta: its customer receives the
        goods of its lines (those with quantity), and the document goes as ``document_external_id``.
        ``document`` is an external_id (looked for among the documents of the last ``days`` days) or a
        :class:`DocumentRecord`; ``options`` are other :class:`SenderGuide` fields (``packages``,
        ``note``, ``start_date``...). Issue it with :meth:`issue`.

        :raises NotFoundError: no such document in those days.
        :raises ValueError: the document is not an accepted (05/07) factura or boleta, or has no lines.
        """
        external_id = document if isinstance(document, str) else document.external_id
        around = peru_today() if isinstance(document, str) else (document.date_of_issue or peru_today())
        first = around - dt.timedelta(days=days if isinstance(document, str) else 0)
        listed = DocumentsResource(self._http, self._plugins).list(first, around, fresh=True, details=True)
        row = next((r for r in listed.rows if r.get("external_id") == external_id), None)
        if row is None:
            raise NotFoundError(
                f"No se encontró el comprobante {external_id} de los últimos {days} días.", url=listed.url
            )
        record = DocumentRecord.from_row(row)
        if record.document_type_id not in ("01", "03"):
            raise ValueError(f"{record.number} no es una factura ni una boleta")
        if record.state_type_id not in ("05", "07"):
            raise ValueError(f"{record.number} aún no fue aceptado por SUNAT (estado {record.state_type_id})")
        items = [
            GuideItem(
                str(item.get("description") or ""),
                Decimal(str(item["quantity"])),
                str(item.get("unit_type_id") or "NIU"),
                str(item.get("internal_id") or ""),
            )
            for item in row.get("items") or []
            if isinstance(item, Mapping) and item.get("quantity") not in (None, "", 0)
        ]
        if not items:
            raise ValueError(f"{record.number} no trae sus líneas (el servicio no dio ?details=1)")
        return SenderGuide(
            origin=origin,
            delivery=delivery,
            weight=weight,
            items=items,
            customer=Party(
                record.customer_identity_type or "6", record.customer_number, record.customer_name
            ),
            transport=transport,
            reason=reason,
            reason_description=reason_description,
            document_external_id=record.external_id,
            **options,
        )

    def send(self, external_id: str) -> GuideSent:
        """Send a registered guide to SUNAT (``POST /api/dispatches/send``): its ticket. Never retried.

        :raises FacturadorError: unknown guide, already sent (409), or SUNAT's API refused (502).
        """
        with offered("el envío de guías a SUNAT"):
            response = self._http.post("/api/dispatches/send", {"external_id": external_id})
            body = Connection.json(response)
        raw_data = body.get("data")
        data: Mapping[str, Any] = raw_data if isinstance(raw_data, Mapping) else {}
        ticket = str(data.get("ticket") or "")
        if not ticket:
            message = str(body.get("message") or "")
            marker = "Ticket: "
            if marker in message:
                ticket = message.split(marker, 1)[1].split(",", 1)[0].strip()
        return GuideSent(external_id, ticket, text(body.get("message")), dict(body), resource=self)

    def status(self, *, external_id: str | None = None, ticket: str | None = None) -> GuideStatus:
        """How the guide's ticket stands (``POST /api/dispatches/status_ticket``); retried like a read.
        In process (this service's 202, real tenants' state 03) is ``processing=True``, not an error."""
        if not external_id:
            raise ValueError("status() of a guide needs its external_id")
        with offered("la consulta de tickets de guías"):
            response = self._http.poll("/api/dispatches/status_ticket", {"external_id": external_id})
            if response.status_code == 202:
                body = Connection.body(response)
            else:
                body = Connection.json(response)
        body = dict(body) if isinstance(body, Mapping) else {}
        raw_data = body.get("data")
        data: Mapping[str, Any] = raw_data if isinstance(raw_data, Mapping) else {}
        state = str(data.get("state_type_id") or "")
        message = str(body.get("message") or "")
        processing = response.status_code == 202 or state == "03" or message == IN_PROCESS_MESSAGE
        return GuideStatus(
            external_id=external_id,
            state_type_id=state or "03",
            message=message,
            processing=processing,
            ticket=str(data.get("ticket") or ticket or ""),
            qr_url=str(data.get("qr_url") or ""),
            links=links_of(body, keep_empty=False),
            raw=body,
        )

    def list(self, start: dt.date | str, end: dt.date | str) -> RecordList[GuideRecord]:
        """Guides issued from ``start`` to ``end`` (``GET /api/dispatches/lists/{start}/{end}``; this
        service: real tenants raise :class:`~connector.errors.NotOfferedError`), newest first; always
        asked to the service."""
        first, last = coerce_date(start, "start"), coerce_date(end, "end")
        return self._list(
            f"/api/dispatches/lists/{first.isoformat()}/{last.isoformat()}",
            GuideRecord.from_row,
            fresh=True,
            offered_as="la lista de sus guías de remisión",
        )
