"""``/api/retentions`` and ``/api/perceptions``: issuing retentions (20) and perceptions (40), their lists,
and ``/downloads/{retention|perception}/{xml|pdf|cdr}/{external_id}`` (``docs/facturador_pro_api.md``,
retentions and perceptions).

The issue answer is the real services' ``{success, data{number, filename, external_id}, links{xml, pdf,
cdr}, response{code, description, notes}}`` plus the state and the hash; SUNAT's rejection (a CDR with
its code) is stored and answered like an acceptance, with state 09; an authority exception is 502.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api import summaries as summaries_api
from facturador.api.common import (
    DayParameter,
    ExternalIdParameter,
    authenticated,
    base_url,
    context_of,
    current_tenant,
    json_object,
    parse_range,
    path_parameter,
)
from facturador.api.documents import numbered
from facturador.domain import states
from facturador.domain.document_schema import EXTERNAL_ID
from facturador.domain.other_documents import (
    FAMILIES,
    FILE_KINDS,
    PERCEPTION,
    RETENTION,
    REVERSION_BODIES,
    RR,
    OtherDocumentService,
    check_reversion_family,
    reverse,
)
from facturador.domain.summaries import FILE_KINDS as SUMMARY_FILE_KINDS
from facturador.domain.summaries import TICKET_QUERY
from sunat.calendar import peru_today

router = APIRouter(tags=["retentions and perceptions"])

#: Path word of each family: /api/{plural}, /downloads/{singular}/...
_PATHS = {
    RETENTION: ("retentions", "retention", "Retention"),
    PERCEPTION: ("perceptions", "perception", "Perception"),
}
_STRING = {"type": "string"}
_NULLABLE = {"type": ["string", "null"]}
_ANSWER = {
    "type": "object",
    "properties": {"code": _STRING, "description": _STRING, "notes": {"type": "array", "items": _STRING}},
    "required": ["code", "description", "notes"],
}
contract.COMPONENTS["OtherDocumentIssued"] = {
    "type": "object",
    "properties": {
        "success": {"const": True},
        "data": {
            "type": "object",
            "properties": {
                "number": _STRING,
                "filename": _STRING,
                "external_id": _STRING,
                "state_type_id": _STRING,
                "state_type_description": _STRING,
                "hash": _STRING,
            },
            "required": [
                "number",
                "filename",
                "external_id",
                "state_type_id",
                "state_type_description",
                "hash",
            ],
        },
        "links": {
            "type": "object",
            "properties": {"xml": _STRING, "pdf": _STRING, "cdr": _STRING},
            "required": ["xml", "pdf", "cdr"],
        },
        "response": _ANSWER,
    },
    "required": ["success", "data", "links", "response"],
    "description": "Un comprobante de retención o percepción emitido y la respuesta de SUNAT.",
}
_MONEY = {"type": "string", "pattern": r"^-?[0-9]+\.[0-9]{2}$"}
contract.COMPONENTS["OtherDocumentRow"] = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "external_id": _STRING,
        "number": _STRING,
        "filename": _STRING,
        "date_of_issue": _STRING,
        "time_of_issue": _STRING,
        "party_identity_type": _STRING,
        "party_number": _STRING,
        "party_name": _STRING,
        "regime": _STRING,
        "percent": _STRING,
        "total": _MONEY,
        "total_net": _MONEY,
        "state_type_id": _STRING,
        "state_type_description": _STRING,
        "hash": _STRING,
        "response": {"anyOf": [_ANSWER, {"type": "null"}]},
        "links": {
            "type": "object",
            "properties": {"xml": _STRING, "pdf": _STRING, "cdr": _STRING},
            "required": ["xml", "pdf", "cdr"],
        },
    },
    "required": ["id", "external_id", "number", "filename", "date_of_issue", "total", "total_net", "links"],
}
ISSUED = {"$ref": "#/components/schemas/OtherDocumentIssued"}
LIST = {
    "type": "object",
    "properties": {"data": {"type": "array", "items": {"$ref": "#/components/schemas/OtherDocumentRow"}}},
    "required": ["data"],
}
FileKind = Annotated[
    str, Path(description="El archivo (otro: 404).", json_schema_extra={"enum": list(FILE_KINDS)})
]
SummaryKind = Annotated[
    str, Path(description="El archivo (otro: 404).", json_schema_extra={"enum": list(SUMMARY_FILE_KINDS)})
]
FILES = contract.responses(
    None, 404, 422, extra={200: contract.files("application/xml", "application/pdf", "application/zip")}
)


def service(request: Request) -> OtherDocumentService:
    return request.app.state.other_documents  # type: ignore[no-any-return]


def _links(request: Request, doc_type: str, external_id: str, has_cdr: bool) -> dict[str, str]:
    base = f"{base_url(request)}/downloads/{_PATHS[doc_type][1]}"
    return {
        "xml": f"{base}/xml/{external_id}",
        "pdf": f"{base}/pdf/{external_id}",
        "cdr": f"{base}/cdr/{external_id}" if has_cdr else "",
    }


def _example(doc_type: str) -> dict[str, Any]:
    today = peru_today().isoformat()
    retention = doc_type == RETENTION
    family = FAMILIES[doc_type]
    return {
        "serie_documento": "R001" if retention else "P001",
        "numero_documento": "#",
        "fecha_de_emision": today,
        "hora_de_emision": "10:11:11",
        "codigo_tipo_documento": doc_type,
        "datos_del_emisor": {"codigo_del_domicilio_fiscal": "0000"},
        family.party_key: {
            "codigo_tipo_documento_identidad": "6",
            "numero_documento": "20100070970",
            "apellidos_y_nombres_o_razon_social": "EMPRESA XYZ S.A.",
        },
        family.regime_key: "01",
        "documentos": [
            {
                "codigo_tipo_documento": "01",
                "serie_documento": "F001",
                "numero_documento": "3",
                "fecha_de_emision": today,
                "codigo_tipo_moneda": "PEN",
                "total_documento": 1000,
                "pagos": [{"fecha_de_pago": today, "total_pago": 1000, "codigo_tipo_moneda": "PEN"}],
                family.date_key: today,
            }
        ],
    }


def _routes(doc_type: str) -> None:
    plural, singular, title = _PATHS[doc_type]
    family = FAMILIES[doc_type]

    @router.post(
        f"/api/{plural}",
        summary=f"Issue a {singular} ({doc_type}) and send it to SUNAT",
        operation_id=f"issue{title}",
        openapi_extra=contract.secured(contract.body(family.body, _example(doc_type))),
        responses=contract.responses(ISSUED, 400, 401, 404, 409, 413, 422, 502),
    )
    async def issue(request: Request) -> dict[str, Any]:
        tenant, caller = authenticated(request)
        body = await json_object(request)
        issued = await run_in_threadpool(service(request).issue, tenant, caller, doc_type, body)
        row = issued.row
        return {
            "success": True,
            "data": {**numbered(row), "hash": row.hash},
            "links": _links(request, doc_type, row.external_id, issued.has_cdr),
            "response": row.response,
        }

    def answer(request: Request, rows: list[Any]) -> dict[str, Any]:
        return {
            "data": [
                {
                    "id": row.id,
                    "external_id": row.external_id,
                    "number": f"{row.series}-{row.number}",
                    "filename": row.filename,
                    "date_of_issue": row.date_of_issue.isoformat(),
                    "time_of_issue": row.time_of_issue.strftime("%H:%M:%S"),
                    "party_identity_type": row.party_identity_type,
                    "party_number": row.party_number,
                    "party_name": row.party_name,
                    "regime": row.regime,
                    "percent": f"{row.percent.normalize():f}",
                    "total": f"{row.total:.2f}",
                    "total_net": f"{row.total_net:.2f}",
                    "state_type_id": row.state_type_id,
                    "state_type_description": states.describe(row.state_type_id),
                    "hash": row.hash,
                    "response": row.response,
                    "links": _links(request, doc_type, row.external_id, row.has_cdr),
                }
                for row in rows
            ]
        }

    @router.get(
        f"/api/{plural}/lists",
        summary=f"The latest 100 {plural}",
        operation_id=f"list{title}s",
        openapi_extra=contract.secured(),
        responses=contract.responses(LIST, 401, 404),
    )
    def latest(request: Request) -> dict[str, Any]:
        tenant, _caller = authenticated(request)
        return answer(request, service(request).list_rows(tenant, doc_type))

    @router.get(
        f"/api/{plural}/lists/{{start}}/{{end}}",
        summary=f"{title}s issued between two dates (Y-m-d)",
        operation_id=f"list{title}sBetween",
        openapi_extra=contract.secured(),
        responses=contract.responses(LIST, 401, 404, 422),
    )
    def between(request: Request, start: DayParameter, end: DayParameter) -> dict[str, Any]:
        tenant, _caller = authenticated(request)
        first, last = parse_range(start, end)
        return answer(request, service(request).list_rows(tenant, doc_type, first, last))

    @router.get(
        f"/downloads/{singular}/{{kind}}/{{external_id}}",
        summary=f"Download a {singular}'s signed XML, PDF or CDR zip",
        operation_id=f"download{title}",
        response_class=Response,
        responses=FILES,
    )
    async def download(request: Request, kind: FileKind, external_id: ExternalIdParameter) -> Response:
        tenant = current_tenant(request)
        clean = path_parameter(EXTERNAL_ID, external_id, "external_id")
        found = await run_in_threadpool(service(request).download, tenant, doc_type, kind, clean)
        disposition = "inline" if found.media_type == "application/pdf" else "attachment"
        return Response(
            content=found.content,
            media_type=found.media_type,
            headers={"Content-Disposition": f'{disposition}; filename="{found.filename}"'},
        )


def _reversion_routes(doc_type: str) -> None:
    plural, _singular, title = _PATHS[doc_type]

    @router.post(
        f"/api/{plural}/voided",
        summary=f"Send a reversion (RR) of accepted {plural}",
        operation_id=f"reverse{title}s",
        openapi_extra=contract.secured(
            contract.body(
                REVERSION_BODIES[doc_type],
                {
                    "fecha_de_emision_de_documentos": peru_today().isoformat(),
                    "documentos": [
                        {"external_id": "9d44af0f-9979-4c61-9e5e-291567184995", "motivo_anulacion": "Error"}
                    ],
                },
            )
        ),
        responses=summaries_api.send_responses(f"reversion{title}Status", "downloadReversion"),
    )
    async def reverse_documents(request: Request) -> dict[str, Any]:
        tenant, caller = authenticated(request)
        body = await json_object(request)
        sent = await run_in_threadpool(reverse, context_of(request), tenant, caller, doc_type, body)
        return {"success": True, "data": {"external_id": sent.external_id, "ticket": sent.ticket}}

    @router.post(
        f"/api/{plural}/voided/status",
        summary="The ticket of a reversion: its CDR, or 202 while the authority processes it",
        operation_id=f"reversion{title}Status",
        openapi_extra=contract.secured(
            contract.body(TICKET_QUERY, {"external_id": "9d44af0f-9979-4c61-9e5e-291567184995"})
        ),
        responses=summaries_api.STATUS_RESPONSES,
    )
    async def reversion_status(request: Request) -> JSONResponse:
        tenant, _caller = authenticated(request)
        body = await json_object(request)
        await run_in_threadpool(check_reversion_family, context_of(request), tenant, doc_type, body)
        answer = await run_in_threadpool(summaries_api.service(request).status, tenant, RR, body)
        return summaries_api.ticket_answer(request, RR, answer)

    @router.get(
        f"/api/{plural}/voided/lists",
        summary=f"The latest 100 reversions (RR) of {plural}",
        operation_id=f"listReversions{title}s",
        openapi_extra=contract.secured(),
        responses=contract.responses(contract.SUMMARY_LIST, 401, 404),
    )
    def latest_reversions(request: Request) -> dict[str, Any]:
        tenant, _caller = authenticated(request)
        rows = summaries_api.service(request).list_rows(tenant, RR, family=doc_type)
        return summaries_api.list_answer(request, RR, rows)

    @router.get(
        f"/api/{plural}/voided/lists/{{start}}/{{end}}",
        summary=f"Reversions (RR) of {plural} generated between two dates (Y-m-d)",
        operation_id=f"listReversions{title}sBetween",
        openapi_extra=contract.secured(),
        responses=contract.responses(contract.SUMMARY_LIST, 401, 404, 422),
    )
    def reversions_between(request: Request, start: DayParameter, end: DayParameter) -> dict[str, Any]:
        tenant, _caller = authenticated(request)
        first, last = parse_range(start, end)
        rows = summaries_api.service(request).list_rows(tenant, RR, first, last, family=doc_type)
        return summaries_api.list_answer(request, RR, rows)


@router.get(
    "/downloads/reversion/{kind}/{external_id}",
    summary="Download a reversion's signed XML or CDR zip",
    operation_id="downloadReversion",
    response_class=Response,
    responses=contract.responses(
        None, 404, 422, extra={200: contract.files("application/xml", "application/zip")}
    ),
)
async def reversion_file(request: Request, kind: SummaryKind, external_id: ExternalIdParameter) -> Response:
    tenant = current_tenant(request)
    clean = path_parameter(EXTERNAL_ID, external_id, "external_id")
    found = await run_in_threadpool(summaries_api.service(request).download, tenant, RR, kind, clean)
    return Response(
        content=found.content,
        media_type=found.media_type,
        headers={"Content-Disposition": f'attachment; filename="{found.filename}"'},
    )


for _doc_type in (RETENTION, PERCEPTION):
    _routes(_doc_type)
    _reversion_routes(_doc_type)
