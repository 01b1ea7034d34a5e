"""``/api/dispatches`` and ``/api/dispatch-carrier``: dispatch guides (09, 31), their sending through the
GRE REST API and their tickets (``docs/facturador_pro_api.md``, dispatch guides), lists and downloads.

Answers: creation ``{success, data: {number, filename, external_id}, links}``; sending ``{success,
message, data}`` (SUNAT's ticket); the ticket's status 200 with the CDR's message (05 accepted, 09
rejected) or 202 while in process. An unknown ``external_id`` is 404, a guide sent twice 409, the GRE API
refusing (token, file) or unreachable 502 - where real tenants answer HTTP 200 ``success: false``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import (
    DayParameter,
    ExternalIdParameter,
    FastJSON,
    authenticated,
    base_url,
    current_tenant,
    json_object,
    parse_range,
    path_parameter,
)
from facturador.api.heavy import heavy_work, line_count
from facturador.api.listing import PAGE_LINKS, PAGE_META, component, obj, paginated
from facturador.domain.dispatch_input import CARRIER_BODY, DISPATCH_BODY, GUIDE_QUERY
from facturador.domain.dispatches import GRE_MOUNT, RECORDS_PER_PAGE, DispatchService
from facturador.domain.document_schema import EXTERNAL_ID

router = APIRouter(tags=["dispatches"])

_QUERY_EXAMPLE = {"external_id": "9d44af0f-9979-4c61-9e5e-291567184995"}
_GUIDE_ID = "$response.body#/data/external_id"
_DATA = {
    "type": "object",
    "properties": {
        "number": {"type": "string"},
        "filename": {"type": "string"},
        "external_id": {"type": "string"},
        "state_type_id": {"type": "string"},
        "ticket": {"type": ["string", "null"]},
        "qr_url": {"type": ["string", "null"]},
    },
    "required": ["number", "filename", "external_id"],
}
_LINKS = {"type": "object", "additionalProperties": {"type": ["string", "null"]}}
CREATED = {
    "type": "object",
    "properties": {"success": {"const": True}, "data": _DATA, "links": _LINKS},
    "required": ["success", "data"],
}
ANSWERED = {
    "type": "object",
    "properties": {
        "success": {"type": "boolean"},
        "message": {"type": "string"},
        "data": _DATA,
        "links": _LINKS,
    },
    "required": ["success", "message", "data"],
}
LISTED = {
    "type": "object",
    "properties": {"success": {"const": True}, "data": {"type": "array"}},
    "required": ["success", "data"],
}


def service(request: Request) -> DispatchService:
    return request.app.state.dispatches


def simulator_url(request: Request) -> str:
    """This service's GRE simulator, reached over loopback HTTP on the socket the request came in on."""
    host, port = request.scope.get("server") or ("127.0.0.1", 8000)
    if ":" in str(host):
        host = f"[{host}]"
    return f"{request.url.scheme}://{host}:{port}{GRE_MOUNT}"


def links(request: Request, external_id: str, *, cdr: bool) -> dict[str, str | None]:
    root = f"{base_url(request)}/downloads/dispatch"
    return {
        "xml": f"{root}/xml/{external_id}",
        "pdf": f"{root}/pdf/{external_id}",
        "cdr": f"{root}/cdr/{external_id}" if cdr else None,
    }


def _created_responses() -> dict[int | str, Any]:
    return contract.responses(
        CREATED,
        400,
        401,
        404,
        409,
        413,
        422,
        links={
            "send": contract.link("sendDispatch", body={"external_id": _GUIDE_ID}),
            "xml": contract.link("downloadDispatch", parameters={"kind": "xml", "external_id": _GUIDE_ID}),
        },
    )


async def _create(request: Request, doc_type: str) -> dict[str, Any]:
    tenant, caller = authenticated(request)
    body = await json_object(request)
    data = await heavy_work(request).by_lines(
        line_count(body), service(request).create, tenant, caller, body, doc_type
    )
    return {"success": True, "data": data, "links": links(request, data["external_id"], cdr=False)}


@router.post(
    "/api/dispatches",
    summary="Issue a sender's dispatch guide (09), signed and not sent (state 01)",
    operation_id="issueDispatch",
    openapi_extra=contract.secured(contract.body(DISPATCH_BODY)),
    responses=_created_responses(),
)
async def issue_dispatch(request: Request) -> dict[str, Any]:
    return await _create(request, "09")


@router.post(
    "/api/dispatch-carrier",
    summary="Issue a carrier's dispatch guide (31), signed and not sent (state 01)",
    operation_id="issueDispatchCarrier",
    openapi_extra=contract.secured(contract.body(CARRIER_BODY)),
    responses=_created_responses(),
)
async def issue_carrier(request: Request) -> dict[str, Any]:
    return await _create(request, "31")


@router.post(
    "/api/dispatches/send",
    summary="Send a guide to SUNAT's GRE REST API; answers its ticket (state 03)",
    operation_id="sendDispatch",
    openapi_extra=contract.secured(contract.body(GUIDE_QUERY, _QUERY_EXAMPLE)),
    responses=contract.responses(
        ANSWERED,
        400,
        401,
        404,
        409,
        413,
        422,
        502,
        links={"status": contract.link("dispatchStatus", body={"external_id": _GUIDE_ID})},
    ),
)
async def send(request: Request) -> JSONResponse:
    tenant, _caller = authenticated(request)
    body = await json_object(request)
    answer = await run_in_threadpool(service(request).send, tenant, body, simulator_url(request))
    return JSONResponse(
        {**answer.body, "links": links(request, answer.external_id, cdr=False)}, answer.status
    )


@router.post(
    "/api/dispatches/status_ticket",
    summary="The guide's ticket: 05 accepted with the CDR and QR URL, 09 rejected, 202 while in process",
    operation_id="dispatchStatus",
    openapi_extra=contract.secured(contract.body(GUIDE_QUERY, _QUERY_EXAMPLE)),
    responses=contract.responses(
        ANSWERED,
        400,
        401,
        404,
        409,
        413,
        422,
        502,
        extra={
            202: {
                "description": "La guía aún está en proceso.",
                "content": {"application/json": {"schema": ANSWERED}},
            }
        },
    ),
)
async def status_ticket(request: Request) -> JSONResponse:
    tenant, _caller = authenticated(request)
    body = await json_object(request)
    answer = await run_in_threadpool(service(request).status, tenant, body, simulator_url(request))
    headers = {"Retry-After": "1"} if answer.status == 202 else None
    return JSONResponse(
        {**answer.body, "links": links(request, answer.external_id, cdr=answer.has_cdr)},
        answer.status,
        headers=headers,
    )


@router.get(
    "/api/dispatches/lists/{start}/{end}",
    summary="Guides (09 and 31) issued between two dates (Y-m-d)",
    operation_id="listDispatchesBetween",
    openapi_extra=contract.secured(),
    responses=contract.responses(LISTED, 401, 404, 422),
)
def list_between(request: Request, start: DayParameter, end: DayParameter) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    first, last = parse_range(start, end)
    rows = service(request).list_rows(tenant, first, last)
    for row in rows:
        _with_links(request, row)
    return {"success": True, "data": rows}


def _with_links(request: Request, row: dict[str, Any]) -> None:
    """A listed guide's file links, also under the real rows' names (``download_external_*``)."""
    row["links"] = links(request, row["external_id"], cdr=row["has_cdr"])
    for kind in ("xml", "pdf", "cdr"):
        row[f"download_external_{kind}"] = row["links"][kind]


CARRIER_PAGE = component(
    "DispatchCarrierPage",
    obj({"data": {"type": "array", "items": {"type": "object"}}, "links": PAGE_LINKS, "meta": PAGE_META}),
)


@router.get(
    "/api/dispatch-carrier/records",
    summary="Carrier guides (31), newest first, 20 per page",
    operation_id="listDispatchCarrierRecords",
    openapi_extra=contract.secured(),
    responses=contract.responses(CARRIER_PAGE, 401, 404, 422),
)
def carrier_records(
    request: Request,
    page: Annotated[int, Query(ge=1, le=1_000_000, description="Página (20 filas cada una).")] = 1,
) -> FastJSON:
    tenant, _caller = authenticated(request)
    found = service(request).records(tenant, "31", page)
    for row in found.rows:
        _with_links(request, row)
    return FastJSON(
        paginated(
            found.rows,
            path=f"{base_url(request)}/api/dispatch-carrier/records",
            query={},
            page=page,
            last_page=found.last_page,
            total=found.total,
            per_page=RECORDS_PER_PAGE,
        )
    )


@router.get(
    "/downloads/dispatch/{kind}/{external_id}",
    summary="A guide's signed XML, A4 PDF or CDR (zip)",
    operation_id="downloadDispatch",
    responses=contract.responses(
        None, 404, 422, extra={200: contract.files("application/xml", "application/pdf", "application/zip")}
    ),
    response_class=Response,
)
def download(
    request: Request, kind: Literal["xml", "pdf", "cdr"], external_id: ExternalIdParameter
) -> Response:
    """As the documents' downloads: the tenant's guide by its external_id (the id is the capability)."""
    tenant = current_tenant(request)
    external_id = path_parameter(EXTERNAL_ID, external_id, "external_id")
    content, media, name = service(request).file(tenant, external_id, kind)
    return Response(
        content, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )
