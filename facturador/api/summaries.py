"""``/api/summaries``: daily summaries (RC) that declare or void boletas, and their tickets.

Shapes follow the real services (``docs/facturador_pro_api.md``, daily summaries); where they answer
HTTP 500 this one answers 4xx: bad input 422 (nothing changes), unknown summary 404, and a ticket still in
process **HTTP 202** with ``{"success": false, "message": "Code: 98; Description: El procesamiento del
comprobante aún no ha terminado", "error_code": "TICKET_IN_PROCESS", "data": {...}}`` and a
``Retry-After`` header (the real services answer that message with HTTP 500): ask again later, nothing
changed. An authority that refuses the file or cannot be reached answers 502 ``AUTHORITY_EXCEPTION`` with
``Code: c; Description: d``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import DayParameter, authenticated, base_url, json_object, parse_range
from facturador.domain import states
from facturador.domain.summaries import (
    IN_PROCESS_MESSAGE,
    RA,
    RC,
    SUMMARY_BODY,
    TICKET_QUERY,
    SentSummary,
    SummaryService,
    TicketAnswer,
)
from sunat.calendar import lima_stamp, peru_today

router = APIRouter(prefix="/api/summaries", tags=["summaries"])

#: Seconds a client is asked to wait before polling a ticket in process again.
RETRY_AFTER_SECONDS = 1
_DOWNLOAD_KIND = {RC: "summary", RA: "voided", "RR": "reversion"}


#: The answers of ``POST .../status``: the ticket's CDR, or 202 while SUNAT processes it.
STATUS_RESPONSES = contract.responses(
    contract.TICKET_ANSWERED, 400, 401, 404, 409, 413, 422, 502, extra={202: contract.ticket_in_process()}
)


def send_responses(status_operation: str, download_operation: str) -> dict[int | str, Any]:
    """The answers of ``POST /api/summaries`` and ``POST /api/voided``, linked to the ticket's status and
    the signed XML."""
    return contract.responses(
        contract.SUMMARY_SENT,
        400,
        401,
        404,
        409,
        413,
        422,
        502,
        links={
            "status": contract.link(status_operation, body={"external_id": contract.SUMMARY_ID}),
            "ticket": contract.link(status_operation, body={"ticket": contract.SUMMARY_TICKET}),
            "xml": contract.link(
                download_operation, parameters={"kind": "xml", "external_id": contract.SUMMARY_ID}
            ),
        },
    )


def service(request: Request) -> SummaryService:
    return request.app.state.summaries


def sent_answer(sent: list[SentSummary]) -> dict[str, Any]:
    """``{"success": true, "data": {"external_id", "ticket"}}``; when the documents needed more than one
    summary (500 lines each) ``data`` is the first one and ``data.summaries`` lists them all."""
    first = sent[0]
    data: dict[str, Any] = {"external_id": first.external_id, "ticket": first.ticket}
    if len(sent) > 1:
        data["summaries"] = [{"external_id": s.external_id, "ticket": s.ticket} for s in sent]
    return {"success": True, "data": data}


def ticket_answer(request: Request, summary_type: str, answer: TicketAnswer) -> JSONResponse:
    """The status answer of a summary or voided communication, or HTTP 202 ``TICKET_IN_PROCESS`` while SUNAT
    works."""
    data = {"filename": answer.filename, "external_id": answer.external_id}
    if answer.in_process or answer.response is None:
        return JSONResponse(
            {
                "success": False,
                "message": IN_PROCESS_MESSAGE,
                "error_code": "TICKET_IN_PROCESS",
                "errors": [],
                "data": {
                    **data,
                    "ticket": answer.ticket,
                    "state_type_id": answer.state_type_id,
                    "state_type_description": states.describe(answer.state_type_id),
                },
            },
            status_code=202,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    base = f"{base_url(request)}/downloads/{_DOWNLOAD_KIND[summary_type]}"
    response = answer.response
    return JSONResponse(
        {
            "success": True,
            "data": data,
            "links": {"xml": f"{base}/xml/{answer.external_id}", "cdr": f"{base}/cdr/{answer.external_id}"},
            "response": {
                "sent": True,
                "code": response["code"],
                "description": response["description"],
                "notes": response["notes"],
                "is_accepted": response["status_code"] == 0,
                "status_code": response["status_code"],
            },
        }
    )


@router.post(
    "",
    summary="Send a daily summary: declare a day's boletas (process 1) or void boletas (process 3)",
    operation_id="sendSummary",
    openapi_extra=contract.secured(
        contract.body(
            SUMMARY_BODY,
            {"fecha_de_emision_de_documentos": peru_today().isoformat(), "codigo_tipo_proceso": "1"},
        )
    ),
    responses=send_responses("summaryStatus", "downloadSummary"),
)
async def summarize(request: Request) -> dict[str, Any]:
    tenant, caller = authenticated(request)
    body = await json_object(request)
    sent = await run_in_threadpool(service(request).summarize, tenant, caller, body)
    return sent_answer(sent)


@router.post(
    "/status",
    summary="The ticket of a daily summary: its CDR, or 202 while the authority processes it",
    operation_id="summaryStatus",
    openapi_extra=contract.secured(
        contract.body(TICKET_QUERY, {"external_id": "9a03b745-78c3-403d-afed-b9cef82be746"})
    ),
    responses=STATUS_RESPONSES,
)
async def status(request: Request) -> JSONResponse:
    tenant, _caller = authenticated(request)
    body = await json_object(request)
    answer = await run_in_threadpool(service(request).status, tenant, RC, body)
    return ticket_answer(request, RC, answer)


def list_answer(request: Request, summary_type: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"data": [...]}`` rows of summaries or voided communications with their state and links."""
    base = base_url(request)
    kind = _DOWNLOAD_KIND[summary_type]
    return {
        "data": [
            {
                "id": row["id"],
                "external_id": row["external_id"],
                "identifier": row["identifier"],
                "filename": row["filename"],
                "ticket": row["ticket"],
                "summary_type": row["summary_type"],
                "process_type": row["process_type"],
                "date_of_issue": row["date_of_issue"].isoformat(),
                "date_of_reference": row["date_of_reference"].isoformat(),
                "documents": row["documents"],
                "state_type_id": row["state_type_id"],
                "state_type_description": states.describe(row["state_type_id"]),
                "response": row["response"],
                "has_cdr": bool(row["has_cdr"]),
                "download_xml": f"{base}/downloads/{kind}/xml/{row['external_id']}",
                "download_cdr": f"{base}/downloads/{kind}/cdr/{row['external_id']}" if row["has_cdr"] else "",
                "created_at": lima_stamp(row["created_at"]),
            }
            for row in rows
        ]
    }


def list_route(router: APIRouter, summary_type: str, what: str, operation: str) -> None:
    """``GET {prefix}/lists`` (latest 100) and ``GET {prefix}/lists/{start}/{end}`` for one summary type."""

    @router.get(
        "/lists",
        summary=f"The latest 100 {what}",
        operation_id=f"list{operation}",
        openapi_extra=contract.secured(),
        responses=contract.responses(contract.SUMMARY_LIST, 401, 404),
    )
    def latest(request: Request) -> dict[str, Any]:
        tenant, _caller = authenticated(request)
        return list_answer(request, summary_type, service(request).list_rows(tenant, summary_type))

    @router.get(
        "/lists/{start}/{end}",
        summary=f"{what.capitalize()} generated between two dates (Y-m-d)",
        operation_id=f"list{operation}Between",
        openapi_extra=contract.secured(),
        responses=contract.responses(contract.SUMMARY_LIST, 401, 404, 422),
    )
    def between(request: Request, start: DayParameter, end: DayParameter) -> dict[str, Any]:
        tenant, _caller = authenticated(request)
        first, last = parse_range(start, end)
        return list_answer(
            request, summary_type, service(request).list_rows(tenant, summary_type, first, last)
        )


list_route(router, RC, "daily summaries", "Summaries")
