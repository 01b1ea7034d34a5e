"""``/api/person`` and ``/api/persons/{type}/records``: the tenant's customers and suppliers."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from starlette.concurrency import run_in_threadpool

from facturador.api import contract
from facturador.api.common import FastJSON, authenticated, base_url, json_object, path_parameter
from facturador.api.listing import BOOLEAN, INTEGER, PAGE_LINKS, PAGE_META, component, obj, paginated, string
from facturador.domain.persons import PER_PAGE, PERSON_BODY, PERSON_TYPE, PERSON_TYPES, PersonService

router = APIRouter(tags=["persons"])

PERSON_ROW = component(
    "PersonRow",
    obj(
        {
            "id": INTEGER,
            "description": string(description="NÚMERO - NOMBRE."),
            "name": string(),
            "number": string(),
            "trade_name": string(),
            "identity_document_type_id": string(),
            "identity_document_type_code": string(),
            "identity_document_type_description": string(),
            "address": string(),
            "telephone": string(),
            "email": string(),
            "country_id": string(),
            "district_id": string(nullable=True),
            "location_id": {"type": "array", "items": string()},
            "addresses": {"type": "array"},
            "enabled": BOOLEAN,
            "selected": BOOLEAN,
        }
    ),
)
PERSON_SAVED = component(
    "PersonSaved", obj({"success": {"const": True}, "msg": string(), "data": PERSON_ROW})
)
PERSON_PAGE = component(
    "PersonPage",
    obj({"data": {"type": "array", "items": PERSON_ROW}, "links": PAGE_LINKS, "meta": PAGE_META}),
)
PERSON_EXAMPLE = {
    "type": "customers",
    "identity_document_type_id": "1",
    "number": "72346556",
    "name": "Pedro Diaz",
    "trade_name": "Nombre Comercial",
    "country_id": "PE",
    "address": "Urb Sesquicentenario Vipol Callao",
    "telephone": "954533737",
    "email": None,
    "perception_agent": False,
    "percentage_perception": 0,
}
PersonTypeParameter = Annotated[
    str, Path(description=PERSON_TYPE.description, json_schema_extra={"enum": sorted(PERSON_TYPES)})
]


def service(request: Request) -> PersonService:
    return request.app.state.persons


@router.post(
    "/api/person",
    summary="Register (or, with id, edit) a customer or supplier",
    operation_id="savePerson",
    openapi_extra=contract.secured(contract.body(PERSON_BODY, PERSON_EXAMPLE)),
    responses=contract.responses(PERSON_SAVED, 400, 401, 404, 413, 422),
)
async def save(request: Request) -> dict[str, Any]:
    tenant, _caller = authenticated(request)
    body = await json_object(request)
    row, message = await run_in_threadpool(service(request).save, tenant, body)
    return {"success": True, "msg": message, "data": row}


@router.get(
    "/api/persons/{type}/records",
    summary="Customers or suppliers, 20 per page, filtered by name or number",
    operation_id="listPersons",
    openapi_extra=contract.secured(),
    responses=contract.responses(PERSON_PAGE, 401, 404, 422),
)
def records(
    request: Request,
    type: PersonTypeParameter,  # noqa: A002 - the real path's name
    input: Annotated[
        str,
        Query(
            max_length=100, description="Parte del nombre o del número (sin importar tildes ni mayúsculas)."
        ),
    ] = "",  # noqa: A002
    page: Annotated[int, Query(ge=1, le=1_000_000, description="Página (20 filas cada una).")] = 1,
    column: Annotated[
        Literal["name", "number"] | None,
        Query(
            description="Con value: buscar en el nombre (y el número) o solo en el número "
            "(como lo envían las apps móviles: ?column=name&value=...)."
        ),
    ] = None,
    value: Annotated[
        str, Query(max_length=100, description="El texto buscado en column (si no se da input).")
    ] = "",
) -> FastJSON:
    tenant, _caller = authenticated(request)
    person_type = path_parameter(PERSON_TYPE, type, "type")
    searched, name = (value, "value") if value and not input else (input, "input")
    text = path_parameter(PERSON_BODY.fields["name"].but(required=False, max_length=100), searched, name)
    by_number = column == "number" and searched is value and bool(value)
    found = service(request).records(tenant, person_type, text, page, by_number=by_number)
    path = f"{base_url(request)}/api/persons/{person_type}/records"
    query = {"input": text} if name == "input" else {"column": column or "name", "value": text}
    return FastJSON(
        paginated(
            found.rows,
            path=path,
            query=query,
            page=page,
            last_page=found.last_page,
            total=found.total,
            per_page=PER_PAGE,
        )
    )
