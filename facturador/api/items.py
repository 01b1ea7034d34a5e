"""``/api/item``, ``/api/items/{id}/update`` and ``/api/document/search-items``: the tenant's products
with their stock per warehouse and price list (``docs/facturador_pro_api.md``, products)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import FastJSON, authenticated, json_object, path_parameter
from facturador.api.listing import BOOLEAN, INTEGER, NUMBER, component, obj, string
from facturador.domain.fields import MAX_RECORD_ID
from facturador.domain.items import DESCRIPTION, ITEM_BODY, ITEM_UPDATE_BODY, SEARCH_LIMIT, ItemService

router = APIRouter(tags=["items"])

WAREHOUSE_STOCK = obj({"warehouse_id": INTEGER, "warehouse_description": string(), "stock": string()})
ITEM_ROW = component(
    "ItemRow",
    obj(
        {
            "id": INTEGER,
            "item_id": INTEGER,
            "name": string(nullable=True),
            "full_description": string(description="CÓDIGO - DESCRIPCIÓN."),
            "description": string(),
            "currency_type_id": string(),
            "currency_type_symbol": string(),
            "internal_id": string(),
            "item_code": string(nullable=True),
            "barcode": string(),
            "model": string(),
            "brand_id": {"type": ["integer", "null"]},
            "brand": string(),
            "category_id": {"type": ["integer", "null"]},
            "category": string(),
            "image": string(nullable=True, description="La URL de la imagen (null: sin imagen)."),
            "lots": {"type": "array", "items": {"type": "object"}},
            "has_isc": BOOLEAN,
            "system_isc_type_id": string(nullable=True),
            "percentage_isc": string(),
            "favorite": BOOLEAN,
            "sale_unit_price": string(),
            "purchase_unit_price": string(),
            "unit_type_id": string(),
            "sale_affectation_igv_type_id": string(),
            "purchase_affectation_igv_type_id": string(),
            "calculate_quantity": BOOLEAN,
            "has_igv": BOOLEAN,
            "is_set": BOOLEAN,
            "aux_quantity": INTEGER,
            "stock_min": string(),
            "stock": NUMBER,
            "warehouses": {"type": "array", "items": WAREHOUSE_STOCK},
            "item_unit_types": {"type": "array", "items": {"type": "object"}},
        }
    ),
)
ITEM_SAVED = component("ItemSaved", obj({"success": {"const": True}, "msg": string(), "data": ITEM_ROW}))
ITEM_SEARCH = component(
    "ItemSearch",
    obj({"success": {"const": True}, "data": obj({"items": {"type": "array", "items": ITEM_ROW}})}),
)
ITEM_EXAMPLE = {
    "internal_id": "P0121",
    "description": "Inca Kola 250 ml",
    "unit_type_id": "NIU",
    "currency_type_id": "PEN",
    "sale_unit_price": "2.50",
    "purchase_unit_price": 1.2,
    "sale_affectation_igv_type_id": "10",
    "purchase_affectation_igv_type_id": "10",
    "has_igv": True,
    "stock": 24,
    "stock_min": 6,
}
ItemIdParameter = Annotated[int, Path(ge=1, le=MAX_RECORD_ID, description="El id del producto.")]


def service(request: Request) -> ItemService:
    return request.app.state.items


@router.post(
    "/api/item",
    summary="Register a product (with its initial stock and price list)",
    operation_id="createItem",
    openapi_extra=contract.secured(contract.body(ITEM_BODY, ITEM_EXAMPLE)),
    responses=contract.responses(ITEM_SAVED, 400, 401, 404, 413, 422),
)
async def create(request: Request) -> dict[str, Any]:
    tenant, caller = authenticated(request)
    body = await json_object(request)
    row = await run_in_threadpool(service(request).create, tenant, caller, body)
    return {"success": True, "msg": "Producto registrado con éxito", "data": row}


@router.post(
    "/api/items/{id}/update",
    summary="Edit a product: internal code, description, price, minimum stock, barcode, model, IGV, code",
    operation_id="updateItem",
    openapi_extra=contract.secured(
        contract.body(
            ITEM_UPDATE_BODY,
            {"internal_id": "P0121", "description": "Inca Kola 300 ml", "sale_unit_price": 3, "stock_min": 6},
        )
    ),
    responses=contract.responses(ITEM_SAVED, 400, 401, 404, 413, 422),
)
async def update(request: Request, id: ItemIdParameter) -> dict[str, Any]:  # noqa: A002 - the real path's name
    tenant, _caller = authenticated(request)
    body = await json_object(request)
    row = await run_in_threadpool(service(request).update, tenant, id, body)
    return {"success": True, "msg": "Producto editado con éxito", "data": row}


#: The last page a search may ask for (100,000 pages of 100 products: more than any catalogue).
MAX_SEARCH_PAGE = 100_000


@router.get(
    "/api/document/search-items",
    summary="Products whose description or internal code contains the text, with stock and prices",
    operation_id="searchItems",
    openapi_extra=contract.secured(),
    responses=contract.responses(ITEM_SEARCH, 401, 404, 422),
)
def search(
    request: Request,
    input: Annotated[
        str,
        Query(
            max_length=100,
            description="Parte de la descripción o del código (sin importar tildes ni mayúsculas).",
        ),
    ] = "",  # noqa: A002
    limit: Annotated[int, Query(ge=1, le=100, description="Cuántos productos como máximo.")] = SEARCH_LIMIT,
    page: Annotated[
        int,
        Query(
            ge=1,
            le=MAX_SEARCH_PAGE,
            description="Qué página de `limit` productos (desde 1). Una extensión de este servicio: los "
            "tenants reales la ignoran y dan siempre la primera.",
        ),
    ] = 1,
) -> FastJSON:
    tenant, _caller = authenticated(request)
    text = path_parameter(DESCRIPTION.but(required=False, max_length=100), input, "input")
    items = service(request).search(tenant, text, limit, page)
    return FastJSON({"success": True, "data": {"items": items}})
