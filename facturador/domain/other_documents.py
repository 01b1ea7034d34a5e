"""Retentions (20) and perceptions (40): reading the request, numbering, signing, sending, storing.

``POST /api/retentions`` and ``POST /api/perceptions`` (``docs/facturador_pro_api.md``, retentions and
perceptions) are read with the declarations below: a malformed body is a 4xx naming each field and stores
nothing. The regime's rate comes from :mod:`sunat.withholding` (catalogs 23 / 22); each payment's amounts are
the client's when given (``total_retenido`` / ``total_percibido`` and ``total_a_pagar`` of the document) and
are computed with :func:`sunat.withholding.payment_amounts` otherwise, as are the header totals. What the
amounts mean is SUNAT's to judge: the document is sent as given, so a wrong rate, wrong totals or payment
dates outside the period are rejected by SUNAT's rules (a CDR with its code; the number is consumed, the
document is stored in state 09), as real tenants see.

Each document of ``documentos`` carries one payment (``pagos`` holds one element): SUNAT's XML takes one
payment per related document line, so a second payment of the same document is a second entry, numbered
2 (payments are counted per related document in order).

Issuing stores the document first, in one write transaction: the number is taken (``#``) or claimed, the
XML is built and signed with the tenant's certificate and the row is kept in state 01 (registered). Then,
with no transaction open, it is sent to the authority's other-documents ``sendBill``, and the answer is
stored: its state and CDR. An authority exception (not processed, e.g. 0109, or an answer lost on the way)
leaves the document registered, with the authority's code, to be sent again with the same number and XML
by the pending sender (``facturador send-pending``), as facturas are: a number is never given back nor
used twice.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol, runtime_checkable

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from facturador.authority.gateway import AuthorityError, AuthorityResponse, ResponseKind
from facturador.authority.packaging import zip_document
from facturador.context import Caller, ServiceContext, TenantInfo
from facturador.domain import failpoints, states
from facturador.domain.document_schema import AMOUNT, CUSTOMER, EXTERNAL_ID, SERIES
from facturador.domain.documents import Download
from facturador.domain.fields import Code, Date, List, Number, Object, Text, Time
from facturador.domain.numbering import claim_number, take_next_number
from facturador.domain.reader import Reader
from facturador.domain.send_policy import (
    CLAIM_SECONDS,
    NEEDS_A_PERSON,
    next_attempt,
    unproven_answers,
    utc_now,
)
from facturador.domain.summaries import (
    TICKET_QUERY,
    SummaryService,
    insert_summary,
    may_have_arrived,
    poll_delay,
)
from facturador.errors import FieldError, ServiceError, not_found
from facturador.issued import Issuer
from facturador.render.other_documents import OtherDocumentView, render_other_pdf
from facturador.store.models import (
    OTHER_DOCUMENT_REVERSALS,
    OTHER_DOCUMENTS,
    SUMMARIES,
    TENANTS,
    Establishment,
)
from facturador.store.registry import SqlRegistry
from facturador.ubl.retention import OtherDocument, PaymentLine, Receiver, sign_other_document
from facturador.ubl.summaries import VoidedCommunication, VoidedLine, sign_summary
from sunat import catalogs, withholding
from sunat.calendar import peru_now
from sunat.identity import identity_problem
from sunat.money import round2

RETENTION, PERCEPTION = withholding.RETENTION, withholding.PERCEPTION
FILE_KINDS = ("xml", "pdf", "cdr")
MAX_DOCUMENTS = 500
PEN = "PEN"


@dataclass(frozen=True)
class Family:
    """What differs between retentions and perceptions in the request and the answers."""

    doc_type: str
    noun: str  # "retención" / "percepción"
    party_key: str  # datos_del_proveedor / datos_del_cliente_o_receptor
    regime_key: str  # codigo_tipo_retencion / codigo_tipo_percepcion
    amount_key: str  # total_retenido / total_percibido
    date_key: str  # fecha_de_retencion / fecha_de_percepcion
    not_found_code: str
    body: Object


def _family(doc_type: str) -> Family:
    return FAMILIES[doc_type]


_NUMBER = Text(
    "# para el siguiente correlativo, o un número de 1 a 99999999.",
    required=True,
    pattern="^(#|[0-9]{1,8})$",
    pattern_message="El campo {path} debe ser # o un número entre 1 y 99999999.",
    check=lambda text: (
        None if text == "#" or int(text) > 0 else "El campo {path} debe ser # o un número entre 1 y 99999999."
    ),
)
_CURRENCY = Code(
    "Moneda.", required=True, codes=catalogs.CURRENCIES, catalog="catálogo 02 (ISO 4217)", upper=True
)
_OPTIONAL_AMOUNT = AMOUNT.but(absent=None, minimum="positive")


def _body(doc_type: str) -> Object:
    retention = doc_type == RETENTION
    noun = "retención" if retention else "percepción"
    amount_key = "total_retenido" if retention else "total_percibido"
    regimes = withholding.regimes(doc_type)
    payment = Object(
        name=f"{'Retention' if retention else 'Perception'}Payment",
        description="El pago del documento.",
        fields={
            "fecha_de_pago": Date("Fecha del pago.", required=True),
            "total_pago": AMOUNT.but(
                description="Importe pagado, en la moneda del documento.", required=True, minimum="positive"
            ),
            "codigo_tipo_moneda": _CURRENCY.but(description="Moneda del pago (la del documento)."),
        },
    )
    exchange = Object(
        name=f"{'Retention' if retention else 'Perception'}ExchangeRate",
        description="Tipo de cambio (obligatorio si el documento no está en soles).",
        fields={
            "codigo_tipo_moneda_referencia": _CURRENCY.but(description="Moneda del documento."),
            "codigo_tipo_moneda_objetivo": _CURRENCY.but(description="PEN."),
            "factor": Number(
                "Soles por unidad de la moneda.",
                integer_digits=4,
                decimals=6,
                minimum="positive",
                required=True,
                absent=None,
            ),
            "fecha_tipo_de_cambio": Date("Fecha del tipo de cambio.", required=True),
        },
    )
    related_types = catalogs.RETENTION_RELATED_TYPES if retention else catalogs.PERCEPTION_RELATED_TYPES
    related = Object(
        name=f"{'Retention' if retention else 'Perception'}Document",
        description="Un documento relacionado y su pago.",
        fields={
            "codigo_tipo_documento": Code(
                "Tipo del documento relacionado.", required=True, codes=related_types, catalog="catálogo 01"
            ),
            "serie_documento": Text(
                "Serie.",
                required=True,
                max_length=20,
                upper=True,
                pattern=r"^[A-Za-z0-9-]{1,20}$",
                pattern_message="El campo {path} debe tener letras y dígitos.",
            ),
            "numero_documento": Text(
                "Número.",
                required=True,
                pattern=r"^[0-9]{1,8}$",
                pattern_message="El campo {path} debe ser un número de hasta 8 dígitos.",
            ),
            "fecha_de_emision": Date("Fecha de emisión del documento.", required=True),
            "codigo_tipo_moneda": _CURRENCY.but(description="Moneda del documento."),
            "total_documento": AMOUNT.but(
                description="Importe total del documento.", required=True, minimum="positive"
            ),
            "pagos": List(
                "El pago (uno por entrada).",
                required=True,
                item=payment,
                max_items=1,
                min_items=1,
                max_message="Cada documento lleva un pago: repita el documento para otro pago.",
                min_message="El campo {path} debe tener un pago.",
            ),
            "tipo_de_cambio": exchange.but(required=False),
            f"fecha_de_{'retencion' if retention else 'percepcion'}": Date(
                f"Fecha de la {noun}.", required=True
            ),
            amount_key: _OPTIONAL_AMOUNT.but(
                description=f"Importe de la {noun} en soles; se calcula si se omite."
            ),
            "total_a_pagar": _OPTIONAL_AMOUNT.but(
                description=("Neto pagado al proveedor" if retention else "Total cobrado al cliente")
                + " en soles; se calcula si se omite."
            ),
            "total_pagado": _OPTIONAL_AMOUNT.but(description="Informativo (no va en el XML)."),
        },
    )
    party = CUSTOMER.but(
        name="RetentionSupplier" if retention else "PerceptionCustomer",
        description="El proveedor (con RUC)." if retention else "El cliente.",
    )
    return Object(
        name="RetentionBody" if retention else "PerceptionBody",
        description=f"Un comprobante de {noun} ({doc_type}).",
        required=True,
        fields={
            "serie_documento": SERIES.but(description="Serie registrada (R001 / P001).", required=True),
            "numero_documento": _NUMBER,
            "fecha_de_emision": Date("Fecha de emisión.", required=True),
            "hora_de_emision": Time("Hora de emisión (la actual si se omite)."),
            "codigo_tipo_documento": Code(
                f"{doc_type}.", codes={doc_type}, catalog=f"catálogo 01 ({doc_type})"
            ),
            "datos_del_emisor": Object(
                name=f"{'Retention' if retention else 'Perception'}Issuer",
                description="El establecimiento del emisor.",
                required=retention,
                fields={
                    "codigo_del_domicilio_fiscal": Text(
                        "Código del establecimiento (0000 el domicilio fiscal).",
                        required=retention,
                        pattern=r"^[0-9]{4}$",
                        pattern_message="El campo {path} debe tener 4 dígitos.",
                    ),
                },
            ),
            "datos_del_proveedor" if retention else "datos_del_cliente_o_receptor": party,
            f"codigo_tipo_{'retencion' if retention else 'percepcion'}": Code(
                f"Régimen de {noun}.",
                required=True,
                codes=regimes,
                catalog=f"catálogo {'23' if retention else '22'}",
            ),
            "observaciones": Text("Observaciones.", max_length=250),
            "totales": Object(
                name=f"{'Retention' if retention else 'Perception'}Totals",
                description="Totales en soles; se calculan si se omiten.",
                fields={
                    amount_key: _OPTIONAL_AMOUNT.but(description=f"Total de la {noun}."),
                    "total_pagado": _OPTIONAL_AMOUNT.but(
                        description="Total pagado (neto)" if retention else "Total cobrado"
                    ),
                },
            ),
            "documentos": List(
                "Los documentos relacionados.",
                required=True,
                item=related,
                max_items=MAX_DOCUMENTS,
                min_items=1,
                min_message="Debe enviar al menos un documento relacionado.",
            ),
        },
    )


FAMILIES: dict[str, Family] = {
    RETENTION: Family(
        RETENTION,
        "retención",
        "datos_del_proveedor",
        "codigo_tipo_retencion",
        "total_retenido",
        "fecha_de_retencion",
        "RETENTION_NOT_FOUND",
        _body(RETENTION),
    ),
    PERCEPTION: Family(
        PERCEPTION,
        "percepción",
        "datos_del_cliente_o_receptor",
        "codigo_tipo_percepcion",
        "total_percibido",
        "fecha_de_percepcion",
        "PERCEPTION_NOT_FOUND",
        _body(PERCEPTION),
    ),
}
RETENTION_BODY = FAMILIES[RETENTION].body
PERCEPTION_BODY = FAMILIES[PERCEPTION].body


@runtime_checkable
class OtherDocumentsGateway(Protocol):
    """An authority that takes retentions and perceptions (the otros-CPE ``sendBill``)."""

    def send_other_bill(self, filename: str, zip_bytes: bytes) -> AuthorityResponse:
        """Send one retention or perception zip; SUNAT's answer with its CDR."""
        ...


@dataclass(frozen=True)
class Request:
    """A read retention or perception request: what is written and stored."""

    series: str
    number: int | None
    issue_date: dt.date
    issue_time: dt.time
    establishment: str
    receiver: Receiver
    regime: str
    percent: Decimal
    note: str
    lines: tuple[PaymentLine, ...]
    total_amount: Decimal
    total_net: Decimal
    data: dict[str, Any]


def read_request(family: Family, body: Mapping[str, Any], now: dt.datetime) -> Request:
    """Check a body against the family's declaration and SUNAT's input rules; raise 4xx listing problems."""
    reader = Reader()
    values = family.body.read(reader, body, "")
    doc_type = family.doc_type
    party = values[family.party_key]
    if party["codigo_tipo_documento_identidad"] and party["numero_documento"]:
        if doc_type == RETENTION and party["codigo_tipo_documento_identidad"] != "6":
            reader.error(
                f"{family.party_key}.codigo_tipo_documento_identidad",
                "El proveedor de una retención se identifica con su RUC (6).",
            )
        else:
            # the RUC check digit is left to the authority, as for sales documents (SUNAT beta takes any)
            problem = identity_problem(
                party["codigo_tipo_documento_identidad"], party["numero_documento"], check_ruc_digit=False
            )
            if problem:
                reader.error(f"{family.party_key}.numero_documento", problem)
    regime = values[family.regime_key]
    lines: list[PaymentLine] = []
    payments_seen: dict[tuple[str, str], int] = {}
    for index, entry in enumerate(values["documentos"]):
        path = f"documentos.{index}"
        line = _line(reader, family, regime, entry, path, payments_seen)
        if line is not None:
            lines.append(line)
    reader.raise_if_errors()
    number_text = values["numero_documento"]
    totals = values["totales"]
    total_amount = totals[family.amount_key]
    total_net = totals["total_pagado"]
    # SUNAT's sums leave out credit notes and reversed documents
    counted = [line for line in lines if line.doc_type not in ("07", doc_type)]
    if total_amount is None:
        total_amount = sum((line.amount for line in counted), Decimal("0.00"))
    if total_net is None:
        total_net = sum((line.net for line in counted), Decimal("0.00"))
    issuer = values["datos_del_emisor"]
    raw = body.get("documentos") if isinstance(body, Mapping) else None
    data = {
        "party": {key: str(value) for key, value in party.items()},
        "documents": [_line_data(line) for line in lines],
        "request_documents": raw if isinstance(raw, list) else [],
    }
    return Request(
        series=values["serie_documento"],
        number=None if number_text == "#" else int(number_text),
        issue_date=values["fecha_de_emision"],
        issue_time=values["hora_de_emision"] or now.time().replace(microsecond=0),
        establishment=issuer["codigo_del_domicilio_fiscal"] or "",
        receiver=Receiver(
            identity_type=party["codigo_tipo_documento_identidad"],
            number=party["numero_documento"],
            name=party["apellidos_y_nombres_o_razon_social"],
            trade_name=party["nombre_comercial"],
            ubigeo=party["ubigeo"],
            address=party["direccion"],
            country=party["codigo_pais"] or "PE",
        ),
        regime=regime,
        percent=withholding.rate(doc_type, regime),
        note=values["observaciones"] if values["observaciones"] not in ("", "-") else "",
        lines=tuple(lines),
        total_amount=total_amount,
        total_net=total_net,
        data=data,
    )


def _line(
    reader: Reader,
    family: Family,
    regime: str,
    entry: Mapping[str, Any],
    path: str,
    payments_seen: dict[tuple[str, str], int],
) -> PaymentLine | None:
    currency = entry["codigo_tipo_moneda"]
    payments = entry["pagos"]
    if not payments or not currency or not regime:
        return None
    payment = payments[0]
    if payment["codigo_tipo_moneda"] and payment["codigo_tipo_moneda"] != currency:
        reader.error(
            f"{path}.pagos.0.codigo_tipo_moneda",
            f"El pago debe estar en la moneda del documento ({currency}).",
        )
        return None
    exchange = entry["tipo_de_cambio"]
    factor = exchange["factor"] if exchange else None
    if currency != PEN and factor is None:
        reader.error(
            f"{path}.tipo_de_cambio",
            f"El documento está en {currency}: envíe el tipo de cambio a soles (tipo_de_cambio.factor).",
        )
        return None
    if payment["total_pago"] is None or entry["fecha_de_emision"] is None or payment["fecha_de_pago"] is None:
        return None
    key = (entry["codigo_tipo_documento"], f"{entry['serie_documento']}-{entry['numero_documento']}")
    payments_seen[key] = payments_seen.get(key, 0) + 1
    computed = withholding.payment_amounts(
        family.doc_type, regime, payment["total_pago"], factor or Decimal(1)
    )
    amount = entry[family.amount_key]
    net = entry["total_a_pagar"]
    withheld_on = entry[family.date_key]
    if withheld_on is None:
        return None
    return PaymentLine(
        doc_type=key[0],
        document_id=key[1],
        issue_date=entry["fecha_de_emision"],
        currency=currency,
        total=entry["total_documento"],
        payment_number=payments_seen[key],
        payment=payment["total_pago"],
        payment_date=payment["fecha_de_pago"],
        amount=computed.amount if amount is None else amount,
        withheld_on=withheld_on,
        net=computed.net if net is None else net,
        exchange_rate=factor,
        exchange_date=exchange["fecha_tipo_de_cambio"] if exchange else None,
        source_currency=(exchange["codigo_tipo_moneda_referencia"] or currency) if exchange else currency,
        target_currency=(exchange["codigo_tipo_moneda_objetivo"] or PEN) if exchange else PEN,
    )


def _line_data(line: PaymentLine) -> dict[str, str]:
    return {
        "document_type": line.doc_type,
        "document": line.document_id,
        "issue_date": line.issue_date.isoformat(),
        "currency": line.currency,
        "total": f"{line.total:.2f}",
        "payment_number": str(line.payment_number),
        "payment": f"{line.payment:.2f}",
        "payment_date": line.payment_date.isoformat(),
        "amount": f"{round2(line.amount):.2f}",
        "net": f"{round2(line.net):.2f}",
        "exchange_rate": "" if line.exchange_rate is None else f"{line.exchange_rate:f}",
    }


@dataclass(frozen=True)
class Issued:
    """A stored retention or perception and SUNAT's answer."""

    row: Any
    has_cdr: bool


class OtherDocumentService:
    """Retentions and perceptions of a tenant: issue, list, files."""

    def __init__(self, context: ServiceContext):
        self.context = context

    def issue(self, tenant: TenantInfo, caller: Caller, doc_type: str, body: Mapping[str, Any]) -> Issued:
        """``POST /api/retentions`` / ``POST /api/perceptions`` (see the module doc)."""
        family = _family(doc_type)
        request = read_request(family, body, peru_now())
        issuer = self._issuer(tenant, request.establishment, doc_type)
        series_id = self.context.series_id(tenant, doc_type, request.series)
        if series_id is None:
            message = f"La serie {request.series} no está registrada para el tipo de documento {doc_type}."
            raise ServiceError(422, message, "SERIES_NOT_FOUND", [FieldError("serie_documento", message)])
        identity = self.context.identity(tenant)
        try:
            with self.context.writing() as connection:
                number = request.number
                if number is None:
                    number = take_next_number(connection, series_id)
                    if number is None:
                        message = f"La serie {request.series} ya usó su último número (99999999)."
                        raise ServiceError(
                            422, message, "SERIES_EXHAUSTED", [FieldError("serie_documento", message)]
                        )
                else:
                    used = connection.execute(
                        select(OTHER_DOCUMENTS.c.id).where(
                            OTHER_DOCUMENTS.c.tenant_id == tenant.id,
                            OTHER_DOCUMENTS.c.document_type_id == doc_type,
                            OTHER_DOCUMENTS.c.series == request.series,
                            OTHER_DOCUMENTS.c.number == number,
                        )
                    ).first()
                    if used is not None:
                        raise _duplicate(request.series, number)
                    claim_number(connection, series_id, number)
                document = OtherDocument(
                    doc_type=doc_type,
                    issuer=issuer,
                    series=request.series,
                    number=number,
                    issue_date=request.issue_date,
                    issue_time=request.issue_time,
                    receiver=request.receiver,
                    regime=request.regime,
                    percent=request.percent,
                    total_amount=request.total_amount,
                    total_net=request.total_net,
                    lines=request.lines,
                    note=request.note,
                )
                signed = sign_other_document(document, identity)
                values = {
                    "tenant_id": tenant.id,
                    "external_id": str(uuid.uuid4()),
                    "user_id": caller.user_id,
                    "document_type_id": doc_type,
                    "series": request.series,
                    "number": number,
                    "filename": signed.filename,
                    "date_of_issue": request.issue_date,
                    "time_of_issue": request.issue_time,
                    "party_identity_type": request.receiver.identity_type,
                    "party_number": request.receiver.number,
                    "party_name": request.receiver.name,
                    "regime": request.regime,
                    "percent": request.percent,
                    "total": request.total_amount,
                    "total_net": request.total_net,
                    "state_type_id": states.REGISTERED,
                    "hash": signed.digest_value,
                    "response": None,
                    "data": {**request.data, "note": request.note},
                    "xml": signed.xml,
                    "cdr_zip": None,
                    # claimed by this request; should it die before the answer, the pending sender sends it
                    "next_send_at": utc_now() + dt.timedelta(seconds=CLAIM_SECONDS),
                }
                row_id = connection.execute(
                    OTHER_DOCUMENTS.insert().returning(OTHER_DOCUMENTS.c.id), values
                ).scalar_one()
        except IntegrityError as exc:  # another request took the same number meanwhile
            raise _duplicate(request.series, request.number or 0) from exc
        return self._send(tenant, row_id, signed.filename, signed.xml, attempts=0)

    def send_stored(self, tenant: TenantInfo, row_id: int) -> Issued:
        """Send again a stored retention or perception the authority did not process (its signed XML,
        unchanged) and store the answer (the pending sender's way)."""
        with self.context.engine.connect() as connection:
            row = connection.execute(
                select(
                    OTHER_DOCUMENTS.c.filename,
                    OTHER_DOCUMENTS.c.xml,
                    OTHER_DOCUMENTS.c.send_attempts,
                    OTHER_DOCUMENTS.c.response,
                ).where(OTHER_DOCUMENTS.c.id == row_id, OTHER_DOCUMENTS.c.tenant_id == tenant.id)
            ).one()
        return self._send(
            tenant, row_id, row.filename, row.xml, attempts=row.send_attempts or 0, previous=row.response
        )

    def _send(
        self,
        tenant: TenantInfo,
        row_id: int,
        filename: str,
        xml: bytes,
        *,
        attempts: int,
        previous: Mapping[str, Any] | None = None,
    ) -> Issued:
        """Send the signed XML (no transaction open) and store the answer: state and CDR, or, for an
        exception, the code and the time of the next attempt."""
        registry = SqlRegistry(self.context.db, deferred=True)
        gateway = self.context.gateway(tenant, registry)
        if not isinstance(gateway, OtherDocumentsGateway):  # pragma: no cover - every gateway takes them
            raise ServiceError(
                502, "La autoridad configurada no recibe retenciones ni percepciones.", "AUTHORITY_EXCEPTION"
            )
        answer = gateway.send_other_bill(filename, zip_document(filename, xml))
        has_cdr = answer.cdr_zip is not None
        state, _regularize = states.state_after_answer(answer.code, answer.notes, states.REGISTERED, has_cdr)
        attempts += 1
        response: dict[str, Any] = {
            "code": answer.code,
            "description": answer.description,
            "notes": list(answer.notes),
        }
        unproven = unproven_answers(previous, answer.code, has_cdr)
        if unproven:
            response["unproven"] = unproven
        retry_at, given_up = next_attempt(
            answer.kind is ResponseKind.EXCEPTION, attempts, tenant.settings, unproven
        )
        if given_up:
            response["attention"] = NEEDS_A_PERSON  # stays 01, no longer sent by itself
        failpoints.after_send(filename)
        with self.context.writing() as connection:
            registry.flush(connection)
            connection.execute(
                update(OTHER_DOCUMENTS)
                .where(OTHER_DOCUMENTS.c.id == row_id, OTHER_DOCUMENTS.c.state_type_id == states.REGISTERED)
                .values(
                    state_type_id=state,
                    response=response,
                    cdr_zip=answer.cdr_zip,
                    send_attempts=attempts,
                    next_send_at=retry_at,
                )
            )
            row = connection.execute(select(OTHER_DOCUMENTS).where(OTHER_DOCUMENTS.c.id == row_id)).one()
        return Issued(row, row.cdr_zip is not None)

    def _issuer(self, tenant: TenantInfo, code: str, doc_type: str) -> Issuer:
        """The tenant as issuer at establishment ``code`` (retentions name it, perceptions use the main)."""
        if not code or doc_type == PERCEPTION:
            return tenant.issuer
        with self.context.session() as session:
            establishment = session.scalar(
                select(Establishment).where(Establishment.tenant_id == tenant.id, Establishment.code == code)
            )
        if establishment is None:
            message = f"El establecimiento {code} no está registrado para la empresa."
            raise ServiceError(
                422,
                message,
                "ESTABLISHMENT_NOT_FOUND",
                [FieldError("datos_del_emisor.codigo_del_domicilio_fiscal", message)],
            )
        base = tenant.issuer
        return Issuer(
            ruc=base.ruc,
            name=base.name,
            trade_name=base.trade_name,
            address=establishment.address or base.address,
            ubigeo=establishment.ubigeo or base.ubigeo,
            establishment_code=establishment.code,
        )

    # -- lists and files ---------------------------------------------------------------------------

    def list_rows(
        self, tenant: TenantInfo, doc_type: str, start: dt.date | None = None, end: dt.date | None = None
    ) -> list[Any]:
        """The tenant's retentions or perceptions issued between two dates (inclusive), newest first;
        without dates the latest 100."""
        table = OTHER_DOCUMENTS
        query = select(
            *(table.c[name] for name in _LIST_COLUMNS), table.c.cdr_zip.is_not(None).label("has_cdr")
        ).where(table.c.tenant_id == tenant.id, table.c.document_type_id == doc_type)
        if start is not None and end is not None:
            query = query.where(table.c.date_of_issue.between(start, end))
        query = query.order_by(table.c.date_of_issue.desc(), table.c.id.desc())
        if start is None:
            query = query.limit(100)
        with self.context.engine.connect() as connection:
            return list(connection.execute(query))

    def find(self, tenant: TenantInfo, doc_type: str, external_id: str) -> Any:
        with self.context.engine.connect() as connection:
            row = connection.execute(
                select(OTHER_DOCUMENTS).where(
                    OTHER_DOCUMENTS.c.tenant_id == tenant.id,
                    OTHER_DOCUMENTS.c.document_type_id == doc_type,
                    OTHER_DOCUMENTS.c.external_id == external_id,
                )
            ).first()
        if row is None:
            family = _family(doc_type)
            raise not_found(
                f"La {family.noun} con código externo {external_id}, no se encuentra registrada.",
                family.not_found_code,
            )
        return row

    def download(self, tenant: TenantInfo, doc_type: str, kind: str, external_id: str) -> Download:
        """The signed XML, the PDF or SUNAT's CDR zip of a retention or perception."""
        if kind not in FILE_KINDS:
            raise not_found(f"El tipo de archivo {kind} no existe.", "FILE_TYPE_NOT_FOUND")
        row = self.find(tenant, doc_type, external_id)
        if kind == "xml":
            return Download(row.xml, f"{row.filename}.xml", "application/xml")
        if kind == "cdr":
            if row.cdr_zip is None:
                raise not_found(f"{row.series}-{row.number} no tiene CDR.", "CDR_NOT_FOUND")
            return Download(row.cdr_zip, f"R-{row.filename}.zip", "application/zip")
        view = OtherDocumentView(
            doc_type=doc_type,
            issuer_ruc=tenant.ruc,
            issuer_name=tenant.name,
            issuer_address=tenant.issuer.address,
            number=f"{row.series}-{row.number}",
            issue_date=row.date_of_issue,
            party_type=row.party_identity_type,
            party_number=row.party_number,
            party_name=row.party_name,
            regime=row.regime,
            percent=Decimal(row.percent),
            total=Decimal(row.total),
            total_net=Decimal(row.total_net),
            digest_value=row.hash,
            lines=list((row.data or {}).get("documents", [])),
            note=str((row.data or {}).get("note", "")),
        )
        return Download(render_other_pdf(view), f"{row.filename}.pdf", "application/pdf")


_LIST_COLUMNS = (
    "id",
    "external_id",
    "document_type_id",
    "series",
    "number",
    "filename",
    "date_of_issue",
    "time_of_issue",
    "party_identity_type",
    "party_number",
    "party_name",
    "regime",
    "percent",
    "total",
    "total_net",
    "state_type_id",
    "hash",
    "response",
    "created_at",
)


def _duplicate(series: str, number: int) -> ServiceError:
    message = f"El número {series}-{number} ya está registrado."
    return ServiceError(409, message, "DUPLICATE_NUMBER", [FieldError("numero_documento", message)])


#: The external id of a retention or perception in a path.
OTHER_EXTERNAL_ID = EXTERNAL_ID


# ----------------------------------------------------------------------------------------------------
# Reversions (RR): cancelling accepted retentions and perceptions through a ticket, as voided
# communications cancel facturas (facturador.domain.summaries). The reversion is a row of ``summaries``
# of type "RR" (its ticket, XML and CDR), its documents are linked in ``other_document_reversals``;
# sending moves them to 13 (being voided), the ticket's acceptance to 11, its rejection back.

RR = "RR"
REVERSIBLE = (states.ACCEPTED, states.OBSERVED)
REVERSION_DATE = "fecha_de_emision_de_documentos"


def _reversion_body(doc_type: str) -> Object:
    noun = "retención" if doc_type == RETENTION else "percepción"
    word = "Retention" if doc_type == RETENTION else "Perception"
    return Object(
        name=f"{word}ReversionBody",
        description=f"Una reversión (RR) de comprobantes de {noun} aceptados.",
        required=True,
        fields={
            REVERSION_DATE: Date("Fecha de emisión de los comprobantes.", required=True, day_first=True),
            "documentos": List(
                "Los comprobantes a revertir.",
                required=True,
                min_items=1,
                max_items=MAX_DOCUMENTS,
                min_message="No se enviaron documentos para la reversión.",
                item=Object(
                    name=f"{word}ReversionEntry",
                    description="Un comprobante a revertir, por su external_id.",
                    fields={
                        "external_id": EXTERNAL_ID.but(required=True),
                        "motivo_anulacion": Text("Motivo de la reversión.", required=True, max_length=100),
                    },
                ),
            ),
        },
    )


REVERSION_BODIES = {RETENTION: _reversion_body(RETENTION), PERCEPTION: _reversion_body(PERCEPTION)}


@runtime_checkable
class ReversionGateway(Protocol):
    """An authority that takes reversions (the otros-CPE ``sendSummary``) and answers their tickets."""

    def send_other_summary(self, filename: str, zip_bytes: bytes) -> str:
        """Send a reversion zip; SUNAT's ticket."""
        ...


@dataclass(frozen=True)
class SentReversion:
    external_id: str
    ticket: str
    identifier: str
    filename: str


def reverse(
    context: ServiceContext, tenant: TenantInfo, caller: Caller, doc_type: str, body: Mapping[str, Any]
) -> SentReversion:
    """``POST /api/{retentions|perceptions}/voided``: number, build, sign and store the reversion of the
    listed accepted documents of that issue date (one transaction), then send it (no transaction open) and
    keep its ticket; a refusal withdraws it, a lost answer keeps it to be sent again (as summaries do)."""
    values = REVERSION_BODIES[doc_type].read_body(body)
    day: dt.date = values[REVERSION_DATE]
    entries = values["documentos"]
    seen: dict[str, int] = {}
    reader = Reader()
    for index, entry in enumerate(entries):
        if entry["external_id"] in seen:
            reader.error(
                f"documentos.{index}.external_id", f"El código externo {entry['external_id']} está repetido."
            )
        seen[entry["external_id"]] = index
    reader.raise_if_errors()
    identity = context.identity(tenant)
    gateway = context.gateway(tenant)
    if not isinstance(gateway, ReversionGateway):  # pragma: no cover - the simulator takes them
        raise ServiceError(502, "La autoridad configurada no recibe reversiones.", "AUTHORITY_EXCEPTION")
    today = context.today()
    try:
        with context.writing() as connection:
            connection.execute(
                select(TENANTS.c.id).where(TENANTS.c.id == tenant.id).with_for_update(key_share=True)
            )
            rows = {
                row.external_id: row
                for row in connection.execute(
                    select(OTHER_DOCUMENTS).where(
                        OTHER_DOCUMENTS.c.tenant_id == tenant.id,
                        OTHER_DOCUMENTS.c.document_type_id == doc_type,
                        OTHER_DOCUMENTS.c.external_id.in_(list(seen)),
                    )
                )
            }
            problems: list[FieldError] = []
            chosen = []
            for index, entry in enumerate(entries):
                path = f"documentos.{index}.external_id"
                row = rows.get(entry["external_id"])
                if row is None:
                    problems.append(
                        FieldError(path, f"No existe una {_family(doc_type).noun} con ese código externo.")
                    )
                elif row.date_of_issue != day:
                    problems.append(
                        FieldError(
                            path,
                            f"{row.series}-{row.number} se emitió el {row.date_of_issue.isoformat()}, no el "
                            f"{day.isoformat()}.",
                        )
                    )
                elif row.state_type_id not in REVERSIBLE:
                    problems.append(
                        FieldError(
                            path,
                            f"{row.series}-{row.number} está en estado {states.describe(row.state_type_id)}: "
                            "solo se revierten comprobantes aceptados.",
                        )
                    )
                else:
                    chosen.append((row, entry["motivo_anulacion"]))
            if problems:
                raise ServiceError(422, problems[0].message, "DOCUMENT_NOT_REVERSIBLE", problems)
            sequence = (
                int(
                    connection.execute(
                        select(func.max(SUMMARIES.c.sequence)).where(
                            SUMMARIES.c.tenant_id == tenant.id,
                            SUMMARIES.c.summary_type == RR,
                            SUMMARIES.c.date_of_issue == today,
                        )
                    ).scalar()
                    or 0
                )
                + 1
            )
            identifier = f"{RR}-{today:%Y%m%d}-{sequence}"
            document = VoidedCommunication(
                issuer=tenant.issuer,
                identifier=identifier,
                reference_date=day,
                issue_date=today,
                lines=tuple(VoidedLine(doc_type, row.series, row.number, reason) for row, reason in chosen),
            )
            signed = sign_summary(document, identity)
            external_id = str(uuid.uuid4())
            summary_id = insert_summary(
                connection,
                tenant_id=tenant.id,
                external_id=external_id,
                user_id=caller.user_id,
                summary_type=RR,
                process_type="3",
                sequence=sequence,
                identifier=identifier,
                signed=signed,
                issued=today,
                reference=day,
            )
            connection.execute(
                OTHER_DOCUMENT_REVERSALS.insert(),
                [
                    {
                        "summary_id": summary_id,
                        "other_document_id": row.id,
                        "line": line,
                        "previous_state": row.state_type_id,
                        "reason": reason,
                    }
                    for line, (row, reason) in enumerate(chosen, start=1)
                ],
            )
            for row, _reason in chosen:
                moved = connection.execute(
                    update(OTHER_DOCUMENTS)
                    .where(
                        OTHER_DOCUMENTS.c.id == row.id, OTHER_DOCUMENTS.c.state_type_id == row.state_type_id
                    )
                    .values(state_type_id=states.CANCELING)
                )
                if moved.rowcount != 1:
                    raise _concurrent()
    except IntegrityError as exc:
        raise _concurrent() from exc
    summaries = SummaryService(context)
    try:
        ticket = gateway.send_other_summary(signed.filename, zip_document(signed.filename, signed.xml))
    except AuthorityError as exc:
        if may_have_arrived(exc.code):  # SUNAT may hold it: kept, sent again (the poller, a status)
            summaries.plan_poll(summary_id, 0, poll_delay(1), str(exc))
            raise ServiceError(
                502,
                f"{exc}. La reversión {identifier} quedó registrada (external_id {external_id}) y se volverá "
                "a enviar al consultar su estado.",
                "AUTHORITY_EXCEPTION",
            ) from exc
        summaries.withdraw(summary_id, RR)
        raise ServiceError(502, str(exc), "AUTHORITY_EXCEPTION") from exc
    summaries.keep_ticket(summary_id, ticket)
    return SentReversion(external_id, ticket, identifier, signed.filename)


def _concurrent() -> ServiceError:
    return ServiceError(
        409,
        "Otro envío cambió los mismos comprobantes al mismo tiempo; intente nuevamente.",
        "CONCURRENT_CHANGE",
    )


def check_reversion_family(
    context: ServiceContext, tenant: TenantInfo, doc_type: str, body: Mapping[str, Any]
) -> None:
    """A reversion asked through the other family's endpoint (a perception's RR at
    ``/api/retentions/voided/status``) is not found there: 404, as an unknown one."""
    values = TICKET_QUERY.read_body(body)
    condition = (
        SUMMARIES.c.external_id == values["external_id"]
        if values["external_id"]
        else SUMMARIES.c.ticket == values["ticket"]
    )
    with context.engine.connect() as connection:
        found = connection.execute(
            select(OTHER_DOCUMENTS.c.document_type_id)
            .select_from(
                SUMMARIES.join(
                    OTHER_DOCUMENT_REVERSALS, OTHER_DOCUMENT_REVERSALS.c.summary_id == SUMMARIES.c.id
                ).join(OTHER_DOCUMENTS, OTHER_DOCUMENTS.c.id == OTHER_DOCUMENT_REVERSALS.c.other_document_id)
            )
            .where(SUMMARIES.c.tenant_id == tenant.id, SUMMARIES.c.summary_type == RR, condition)
            .limit(1)
        ).scalar()
    if found is not None and found != doc_type:
        key = "external_id" if values["external_id"] else "ticket"
        raise not_found(
            f"El {'código externo' if key == 'external_id' else 'ticket'} {values[key]} es inválido, "
            "no se encontró reversión relacionada",
            "VOIDED_NOT_FOUND",
            key,
        )
