"""What every router shares: finding the tenant, authenticating the caller, reading JSON bodies and path
parameters (the edge: every body gets :func:`facturador.domain.fields.check_json` before any reader)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any

import orjson
from fastapi import Path, Request, Response

from facturador.context import Caller, ServiceContext, TenantInfo
from facturador.domain.document_schema import EXTERNAL_ID
from facturador.domain.fields import (
    DATE_PATTERN,
    XML_TEXT_PATTERN,
    Field,
    check_json,
    check_path_parameters,
    check_text,
    too_deep,
)
from facturador.domain.reader import Reader
from facturador.domain.tenants import hash_token
from facturador.errors import NOT_AUTHENTICATED, FieldError, ServiceError

TENANT_SCOPE_KEY = "facturador.tenant_slug"
#: The status logged for a request whose client left before the answer (nginx's convention; nobody
#: receives it).
CLIENT_CLOSED_REQUEST = 499

#: ``{external_id}`` of a download path: documented from the declaration :func:`path_parameter` reads with.
ExternalIdParameter = Annotated[
    str,
    Path(
        description=EXTERNAL_ID.description,
        json_schema_extra={"maxLength": EXTERNAL_ID.max_length, "pattern": XML_TEXT_PATTERN},
    ),
]
#: ``{start}`` / ``{end}`` of a list path, read by :func:`parse_range`.
DayParameter = Annotated[
    str,
    Path(description="Una fecha AAAA-MM-DD.", json_schema_extra={"format": "date", "pattern": DATE_PATTERN}),
]


def context_of(request: Request) -> ServiceContext:
    return request.app.state.context


def current_tenant(request: Request) -> TenantInfo:
    """The tenant of the request: from the ``/t/{slug}`` prefix, else from the Host header."""
    context = context_of(request)
    slug = request.scope.get(TENANT_SCOPE_KEY)
    if slug is not None:
        tenant = context.tenant_by_slug(slug)
    else:
        tenant = context.tenant_by_host(request.headers.get("host", ""))
    if tenant is None:
        raise ServiceError(404, "No se encontró la empresa para esta dirección.", "TENANT_NOT_FOUND")
    return tenant


def authenticated(request: Request) -> tuple[TenantInfo, Caller]:
    """The tenant and the user whose token came in ``Authorization: Bearer``; 401 otherwise."""
    tenant = current_tenant(request)
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip() if scheme.lower() == "bearer" else ""
    if not token:
        token = request.query_params.get("api_token", "")
    caller = context_of(request).authenticate(tenant, hash_token(token)) if token else None
    if caller is None:
        raise ServiceError(401, NOT_AUTHENTICATED, "UNAUTHENTICATED")
    return tenant, caller


async def json_body(request: Request) -> Any:
    """The parsed JSON body, checked at the edge (:func:`check_json`); 400 with a clear code when it is
    empty, not JSON or nested too deep, 422 when it holds text XML cannot carry or impossible numbers.
    The body's size is bounded while it is received (``facturador.app.BodyLimit``)."""
    raw = await request.body()
    if not raw.strip():
        raise ServiceError(400, "El cuerpo de la petición está vacío.", "EMPTY_BODY")
    try:
        body = json.loads(raw)
    except RecursionError:
        raise too_deep() from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ServiceError(
            400, f"El cuerpo de la petición no es un JSON válido: {exc}", "INVALID_JSON"
        ) from exc
    check_json(body, raw)
    return body


async def json_object(request: Request) -> dict[str, Any]:
    body = await json_body(request)
    if isinstance(body, list):
        raise ServiceError(400, "Se envió una lista; el cuerpo debe ser un objeto JSON.", "BODY_IS_LIST")
    if not isinstance(body, dict):
        raise ServiceError(400, "El cuerpo de la petición debe ser un objeto JSON.", "BODY_NOT_OBJECT")
    return body


class FastJSON(Response):
    """A JSON response serialized with orjson, without FastAPI's response-model validation (hot paths)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


async def checked_path(request: Request) -> None:
    """A dependency of every route of the application: its path parameters go through
    :func:`check_path_parameters` before the route reads them (async: it runs on the event loop)."""
    check_path_parameters(request.path_params, request.scope.get("raw_path") or b"")


def path_parameter(declared: Field, value: str, name: str) -> Any:
    """A path parameter read with its declaration (the same that documents it); 422 naming it."""
    check_text(value, name)
    reader = Reader()
    clean = declared.read(reader, value, name)
    reader.raise_if_errors()
    return clean


def base_url(request: Request) -> str:
    """The tenant's base URL as the client reached it (host, and the ``/t/{slug}`` prefix if used)."""
    return str(request.base_url).rstrip("/")


def _parse_day(value: str, name: str) -> dt.date:
    try:
        if len(value) != 10:
            raise ValueError
        return dt.date.fromisoformat(value)
    except ValueError:
        raise ServiceError(
            422, f"La fecha {name} debe tener el formato AAAA-MM-DD (se recibió {value!r}).", "INVALID_DATE"
        ) from None


def parse_range(start: str, end: str) -> tuple[dt.date, dt.date]:
    """The inclusive ``{start}/{end}`` of a list path (Y-m-d); 422 when malformed or reversed."""
    first, last = _parse_day(start, "inicial"), _parse_day(end, "final")
    if first > last:
        raise ServiceError(
            422, "La fecha inicial no puede ser posterior a la fecha final.", "INVALID_DATE_RANGE"
        )
    return first, last


def query_range(start: str | None, end: str | None) -> tuple[dt.date | None, dt.date | None]:
    """The inclusive ``start_date`` / ``end_date`` query parameters of a list (both or neither, Y-m-d);
    422 naming the parameter when one is missing, malformed or after the other."""
    if start is None and end is None:
        return None, None
    if start is None or end is None:
        missing = "start_date" if start is None else "end_date"
        raise ServiceError(
            422,
            f"El campo {missing} es obligatorio cuando se da el otro extremo del rango.",
            "MISSING_FIELDS",
            [FieldError(missing, f"El campo {missing} es obligatorio.")],
        )
    days = []
    for name, value in (("start_date", start), ("end_date", end)):
        try:
            days.append(_parse_day(value, "inicial" if name == "start_date" else "final"))
        except ServiceError as exc:
            raise ServiceError(422, exc.message, exc.error_code, [FieldError(name, exc.message)]) from None
    if days[0] > days[1]:
        message = "La fecha inicial no puede ser posterior a la fecha final."
        raise ServiceError(422, message, "INVALID_DATE_RANGE", [FieldError("start_date", message)])
    return days[0], days[1]
