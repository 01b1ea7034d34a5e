"""Real Facturador PRO's service and mobile routes that public client programs call: ``services/ruc``,
``services/dni`` (and ApiPeruDev's ``service/{type}``), ``services/exchange/{date}``, ``document/series``,
``document/tables``, ``document/customers``, ``document/search-customers`` and
``purchases/search-suppliers`` (see docs/facturador_pro_api.md for who calls each)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import (
    DayParameter,
    FastJSON,
    _parse_day,
    authenticated,
    context_of,
    json_object,
    path_parameter,
)
from facturador.api.listing import BOOLEAN, INTEGER, NUMBER, component, obj, string
from facturador.api.persons import PERSON_ROW
from facturador.domain import cpe_checks, exchange_rates, lookups
from facturador.domain.persons import PERSON_BODY
from facturador.errors import ServiceError

router = APIRouter(tags=["services"])

NumberParameter = Annotated[
    str, Path(description="El número consultado (RUC de 11 dígitos o DNI de 8).", max_length=20)
]
LOOKUP = obj(
    {
        "number": string(),
        "name": string(),
        "trade_name": string(),
        "address": string(),
        "department": string(),
        "department_id": string(nullable=True),
        "province": string(),
        "province_id": string(nullable=True),
        "district": string(),
        "district_id": string(nullable=True),
        "location_id": {"type": "array", "items": string()},
        "ubigeo": string(),
        "state": string(description="ESTADO DEL CONTRIBUYENTE del padrón (ACTIVO, BAJA DE OFICIO...)."),
        "condition": string(description="CONDICIÓN DE DOMICILIO del padrón (HABIDO, NO HABIDO...)."),
        "source": string(description="padron, persons (los del tenant) o provider."),
    },
    required=("number", "name", "address", "location_id", "state", "condition", "source"),
)
RUC_FOUND = component(
    "RucLookup",
    obj(
        {
            "success": {"const": True},
            "data": {
                **LOOKUP,
                "properties": {
                    **LOOKUP["properties"],
                    "phone": string(),
                    "warning": string(
                        nullable=True,
                        description="Por qué revisar antes de emitirle (estado distinto de ACTIVO o "
                        "domicilio NO HABIDO / NO HALLADO).",
                    ),
                },
            },
        }
    ),
)
DNI_FOUND = component("DniLookup", obj({"success": {"const": True}, "data": LOOKUP}))
EXCHANGE = component(
    "ExchangeRate",
    obj(
        {
            "date": string(description="Y-m-d pedido"),
            "date_sunat": string(description="Y-m-d de la publicación de SUNAT usada"),
            "purchase": NUMBER,
            "sale": NUMBER,
        }
    ),
)
SERIES_ROWS = component(
    "MobileSeries",
    {
        "type": "array",
        "items": obj(
            {
                "id": INTEGER,
                "document_type_id": string(),
                "number": string(),
                "is_default": BOOLEAN,
                "establishment_id": INTEGER,
            }
        ),
    },
)
CUSTOMERS = component(
    "MobileCustomers",
    obj({"success": {"const": True}, "data": obj({"customers": {"type": "array", "items": PERSON_ROW}})}),
)
SUPPLIERS = component(
    "SupplierSearch",
    {
        "type": "array",
        "items": obj(
            {
                "id": INTEGER,
                "description": string(),
                "name": string(),
                "number": string(),
                "identity_document_type_id": string(),
                "address": string(),
                "email": string(),
                "selected": BOOLEAN,
            }
        ),
    },
)
TABLES = component(
    "MobileTables",
    obj(
        {
            "success": {"const": True},
            "data": obj(
                {
                    "items": {"type": "array", "items": {"type": "object"}},
                    "affectation_types": {
                        "type": "array",
                        "items": obj(
                            {
                                "id": string(),
                                "active": BOOLEAN,
                                "exportation": BOOLEAN,
                                "free": BOOLEAN,
                                "description": string(),
                            }
                        ),
                    },
                    "categories": {"type": "array"},
                }
            ),
        }
    ),
)
SearchText = Annotated[
    str,
    Query(max_length=100, description="Parte del nombre o del número (sin importar tildes ni mayúsculas)."),
]
DocumentTypeQuery = Annotated[
    Literal["01", "03", "07", "08", "80"] | None,
    Query(
        description="01 (factura) limita a clientes con RUC; otro tipo admite DNI, CE, RUC, pasaporte y 0."
    ),
]


@router.get(
    "/api/services/ruc/{number}",
    summary="A RUC from SUNAT's imported padrón (state, condition, a warning), else the tenant's persons",
    operation_id="lookupRuc",
    openapi_extra=contract.secured(),
    responses=contract.responses(RUC_FOUND, 401, 404, 422),
)
async def ruc(request: Request, number: NumberParameter) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    return await run_in_threadpool(lookups.ruc_answer, context_of(request), tenant, number)


@router.get(
    "/api/services/dni/{number}",
    summary="A DNI from the tenant's persons, else the configured provider (FACTURADOR_DNI_PROVIDER_URL)",
    operation_id="lookupDni",
    openapi_extra=contract.secured(),
    responses=contract.responses(DNI_FOUND, 401, 404, 422, 502),
)
async def dni(request: Request, number: NumberParameter) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    return await run_in_threadpool(lookups.dni_answer, context_of(request), tenant, number)


@router.get(
    "/api/service/{type}/{number}",
    summary="ApiPeruDev's look-up route of real PRO: the same answers as services/ruc and services/dni",
    operation_id="lookupService",
    openapi_extra=contract.secured(),
    responses=contract.responses(RUC_FOUND, 401, 404, 422, 502),
)
async def service(
    request: Request,
    type: Annotated[Literal["ruc", "dni"], Path(description="ruc o dni.")],  # noqa: A002 - the real name
    number: NumberParameter,
) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    answer = lookups.ruc_answer if type == "ruc" else lookups.dni_answer
    return await run_in_threadpool(answer, context_of(request), tenant, number)


@router.get(
    "/api/services/exchange/{date}",
    summary="SUNAT's published exchange rate of a day (or the last published before it), cached per day",
    operation_id="exchangeRate",
    openapi_extra=contract.secured(),
    responses=contract.responses(EXCHANGE, 401, 404, 422),
)
async def exchange(request: Request, date: DayParameter) -> dict[str, Any]:
    _tenant, _caller = authenticated(request)
    context = context_of(request)
    day = _parse_day(date, "pedida")
    found = await run_in_threadpool(exchange_rates.rate_for, context.engine, day, context.today())
    if found is None:
        raise ServiceError(
            404,
            f"No hay un tipo de cambio de SUNAT publicado para el {day.isoformat()} ni antes.",
            "EXCHANGE_RATE_NOT_FOUND",
        )
    return {
        "date": found.date.isoformat(),
        "date_sunat": found.published.isoformat(),
        "purchase": float(found.purchase),
        "sale": float(found.sale),
    }


@router.get(
    "/api/document/series",
    summary="The caller's establishment's series of facturas, boletas and guides (mobile apps)",
    operation_id="mobileSeries",
    openapi_extra=contract.secured(),
    responses=contract.responses(SERIES_ROWS, 401, 404),
)
async def series(request: Request) -> FastJSON:
    tenant, caller = authenticated(request)
    rows = await run_in_threadpool(
        lookups.mobile_series, context_of(request), tenant, caller.establishment_id
    )
    return FastJSON(rows)


@router.get(
    "/api/document/customers",
    summary="The first 20 customers by name (mobile apps)",
    operation_id="mobileCustomers",
    openapi_extra=contract.secured(),
    responses=contract.responses(CUSTOMERS, 401, 404),
)
async def customers(request: Request) -> FastJSON:
    tenant, _caller = authenticated(request)
    rows = await run_in_threadpool(lookups.first_customers, context_of(request), tenant)
    return FastJSON({"success": True, "data": {"customers": rows}})


def _text(value: str, name: str) -> str:
    return str(path_parameter(PERSON_BODY.fields["name"].but(required=False, max_length=100), value, name))


@router.get(
    "/api/document/search-customers",
    summary="Customers whose name or number holds the text, by name (at most 500)",
    operation_id="searchCustomers",
    openapi_extra=contract.secured(),
    responses=contract.responses(CUSTOMERS, 401, 404, 422),
)
async def search_customers(
    request: Request,
    input: SearchText = "",  # noqa: A002 - the real parameter's name
    document_type_id: DocumentTypeQuery = None,
) -> FastJSON:
    tenant, _caller = authenticated(request)
    text = _text(input, "input")
    rows = await run_in_threadpool(
        lookups.persons_search, context_of(request), tenant, "customers", text, document_type_id
    )
    return FastJSON({"success": True, "data": {"customers": rows}})


@router.get(
    "/api/purchases/search-suppliers",
    summary="Suppliers whose name or number holds the text, by name (at most 500; a plain list)",
    operation_id="searchSuppliers",
    openapi_extra=contract.secured(),
    responses=contract.responses(SUPPLIERS, 401, 404, 422),
)
async def search_suppliers(
    request: Request,
    input: SearchText = "",  # noqa: A002 - the real parameter's name
    document_type_id: DocumentTypeQuery = None,
) -> FastJSON:
    tenant, _caller = authenticated(request)
    text = _text(input, "input")
    rows = await run_in_threadpool(
        lookups.persons_search, context_of(request), tenant, "suppliers", text, document_type_id
    )
    return FastJSON([lookups.supplier_row(row) for row in rows])


@router.get(
    "/api/document/tables",
    summary="The issue form's tables: the first 20 active products, catálogo 07, categories (mobile apps)",
    operation_id="mobileTables",
    openapi_extra=contract.secured(),
    responses=contract.responses(TABLES, 401, 404),
)
async def tables(request: Request) -> FastJSON:
    tenant, _caller = authenticated(request)
    items = await run_in_threadpool(request.app.state.items.search, tenant, "", lookups.FIRST_ROWS, 1)
    data = {"items": items, "affectation_types": lookups.affectation_types(), "categories": []}
    return FastJSON({"success": True, "data": data})


CDR_STATUS = component(
    "CdrStatus",
    obj(
        {
            "success": {"const": True},
            "message": string(),
            "data": obj(
                {"sent": BOOLEAN, "code": string(), "description": string(), "notes": {"type": "array"}}
            ),
        }
    ),
)
CPE_VALIDITY = component(
    "CpeValidity",
    obj(
        {
            "success": {"const": True},
            "data": obj(
                {
                    "comprobante_estado_codigo": string(),
                    "comprobante_estado_descripcion": string(),
                    "empresa_estado_codigo": string(),
                    "empresa_estado_description": string(),
                    "empresa_condicion_codigo": string(),
                    "empresa_condicion_descripcion": string(),
                }
            ),
        }
    ),
)
CDR_EXAMPLE = {"codigo_tipo_documento": "01", "serie_documento": "F001", "numero_documento": 1}


@router.post(
    "/api/services/consult_cdr_status",
    summary="The CDR SUNAT keeps of one of the tenant's documents (billConsultService getStatusCdr)",
    operation_id="consultCdrStatus",
    openapi_extra=contract.secured(contract.body(cpe_checks.CDR_BODY, CDR_EXAMPLE)),
    responses=contract.responses(CDR_STATUS, 400, 401, 404, 413, 422),
)
async def consult_cdr_status(request: Request) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    body = await json_object(request)
    return await run_in_threadpool(cpe_checks.consult_cdr, context_of(request), tenant, body)


@router.post(
    "/api/services/validate_cpe",
    summary="Whether a document stands at SUNAT (another issuer's through SUNAT's validity API)",
    operation_id="validateCpe",
    openapi_extra=contract.secured(
        contract.body(
            cpe_checks.VALIDATE_BODY,
            {
                **CDR_EXAMPLE,
                "numero_ruc_emisor": "20123456789",
                "fecha_de_emision": "2026-12-01",
                "total": 118,
            },
        )
    ),
    responses=contract.responses(CPE_VALIDITY, 400, 401, 404, 409, 413, 422, 502),
)
async def validate_cpe(request: Request) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    body = await json_object(request)
    return await run_in_threadpool(cpe_checks.validate_cpe, context_of(request), tenant, body)
