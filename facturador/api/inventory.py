"""``/api/inventory/transaction`` (``docs/facturador_pro_api.md``, stock) and ``/api/items/{id}/kardex``:
stock inputs and outputs, and the moves of each product.

The real services answer an unknown product or an output larger than the stock with HTTP 200 and
``success: false``; here they are a 404 and a 422 with the same messages in the error envelope (the
``success: false`` and ``message`` a real client reads are there too)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import FastJSON, authenticated, base_url, json_object
from facturador.api.items import ItemIdParameter
from facturador.api.listing import INTEGER, PAGE_LINKS, PAGE_META, component, obj, paginated, string
from facturador.domain.inventory import KARDEX_PER_PAGE, TRANSACTION_BODY, InventoryService

router = APIRouter(tags=["inventory"])

KARDEX_ROW = component(
    "KardexRow",
    obj(
        {
            "id": INTEGER,
            "date": string(nullable=True),
            "type": string(enum=["input", "output"]),
            "inventory_transaction_id": string(nullable=True),
            "inventory_transaction_description": string(),
            "warehouse_id": INTEGER,
            "quantity": string(description="Positiva en un ingreso, negativa en una salida."),
            "balance": string(description="El stock del almacén después del movimiento."),
            "description": string(),
            "document_id": {"type": ["integer", "null"]},
            "sale_note_id": {"type": ["integer", "null"]},
        }
    ),
)
KARDEX_PAGE = component(
    "KardexPage",
    obj({"data": {"type": "array", "items": KARDEX_ROW}, "links": PAGE_LINKS, "meta": PAGE_META}),
)
TRANSACTION_DONE = component("InventoryMessage", obj({"success": {"const": True}, "message": string()}))


def service(request: Request) -> InventoryService:
    return request.app.state.inventory


@router.post(
    "/api/inventory/transaction",
    summary="Put stock into or take it out of a warehouse (never below zero)",
    operation_id="inventoryTransaction",
    openapi_extra=contract.secured(
        contract.body(
            TRANSACTION_BODY,
            {"type": "input", "inventory_transaction_id": "02", "item_code": "P0121", "quantity": 10},
        )
    ),
    responses=contract.responses(TRANSACTION_DONE, 400, 401, 404, 413, 422),
)
async def transaction(request: Request) -> dict[str, Any]:
    tenant, caller = authenticated(request)
    body = await json_object(request)
    message = await run_in_threadpool(service(request).transaction, tenant, caller, body)
    return {"success": True, "message": message}


@router.get(
    "/api/items/{id}/kardex",
    summary="The stock moves of a product (kardex), oldest first, 20 per page",
    operation_id="itemKardex",
    openapi_extra=contract.secured(),
    responses=contract.responses(KARDEX_PAGE, 401, 404, 422),
)
def kardex(
    request: Request,
    id: ItemIdParameter,  # noqa: A002 - as in /api/items/{id}/update
    page: Annotated[int, Query(ge=1, le=1_000_000, description="Página (20 movimientos cada una).")] = 1,
) -> FastJSON:
    tenant, _caller = authenticated(request)
    found = service(request).kardex(tenant, id, page)
    return FastJSON(
        paginated(
            found.rows,
            path=f"{base_url(request)}/api/items/{id}/kardex",
            query={},
            page=page,
            last_page=found.last_page,
            total=found.total,
            per_page=KARDEX_PER_PAGE,
        )
    )
