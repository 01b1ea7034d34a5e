"""``/api/document/email`` and ``/api/sale-note/email`` (real PRO's routes: ``{"id", "email"}``) queue a
document or sale note to be e-mailed to the customer; ``/api/documents/email-deliveries/{external_id}``
(this service's extension) shows a document's deliveries. See ``docs/email.md``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import ExternalIdParameter, authenticated, json_object, path_parameter
from facturador.api.listing import component
from facturador.domain.document_schema import EXTERNAL_ID
from facturador.domain.email_delivery import DOCUMENT, EMAIL_BODY, SALE_NOTE, Delivery, EmailDeliveries

router = APIRouter(tags=["email"])

_STRING = {"type": "string"}
_NULLABLE = {"type": ["string", "null"]}
DELIVERY = component(
    "EmailDelivery",
    {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "email": _STRING,
            "send_it": {"type": "boolean"},
            "send_date": _STRING,
            "state": {"type": "string", "enum": ["queued", "sent", "failed"]},
            "attempts": {"type": "integer"},
            "last_error": _NULLABLE,
            "created_at": _STRING,
            "updated_at": _STRING,
            "sent_at": _NULLABLE,
            "next_attempt_at": _NULLABLE,
        },
        "required": ["id", "email", "send_it", "state", "attempts"],
    },
)
QUEUED = component(
    "EmailQueued",
    {
        "type": "object",
        "properties": {
            "success": {"const": True},
            "message": _STRING,
            "data": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "state": _STRING, "email": _STRING},
                "required": ["id", "state", "email"],
            },
        },
        "required": ["success", "message", "data"],
    },
)
DELIVERIES = component(
    "EmailDeliveries",
    {
        "type": "object",
        "properties": {"success": {"const": True}, "data": {"type": "array", "items": DELIVERY}},
        "required": ["success", "data"],
    },
)
EXAMPLE = {"id": 1, "email": "cliente@example.com"}


def _service(request: Request) -> EmailDeliveries:
    return request.app.state.email


def _queued(delivery: Delivery) -> dict[str, Any]:
    return {
        "success": True,
        "message": f"El correo a {delivery.address} quedó en cola de envío.",
        "data": {"id": delivery.id, "state": delivery.state, "email": delivery.address},
    }


@router.post(
    "/api/document/email",
    summary="E-mail a document's PDF, XML and CDR to its customer (or the given addresses)",
    description="Real PRO's body: `id` (the document's) and `email` (addresses separated by commas or "
    "semicolons; omitted: the customer's). The message is queued and sent by the background worker "
    "through the tenant's SMTP server, with retries; `GET /api/documents/email-deliveries/{external_id}` "
    "and the list rows' `email_send_it_array` show its state. 409 when the tenant has no SMTP server.",
    operation_id="emailDocument",
    openapi_extra=contract.secured(contract.body(EMAIL_BODY, EXAMPLE)),
    responses=contract.responses(QUEUED, 400, 401, 404, 409, 413, 422),
)
async def email_document(request: Request) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    body = await json_object(request)
    delivery = await run_in_threadpool(_service(request).request, tenant, DOCUMENT, body)
    return _queued(delivery)


@router.post(
    "/api/sale-note/email",
    summary="E-mail a sale note's PDF to its customer (or the given addresses)",
    description="Real PRO's body: `id` (the sale note's) and `email`; queued as `document/email` is.",
    operation_id="emailSaleNote",
    openapi_extra=contract.secured(contract.body(EMAIL_BODY, EXAMPLE)),
    responses=contract.responses(QUEUED, 400, 401, 404, 409, 413, 422),
)
async def email_sale_note(request: Request) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    body = await json_object(request)
    delivery = await run_in_threadpool(_service(request).request, tenant, SALE_NOTE, body)
    return _queued(delivery)


@router.get(
    "/api/documents/email-deliveries/{external_id}",
    summary="A document's e-mail deliveries: addresses, state, attempts, last error, times (Lima)",
    description="This service's extension (real tenants answer 404), oldest first.",
    operation_id="documentEmailDeliveries",
    openapi_extra=contract.secured(),
    responses=contract.responses(DELIVERIES, 401, 404, 422),
)
def document_deliveries(request: Request, external_id: ExternalIdParameter) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    external_id = path_parameter(EXTERNAL_ID, external_id, "external_id")
    return {"success": True, "data": _service(request).of_document(tenant, external_id)}
