"""Dispatch guides: issue (09 remitente, 31 transportista), send through the GRE REST API, follow the
ticket (``docs/facturador_pro_api.md``, dispatch guides; ``docs/sunat_domain.md``, transport).

- :meth:`DispatchService.create` reads the body (:mod:`facturador.domain.dispatch_input`), numbers the
  guide in its series (T001 / V001 are registered on first use), signs the ``DespatchAdvice`` and stores
  it in state 01 (not sent), as real tenants do; then renders its A4 PDF and keeps it (a guide whose
  process stopped before gets it on its first download).
- :meth:`DispatchService.send` posts the zipped guide to the GRE API through a
  :class:`~facturador.authority.gre.client.GreGateway` (HTTP: the built-in simulator mounted at ``/gre``
  by default, SUNAT with the tenant's ``gre_*`` settings) and keeps the ticket: state 03.
- :meth:`DispatchService.status` asks for the ticket: 98 keeps 03; 0 stores the CDR and its QR URL
  (05, the PDF is rendered again with the QR); 99 stores SUNAT's error (09).

A line may name only a product of the tenant (``codigo_interno`` and ``cantidad``): its description and
unit are the product's, kept with the guide so that its PDF rendered later says what its XML says.

A remitente guide records its products by ``codigo_interno`` (created when new) and, with reason 01
(venta) or 02 (compra), moves their stock with kardex lines naming the guide, unless the factura or
boleta it names moved it already (the rule is in :mod:`facturador.domain.dispatch_links`).

No database transaction is held while the GRE API is called (the simulator writes to the same database).
"""

from __future__ import annotations

import datetime as dt
import math
import os
import secrets
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection

from facturador.authority import cdr as cdr_mod
from facturador.authority.gre.client import GreClient, GreClientError, GreEndpoint, GreGateway
from facturador.authority.gre.simulator import (
    BETA_PASSWORD,
    SIMULATOR_CLIENT_ID,
    SIMULATOR_CLIENT_SECRET,
    BetaCredentials,
    GreSimulator,
)
from facturador.authority.packaging import read_zip, zip_document
from facturador.config import private_directory
from facturador.context import Caller, ServiceContext, TenantInfo
from facturador.domain import failpoints
from facturador.domain.dispatch_input import (
    DEFAULT_SERIES,
    GUIDE_QUERY,
    DocumentFinder,
    ProductFinder,
    read_dispatch,
)
from facturador.domain.dispatch_links import LinkedDocument, find_document, moved_stock
from facturador.domain.inventory import guide_products, record_guide_lines
from facturador.domain.numbering import claim_number, take_next_number
from facturador.domain.persons import Page
from facturador.errors import ServiceError, conflict, not_found
from facturador.issued import Dispatch
from facturador.render.despatch_pdf import render_despatch_pdf
from facturador.store.models import DISPATCHES, GRE_TICKETS, ITEMS, SERIES, TENANTS, Establishment
from facturador.store.tickets import SqlTicketStore
from facturador.ubl.despatch import prepare_despatch
from sunat.calendar import lima_stamp

__all__ = ["GRE_MOUNT", "DispatchService", "service_gre_simulator", "tenant_gateway"]

#: Where the service mounts its GRE API simulator.
GRE_MOUNT = "/gre"
IN_PROCESS = "La guía aún está en proceso, vuelva a consultar."
UNKNOWN = "El external id es incorrecto"
#: Transfer reasons (catalog 20) that move the stock: 01 venta takes the goods out, 02 compra puts them in.
STOCK_REASONS = {"01": -1, "02": 1}
RECORDS_PER_PAGE = 20
STATE_NAMES = {"01": "Registrado", "03": "Enviado", "05": "Aceptado", "09": "Rechazado"}


def _token_secret(context: ServiceContext) -> bytes:
    """The simulator's token key, kept in the data directory so tokens survive a restart and every
    worker signs alike. Created whole or not at all (written aside, then linked into place)."""
    path = private_directory(context.settings.authority_dir) / "gre-token-secret"
    if not path.exists():
        aside = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
        aside.write_bytes(secrets.token_bytes(32))
        aside.chmod(0o600)
        try:
            os.link(aside, path)
        except FileExistsError:  # another worker created it first: use theirs
            pass
        finally:
            aside.unlink()
    return path.read_bytes()


def service_gre_simulator(context: ServiceContext) -> GreSimulator:
    """The GRE API simulator of a service: its tickets in the database, its token key in the data
    directory, beta credentials (``<RUC>MODDATOS`` / ``MODDATOS`` with the simulator's client), and each
    ticket in process for the ``authority_ticket_delay`` of the tenant that sent it, timed by the context's
    ``clock``."""
    delays: dict[str, tuple[float, float]] = {}

    def delay(ruc: str) -> float:
        cached = delays.get(ruc)
        now = dt.datetime.now().timestamp()
        if cached is not None and now - cached[1] < 5:
            return cached[0]
        with context.engine.connect() as connection:
            settings = connection.execute(select(TENANTS.c.settings).where(TENANTS.c.ruc == ruc)).scalar()
        value = float((settings or {}).get("authority_ticket_delay", 2.0))
        delays[ruc] = (value, now)
        return value

    return GreSimulator(
        context.authority_identity,
        BetaCredentials({SIMULATOR_CLIENT_ID: SIMULATOR_CLIENT_SECRET}),
        secret=_token_secret(context),
        tickets=SqlTicketStore(context.db, table=GRE_TICKETS),
        ticket_delay=delay,
        clock=context.clock,
        today=context.today,
    )


def tenant_gateway(
    tenant: TenantInfo, own_url: str, secret: Callable[[str], str | None] = lambda _name: None
) -> GreGateway:
    """The GRE API of a tenant: its ``gre_*`` settings (SUNAT's hosts and client id) with its secrets
    (``gre_client_secret``; ``gre_password``, else its SOL password), else this service's simulator at
    ``own_url`` with beta credentials. ``secret`` reads a tenant's secret by name."""
    settings = tenant.settings
    api = settings.get("gre_api_url") or own_url
    sol_user = settings.get("sol_user") or "MODDATOS"
    return GreClient(
        GreEndpoint(
            token_url=settings.get("gre_token_url") or api,
            api_url=api,
            client_id=settings.get("gre_client_id") or SIMULATOR_CLIENT_ID,
            client_secret=secret("gre_client_secret") or SIMULATOR_CLIENT_SECRET,
            username=settings.get("gre_username") or f"{tenant.ruc}{sol_user}",
            password=secret("gre_password") or secret("sol_password") or BETA_PASSWORD,
        ),
        timeout=float(settings.get("gre_timeout", 30.0)),
    )


@dataclass(frozen=True)
class Answer:
    """What an endpoint answers: HTTP status and body (without links, added by the API layer)."""

    status: int
    body: dict[str, Any]
    external_id: str
    has_cdr: bool


_COLUMNS = (
    DISPATCHES.c.id,
    DISPATCHES.c.external_id,
    DISPATCHES.c.document_type_id,
    DISPATCHES.c.series,
    DISPATCHES.c.number,
    DISPATCHES.c.filename,
    DISPATCHES.c.date_of_issue,
    DISPATCHES.c.date_of_shipping,
    DISPATCHES.c.customer_number,
    DISPATCHES.c.customer_name,
    DISPATCHES.c.total_weight,
    DISPATCHES.c.weight_unit,
    DISPATCHES.c.transfer_reason,
    DISPATCHES.c.transport_mode,
    DISPATCHES.c.state_type_id,
    DISPATCHES.c.hash,
    DISPATCHES.c.ticket,
    DISPATCHES.c.qr_url,
    DISPATCHES.c.response,
)
#: What a listed guide also shows (the keys of the real rows, ``Dispatch::getCollectionData``).
_LISTED_COLUMNS = (
    *_COLUMNS,
    DISPATCHES.c.user_id,
    DISPATCHES.c.created_at,
    DISPATCHES.c.updated_at,
    DISPATCHES.c.data_json[("body", "datos_remitente")].label("sender"),
    DISPATCHES.c.data_json[("body", "descripcion_motivo_traslado")].as_string().label("reason_text"),
)


class DispatchService:
    """The dispatch guides of every tenant (see module doc). ``gateway`` builds the GRE gateway of a
    tenant from the simulator's URL (:func:`tenant_gateway` unless given)."""

    def __init__(
        self,
        context: ServiceContext,
        gateway: Callable[[TenantInfo, str, Callable[[str], str | None]], GreGateway] = tenant_gateway,
    ) -> None:
        self.context = context
        self.gateway = gateway
        self._series_lock = threading.Lock()

    # -- issuing ----------------------------------------------------------------------------------

    def create(self, tenant: TenantInfo, caller: Caller, body: Any, doc_type: str) -> dict[str, Any]:
        """Issue a guide (state 01); returns ``{number, filename, external_id}``."""
        with self.context.session() as session:
            codes = set(
                session.scalars(select(Establishment.code).where(Establishment.tenant_id == tenant.id))
            )
        guide, values = read_dispatch(
            body,
            doc_type,
            tenant.issuer,
            today=self.context.today(),
            establishments=codes,
            find=self._finder(tenant),
            products=self._products(tenant),
        )
        series_id = self._series(tenant, doc_type, guide.series)
        identity = self.context.identity(tenant)
        external_id = str(uuid.uuid4())
        # built before the numbering transaction (which serializes the issuers of the series, and on
        # SQLite every writer); inside it only the number, one signature and the inserts
        prepared = prepare_despatch(guide)
        products = guide_products(guide.lines)
        with self.context.writing() as connection:
            if guide.number == 0:
                number = take_next_number(connection, series_id)
                if number is None:
                    raise conflict(f"La serie {guide.series} llegó a su último número.", "SERIES_EXHAUSTED")
            else:
                number = guide.number
                if self._number_used(connection, tenant, doc_type, guide.series, number):
                    raise conflict(
                        f"La guía {guide.series}-{number} ya existe.", "DUPLICATE_NUMBER", "numero_documento"
                    )
                claim_number(connection, series_id, number)
            numbered = _renumber(guide, number)
            signed = prepared.sign(identity, number)
            dispatch_id = connection.execute(
                insert(DISPATCHES)
                .values(
                    tenant_id=tenant.id,
                    external_id=external_id,
                    user_id=caller.user_id,
                    establishment_id=caller.establishment_id,
                    document_type_id=doc_type,
                    series=numbered.series,
                    number=number,
                    filename=signed.filename,
                    date_of_issue=numbered.issue_date,
                    time_of_issue=numbered.issue_time,
                    date_of_shipping=numbered.start_date,
                    transfer_reason=numbered.transfer_reason,
                    transport_mode=numbered.transport_mode,
                    customer_number=numbered.customer.number,
                    customer_name=numbered.customer.name,
                    total_weight=numbered.gross_weight,
                    weight_unit=numbered.weight_unit,
                    state_type_id="01",
                    hash=signed.digest_value,
                    ticket=None,
                    qr_url="",
                    response=None,
                    data_json={"body": body, "products": values["products"]},
                    xml=signed.xml,
                    pdf=None,
                    cdr_zip=None,
                )
                .returning(DISPATCHES.c.id)
            ).scalar_one()
            if doc_type == "09":
                moves = STOCK_REASONS.get(numbered.transfer_reason, 0)
                if moves and moved_stock(connection, documents=values["linked_documents"]):
                    moves = 0  # the factura or boleta it carries moved the goods (dispatch_links)
                record_guide_lines(
                    connection,
                    tenant_id=tenant.id,
                    establishment_id=caller.establishment_id,
                    products=products,
                    direction=moves,
                    label=f"Guía de remisión {numbered.document_id}",
                    dispatch_id=int(dispatch_id),
                )
        failpoints.after_issue_commit()
        # its PDF shows the number and the hash: rendered once they are stored, outside the transaction
        self._keep_pdf(int(dispatch_id), render_despatch_pdf(numbered, signed.digest_value))
        return {"number": numbered.document_id, "filename": signed.filename, "external_id": external_id}

    def _keep_pdf(self, dispatch_id: int, pdf: bytes) -> bytes:
        """Store a guide's first PDF, unless one is stored already (then that one is returned)."""
        with self.context.writing() as connection:
            stored = connection.execute(
                update(DISPATCHES)
                .where(DISPATCHES.c.id == dispatch_id, DISPATCHES.c.pdf.is_(None))
                .values(pdf=pdf)
            )
            if stored.rowcount == 0:
                pdf = bytes(
                    connection.execute(
                        select(DISPATCHES.c.pdf).where(DISPATCHES.c.id == dispatch_id)
                    ).scalar_one()
                )
        return pdf

    def _finder(self, tenant: TenantInfo) -> DocumentFinder:
        """Finds the tenant's facturas and boletas a guide names (see :mod:`dispatch_links`)."""

        def find(**names: str) -> LinkedDocument | None:
            with self.context.engine.connect() as connection:
                return find_document(connection, tenant.id, **names)

        return find

    def _products(self, tenant: TenantInfo) -> ProductFinder:
        """The description and unit of the tenant's product with an internal code."""

        def find(code: str) -> tuple[str, str] | None:
            with self.context.engine.connect() as connection:
                row = connection.execute(
                    select(ITEMS.c.description, ITEMS.c.unit_type_id).where(
                        ITEMS.c.tenant_id == tenant.id, ITEMS.c.internal_id == code
                    )
                ).first()
            return (row.description, row.unit_type_id) if row is not None else None

        return find

    def _series(self, tenant: TenantInfo, doc_type: str, series: str) -> int:
        series_id = self.context.series_id(tenant, doc_type, series)
        if series_id is not None:
            return series_id
        if series != DEFAULT_SERIES[doc_type]:
            raise ServiceError(
                422,
                f"La serie {series} no está registrada para el tipo de documento {doc_type}.",
                "UNKNOWN_SERIES",
            )
        with self._series_lock, self.context.writing() as connection:
            exists = connection.execute(
                select(SERIES.c.id).where(
                    SERIES.c.tenant_id == tenant.id,
                    SERIES.c.document_type_id == doc_type,
                    SERIES.c.number == series,
                )
            ).scalar()
            if exists is None:
                connection.execute(
                    insert(SERIES).values(
                        tenant_id=tenant.id,
                        establishment_id=tenant.establishment_id,
                        document_type_id=doc_type,
                        number=series,
                        contingency=False,
                        last_number=0,
                    )
                )
        found = self.context.series_id(tenant, doc_type, series)
        assert found is not None
        return found

    @staticmethod
    def _number_used(
        connection: Connection, tenant: TenantInfo, doc_type: str, series: str, number: int
    ) -> bool:
        return (
            connection.execute(
                select(DISPATCHES.c.id).where(
                    DISPATCHES.c.tenant_id == tenant.id,
                    DISPATCHES.c.document_type_id == doc_type,
                    DISPATCHES.c.series == series,
                    DISPATCHES.c.number == number,
                )
            ).first()
            is not None
        )

    # -- sending and tickets ----------------------------------------------------------------------

    def _row(self, tenant: TenantInfo, body: Any) -> Any:
        external_id = GUIDE_QUERY.read_body(body)["external_id"]
        with self.context.engine.connect() as connection:
            row = connection.execute(
                select(*_COLUMNS, DISPATCHES.c.xml).where(
                    DISPATCHES.c.tenant_id == tenant.id, DISPATCHES.c.external_id == external_id
                )
            ).first()
        if row is None:
            raise not_found(UNKNOWN, "DISPATCH_NOT_FOUND", "external_id")
        return row

    def _gateway(self, tenant: TenantInfo, own_url: str) -> GreGateway:
        return self.gateway(tenant, own_url, lambda name: self.context.tenant_secret(tenant.id, name))

    def send(self, tenant: TenantInfo, body: Any, own_url: str) -> Answer:
        """Send a registered guide to the GRE API; 409 when it was sent already, 502 when the API (or
        its token) refuses, with the guide left as it was."""
        row = self._row(tenant, body)
        if row.state_type_id != "01":
            raise conflict(
                f"La guía {row.series}-{row.number} ya fue enviada "
                f"(estado {row.state_type_id}, ticket {row.ticket}).",
                "DISPATCH_ALREADY_SENT",
                "external_id",
            )
        gateway = self._gateway(tenant, own_url)
        try:
            receipt = gateway.send(row.filename, zip_document(row.filename, row.xml))
        except GreClientError as exc:
            raise _gateway_error(exc) from exc
        with self.context.writing() as connection:
            connection.execute(
                update(DISPATCHES)
                .where(DISPATCHES.c.id == row.id, DISPATCHES.c.state_type_id == "01")
                .values(
                    state_type_id="03",
                    ticket=receipt.ticket,
                    response={"received_at": receipt.received_at},
                )
            )
        message = (
            f"Se obtuvo el nro. de ticket correctamente. Ticket: {receipt.ticket}, "
            f"Fecha de recepción: {receipt.received_at}, ID guia: {row.series}-{row.number}"
        )
        data = _data(row, state="03", ticket=receipt.ticket)
        return Answer(200, {"success": True, "message": message, "data": data}, row.external_id, False)

    def status(self, tenant: TenantInfo, body: Any, own_url: str) -> Answer:
        """The answer to a guide's ticket (see module doc): 202 while SUNAT processes it."""
        row = self._row(tenant, body)
        if row.state_type_id == "01":
            raise conflict("La guía aún no ha sido enviada a SUNAT.", "DISPATCH_NOT_SENT", "external_id")
        if row.state_type_id in ("05", "09"):
            return _final(row, row.state_type_id, (row.response or {}).get("message", ""), row.qr_url)
        try:
            ticket = self._gateway(tenant, own_url).status(row.ticket)
        except GreClientError as exc:
            raise _gateway_error(exc) from exc
        if ticket.in_process:
            data = _data(row, state="03", ticket=row.ticket)
            return Answer(202, {"success": True, "message": IN_PROCESS, "data": data}, row.external_id, False)
        code = ticket.code.lstrip("0") or "0"
        if code not in ("0", "99"):
            raise ServiceError(
                502, f"SUNAT respondió el código {ticket.code} para el ticket.", "GRE_UNEXPECTED"
            )
        cdr = None
        if ticket.cdr_zip:
            try:
                cdr = cdr_mod.parse_cdr(read_zip(ticket.cdr_zip)[1])
            except Exception as exc:  # noqa: BLE001 - an unreadable CDR is SUNAT's fault
                raise ServiceError(
                    502, f"La constancia de SUNAT no se pudo leer: {exc}", "GRE_BAD_CDR"
                ) from exc
        accepted = code == "0"
        state = "05" if accepted else "09"
        if accepted:
            message = cdr.description if cdr else "La guía fue aceptada"
        else:
            message = ticket.error_message or (cdr.description if cdr else "La guía fue rechazada")
        qr_url = cdr.document_description if cdr and accepted else ""
        response = {
            "code": ticket.error_code if not accepted and ticket.error_code else (cdr.code if cdr else code),
            "description": cdr.description if cdr else message,
            "notes": list(cdr.notes) if cdr else [],
            "message": message,
            "status_code": code,
        }
        pdf = None
        if accepted:
            pdf = render_despatch_pdf(self._guide(tenant, row), row.hash, qr_url)
        with self.context.writing() as connection:
            values: dict[str, Any] = {
                "state_type_id": state,
                "cdr_zip": ticket.cdr_zip,
                "qr_url": qr_url,
                "response": response,
            }
            if pdf is not None:
                values["pdf"] = pdf
            connection.execute(
                update(DISPATCHES)
                .where(DISPATCHES.c.id == row.id, DISPATCHES.c.state_type_id == "03")
                .values(**values)
            )
        return _final(row, state, message, qr_url, has_cdr=ticket.cdr_zip is not None)

    def _guide(self, tenant: TenantInfo, row: Any) -> Dispatch:
        """The stored guide read back from its request (to render its PDF again)."""
        with self.context.engine.connect() as connection:
            stored = connection.execute(
                select(DISPATCHES.c.data_json).where(DISPATCHES.c.id == row.id)
            ).scalar()
        codes = {"0000"}
        with self.context.session() as session:
            codes |= set(
                session.scalars(select(Establishment.code).where(Establishment.tenant_id == tenant.id))
            )
        taken = (stored or {}).get("products") or {}
        today_products = self._products(tenant)

        def products(code: str) -> tuple[str, str] | None:
            """The line's description and unit as the guide took them when issued."""
            if code in taken:
                description, unit = taken[code]
                return str(description), str(unit)
            return today_products(code)

        guide, _ = read_dispatch(
            (stored or {}).get("body"),
            row.document_type_id,
            tenant.issuer,
            today=row.date_of_issue,
            establishments=codes,
            find=self._finder(tenant),
            products=products,
        )
        return _renumber(guide, row.number)

    # -- reading ----------------------------------------------------------------------------------

    def list_rows(self, tenant: TenantInfo, start: dt.date, end: dt.date) -> list[dict[str, Any]]:
        """The tenant's guides issued between two dates, newest first."""
        with self.context.engine.connect() as connection:
            rows = connection.execute(
                select(*_LISTED_COLUMNS)
                .where(
                    DISPATCHES.c.tenant_id == tenant.id,
                    DISPATCHES.c.date_of_issue >= start,
                    DISPATCHES.c.date_of_issue <= end,
                )
                .order_by(DISPATCHES.c.date_of_issue.desc(), DISPATCHES.c.id.desc())
                .limit(1000)
            ).all()
        return [_listed(row) for row in rows]

    def records(self, tenant: TenantInfo, doc_type: str, page: int) -> Page:
        """The tenant's guides of one type, newest first, :data:`RECORDS_PER_PAGE` per page
        (``GET /api/dispatch-carrier/records``)."""
        condition = (DISPATCHES.c.tenant_id == tenant.id) & (DISPATCHES.c.document_type_id == doc_type)
        with self.context.engine.connect() as connection:
            total = int(connection.scalar(select(func.count()).select_from(DISPATCHES).where(condition)) or 0)
            rows = connection.execute(
                select(*_LISTED_COLUMNS)
                .where(condition)
                .order_by(DISPATCHES.c.date_of_issue.desc(), DISPATCHES.c.id.desc())
                .limit(RECORDS_PER_PAGE)
                .offset((page - 1) * RECORDS_PER_PAGE)
            ).all()
        return Page([_listed(row) for row in rows], page, max(1, math.ceil(total / RECORDS_PER_PAGE)), total)

    def file(self, tenant: TenantInfo, external_id: str, kind: str) -> tuple[bytes, str, str]:
        """``(content, media type, file name)`` of a guide's XML, PDF or CDR; 404 when absent. A guide
        stored without its PDF (its process stopped between the two) gets it rendered now."""
        column = {"xml": DISPATCHES.c.xml, "pdf": DISPATCHES.c.pdf, "cdr": DISPATCHES.c.cdr_zip}[kind]
        with self.context.engine.connect() as connection:
            row = connection.execute(
                select(
                    column.label("content"),
                    DISPATCHES.c.filename,
                    DISPATCHES.c.id,
                    DISPATCHES.c.number,
                    DISPATCHES.c.document_type_id,
                    DISPATCHES.c.date_of_issue,
                    DISPATCHES.c.hash,
                    DISPATCHES.c.qr_url,
                ).where(DISPATCHES.c.tenant_id == tenant.id, DISPATCHES.c.external_id == external_id)
            ).first()
        if row is None:
            raise not_found(UNKNOWN, "DISPATCH_NOT_FOUND", "external_id")
        content, filename = row.content, row.filename
        if content is None and kind == "pdf":
            content = self._keep_pdf(
                row.id, render_despatch_pdf(self._guide(tenant, row), row.hash, row.qr_url)
            )
        if content is None:
            raise not_found("La guía aún no tiene constancia de recepción (CDR).", "CDR_NOT_FOUND", "kind")
        media = {"xml": "application/xml", "pdf": "application/pdf", "cdr": "application/zip"}[kind]
        name = {"xml": f"{filename}.xml", "pdf": f"{filename}.pdf", "cdr": f"R-{filename}.zip"}[kind]
        return bytes(content), media, name


def _listed(row: Any) -> dict[str, Any]:
    """A guide as the lists show it: this service's keys and those of the real rows it has data for
    (P9 ``Dispatch::getCollectionData``: the carrier guide's sender and receiver, the user, dates)."""
    carrier = row.document_type_id == "31"
    sender = row.sender if carrier and isinstance(row.sender, dict) else {}
    return {
        **_data(row, state=row.state_type_id, ticket=row.ticket),
        "id": row.id,
        "soap_type_id": "01",
        "user_id": row.user_id,
        "state_type_description": STATE_NAMES.get(row.state_type_id, ""),
        "has_xml": True,
        "has_pdf": True,
        "sender_name": sender.get("apellidos_y_nombres_o_razon_social") if carrier else None,
        "sender_number": sender.get("numero_documento") if carrier else None,
        "receiver_name": row.customer_name if carrier else None,
        "receiver_number": row.customer_number if carrier else None,
        "transfer_reason_description": row.reason_text or None,
        "created_at": lima_stamp(row.created_at),
        "updated_at": lima_stamp(row.updated_at),
        "document_type_id": row.document_type_id,
        "date_of_issue": row.date_of_issue.isoformat(),
        "date_of_shipping": row.date_of_shipping.isoformat(),
        "customer_number": row.customer_number,
        "customer_name": row.customer_name,
        "total_weight": float(row.total_weight),
        "weight_unit": row.weight_unit,
        "transfer_reason": row.transfer_reason,
        "transport_mode": row.transport_mode,
        "state_description": STATE_NAMES.get(row.state_type_id, ""),
        "hash": row.hash,
        "qr_url": row.qr_url,
        "has_cdr": row.state_type_id in ("05", "09"),
    }


def _renumber(guide: Dispatch, number: int) -> Dispatch:
    return replace(guide, number=number)


def _data(row: Any, *, state: str, ticket: str | None) -> dict[str, Any]:
    return {
        "number": f"{row.series}-{row.number}",
        "filename": row.filename,
        "external_id": row.external_id,
        "state_type_id": state,
        "ticket": ticket,
    }


def _final(row: Any, state: str, message: str, qr_url: str, *, has_cdr: bool = True) -> Answer:
    data = {**_data(row, state=state, ticket=row.ticket), "qr_url": qr_url or None}
    return Answer(200, {"success": True, "message": message, "data": data}, row.external_id, has_cdr)


def _gateway_error(exc: GreClientError) -> ServiceError:
    """A refused token, a refused file or an unreachable API: 502 with SUNAT's words."""
    if exc.kind == "token":
        return ServiceError(502, f"Code: {exc.code} - Message: {exc.message}", "GRE_TOKEN_REFUSED")
    if exc.kind == "api":
        return ServiceError(502, f"Code: {exc.code} - Message: {exc.message}", "GRE_REFUSED")
    return ServiceError(502, f"No fue posible enviar a SUNAT: {exc.message}", "GRE_UNREACHABLE")
