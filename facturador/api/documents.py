"""``/api/documents``: issue, send, update status and list facturas, boletas and notes.

Shapes follow the real services (``docs/facturador_pro_api.md``: issuing documents, other endpoints)."""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import (
    DayParameter,
    ExternalIdParameter,
    FastJSON,
    authenticated,
    base_url,
    json_object,
    parse_range,
    path_parameter,
)
from facturador.api.heavy import heavy_work, line_count
from facturador.api.listing import changes_meta, changes_query
from facturador.context import TenantInfo
from facturador.domain import idempotency, lookups, states
from facturador.domain.document_schema import DOCUMENT, EXTERNAL_ID
from facturador.domain.documents import (
    SEND_BODY,
    UPDATE_STATUS_BODY,
    DocumentService,
    Issued,
    document_type_description,
)
from facturador.store.models import Document
from sunat import catalogs
from sunat.calendar import lima_stamp, peru_today

router = APIRouter(prefix="/api/documents", tags=["documents"])
log = logging.getLogger("facturador.documents")

ISSUE_EXAMPLE = {
    "serie_documento": "F001",
    "numero_documento": "#",
    "fecha_de_emision": peru_today().isoformat(),  # an example that works the day the service starts
    "hora_de_emision": "10:11:11",
    "codigo_tipo_operacion": "0101",
    "codigo_tipo_documento": "01",
    "codigo_tipo_moneda": "PEN",
    "datos_del_cliente_o_receptor": {
        "codigo_tipo_documento_identidad": "6",
        "numero_documento": "20601030013",
        "apellidos_y_nombres_o_razon_social": "EMPRESA XYZ S.A.C.",
        "codigo_pais": "PE",
    },
    "totales": {
        "total_operaciones_gravadas": 100,
        "total_igv": 18,
        "total_impuestos": 18,
        "total_valor": 100,
        "total_venta": 118,
    },
    "items": [
        {
            "codigo_interno": "P0121",
            "descripcion": "Inca Kola 250 ml",
            "unidad_de_medida": "NIU",
            "cantidad": 2,
            "valor_unitario": 50,
            "codigo_tipo_precio": "01",
            "precio_unitario": 59,
            "codigo_tipo_afectacion_igv": "10",
            "total_base_igv": 100,
            "porcentaje_igv": 18,
            "total_igv": 18,
            "total_impuestos": 18,
            "total_valor_item": 100,
            "total_item": 118,
        }
    ],
}


def _service(request: Request) -> DocumentService:
    return request.app.state.documents


def queue_issued_email(request: Request, tenant: TenantInfo, document_id: int, address: str) -> None:
    """``acciones.enviar_email``: queue the e-mail of an issued document (a failure to queue is logged:
    the document is issued and its answer stands; the e-mail can be asked again)."""
    try:
        request.app.state.email.after_issue(tenant, document_id, address)
    except Exception:
        log.exception("could not queue the e-mail of document %s", document_id)


def links(request: Request, row: Document, has_cdr: bool) -> dict[str, str]:
    base = base_url(request)
    return {
        "xml": f"{base}/downloads/document/xml/{row.external_id}",
        "pdf": f"{base}/downloads/document/pdf/{row.external_id}",
        "cdr": f"{base}/downloads/document/cdr/{row.external_id}" if has_cdr else "",
    }


def authority_response(row: Document) -> dict[str, Any] | list[Any]:
    """``response`` as real tenants give it: ``[]`` when the document was not sent."""
    return row.response if row.response else []


def numbered(row: Any) -> dict[str, str]:
    """What an answer says of a numbered document (a factura, a note, a retention...): its number, file
    name, code in the service and state."""
    return {
        "number": f"{row.series}-{row.number}",
        "filename": row.filename,
        "external_id": row.external_id,
        "state_type_id": row.state_type_id,
        "state_type_description": states.describe(row.state_type_id),
    }


def issued_answer(request: Request, issued: Issued, *, customer_warning: str | None = None) -> FastJSON:
    """The answer to a document issued (a factura, boleta or note, or a sale note turned into one), as
    real tenants give it; a replay of an earlier request with the same idempotency key says so, and
    ``customer_warning`` what SUNAT's padrón says of the customer (BAJA, NO HABIDO...), when it says it."""
    row = issued.document
    return FastJSON(
        {
            "success": True,
            "data": {
                **numbered(row),
                "number_to_letter": row.number_to_letter,
                "hash": row.hash,
                "qr": issued.qr_png_base64,
                "id": row.id,
            },
            "links": links(request, row, has_cdr=issued.has_cdr),
            "response": authority_response(row),
            "was_duplicate": issued.replayed,
            **({"customer_warning": customer_warning} if customer_warning else {}),
        },
        headers={idempotency.REPLAYED_HEADER: "true"} if issued.replayed else None,
    )


ISSUE_RESPONSES = contract.responses(
    contract.ISSUED,
    400,
    401,
    404,
    409,
    413,
    422,
    links={
        "xml": contract.link(
            "downloadDocument", parameters={"kind": "xml", "external_id": contract.ISSUED_ID}
        ),
        "pdf": contract.link(
            "downloadDocumentPdf",
            parameters={"kind": "pdf", "external_id": contract.ISSUED_ID, "fmt": "ticket"},
        ),
        "send": contract.link("sendDocument", body={"external_id": contract.ISSUED_ID}),
        "state": contract.link(
            "updateDocumentStatus", body={"externail_id": contract.ISSUED_ID, "state_type_id": "05"}
        ),
    },
)
ISSUE_RESPONSES[200]["headers"] = {
    idempotency.REPLAYED_HEADER: {
        "description": "true cuando la respuesta repite el documento que la clave ya había emitido.",
        "schema": {"type": "string", "enum": ["true"]},
    }
}


@router.post(
    "",
    summary="Issue a factura, boleta, credit note or debit note",
    operation_id="issueDocument",
    openapi_extra=contract.secured(
        {
            **contract.body(DOCUMENT, ISSUE_EXAMPLE),
            "parameters": [
                {
                    "name": idempotency.HEADER,
                    "in": "header",
                    "required": False,
                    "description": idempotency.KEY.description,
                    "schema": {"type": "string", "maxLength": idempotency.MAX_KEY_LENGTH},
                }
            ],
        }
    ),
    responses=ISSUE_RESPONSES,
)
async def issue(request: Request) -> FastJSON:
    tenant, caller = authenticated(request)
    body = await json_object(request)
    service = _service(request)
    key_header = request.headers.get(idempotency.HEADER)
    issued = await heavy_work(request).by_lines(
        line_count(body), service.issue, tenant, caller, body, key_header
    )
    if issued.email_to is not None and not issued.replayed:
        # queued after SUNAT's answer; the worker attaches the CDR it finds when it sends
        await run_in_threadpool(queue_issued_email, request, tenant, issued.document.id, issued.email_to)
    row = issued.document
    warning = await run_in_threadpool(
        lookups.customer_warning, request.app.state.context, row.customer_identity_type, row.customer_number
    )
    return issued_answer(request, issued, customer_warning=warning)


@router.post(
    "/send",
    summary="Send to the authority a factura (or its note) issued without sending",
    operation_id="sendDocument",
    openapi_extra=contract.secured(
        contract.body(SEND_BODY, {"external_id": "c6b0b013-c610-4a1e-bdf8-6ef4e708ded6"})
    ),
    responses=contract.responses(contract.SENT, 400, 401, 404, 413, 422),
)
async def send(request: Request) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    body = await json_object(request)
    row, has_cdr = await run_in_threadpool(_service(request).send, tenant, body)
    return {
        "success": True,
        "data": numbered(row),
        "links": {"cdr": links(request, row, has_cdr)["cdr"]},
        "response": authority_response(row),
    }


@router.post(
    "/updatedocumentstatus",
    summary="Set a document's state (accepts the real key externail_id)",
    operation_id="updateDocumentStatus",
    openapi_extra=contract.secured(
        contract.body(
            UPDATE_STATUS_BODY,
            {
                "externail_id": "c6b0b013-c610-4a1e-bdf8-6ef4e708ded6",
                "state_type_id": "05",
                "motivo": "Aceptada en SUNAT (consulta de validez del 05/12/2026)",
            },
        )
    ),
    responses=contract.responses(contract.MESSAGE, 400, 401, 404, 413, 422),
)
async def update_status(request: Request) -> dict[str, Any]:
    tenant, caller = authenticated(request)
    body = await json_object(request)
    row = await run_in_threadpool(_service(request).update_status, tenant, body, caller)
    return {
        "success": True,
        "message": f"Se cambió el estado del documento {row.series}-{row.number} a "
        f"{states.describe(row.state_type_id)}.",
    }


@router.get(
    "/state-changes/{external_id}",
    summary="A document's states set by hand: who, when (Lima), from, to, why",
    description="This service's extension (real tenants answer 404): the audit record that "
    "`updatedocumentstatus` leaves, oldest first; empty for a document never changed by hand.",
    operation_id="documentStateChanges",
    openapi_extra=contract.secured(),
    responses=contract.responses(contract.STATE_CHANGES, 401, 404, 422),
)
def state_changes(request: Request, external_id: ExternalIdParameter) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    external_id = path_parameter(EXTERNAL_ID, external_id, "external_id")
    return {"success": True, "data": _service(request).state_changes(tenant, external_id)}


@router.get(
    "/lists",
    summary="The latest 50 documents",
    operation_id="listDocuments",
    openapi_extra=contract.secured(),
    responses=contract.responses(contract.DOCUMENT_LIST, 401, 404),
)
def latest(request: Request) -> FastJSON:
    tenant, _caller = authenticated(request)
    return FastJSON(list_rows_payload(_service(request).list_rows(tenant), base_url(request)))


@router.get(
    "/lists/{start}/{end}",
    summary="Documents issued between two dates (Y-m-d, inclusive)",
    description="With `details=1` every row also carries its lines (`items`), its payment condition "
    "(`payment_condition_id`: 01 cash, 02 credit) and its instalments (`fee`); real Facturador PRO "
    "tenants ignore the parameter.\n\nThis service's extension (real tenants ignore it, and so does a "
    "tenant with the setting `list_changes` off): `changed_since` (ISO 8601) keeps the documents changed "
    "at or after that moment, `limit` (1-20000) pages the answer by id and `after` asks for the page "
    "after that id. The answer then carries `changes`: `as_of` (the service's time when it read: the "
    "next `changed_since`) and `next` (the next page's `after`, null on the last).",
    operation_id="listDocumentsBetween",
    openapi_extra=contract.secured(),
    responses=contract.responses(contract.DOCUMENT_LIST, 401, 404, 422),
)
def between(
    request: Request,
    start: DayParameter,
    end: DayParameter,
    details: bool = False,
    changed_since: Annotated[str | None, Query(description="ISO 8601: changed at or after.")] = None,
    limit: Annotated[str | None, Query(description="Rows per page, 1-20000.")] = None,
    after: Annotated[str | None, Query(description="The `changes.next` of the previous page.")] = None,
) -> FastJSON:
    tenant, _caller = authenticated(request)
    first, last = parse_range(start, end)
    query = changes_query(changed_since, limit, after) if tenant.settings.get("list_changes", True) else None
    if query is None:
        rows = _service(request).list_rows(tenant, first, last, details=details)
        return FastJSON(list_rows_payload(rows, base_url(request)))
    as_of = dt.datetime.now(dt.UTC).replace(tzinfo=None)  # before reading: a change while it reads is newer
    page = (query.since, query.after, query.limit)
    rows = _service(request).list_rows(tenant, first, last, details=details, page=page)
    payload = list_rows_payload(rows, base_url(request))
    payload["changes"] = changes_meta(rows, query, as_of)
    return FastJSON(payload)


def list_rows_payload(rows: list[dict[str, Any]], base: str) -> dict[str, Any]:
    """The list endpoints' body: one dict per row with the keys of a real list row
    (``docs/facturador_pro_api.md``, document lists) the model has.

    Rows come from ``DocumentService.list_rows``; dates and times are left to orjson, and the parts
    shared by every row are computed once (20,000 rows must stay well under a second).
    """
    xml_url, pdf_url, cdr_url = (f"{base}/downloads/document/{kind}/" for kind in ("xml", "pdf", "cdr"))
    describe_state, describe_type = states.describe, document_type_description
    describe_identity = catalogs.IDENTITY_TYPES.get
    data: list[dict[str, Any]] = []
    append = data.append
    for row in rows:
        ext = row["external_id"]
        has_cdr = bool(row["has_cdr"])
        regularize = bool(row["regularize_shipping"])
        response = _json(row["response_json"]) if regularize else None  # decoded only where it is shown
        affected = _json(row["affected_json"]) if row["affected_json"] else None
        if affected is not None:
            affected = {"number": f"{affected['series']}-{affected['number']}", **affected}
            affected["date_of_issue"] = row["affected_date"]
        append(
            {
                "id": row["id"],
                "external_id": ext,
                "group_id": row["group_id"],
                "soap_type_id": "01",
                "soap_type_description": "Demo",
                "date_of_issue": row["date_of_issue"],
                "time_of_issue": row["time_of_issue"],
                "date_of_due": row["date_of_due"],
                "number": f"{row['series']}-{row['number']}",
                "series": row["series"],
                "correlative": row["number"],
                "filename": row["filename"],
                "document_type_id": row["document_type_id"],
                "document_type_description": describe_type(row["document_type_id"]),
                "operation_type_id": row["operation_type_id"],
                "customer_name": row["customer_name"],
                "customer_number": row["customer_number"],
                "customer_identity_document_type_id": row["customer_identity_type"],
                "customer_identity_document_type_description": describe_identity(
                    row["customer_identity_type"], ""
                ),
                "customer_telephone": row["customer_telephone"] or None,
                "customer_email": row["customer_email"] or None,
                "user_id": row["user_id"],
                "currency_type_id": row["currency_type_id"],
                "exchange_rate_sale": f"{row['exchange_rate_sale'] or 1:.6f}".rstrip("0").rstrip("."),
                "total_exportation": f"{row['total_exportation'] or 0.0:.2f}",
                "total_free": f"{row['total_free'] or 0.0:.2f}",
                "total_unaffected": f"{row['total_unaffected'] or 0.0:.2f}",
                "total_exonerated": f"{row['total_exonerated'] or 0.0:.2f}",
                "total_taxed": f"{row['total_taxed'] or 0.0:.2f}",
                "total_igv": f"{row['total_igv'] or 0.0:.2f}",
                "total_plastic_bag_taxes": f"{row['total_plastic_bag_taxes'] or 0.0:.2f}",
                "total_taxes": f"{row['total_taxes'] or 0.0:.2f}",
                "total_value": f"{row['total_value'] or 0.0:.2f}",
                "total": f"{row['total'] or 0.0:.2f}",
                "state_type_id": row["state_type_id"],
                "state_type_description": describe_state(row["state_type_id"]),
                "has_xml": True,  # the signed XML is stored when the document is issued
                "has_pdf": True,  # rendered on demand
                "has_cdr": has_cdr,
                "download_xml": xml_url + ext,
                "download_pdf": pdf_url + ext,
                "download_cdr": cdr_url + ext if has_cdr else "",
                "regularize_shipping": regularize,
                "message_regularize_shipping": (
                    f"Por regularizar: {response['code']} - {response['description']}" if response else None
                ),
                "affected_document": affected,
                "note_type_id": row["note_type_id"],
                "purchase_order": row["purchase_order"],
                # the real key (a list of the sale notes the document came from), reduced to what is known
                "sales_note": [
                    {
                        "id": row["sale_note_id"],
                        "number_full": f"{row['sale_note_series']}-{row['sale_note_number']}",
                        "external_id": row["sale_note_external_id"],
                    }
                ]
                if row["sale_note_id"] is not None
                else [],
                "created_at": lima_stamp(row["created_at"]),
                "updated_at": lima_stamp(row["updated_at"]),
                # keys of the real rows (DocumentCollection) whose features this service does not have
                "soap_type": {"id": "01", "description": "Demo"},
                "send_server": False,
                "shipping_status": None,
                "sunat_shipping_status": None,
                "query_status": None,
                "custom_fields_data": None,
                "order_note": None,
                # this service's extension: the states set by hand, who, when, why (empty: never)
                "state_changes": row["state_changes"],
                # real PRO's record of the e-mails sent (EmailSendLog), with this service's state,
                # attempts and last error of each delivery (docs/email.md)
                "email_send_it": any(item["send_it"] for item in row["email_deliveries"]),
                "email_send_it_array": row["email_deliveries"],
            }
        )
        payments = _json(row["payments_json"]) or []
        data[-1]["payments"] = payments
        data[-1]["total_payments"] = f"{sum(float(p['payment']) for p in payments):.2f}"
        if "data_text" in row:
            data[-1].update(_details(_json(row["data_text"]) or {}))
    return {"data": data}


def _details(body: dict[str, Any]) -> dict[str, Any]:
    """A row's lines, payment condition and instalments, read from its stored request, with the keys of
    the real services' document items and fees (``item``/``fee`` relations)."""
    items = []
    for item in body.get("items") or []:
        if not isinstance(item, dict):
            continue
        items.append(
            {
                "internal_id": item.get("codigo_interno") or "",
                "description": item.get("descripcion") or "",
                "unit_type_id": item.get("unidad_de_medida") or "",
                "quantity": item.get("cantidad"),
                "unit_value": item.get("valor_unitario"),
                "unit_price": item.get("precio_unitario"),
                "affectation_igv_type_id": item.get("codigo_tipo_afectacion_igv") or "",
                "total_value": item.get("total_valor_item"),
                "total_igv": item.get("total_igv"),
                "total_plastic_bag_taxes": item.get("total_impuestos_bolsa_plastica") or 0,
                "total": item.get("total_item"),
            }
        )
    fees = [
        {
            "date": fee.get("fecha"),
            "currency_type_id": fee.get("codigo_tipo_moneda"),
            "amount": fee.get("monto"),
        }
        for fee in body.get("cuotas") or []
        if isinstance(fee, dict)
    ]
    condition = str(body.get("codigo_condicion_de_pago") or ("02" if fees else "01"))
    return {"items": items, "payment_condition_id": condition, "fee": fees}


def _json(text: str | None) -> Any:
    return json.loads(text) if text and text != "null" else None
