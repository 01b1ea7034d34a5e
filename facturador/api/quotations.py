"""``/api/quotations`` and ``/api/quotations/list`` (``docs/facturador_pro_api.md``, quotations), and the
quotation's PDF at ``/quotations/print/{external_id}/{format}``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response

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
from facturador.api.heavy import heavy_work, line_count
from facturador.api.listing import INTEGER, NUMBER, component, obj, string
from facturador.api.sale_notes import NOTE_EXAMPLE, EndDate, StartDate
from facturador.domain.document_schema import EXTERNAL_ID
from facturador.domain.items import DESCRIPTION
from facturador.domain.quotations import PDF_FORMATS, QUOTATION_BODY, QuotationService
from facturador.domain.sale_notes import LISTED_TOTALS

router = APIRouter(tags=["quotations"])

_NULLABLE = string(nullable=True)
QUOTATION_SAVED = component(
    "QuotationSaved",
    obj(
        {
            "success": {"const": True},
            "data": obj(
                {
                    "id": INTEGER,
                    "state_type_id": string(),
                    "state_type_description": string(),
                    "number_full": string(description="PREFIJO-NÚMERO (COT-8)."),
                    "external_id": string(),
                    "filename": string(),
                    "customer": obj(
                        {
                            "id": INTEGER,
                            "name": string(),
                            "number": string(),
                            "email": _NULLABLE,
                            "phone": _NULLABLE,
                        }
                    ),
                    "total": NUMBER,
                    "print_a4": string(),
                    "print_ticket": string(),
                }
            ),
        }
    ),
)
QUOTATION_ROW = component(
    "QuotationRow",
    obj(
        {
            "id": INTEGER,
            "soap_type_id": string(),
            "external_id": string(),
            "date_of_issue": string(format="date"),
            "time_of_issue": string(),
            "delivery_date": _NULLABLE,
            "date_of_due": _NULLABLE,
            "identifier": string(),
            "number_full": string(),
            "user_name": string(),
            "customer_id": INTEGER,
            "customer_name": string(),
            "customer_number": string(),
            "currency_type_id": string(),
            **{key: string() for key in LISTED_TOTALS},
            "state_type_id": string(),
            "state_type_description": string(),
            "description": string(),
            "documents": {"type": "array"},
            "sale_notes": {
                "type": "array",
                "description": "La nota de venta hecha de la cotización (vacío si sigue abierta).",
                "items": obj({"id": INTEGER, "number_full": string(), "external_id": string()}),
            },
            "changed": {"type": "boolean", "description": "Si ya se convirtió en nota de venta."},
            "items": {"type": "array", "description": "Las líneas de la cotización."},
            "created_at": _NULLABLE,
            "updated_at": _NULLABLE,
        }
    ),
)
QUOTATION_LIST = component("QuotationList", obj({"data": {"type": "array", "items": QUOTATION_ROW}}))
QuotationFormat = Annotated[
    str, Path(description="El formato del PDF (otro: 404).", json_schema_extra={"enum": list(PDF_FORMATS)})
]


def service(request: Request) -> QuotationService:
    return request.app.state.quotations


@router.post(
    "/api/quotations",
    summary="Register a quotation (COT-n, correlative per establishment)",
    operation_id="createQuotation",
    openapi_extra=contract.secured(
        contract.body(
            QUOTATION_BODY,
            {k: v for k, v in NOTE_EXAMPLE.items() if k != "series_id"} | {"prefix": "COT"},
        )
    ),
    responses=contract.responses(
        QUOTATION_SAVED,
        400,
        401,
        404,
        413,
        422,
        links={
            "pdf": contract.link(
                "printQuotation",
                parameters={"external_id": "$response.body#/data/external_id", "format": "a4"},
            )
        },
    ),
)
async def create(request: Request) -> dict[str, Any]:
    tenant, caller = authenticated(request)
    body = await json_object(request)
    data = await heavy_work(request).by_lines(line_count(body), service(request).issue, tenant, caller, body)
    printed = f"{base_url(request)}/quotations/print/{data['external_id']}"
    return {
        "success": True,
        "data": {**data, "print_a4": f"{printed}/a4", "print_ticket": f"{printed}/ticket"},
    }


@router.get(
    "/api/quotations/list",
    summary="The latest 20 quotations, filtered by number or customer (or all between two dates)",
    description="`start_date`/`end_date` are this service's extension (real tenants ignore them).",
    operation_id="listQuotations",
    openapi_extra=contract.secured(),
    responses=contract.responses(QUOTATION_LIST, 401, 404, 422),
)
def rows(
    request: Request,
    input: Annotated[str, Query(max_length=100, description="Parte del número o del cliente.")] = "",  # noqa: A002
    start_date: StartDate = None,
    end_date: EndDate = None,
) -> FastJSON:
    tenant, _caller = authenticated(request)
    text = path_parameter(DESCRIPTION.but(required=False, max_length=100), input, "input")
    first, last = query_range(start_date, end_date)
    return FastJSON({"data": service(request).rows(tenant, text, first, last)})


@router.get(
    "/quotations/print/{external_id}/{format}",
    summary="Download a quotation's PDF (a4 or ticket)",
    operation_id="printQuotation",
    responses=contract.responses(None, 404, 422, extra={200: contract.files("application/pdf")}),
    response_class=Response,
)
async def print_pdf(request: Request, external_id: ExternalIdParameter, format: QuotationFormat) -> Response:  # noqa: A002
    tenant = current_tenant(request)
    external_id = path_parameter(EXTERNAL_ID, external_id, "external_id")
    content, filename = await heavy_work(request).run(service(request).pdf, tenant, external_id, format)
    return Response(
        content=content,
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{filename}"'},
    )
