"""``/api/voided``: voided communications (RA) of facturas and their notes, and their tickets.

Shapes follow the real services (``docs/facturador_pro_api.md``, voided communications); the date is accepted
as ``Y-m-d`` (P4/P5) and ``d-m-Y`` (P9). Errors, the 202 answer of a ticket in process and the 502 of an
authority exception are those of :mod:`facturador.api.summaries`.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import authenticated, json_object
from facturador.api.summaries import (
    STATUS_RESPONSES,
    list_route,
    send_responses,
    sent_answer,
    service,
    ticket_answer,
)
from facturador.domain.summaries import RA, TICKET_QUERY, VOIDED_BODY
from sunat.calendar import peru_today

router = APIRouter(prefix="/api/voided", tags=["voided"])


@router.post(
    "",
    summary="Send a voided communication of accepted facturas and their notes",
    operation_id="sendVoided",
    openapi_extra=contract.secured(
        contract.body(
            VOIDED_BODY,
            {
                "fecha_de_emision_de_documentos": peru_today().isoformat(),
                "documentos": [
                    {"external_id": "9d44af0f-9979-4c61-9e5e-291567184995", "motivo_anulacion": "Se duplicó"}
                ],
            },
        )
    ),
    responses=send_responses("voidedStatus", "downloadVoided"),
)
async def void(request: Request) -> dict[str, Any]:
    tenant, caller = authenticated(request)
    body = await json_object(request)
    sent = await run_in_threadpool(service(request).void, tenant, caller, body)
    return sent_answer(sent)


@router.post(
    "/status",
    summary="The ticket of a voided communication: its CDR, or 202 while the authority processes it",
    operation_id="voidedStatus",
    openapi_extra=contract.secured(
        contract.body(TICKET_QUERY, {"external_id": "9d44af0f-9979-4c61-9e5e-291567184995"})
    ),
    responses=STATUS_RESPONSES,
)
async def status(request: Request) -> JSONResponse:
    tenant, _caller = authenticated(request)
    body = await json_object(request)
    answer = await run_in_threadpool(service(request).status, tenant, RA, body)
    return ticket_answer(request, RA, answer)


list_route(router, RA, "voided communications", "Voided")
