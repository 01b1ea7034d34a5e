"""The document lifecycle: issue (number, XML, signature, storage, authority), send, state changes, files.

Issuing runs as: check the body (no I/O) -> check series and references (read) -> build and serialize
the XML with a placeholder for the number -> one short write transaction that takes the correlative,
signs the XML with it and stores the document with state 01 -> send to the authority when the document
is sendable -> store the CDR and the new state. A failure before the commit leaves nothing behind (the
correlative is given back); the authority's answer never undoes the document (a rejection keeps the
number consumed, as SUNAT does).
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Float, Text, cast, select, type_coerce, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from facturador.service.authority.gateway import AuthorityResponse
from facturador.service.authority.packaging import zip_document
from facturador.service.context import Caller, ServiceContext, TenantInfo
from facturador.service.domain import states
from facturador.service.domain.document_input import DocumentRequest, parse_document
from facturador.service.domain.model import AffectedDocument, Issuer, Legend, NoteInfo, SalesDocument
from facturador.service.domain.numbering import claim_number, number_in_use, take_next_number
from facturador.service.errors import FieldError, ServiceError, conflict, field_error, not_found
from facturador.service.render.pdf import render_pdf
from facturador.service.render.qr import qr_png_base64, qr_text
from facturador.service.store.models import (
    ARTIFACTS,
    DELETE_ARTIFACT,
    DOCUMENTS,
    Artifact,
    Document,
    store_answer,
    store_artifact,
    store_document,
)
from facturador.service.store.registry import SqlRegistry
from facturador.service.ubl.invoice import prepare_sales_document
from facturador.sunat.catalogs import DOCUMENT_TYPES, is_free
from facturador.sunat.series import document_group
from facturador.sunat.words import amount_in_words

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
    "state_type_id",
    "regularize_shipping",
    "note_type_id",
    "purchase_order",
    "created_at",
    "updated_at",
)
#: The list endpoints' query: plain columns, amounts as floats, JSON as text, and whether a CDR exists.
LIST_QUERY = select(
    *(DOCUMENTS.c[name] for name in _LIST_COLUMNS),
    *(type_coerce(DOCUMENTS.c[name], Float).label(name) for name in _MONEY_COLUMNS),
    type_coerce(DOCUMENTS.c.exchange_rate_sale, Float).label("exchange_rate_sale"),
    cast(DOCUMENTS.c.response, Text).label("response_json"),  # text: decoded only for the rows that show it
    cast(DOCUMENTS.c.affected_document, Text).label("affected_json"),
    select(ARTIFACTS.c.id)
    .where(ARTIFACTS.c.document_id == DOCUMENTS.c.id, ARTIFACTS.c.kind == "cdr")
    .exists()
    .label("has_cdr"),
)

FREE_LEGEND = "TRANSFERENCIA GRATUITA DE UN BIEN Y/O SERVICIO PRESTADO GRATUITAMENTE"
SENDABLE_GROUP = "01"  # facturas and their notes; boletas go in daily summaries


@dataclass(frozen=True)
class Issued:
    """A stored document and what the issue response adds to it."""

    document: Document
    qr_png_base64: str
    has_cdr: bool


@dataclass(frozen=True)
class Download:
    content: bytes
    filename: str
    media_type: str


class DocumentService:
    """Issues and manages a tenant's sales documents (01, 03, 07, 08)."""

    def __init__(self, context: ServiceContext):
        self.context = context

    # -- issuing -----------------------------------------------------------------------------------

    def issue(self, tenant: TenantInfo, caller: Caller, body: Any) -> Issued:
        request = parse_document(body, today=self.context.today())
        self._check_issue_date(tenant, request.issue_date)
        series_id = self._series_id(tenant, request.doc_type, request.series)
        affected_row, note = None, None
        if request.is_note or request.number is not None:
            with self.context.session() as session:
                affected_row, note = self._resolve_note(session, tenant, request)
                if request.number is not None and number_in_use(
                    session, tenant.id, request.doc_type, request.series, request.number
                ):
                    raise self._duplicate(request)
        draft = sales_document(tenant.issuer, request, note)
        group = document_group(request.doc_type, request.series, note.affected.doc_type if note else None)
        identity = self.context.identity(tenant)
        # everything that does not depend on the correlative happens before the numbering transaction,
        # which serializes the issuers of a series (on SQLite, every writer): inside it only the number,
        # one digest, one RSA signature and the inserts
        prepared = prepare_sales_document(draft)
        row = self._row(tenant, caller, request, draft, group)
        row.affected_document_id = affected_row.id if affected_row is not None else None
        try:
            with self.context.writing() as connection:
                if request.number is None:
                    number = take_next_number(connection, series_id)
                else:
                    claim_number(connection, series_id, request.number)
                    number = request.number
                signed = prepared.sign(identity, number)
                text = qr_text(replace(draft, number=number), signed.digest_value)
                row.number, row.filename, row.hash = number, signed.filename, signed.digest_value
                row.qr_text = text
                row.id = store_document(connection, row)
                store_artifact(connection, row.id, "xml", signed.xml)
        except (IntegrityError, self.context.dbapi_integrity_error) as exc:
            if request.number is not None:
                raise self._duplicate(request) from exc
            raise
        has_cdr = False
        if group == SENDABLE_GROUP and request.send_xml_signed and tenant.settings.get("send_auto", True):
            row, has_cdr = self._send(tenant, row, signed.xml, first=True)
        return Issued(document=row, qr_png_base64=qr_png_base64(text), has_cdr=has_cdr)

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
        )

    # -- sending -----------------------------------------------------------------------------------

    def _send(
        self, tenant: TenantInfo, row: Document, xml: bytes, *, first: bool = False
    ) -> tuple[Document, bool]:
        """Send the signed XML, then store the answer: state, response and CDR (never the document itself)."""
        registry = SqlRegistry(self.context, deferred=True)
        # a sandbox loading history sends back-dated documents "on their day" instead of late
        received_on = None if tenant.settings.get("authority_check_deadlines", True) else row.date_of_issue
        answer: AuthorityResponse = self.context.gateway(tenant, registry, received_on=received_on).send_bill(
            f"{row.filename}.zip", zip_document(row.filename, xml)
        )
        state, regularize = states.state_after_answer(answer.code, answer.notes, row.state_type_id)
        response: dict[str, Any] = {"code": answer.code, "description": answer.description}
        if answer.cdr_zip is not None:
            response["notes"] = list(answer.notes)
        with self.context.writing() as connection:
            registry.flush(connection)
            store_answer(connection, row.id, state, response, regularize)
            if answer.cdr_zip is not None:
                if not first:
                    connection.execute(DELETE_ARTIFACT, {"document_id": row.id, "kind": "cdr"})
                store_artifact(connection, row.id, "cdr", answer.cdr_zip)
        row.state_type_id, row.response, row.regularize_shipping = state, response, regularize
        return row, answer.cdr_zip is not None

    def send(self, tenant: TenantInfo, external_id: Any) -> tuple[Document, bool]:
        """Send (or re-send) a stored factura or factura note; returns the row and whether a CDR exists."""
        if not isinstance(external_id, str) or not external_id.strip():
            raise field_error("external_id", "El campo external_id es obligatorio.", "MISSING_FIELDS")
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
        return row, has_cdr or self._artifact(row, "cdr") is not None

    def update_status(self, tenant: TenantInfo, external_id: Any, state: Any) -> Document:
        """Set a document's state by hand (reference §8.2); the state must be a known code."""
        if not isinstance(external_id, str) or not external_id.strip():
            raise field_error(
                "external_id", "El campo external_id (o externail_id) es obligatorio.", "MISSING_FIELDS"
            )
        if not isinstance(state, str) or state not in states.STATE_TYPES:
            raise field_error(
                "state_type_id",
                "El campo state_type_id debe ser uno de " + ", ".join(states.STATE_TYPES) + ".",
                "INVALID_FIELD",
            )
        row = self.find(tenant, external_id)
        with self.context.writing() as connection:
            connection.execute(update(DOCUMENTS).where(DOCUMENTS.c.id == row.id).values(state_type_id=state))
        row.state_type_id = state
        return row

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
        self, tenant: TenantInfo, start: dt.date | None = None, end: dt.date | None = None
    ) -> list[dict[str, Any]]:
        """Documents issued between two dates (inclusive), newest first; without dates the latest 50.

        One Core query (no ORM objects): amounts come as floats (exact for the stored two decimals) and
        the JSON columns as text, decoded only for the rows that need them, so 20,000 rows stay fast.
        """
        query = LIST_QUERY.where(DOCUMENTS.c.tenant_id == tenant.id)
        if start is not None and end is not None:
            query = query.where(DOCUMENTS.c.date_of_issue.between(start, end))
        query = query.order_by(DOCUMENTS.c.date_of_issue.desc(), DOCUMENTS.c.id.desc())
        if start is None:
            query = query.limit(50)
        with self.context.engine.connect() as connection:
            result = connection.execute(query)
            keys = tuple(result.keys())
            # plain dicts: a SQLAlchemy Row's attribute access costs ~1 us, 45 of them per row add up
            return [dict(zip(keys, row, strict=True)) for row in result]

    def _artifact(self, row: Document, kind: str) -> bytes | None:
        with self.context.session() as session:
            return session.scalar(
                select(Artifact.content).where(Artifact.document_id == row.id, Artifact.kind == kind)
            )

    def download(self, tenant: TenantInfo, kind: str, external_id: str, fmt: str | None = None) -> Download:
        """The signed XML, the CDR zip or the PDF (rendered on first request and kept)."""
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
            if pdf_format not in ("a4", "ticket", "ticket_58"):
                raise not_found(f"El formato {pdf_format} no existe.", "FORMAT_NOT_FOUND")
            content = self._artifact(row, f"pdf-{pdf_format}") or self._render_pdf(tenant, row, pdf_format)
            return Download(content, f"{row.filename}.pdf", "application/pdf")
        raise not_found(f"El tipo de archivo {kind} no existe.", "FILE_TYPE_NOT_FOUND")

    def _render_pdf(self, tenant: TenantInfo, row: Document, pdf_format: str) -> bytes:
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
        content = render_pdf(document, digest_value=row.hash, qr_text=row.qr_text, fmt=pdf_format)
        try:
            with self.context.writing() as connection:
                store_artifact(connection, row.id, f"pdf-{pdf_format}", content)
        except (IntegrityError, self.context.dbapi_integrity_error):  # rendered concurrently: keep the first
            pass
        return content


def sales_document(issuer: Issuer, request: DocumentRequest, note: NoteInfo | None = None) -> SalesDocument:
    """The document a checked request describes, with its legends (1000: the amount in words; 1002 for
    free lines), before it has a correlative (``number`` 0)."""
    legends = list(request.legends)
    codes = {legend.code for legend in legends}
    if "1000" not in codes:
        legends.insert(0, Legend("1000", amount_in_words(request.totals.total, request.currency)))
    if "1002" not in codes and any(is_free(line.affectation) for line in request.lines):
        legends.append(Legend("1002", FREE_LEGEND))
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
        extensions=request.extensions(),
    )


def document_type_description(doc_type: str) -> str:
    return DOCUMENT_TYPES.get(doc_type, doc_type)
