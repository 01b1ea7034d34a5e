"""``/api/sale-note``, ``/api/sale-note/series``, ``/api/sale-note/{id}/generate-cpe``
(``docs/facturador_pro_api.md``, sale notes) and ``/downloads/salenote/sale_note/{external_id}[/{fmt}]``: sale
notes, their series, their PDF and the factura or boleta made from each."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import (
    ExternalIdParameter,
    FastJSON,
    authenticated,
    base_url,
    current_tenant,
    json_object,
    path_parameter,
    query_range,
)
from facturador.api.documents import issued_answer
from facturador.api.heavy import heavy_work, line_count
from facturador.api.listing import INTEGER, component, obj, string
from facturador.domain.document_schema import EXTERNAL_ID
from facturador.domain.fields import DATE_PATTERN, MAX_RECORD_ID
from facturador.domain.items import DESCRIPTION
from facturador.domain.sale_notes import (
    GENERATE_BODY,
    LISTED_TOTALS,
    PDF_FORMATS,
    SALE_NOTE_BODY,
    SaleNoteService,
)
from sunat.calendar import peru_today

router = APIRouter(tags=["sale notes"])

SALE_NOTE_SAVED = component(
    "SaleNoteSaved",
    obj(
        {
            "success": {"const": True},
            "data": obj(
                {
                    "id": INTEGER,
                    "number": string(description="SERIE-NÚMERO (NV01-25)."),
                    "external_id": string(),
                    "filename": string(),
                    "print_ticket": string(),
                }
            ),
            "links": obj({"pdf": string()}),
        }
    ),
)
SALE_NOTE_SERIES = component(
    "SaleNoteSeries",
    obj(
        {
            "success": {"const": True},
            "data": {
                "type": "array",
                "items": obj(
                    {
                        "id": INTEGER,
                        "number": string(),
                        "document_type_id": string(),
                        "establishment_id": INTEGER,
                        "establishment_description": string(),
                    }
                ),
            },
        }
    ),
)
_NULLABLE = string(nullable=True)
_MONEY = string(description="Monto con separador de miles (number_format de los servicios reales).")
#: The keys every row has (``items`` only with ``details=1``).
_ROW_KEYS = (
    "id",
    "soap_type_id",
    "external_id",
    "date_of_issue",
    "time_of_issue",
    "identifier",
    "series",
    "number",
    "full_number",
    "number_full",
    "customer_id",
    "customer_name",
    "customer_number",
    "currency_type_id",
    *LISTED_TOTALS,
    "state_type_id",
    "state_type_description",
    "documents",
    "btn_generate",
    "changed",
    "quotation_id",
    "quotation_number_full",
    "user_name",
    "created_at",
    "updated_at",
)
SALE_NOTE_ROW = component(
    "SaleNoteRow",
    obj(
        {
            "id": INTEGER,
            "soap_type_id": string(),
            "external_id": string(),
            "date_of_issue": string(format="date"),
            "time_of_issue": string(),
            "identifier": string(),
            "series": string(),
            "number": INTEGER,
            "full_number": string(),
            "number_full": string(description="SERIE-NÚMERO (NV01-25)."),
            "customer_id": INTEGER,
            "customer_name": string(),
            "customer_number": string(),
            "currency_type_id": string(),
            **{key: _MONEY for key in LISTED_TOTALS},
            "state_type_id": string(),
            "state_type_description": string(),
            "documents": {
                "type": "array",
                "description": "El comprobante generado de la nota (vacío si aún no).",
                "items": obj(
                    {
                        "id": INTEGER,
                        "number_full": string(),
                        "external_id": string(),
                        "document_type_id": string(),
                        "state_type_id": string(),
                    }
                ),
            },
            "btn_generate": {"type": "boolean"},
            "changed": {"type": "boolean"},
            "quotation_id": {"type": "integer", "nullable": True},
            "quotation_number_full": string(),
            "user_name": string(),
            "created_at": _NULLABLE,
            "updated_at": _NULLABLE,
            "items": {"type": "array", "description": "Las líneas (solo con details=1)."},
        },
        required=_ROW_KEYS,
    ),
)
SALE_NOTE_LIST = component("SaleNoteList", obj({"data": {"type": "array", "items": SALE_NOTE_ROW}}))
StartDate = Annotated[
    str | None,
    Query(
        description="Desde (AAAA-MM-DD, con end_date; extensión de este servicio).",
        json_schema_extra={"format": "date", "pattern": DATE_PATTERN},
    ),
]
EndDate = Annotated[
    str | None,
    Query(
        description="Hasta (AAAA-MM-DD, inclusive, con start_date; extensión de este servicio).",
        json_schema_extra={"format": "date", "pattern": DATE_PATTERN},
    ),
]
NOTE_EXAMPLE = {
    "series_id": 1,
    "date_of_issue": peru_today().isoformat(),
    "time_of_issue": "10:00:00",
    "currency_type_id": "PEN",
    "force_create_if_not_exist": True,
    "datos_del_cliente_o_receptor": {
        "codigo_tipo_documento_identidad": "1",
        "numero_documento": "45678912",
        "apellidos_y_nombres_o_razon_social": "ANA TORRES",
        "codigo_pais": "PE",
    },
    "items": [
        {
            "item": {"internal_id": "P0121", "description": "Inca Kola 250 ml", "unit_type_id": "NIU"},
            "quantity": 2,
            "unit_value": 50,
            "unit_price": 59,
            "price_type_id": "01",
            "affectation_igv_type_id": "10",
            "total_base_igv": 100,
            "percentage_igv": 18,
            "total_igv": 18,
            "total_taxes": 18,
            "total_value": 100,
            "total": 118,
        }
    ],
    "total_taxed": 100,
    "total_igv": 18,
    "total_taxes": 18,
    "total_value": 100,
    "total": 118,
}
NoteIdParameter = Annotated[int, Path(ge=1, le=MAX_RECORD_ID, description="El id de la nota de venta.")]
SaleNoteFormat = Annotated[
    str, Path(description="El formato del PDF (otro: 404).", json_schema_extra={"enum": list(PDF_FORMATS)})
]


def service(request: Request) -> SaleNoteService:
    return request.app.state.sale_notes


@router.post(
    "/api/sale-note",
    summary="Issue a sale note (not sent to SUNAT); its stock leaves the warehouse",
    operation_id="createSaleNote",
    openapi_extra=contract.secured(contract.body(SALE_NOTE_BODY, NOTE_EXAMPLE)),
    responses=contract.responses(
        SALE_NOTE_SAVED,
        400,
        401,
        404,
        413,
        422,
        links={
            "pdf": contract.link(
                "downloadSaleNote", parameters={"external_id": "$response.body#/data/external_id"}
            ),
            "generate": contract.link(
                "generateCpe",
                parameters={"id": "$response.body#/data/id"},
                body={"codigo_tipo_documento": "03", "serie_documento": "B001"},
            ),
        },
    ),
)
async def create(request: Request) -> dict[str, Any]:
    tenant, caller = authenticated(request)
    body = await json_object(request)
    note = await heavy_work(request).by_lines(line_count(body), service(request).issue, tenant, caller, body)
    pdf = f"{base_url(request)}/downloads/salenote/sale_note/{note.external_id}"
    return {
        "success": True,
        "data": {
            "id": note.id,
            "number": note.number,
            "external_id": note.external_id,
            "filename": note.filename,
            "print_ticket": f"{pdf}/ticket",
        },
        "links": {"pdf": pdf},
    }


@router.get(
    "/api/sale-note/series",
    summary="The tenant's sale-note series (their ids are the series_id of a sale note)",
    operation_id="saleNoteSeries",
    openapi_extra=contract.secured(),
    responses=contract.responses(SALE_NOTE_SERIES, 401, 404),
)
def series(request: Request) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    return {"success": True, "data": service(request).series(tenant)}


@router.get(
    "/api/sale-note/lists",
    summary="The latest 50 sale notes, or those issued between two dates, with the document each became",
    description="Real Facturador PRO tenants answer the latest 50 (by series and number) and ignore the "
    "parameters; this service also filters by `input` (number or customer) and by `start_date`/`end_date`, "
    "and with `details=1` adds each note's lines (`items`).",
    operation_id="listSaleNotes",
    openapi_extra=contract.secured(),
    responses=contract.responses(SALE_NOTE_LIST, 401, 404, 422),
)
def rows(
    request: Request,
    input: Annotated[str, Query(max_length=100, description="Parte del número o del cliente.")] = "",  # noqa: A002
    start_date: StartDate = None,
    end_date: EndDate = None,
    details: bool = False,
) -> FastJSON:
    tenant, _caller = authenticated(request)
    text = path_parameter(DESCRIPTION.but(required=False, max_length=100), input, "input")
    first, last = query_range(start_date, end_date)
    found = service(request).rows(tenant, text, first, last, details=details)
    printed = f"{base_url(request)}/downloads/salenote/sale_note"
    for row in found:  # the real rows' print links (print_a4, print_ticket)
        row["print_a4"] = f"{printed}/{row['external_id']}/a4"
        row["print_ticket"] = f"{printed}/{row['external_id']}/ticket"
    return FastJSON({"data": found})


@router.post(
    "/api/sale-note/{id}/generate-cpe",
    summary="Make a factura or boleta of a sale note (issued, not sent; only once per note)",
    operation_id="generateCpe",
    openapi_extra=contract.secured(
        contract.body(GENERATE_BODY, {"codigo_tipo_documento": "03", "serie_documento": "B001"})
    ),
    responses=contract.responses(contract.ISSUED, 400, 401, 404, 409, 413, 422),
)
async def generate(request: Request, id: NoteIdParameter) -> FastJSON:  # noqa: A002 - the real path's name
    tenant, caller = authenticated(request)
    body = await json_object(request)
    issued = await run_in_threadpool(service(request).generate, tenant, caller, id, body)
    return issued_answer(request, issued)


SALE_NOTE_FILES = contract.responses(None, 404, 422, extra={200: contract.files("application/pdf")})


@router.get(
    "/downloads/salenote/sale_note/{external_id}",
    summary="Download a sale note's PDF (in the format it was issued with)",
    operation_id="downloadSaleNote",
    responses=SALE_NOTE_FILES,
    response_class=Response,
)
async def pdf(request: Request, external_id: ExternalIdParameter) -> Response:
    return await _pdf(request, external_id, None)


@router.get(
    "/downloads/salenote/sale_note/{external_id}/{fmt}",
    summary="Download a sale note's PDF in a format (a4, ticket)",
    operation_id="downloadSaleNoteFormat",
    responses=SALE_NOTE_FILES,
    response_class=Response,
)
async def pdf_format(request: Request, external_id: ExternalIdParameter, fmt: SaleNoteFormat) -> Response:
    return await _pdf(request, external_id, fmt)


async def _pdf(request: Request, external_id: str, fmt: str | None) -> Response:
    tenant = current_tenant(request)
    external_id = path_parameter(EXTERNAL_ID, external_id, "external_id")
    content, filename = await heavy_work(request).run(service(request).pdf, tenant, external_id, fmt)
    return Response(
        content=content,
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{filename}"'},
    )
