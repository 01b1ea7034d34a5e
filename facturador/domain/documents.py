"""The document lifecycle: issue (number, XML, signature, storage, authority), send, state changes, files.

Issuing runs as: check the body (no I/O) -> check series and references (read) -> build and serialize
the XML with a placeholder for the number -> one short write transaction that records the back office
(customer, products, stock) and then takes the correlative, signs the XML with it and stores the document
with state 01 (the series' row, which orders the issuers of a series, is held from the correlative to the
commit only) -> send to the authority when the document
is sendable -> store the CDR and the new state. A failure before the commit leaves nothing behind (the
correlative is given back); the authority's answer never undoes the document (a rejection keeps the
number consumed, as SUNAT does).

A request with an idempotency key (:mod:`~facturador.domain.idempotency`) that already made a document
answers with that document; the key is stored with the document and unique per tenant, so of two
concurrent requests with one key the unique index lets one commit. A document the service must send is
stored with the time the pending sender takes it if its sending does not get an answer
(:mod:`~facturador.domain.send_policy`).
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Float, Text, cast, select, type_coerce, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from facturador.authority.gateway import AuthorityResponse
from facturador.authority.packaging import zip_document
from facturador.context import Caller, ServiceContext, TenantInfo
from facturador.domain import exchange_rates, failpoints, idempotency, send_policy, states
from facturador.domain.dispatch_links import moved_stock, resolve_guides
from facturador.domain.document_blocks import ADJUSTMENT_NOTE, check_adjustment_affected
from facturador.domain.document_input import DocumentRequest, parse_document
from facturador.domain.document_schema import EXTERNAL_ID
from facturador.domain.email_records import deliveries_of
from facturador.domain.fields import Code, Object
from facturador.domain.fields import Text as FieldText
from facturador.domain.note_balance import CREDIT_NOTE, check_credit_note
from facturador.domain.numbering import LAST_NUMBER, claim_number, number_in_use, take_next_number
from facturador.domain.sales import plan_sale, products_of, sale_kardex
from facturador.domain.state_changes import changes_of, record_change
from facturador.errors import FieldError, ServiceError, conflict, field_error, not_found
from facturador.issued import AffectedDocument, Issuer, Legend, NoteInfo, SalesDocument
from facturador.render.pdf import render_pdf
from facturador.render.qr import qr_png_base64, qr_text
from facturador.store.answers import store_sent_answer
from facturador.store.db import UNAVAILABLE
from facturador.store.models import (
    ARTIFACTS,
    DOCUMENTS,
    SALE_NOTES,
    STATE_CHANGES,
    Artifact,
    Document,
    store_artifact,
    store_document,
)
from facturador.store.registry import SqlRegistry
from facturador.ubl.invoice import prepare_sales_document
from sunat.calendar import LIMA
from sunat.catalogs import DOCUMENT_TYPES, LEGENDS, is_free
from sunat.series import document_group
from sunat.words import amount_in_words

_MONEY_COLUMNS = (
    "total_exportation",
    "total_free",
    "total_unaffected",
    "total_exonerated",
    "total_taxed",
    "total_igv",
    "total_plastic_bag_taxes",
    "total_taxes",
    "total_value",
    "total",
)
_LIST_COLUMNS = (
    "id",
    "external_id",
    "group_id",
    "document_type_id",
    "series",
    "number",
    "filename",
    "date_of_issue",
    "time_of_issue",
    "date_of_due",
    "operation_type_id",
    "currency_type_id",
    "customer_identity_type",
    "customer_number",
    "customer_name",
    "user_id",
    "state_type_id",
    "regularize_shipping",
    "note_type_id",
    "purchase_order",
    "created_at",
    "updated_at",
)
_AFFECTED = DOCUMENTS.alias("affected")
#: The list endpoints' query: plain columns, amounts as floats, JSON as text, whether a CDR exists, and
#: the issue date of the document a note modifies (when it is one of the tenant's).
LIST_QUERY = select(
    *(DOCUMENTS.c[name] for name in _LIST_COLUMNS),
    *(type_coerce(DOCUMENTS.c[name], Float).label(name) for name in _MONEY_COLUMNS),
    type_coerce(DOCUMENTS.c.exchange_rate_sale, Float).label("exchange_rate_sale"),
    cast(DOCUMENTS.c.response, Text).label("response_json"),  # text: decoded only for the rows that show it
    cast(DOCUMENTS.c.affected_document, Text).label("affected_json"),
    cast(DOCUMENTS.c.payments, Text).label("payments_json"),
    DOCUMENTS.c.customer["email"].as_string().label("customer_email"),
    DOCUMENTS.c.customer["telephone"].as_string().label("customer_telephone"),
    select(ARTIFACTS.c.id)
    .where(ARTIFACTS.c.document_id == DOCUMENTS.c.id, ARTIFACTS.c.kind == "cdr")
    .exists()
    .label("has_cdr"),
    select(_AFFECTED.c.date_of_issue)
    .where(_AFFECTED.c.id == DOCUMENTS.c.affected_document_id)
    .scalar_subquery()
    .label("affected_date"),
    select(STATE_CHANGES.c.id)
    .where(STATE_CHANGES.c.document_id == DOCUMENTS.c.id)
    .exists()
    .label("changed_by_hand"),
    # the sale note the document was made from (a note makes at most one document)
    SALE_NOTES.c.id.label("sale_note_id"),
    SALE_NOTES.c.series.label("sale_note_series"),
    SALE_NOTES.c.number.label("sale_note_number"),
    SALE_NOTES.c.external_id.label("sale_note_external_id"),
).select_from(DOCUMENTS.outerjoin(SALE_NOTES, SALE_NOTES.c.document_id == DOCUMENTS.c.id))

FREE_LEGEND = "TRANSFERENCIA GRATUITA DE UN BIEN Y/O SERVICIO PRESTADO GRATUITAMENTE"
SENDABLE_GROUP = "01"  # facturas and their notes; boletas go in daily summaries
#: The files of a document (``/downloads/document/{kind}/...``) and the formats its PDF comes in.
FILE_KINDS = ("xml", "pdf", "cdr")
PDF_DOWNLOAD_FORMATS = ("a4", "ticket", "ticket_58")

SEND_BODY = Object(
    name="SendBody",
    description="El documento (factura o nota de factura) a enviar a SUNAT.",
    required=True,
    fields={"external_id": EXTERNAL_ID.but(required=True)},
)
UPDATE_STATUS_BODY = Object(
    name="UpdateStatusBody",
    description="El nuevo estado de un documento (acepta la clave real externail_id).",
    required=True,
    fields={
        "externail_id": EXTERNAL_ID.but(description="El código externo (clave de los servicios reales)."),
        "external_id": EXTERNAL_ID,
        "state_type_id": Code(
            "El estado.",
            required=True,
            codes=states.STATE_TYPES,
            message="El campo {path} debe ser uno de " + ", ".join(states.STATE_TYPES) + ".",
        ),
        "motivo": FieldText(
            "Por qué se cambia el estado a mano (queda en el registro de cambios del documento).",
            max_length=500,
        ),
    },
    one_of_keys=("externail_id", "external_id"),
    one_of_message="El campo external_id (o externail_id) es obligatorio.",
)
log = logging.getLogger("facturador.documents")
#: States whose printed representation carries a mark across every page.
PDF_MARKS = {states.VOIDED: "ANULADO", states.REJECTED: "RECHAZADO"}


@dataclass(frozen=True)
class Issued:
    """A stored document and what the issue response adds to it."""

    document: Document
    qr_png_base64: str
    has_cdr: bool
    #: The answer of an earlier request with the same idempotency key (no document was issued now).
    replayed: bool = False
    #: ``acciones.enviar_email``: the customer's address to e-mail the document to ("" when it has none);
    #: None when the body did not ask for it.
    email_to: str | None = None


@dataclass(frozen=True)
class Download:
    content: bytes
    filename: str
    media_type: str


@dataclass(frozen=True)
class PdfToRender:
    """A document's PDF not stored yet. ``render(cancelled)`` renders and stores it (heavy work: the API
    runs it in its heavy lane); concurrent requests for the same ``key`` share one rendering."""

    key: str
    filename: str
    render: Callable[[Callable[[], bool]], bytes]
    #: The document's lines: what makes its rendering long (the API bounds the wait of a big one's).
    lines: int = 0


#: What a document download gives: a file, or the PDF to render first.
File = Download | PdfToRender


def stamp_history(connection: Connection, tenant: TenantInfo, row: Document) -> None:
    """While a tenant loads a history (``history_stamps``, with ``restrict_receipt_date`` off: ``facturador
    seed``, the demo), a new document reads as registered when it was issued: its ``created_at`` is its
    issue date and time in Lima (kept as the database keeps moments, in UTC), not the moment it was
    loaded. Otherwise the database's clock stands."""
    settings = tenant.settings
    if not settings.get("history_stamps") or settings.get("restrict_receipt_date", True):
        return
    issued = dt.datetime.combine(row.date_of_issue, row.time_of_issue or dt.time(), tzinfo=LIMA)
    connection.execute(
        update(DOCUMENTS).where(DOCUMENTS.c.id == row.id).values(created_at=issued.astimezone(dt.UTC))
    )
    row.created_at = issued


class DocumentService:
    """Issues and manages a tenant's sales documents (01, 03, 07, 08)."""

    def __init__(self, context: ServiceContext):
        self.context = context

    # -- issuing -----------------------------------------------------------------------------------

    def _with_exchange_rate(self, body: Any) -> Any:
        """``body`` with SUNAT's sell rate of its issue date (or the last published before it) as
        ``factor_tipo_de_cambio`` when a document outside soles comes without one and a rate is known
        (see facturador.domain.exchange_rates) and the source is not ``off``; otherwise ``body`` as it
        came."""
        if not isinstance(body, dict) or body.get("factor_tipo_de_cambio") is not None:
            return body
        if exchange_rates.source_url() is None:  # FACTURADOR_EXCHANGE_RATE_URL=off: as real PRO, 1
            return body
        currency = body.get("codigo_tipo_moneda")
        if not isinstance(currency, str) or currency.strip().upper() in ("", "PEN"):
            return body
        try:
            day = dt.date.fromisoformat(str(body.get("fecha_de_emision")))
        except ValueError:
            return body  # the reader says what is wrong with the date
        rate = exchange_rates.rate_for(self.context.engine, day, self.context.today())
        return body if rate is None else {**body, "factor_tipo_de_cambio": float(rate.sale)}

    def issue(
        self,
        tenant: TenantInfo,
        caller: Caller,
        body: Any,
        idempotency_header: str | None = None,
        *,
        move_stock: bool = True,
    ) -> Issued:
        """Issue the document ``body`` describes; with an idempotency key (``offline_id`` or the header)
        that already made a document, answer with that document instead (a replay) or 409. The customer
        and products are recorded in the back office; ``move_stock`` false leaves the stock as it is (a
        document made from a sale note)."""
        key = idempotency.idempotency_key(body, idempotency_header)
        digest = None
        if key is not None:
            digest = idempotency.body_digest(body)
            earlier = self._by_key(tenant, key)
            if earlier is not None:
                return self._replay(earlier, key, digest)
        body = self._with_exchange_rate(body)
        request = parse_document(body, today=self.context.today())
        self._check_issue_date(tenant, request.issue_date)
        request, guide_ids = self._resolve_guides(tenant, request)
        series_id = self._series_id(tenant, request.doc_type, request.series)
        affected_row, note = None, None
        if request.is_note or request.number is not None:
            with self.context.session() as session:
                affected_row, note = self._resolve_note(session, tenant, request)
                if request.number is not None and number_in_use(
                    session, tenant.id, request.doc_type, request.series, request.number
                ):
                    replay = self._replay_or_duplicate(tenant, request, key, digest)
                    if replay is not None:
                        return replay
        draft = sales_document(tenant.issuer, request, note)
        group = document_group(request.doc_type, request.series, note.affected.doc_type if note else None)
        identity = self.context.identity(tenant)
        # everything that does not depend on the correlative happens before the numbering transaction,
        # which serializes the issuers of a series (on SQLite, every writer): inside it only the number,
        # one digest, one RSA signature and the inserts
        prepared = prepare_sales_document(draft)
        products = products_of(request)
        row = self._row(tenant, caller, request, draft, group)
        row.affected_document_id = affected_row.id if affected_row is not None else None
        row.idempotency_key, row.idempotency_hash = key, digest
        owed = group == SENDABLE_GROUP and request.send_xml_signed and tenant.settings.get("send_auto", True)
        if owed:  # taken by the pending sender if this request does not get the authority's answer
            row.next_send_at = send_policy.first_send_at(tenant.settings, send_policy.utc_now())
        try:
            with self.context.writing() as connection:
                if request.doc_type == CREDIT_NOTE and affected_row is not None:
                    # before anything else: the affected document's row, locked, orders its credit notes
                    check_credit_note(connection, affected_row.id, row.currency_type_id, row.total)
                # the back office first (customer, products, their stocks locked and checked): the series'
                # row, which orders every issuer of the series until the commit, is taken as late as can
                # be, with only the number, the signature and the document's own rows after it
                stock_moves = plan_sale(
                    connection,
                    tenant.id,
                    caller.establishment_id,
                    request,
                    products,
                    # a guide of this sale that moved its goods already (dispatch_links' stock rule)
                    move_stock=move_stock and not moved_stock(connection, guides=guide_ids),
                )
                if request.number is None:
                    taken = take_next_number(connection, series_id)
                    if taken is None:
                        raise field_error(
                            "serie_documento",
                            f"La serie {request.series} ya usó su último número ({LAST_NUMBER}): "
                            "registre una serie nueva para seguir emitiendo.",
                            "SERIES_EXHAUSTED",
                        )
                    number = taken
                else:
                    claim_number(connection, series_id, request.number)
                    number = request.number
                signed = prepared.sign(identity, number)
                text = qr_text(replace(draft, number=number), signed.digest_value)
                row.number, row.filename, row.hash = number, signed.filename, signed.digest_value
                row.qr_text = text
                row.id = store_document(connection, row, signed.xml)
                stamp_history(connection, tenant, row)
                stock_moves.write(connection, sale_kardex(request, row.id, f"{row.series}-{number}"))
        except (IntegrityError, self.context.dbapi_integrity_error):
            # a concurrent request committed the same key (the unique index decided) or the same number
            replay = self._replay_or_duplicate(tenant, request, key, digest)
            if replay is None:
                raise
            return replay
        failpoints.after_issue_commit()
        has_cdr = False
        if owed:
            try:
                row, has_cdr = self._send(tenant, row, signed.xml)
            except UNAVAILABLE as exc:  # the document is committed: answered as it is, sent again later
                log.warning(
                    "%s-%s (%s) was stored but the database failed before SUNAT's answer was: answered "
                    "registered, the pending sender sends it again (%s)",
                    row.series,
                    row.number,
                    row.external_id,
                    str(exc).splitlines()[0],
                )
        return Issued(
            document=row,
            qr_png_base64=qr_png_base64(text),
            has_cdr=has_cdr,
            email_to=request.customer.email if request.send_email else None,
        )

    def _resolve_guides(
        self, tenant: TenantInfo, request: DocumentRequest
    ) -> tuple[DocumentRequest, list[int]]:
        """``guias`` named by ``external_id`` take the number and type of the tenant's guide (422 naming
        ``guias.N.external_id`` when it is not one); also the ids of the tenant's guides named."""
        if not request.guides:
            return request, []
        with self.context.engine.connect() as connection:
            guides, ids, unknown = resolve_guides(connection, tenant.id, request.guides)
        if unknown:
            errors = [
                FieldError(
                    f"guias.{index}.external_id", f"No se encontró la guía con código externo {external_id}."
                )
                for index, external_id in unknown
            ]
            raise ServiceError(422, errors[0].message, "DISPATCH_NOT_FOUND", errors)
        seen: set[tuple[str, str]] = set()
        for index, guide in enumerate(guides):
            if (guide.doc_type, guide.number) in seen:
                raise field_error(
                    f"guias.{index}.external_id" if guide.external_id else f"guias.{index}.numero",
                    f"La guía {guide.number} está repetida (regla SUNAT 2364).",
                    "INVALID_FIELDS",
                )
            seen.add((guide.doc_type, guide.number))
        return replace(request, guides=guides), ids

    def _replay_or_duplicate(
        self, tenant: TenantInfo, request: DocumentRequest, key: str | None, digest: str | None
    ) -> Issued | None:
        """When the number or the key is taken (by a concurrent request, maybe): the replay of the key's
        document, else 409 for an explicit number; ``None`` when neither explains it."""
        earlier = self._by_key(tenant, key) if key is not None else None
        if earlier is not None and key is not None and digest is not None:
            return self._replay(earlier, key, digest)
        if request.number is not None:
            raise self._duplicate(request)
        return None

    def _by_key(self, tenant: TenantInfo, key: str) -> Document | None:
        """The document ``key`` made in this tenant (a Core probe first: most keys are new)."""
        probe = select(DOCUMENTS.c.id).where(
            DOCUMENTS.c.tenant_id == tenant.id, DOCUMENTS.c.idempotency_key == key
        )
        with self.context.reading() as connection:
            document_id = connection.scalar(probe)
        if document_id is None:
            return None
        with self.context.session() as session:
            return session.get(Document, document_id)

    def _replay(self, row: Document, key: str, digest: str) -> Issued:
        """The answer for a key that already made ``row``: the document as it stands now (its state may
        have moved on since, e.g. accepted by the pending sender), or 409 when the body is another one."""
        if row.idempotency_hash != digest:
            raise conflict(
                f"La clave de idempotencia {key} ya se usó para el documento {row.series}-{row.number} "
                "con otro contenido.",
                "IDEMPOTENCY_KEY_REUSED",
                field_name=idempotency.BODY_KEY,
            )
        has_cdr = self._artifact_exists(row, "cdr")
        return Issued(document=row, qr_png_base64=qr_png_base64(row.qr_text), has_cdr=has_cdr, replayed=True)

    def _series_id(self, tenant: TenantInfo, doc_type: str, series: str) -> int:
        series_id = self.context.series_id(tenant, doc_type, series)
        if series_id is None:
            raise field_error(
                "serie_documento", f"La serie ingresada {series}, es incorrecta.", "INVALID_SERIES"
            )
        return series_id

    def _check_issue_date(self, tenant: TenantInfo, issue_date: dt.date) -> None:
        settings = tenant.settings
        if not settings.get("restrict_receipt_date", True):
            return
        days = int(settings.get("shipping_time_days", 4))
        if abs((self.context.today() - issue_date).days) >= days:
            raise field_error(
                "fecha_de_emision",
                f"La fecha de emisión no puede ser menor a {days} día(s).",
                "ISSUE_DATE_OUT_OF_RANGE",
            )

    @staticmethod
    def _duplicate(request: DocumentRequest) -> ServiceError:
        return conflict(
            f"El documento: {request.doc_type} {request.series}-{request.number} ya se encuentra registrado.",
            field_name="numero_documento",
        )

    def _resolve_note(
        self, session: Session, tenant: TenantInfo, request: DocumentRequest
    ) -> tuple[Document | None, NoteInfo | None]:
        if not request.is_note:
            return None, None
        assert request.note_type is not None and request.note_reason is not None
        affected_row = None
        affected = request.affected
        if request.affected_external_id is not None:
            affected_row = session.scalar(
                select(Document).where(
                    Document.tenant_id == tenant.id, Document.external_id == request.affected_external_id
                )
            )
            if affected_row is None:
                message = f"No se encontró el documento con código externo {request.affected_external_id}."
                raise ServiceError(
                    422,
                    message,
                    "AFFECTED_DOCUMENT_NOT_FOUND",
                    [FieldError("documento_afectado.external_id", message)],
                )
            if affected_row.document_type_id not in ("01", "03"):
                raise field_error(
                    "documento_afectado.external_id",
                    "Una nota solo puede modificar una factura o una boleta.",
                    "INVALID_REFERENCE",
                )
            if request.doc_type == "07" and request.note_type == ADJUSTMENT_NOTE:
                sent = affected_row.data_json if isinstance(affected_row.data_json, dict) else {}
                check_adjustment_affected(affected_row.document_type_id, sent.get("codigo_condicion_de_pago"))
            affected = AffectedDocument(
                affected_row.document_type_id, affected_row.series, str(affected_row.number)
            )
            expected = "01" if request.series.startswith("F") else "03"
            if not request.series[0].isdigit() and affected.doc_type != expected:
                raise field_error(
                    "serie_documento",
                    f"La serie {request.series} no corresponde al documento afectado {affected.full_number}.",
                    "INVALID_REFERENCE",
                )
        assert affected is not None
        if affected_row is None and affected.number.isdigit():  # named by number: one of the tenant's?
            affected_row = session.scalar(
                select(Document).where(
                    Document.tenant_id == tenant.id,
                    Document.document_type_id == affected.doc_type,
                    Document.series == affected.series,
                    Document.number == int(affected.number),
                )
            )
        return affected_row, NoteInfo(
            type_code=request.note_type, reason=request.note_reason, affected=affected
        )

    @staticmethod
    def _row(
        tenant: TenantInfo,
        caller: Caller,
        request: DocumentRequest,
        document: SalesDocument,
        group: str,
    ) -> Document:
        """The row of ``document`` without what comes with its correlative (number, file name, hash, QR)."""
        totals = document.totals
        customer = document.customer
        legend_1000 = next(legend.text for legend in document.legends if legend.code == "1000")
        return Document(
            tenant_id=tenant.id,
            external_id=str(uuid.uuid4()),
            establishment_id=caller.establishment_id,
            user_id=caller.user_id,
            group_id=group,
            document_type_id=document.doc_type,
            series=document.series,
            date_of_issue=document.issue_date,
            time_of_issue=document.issue_time,
            date_of_due=document.due_date,
            operation_type_id=document.operation_type or None,
            currency_type_id=document.currency,
            exchange_rate_sale=request.exchange_rate,
            purchase_order=document.purchase_order,
            customer_identity_type=customer.identity_type,
            customer_number=customer.number,
            customer_name=customer.name,
            customer={
                "identity_document_type_id": customer.identity_type,
                "number": customer.number,
                "name": customer.name,
                "country_id": customer.country,
                "ubigeo": customer.ubigeo,
                "address": customer.address,
                "email": customer.email,
                "telephone": customer.phone,
            },
            total_exportation=totals.export,
            total_free=totals.free,
            total_unaffected=totals.unaffected,
            total_exonerated=totals.exonerated,
            total_taxed=totals.taxed,
            total_igv=totals.igv,
            total_igv_free=totals.igv_free,
            total_plastic_bag_taxes=totals.icbper,
            total_isc=totals.isc,
            total_other_taxes=totals.other,
            total_taxes=totals.taxes,
            total_value=totals.value,
            total=totals.total,
            state_type_id=states.REGISTERED,
            number_to_letter=legend_1000,
            format_pdf=request.format_pdf,
            send_xml_signed=request.send_xml_signed,
            response=None,
            note_type_id=document.note.type_code if document.note else None,
            note_description=document.note.reason if document.note else None,
            affected_document=(
                {
                    "document_type_id": document.note.affected.doc_type,
                    "series": document.note.affected.series,
                    "number": document.note.affected.number,
                    "external_id": request.affected_external_id,
                }
                if document.note
                else None
            ),
            data_json=request.raw,
            payments=[
                {
                    "payment_method_type_id": payment.method,
                    "payment_method_type_description": payment.method_name,
                    "payment_destination_id": payment.destination,
                    "reference": payment.reference,
                    "payment": f"{payment.amount:.2f}",
                    "date_of_payment": document.issue_date.isoformat(),
                }
                for payment in request.payments
            ],
        )

    # -- sending -----------------------------------------------------------------------------------

    def _send(self, tenant: TenantInfo, row: Document, xml: bytes) -> tuple[Document, bool]:
        """Send the signed XML, then store the answer: state, response and CDR (never the document itself)."""
        registry = SqlRegistry(self.context.db, deferred=True)
        # a sandbox loading history sends back-dated documents "on their day" instead of late
        received_on = None if tenant.settings.get("authority_check_deadlines", True) else row.date_of_issue
        answer: AuthorityResponse = self.context.gateway(tenant, registry, received_on=received_on).send_bill(
            f"{row.filename}.zip", zip_document(row.filename, xml)
        )
        has_cdr = answer.cdr_zip is not None
        state, regularize = states.state_after_answer(answer.code, answer.notes, row.state_type_id, has_cdr)
        response: dict[str, Any] = {"code": answer.code, "description": answer.description}
        if has_cdr:
            response["notes"] = list(answer.notes)
        unproven = send_policy.unproven_answers(row.response, answer.code, has_cdr)
        if unproven:
            response["unproven"] = unproven
        attempts = (row.send_attempts or 0) + 1
        retry_at, given_up = send_policy.next_attempt(
            state == states.REGISTERED, attempts, tenant.settings, unproven
        )
        if given_up:
            response["attention"] = send_policy.NEEDS_A_PERSON  # stays 01, no longer sent by itself
        failpoints.after_send(row.filename)
        with self.context.writing_one() as connection:
            stored = store_sent_answer(
                connection,
                registry.take(),
                row.id,
                state,
                response,
                regularize,
                retry_at,
                read_state=row.state_type_id,
                cdr_zip=answer.cdr_zip,
            )
        if not stored:  # another send stored its answer first (or the document moved on): that one stands
            log.info("answer %s to %s not stored: the document moved on meanwhile", answer.code, row.filename)
            current = self.find(tenant, row.external_id)
            return current, self._artifact_exists(current, "cdr")
        row.state_type_id, row.response, row.regularize_shipping = state, response, regularize
        row.send_attempts = attempts
        row.next_send_at = retry_at if row.next_send_at is not None else None
        return row, answer.cdr_zip is not None

    def send(self, tenant: TenantInfo, body: Any) -> tuple[Document, bool]:
        """``POST /api/documents/send``: :meth:`send_document` of the body's ``external_id``."""
        return self.send_document(tenant, SEND_BODY.read_body(body)["external_id"])

    def send_document(self, tenant: TenantInfo, external_id: str) -> tuple[Document, bool]:
        """Send (or re-send) a stored factura or factura note; returns the row and whether a CDR exists."""
        row = self.find(tenant, external_id)
        if row.group_id != SENDABLE_GROUP:
            raise field_error(
                "external_id",
                f"El tipo de documento {row.document_type_id} es inválido, no es posible enviar.",
                "DOCUMENT_NOT_SENDABLE",
            )
        xml = self._artifact(row, "xml")
        assert xml is not None
        row, has_cdr = self._send(tenant, row, xml)
        return row, has_cdr or self._artifact_exists(row, "cdr")

    def update_status(self, tenant: TenantInfo, body: Any, caller: Caller | None = None) -> Document:
        """Set a document's state by hand; the state must be a known code. The change is recorded
        (:mod:`~facturador.domain.state_changes`) with ``caller``, the time, both states and ``motivo``."""
        values = UPDATE_STATUS_BODY.read_body(body)
        row = self.find(tenant, values["externail_id"] or values["external_id"])
        state = values["state_type_id"]
        changes: dict[str, Any] = {"state_type_id": state}
        if state != states.REGISTERED:  # settled by hand: the service owes no sending any more
            changes["next_send_at"] = row.next_send_at = None
        with self.context.writing() as connection:
            connection.execute(update(DOCUMENTS).where(DOCUMENTS.c.id == row.id).values(**changes))
            record_change(
                connection,
                row.id,
                caller.user_id if caller is not None else None,
                row.state_type_id,
                state,
                values.get("motivo") or "",
                at=self.context.clock(),
            )
        row.state_type_id = state
        return row

    def state_changes(self, tenant: TenantInfo, external_id: str) -> list[dict[str, Any]]:
        """The changes of state made by hand to a document, oldest first (404 for an unknown one)."""
        row = self.find(tenant, external_id)
        with self.context.reading() as connection:
            return changes_of(connection, [row.id]).get(row.id, [])

    # -- reading -----------------------------------------------------------------------------------

    def find(self, tenant: TenantInfo, external_id: str) -> Document:
        with self.context.session() as session:
            row = session.scalar(
                select(Document).where(Document.tenant_id == tenant.id, Document.external_id == external_id)
            )
        if row is None:
            raise not_found(
                f"El documento con código externo {external_id}, no se encuentra registrado.",
                field_name="external_id",
            )
        return row

    def list_rows(
        self,
        tenant: TenantInfo,
        start: dt.date | None = None,
        end: dt.date | None = None,
        *,
        details: bool = False,
        page: tuple[dt.datetime | None, int, int] | None = None,
    ) -> list[dict[str, Any]]:
        """Documents issued between two dates (inclusive), newest first; without dates the latest 50.

        ``page`` is the lists' extension, ``(since, after, limit)``: only the documents changed at or
        after ``since`` (naive UTC; ``None``: any) whose id is above ``after``, by id, at most ``limit``.

        One Core query (no ORM objects): amounts come as floats (exact for the stored two decimals) and
        the JSON columns as text, decoded only for the rows that need them, so 20,000 rows stay fast.
        With ``details`` each row also carries its request as text (``data_text``: lines, payment
        condition and instalments are read from it).
        """
        query = (
            LIST_QUERY
            if not details
            else LIST_QUERY.add_columns(cast(DOCUMENTS.c.data_json, Text).label("data_text"))
        )
        query = query.where(DOCUMENTS.c.tenant_id == tenant.id)
        if start is not None and end is not None:
            query = query.where(DOCUMENTS.c.date_of_issue.between(start, end))
        if page is not None:
            since, after, limit = page
            if since is None:
                pass
            elif self.context.engine.dialect.name == "sqlite":
                # SQLite keeps the text CURRENT_TIMESTAMP wrote (naive UTC, whole seconds): compared as
                # text with the second since falls in, so nothing of that second is left out
                stamp = since.strftime("%Y-%m-%d %H:%M:%S")
                query = query.where(type_coerce(DOCUMENTS.c.updated_at, Text) >= stamp)
            else:
                query = query.where(DOCUMENTS.c.updated_at >= since.replace(tzinfo=dt.UTC))
            query = query.where(DOCUMENTS.c.id > after).order_by(DOCUMENTS.c.id).limit(limit)
        else:
            query = query.order_by(DOCUMENTS.c.date_of_issue.desc(), DOCUMENTS.c.id.desc())
        if start is None:
            query = query.limit(50)
        with self.context.engine.connect() as connection:
            result = connection.execute(query)
            keys = tuple(result.keys())
            # plain dicts: a SQLAlchemy Row's attribute access costs ~1 us, 45 of them per row add up
            rows = [dict(zip(keys, row, strict=True)) for row in result]
            changed = [row["id"] for row in rows if row["changed_by_hand"]]  # few: read apart
            found = changes_of(connection, changed) if changed else {}
            ids = [row["id"] for row in rows]
            mailed = deliveries_of(connection, tenant.id, "document", ids)
        for row in rows:
            row["state_changes"] = found.get(row["id"], [])
            row["email_deliveries"] = mailed.get(row["id"], [])
        return rows

    def _artifact_exists(self, row: Document, kind: str) -> bool:
        with self.context.session() as session:
            found = session.scalar(
                select(Artifact.id).where(Artifact.document_id == row.id, Artifact.kind == kind)
            )
        return found is not None

    def _artifact(self, row: Document, kind: str) -> bytes | None:
        with self.context.session() as session:
            return session.scalar(
                select(Artifact.content).where(Artifact.document_id == row.id, Artifact.kind == kind)
            )

    def download(self, tenant: TenantInfo, kind: str, external_id: str, fmt: str | None = None) -> File:
        """The signed XML, the CDR zip, or the PDF when stored (rendered on first request and kept); a PDF
        not stored yet comes as the :class:`PdfToRender` that makes it. ``fmt``, the PDF's format in the
        path, must be a known one whatever the kind."""
        if fmt is not None and fmt not in PDF_DOWNLOAD_FORMATS:
            raise not_found(f"El formato {fmt} no existe.", "FORMAT_NOT_FOUND")
        row = self.find(tenant, external_id)
        if kind == "xml":
            content = self._artifact(row, "xml")
            assert content is not None
            return Download(content, f"{row.filename}.xml", "application/xml")
        if kind == "cdr":
            content = self._artifact(row, "cdr")
            if content is None:
                raise not_found(f"El documento {row.series}-{row.number} aún no tiene CDR.", "CDR_NOT_FOUND")
            return Download(content, f"R-{row.filename}.zip", "application/zip")
        if kind == "pdf":
            pdf_format = fmt or row.format_pdf or "a4"
            if pdf_format not in PDF_DOWNLOAD_FORMATS:
                raise not_found(f"El formato {pdf_format} no existe.", "FORMAT_NOT_FOUND")
            # a voided or rejected document is printed with its mark, kept apart from the plain one
            stored = f"pdf-{pdf_format}" + (f"-{row.state_type_id}" if row.state_type_id in PDF_MARKS else "")
            content = self._artifact(row, stored)
            if content is not None:
                return Download(content, f"{row.filename}.pdf", "application/pdf")
            return PdfToRender(
                key=f"document-pdf:{row.id}:{stored}",
                filename=f"{row.filename}.pdf",
                render=functools.partial(self._stored_pdf, tenant, row, pdf_format, stored),
                lines=len((row.data_json or {}).get("items") or []),
            )
        raise not_found(f"El tipo de archivo {kind} no existe.", "FILE_TYPE_NOT_FOUND")

    def _stored_pdf(
        self, tenant: TenantInfo, row: Document, pdf_format: str, stored: str, cancelled: Callable[[], bool]
    ) -> bytes:
        """The PDF stored as ``stored``: the one another request stored meanwhile, else rendered now and
        stored (the first stored wins). A rendering ``cancelled`` stops raises
        :class:`~facturador.render.pdf.RenderCancelled` and stores nothing."""
        content = self._artifact(row, stored)
        if content is not None:
            return content
        started = time.perf_counter()
        content = self._render_pdf(tenant, row, pdf_format, cancelled)
        log.info(
            "rendered the %s PDF of %s in %.2f s", stored, row.external_id, time.perf_counter() - started
        )
        try:
            with self.context.writing() as connection:
                store_artifact(connection, row.id, stored, content)
        except (IntegrityError, self.context.dbapi_integrity_error):  # stored concurrently: the first wins
            content = self._artifact(row, stored) or content
        return content

    @staticmethod
    def _render_pdf(
        tenant: TenantInfo, row: Document, pdf_format: str, cancelled: Callable[[], bool]
    ) -> bytes:
        request = parse_document(row.data_json, today=row.date_of_issue)
        note = None
        if request.is_note and row.affected_document:
            affected = AffectedDocument(
                row.affected_document["document_type_id"],
                row.affected_document["series"],
                str(row.affected_document["number"]),
            )
            note = NoteInfo(row.note_type_id or "", row.note_description or "", affected)
        document = replace(sales_document(tenant.issuer, request, note), number=row.number)
        return render_pdf(
            document,
            digest_value=row.hash,
            qr_text=row.qr_text,
            fmt=pdf_format,
            mark=PDF_MARKS.get(row.state_type_id, ""),
            cancelled=cancelled,
        )


def sales_document(issuer: Issuer, request: DocumentRequest, note: NoteInfo | None = None) -> SalesDocument:
    """The document a checked request describes, with its legends (1000: the amount in words; 1002 for
    free lines; 2007 for IVAP lines), before it has a correlative (``number`` 0)."""
    legends = list(request.legends)
    codes = {legend.code for legend in legends}
    if "1000" not in codes:
        legends.insert(0, Legend("1000", amount_in_words(request.totals.total, request.currency)))
    if "1002" not in codes and any(is_free(line.affectation) for line in request.lines):
        legends.append(Legend("1002", FREE_LEGEND))
    if "2007" not in codes and any(line.affectation == "17" for line in request.lines):
        legends.append(Legend("2007", LEGENDS["2007"]))  # IVAP: SUNAT observes its absence (4264)
    return SalesDocument(
        issuer=issuer,
        doc_type=request.doc_type,
        series=request.series,
        number=0,
        issue_date=request.issue_date,
        issue_time=request.issue_time,
        currency=request.currency,
        customer=request.customer,
        lines=request.lines,
        totals=request.totals,
        legends=tuple(legends),
        operation_type=request.operation_type,
        due_date=request.due_date,
        purchase_order=request.purchase_order,
        note=note,
        additional_information=request.additional_information,
        payment_form=request.payment_form,
        exchange_rate=request.exchange_rate if request.currency != "PEN" and request.exchange_rate else None,
        detraction=request.detraction,
        instalments=request.instalments,
        allowances=request.allowances,
        prepayments=request.prepayments,
        is_advance=request.is_advance,
        related_documents=request.related_documents,
        guides=request.guides,
        payments=request.payments,
        perception=request.perception,
        retention=request.retention,
    )


def document_type_description(doc_type: str) -> str:
    return DOCUMENT_TYPES.get(doc_type, doc_type)
