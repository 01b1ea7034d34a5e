"""What real Facturador PRO's mobile and service routes answer: a RUC from SUNAT's padrón (or the tenant's
own persons), a DNI from the tenant's persons or a configured provider, the caller's series, the
customers' lists and searches and the issue form's tables.

The DNI provider is optional and has no default: ``FACTURADOR_DNI_PROVIDER_URL`` is a URL with
``{number}`` in it (for example an apiperu.dev-style ``https://host/api/dni/{number}``), called with
``FACTURADOR_DNI_PROVIDER_TOKEN`` as a Bearer token when set; it must answer ``{"success": true, "data":
{"nombre_completo" | "nombres" + "apellido_paterno" + "apellido_materno", "direccion"?, "ubigeo"?}}``.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from sqlalchemy import select

from facturador.context import ServiceContext, TenantInfo
from facturador.domain.padron import Taxpayer, find_taxpayer
from facturador.domain.persons import person_row
from facturador.errors import ServiceError
from facturador.store.db import UNAVAILABLE
from facturador.store.models import PERSON_ORDER, PERSONS, SERIES
from facturador.store.search import contains
from sunat import catalogs
from sunat.identity import RUC_PREFIXES, is_valid_dni, is_valid_ruc
from sunat.ubigeo import describe_ubigeo

log = logging.getLogger("facturador.lookups")

DNI_PROVIDER_ENV = "FACTURADOR_DNI_PROVIDER_URL"
DNI_TOKEN_ENV = "FACTURADOR_DNI_PROVIDER_TOKEN"
DNI_TIMEOUT_SECONDS = 8.0
#: How many rows a search of customers or suppliers answers at most (real PRO answers every match).
SEARCH_LIMIT = 500
#: Real PRO's ``document/customers`` and ``document/tables``: the first 20 by name.
FIRST_ROWS = 20
#: The series types of ``document/series`` (MobileController@getSeries).
MOBILE_SERIES_TYPES = ("01", "03", "09", "31")


def _location(ubigeo: str) -> dict[str, Any]:
    described = describe_ubigeo(ubigeo) if len(ubigeo) == 6 else None
    department, province, district = (name.upper() for name in described or ("", "", ""))
    ids = [ubigeo[:2], ubigeo[:4], ubigeo] if described else []
    return {
        "department": department,
        "department_id": ubigeo[:2] if described else None,
        "province": province,
        "province_id": ubigeo[:4] if described else None,
        "district": district,
        "district_id": ubigeo if described else None,
        "location_id": ids,
        "ubigeo": ubigeo if described else "",
    }


def check_ruc(number: str) -> str:
    """``number`` when it is a RUC (11 digits, prefix, check digit); 422 otherwise."""
    if not is_valid_ruc(number):
        if not (len(number) == 11 and number.isdigit()):
            reason = "debe tener 11 dígitos"
        elif number[:2] not in RUC_PREFIXES:
            reason = f"debe empezar con {', '.join(sorted(RUC_PREFIXES))}"
        else:
            reason = "su dígito verificador no corresponde"
        raise ServiceError(422, f"El número de RUC ingresado es inválido: {reason}.", "INVALID_RUC")
    return number


def ruc_answer(context: ServiceContext, tenant: TenantInfo, number: str) -> dict[str, Any]:
    """``GET /api/services/ruc/{number}``: the padrón's line (state, condition and a warning for a
    taxpayer not ACTIVO or not HABIDO), else the tenant's own person with that RUC; 404 otherwise."""
    check_ruc(number)
    with context.engine.connect() as connection:
        taxpayer = find_taxpayer(connection, number)
        person = None
        if taxpayer is None:
            person = connection.execute(
                select(PERSONS)
                .where(
                    PERSONS.c.tenant_id == tenant.id,
                    PERSONS.c.number == number,
                    PERSONS.c.identity_document_type_id == "6",
                )
                .order_by(PERSONS.c.type)
                .limit(1)
            ).one_or_none()
    if taxpayer is not None:
        return {"success": True, "data": taxpayer_data(taxpayer)}
    if person is not None:
        data = {
            "number": number,
            "name": person.name,
            "trade_name": person.trade_name,
            "address": person.address,
            "phone": person.telephone,
            **_location(person.district_id or ""),
            "state": "",
            "condition": "",
            "warning": None,
            "source": "persons",
        }
        return {"success": True, "data": data}
    raise ServiceError(
        404,
        f"El RUC {number} no figura en el padrón de SUNAT importado ni entre sus clientes o proveedores.",
        "RUC_NOT_FOUND",
    )


def taxpayer_data(taxpayer: Taxpayer) -> dict[str, Any]:
    """A padrón line in real PRO's keys (``ServiceController@ruc`` and ApiPeruDev's ``service``)."""
    return {
        "number": taxpayer.ruc,
        "name": taxpayer.name,
        "trade_name": "",
        "address": taxpayer.address,
        "phone": "",
        **_location(taxpayer.ubigeo),
        "state": taxpayer.state,
        "condition": taxpayer.condition,
        "warning": taxpayer.warning,
        "source": "padron",
    }


def customer_warning(context: ServiceContext, identity_type: str, number: str) -> str | None:
    """Why issuing to this customer deserves a second look (the padrón says BAJA, NO HABIDO...), or None
    (not a RUC, not in the imported padrón, in good standing, or the database not answering)."""
    if identity_type != "6" or not is_valid_ruc(number):
        return None
    try:
        with context.engine.connect() as connection:
            taxpayer = find_taxpayer(connection, number)
    except UNAVAILABLE as exc:  # the document is issued already: its answer goes out without the warning
        log.warning("the padrón could not be read for %s's warning: %s", number, str(exc).splitlines()[0])
        return None
    return taxpayer.warning if taxpayer is not None else None


def dni_answer(context: ServiceContext, tenant: TenantInfo, number: str) -> dict[str, Any]:
    """``GET /api/services/dni/{number}``: the tenant's own person with that DNI, else the configured
    provider's answer (see the module's doc); 404 when neither knows it, 502 when the provider fails."""
    if not is_valid_dni(number):
        raise ServiceError(
            422, "El número de DNI ingresado es inválido: debe tener 8 dígitos.", "INVALID_DNI"
        )
    with context.engine.connect() as connection:
        person = connection.execute(
            select(PERSONS)
            .where(
                PERSONS.c.tenant_id == tenant.id,
                PERSONS.c.number == number,
                PERSONS.c.identity_document_type_id == "1",
            )
            .order_by(PERSONS.c.type)
            .limit(1)
        ).one_or_none()
    if person is not None:
        location = _location(person.district_id or "")
        return {
            "success": True,
            "data": {
                "number": number,
                "name": person.name,
                "trade_name": "",
                "address": person.address,
                **location,
                "condition": "",
                "state": "",
                "source": "persons",
            },
        }
    found = _provider_dni(number)
    if found is None:
        raise ServiceError(
            404,
            f"El DNI {number} no figura entre sus clientes o proveedores"
            + (
                "."
                if os.environ.get(DNI_PROVIDER_ENV)
                else " y no hay un proveedor de consultas configurado."
            ),
            "DNI_NOT_FOUND",
        )
    return {"success": True, "data": found}


def _provider_dni(number: str) -> dict[str, Any] | None:
    """The configured provider's person, in real PRO's keys; None when none is configured or it does not
    know the number; 502 when it cannot be asked."""
    import httpx

    template = os.environ.get(DNI_PROVIDER_ENV, "").strip()
    if not template:
        return None
    url = (
        template.replace("{number}", number) if "{number}" in template else f"{template.rstrip('/')}/{number}"
    )
    headers = {"Accept": "application/json"}
    token = os.environ.get(DNI_TOKEN_ENV, "").strip()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        response = httpx.get(url, headers=headers, timeout=DNI_TIMEOUT_SECONDS)
        if response.status_code == 404:
            return None
        response.raise_for_status()
        body = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        log.warning("the DNI provider did not answer: %s", exc)
        raise ServiceError(
            502, "El proveedor de consultas de DNI no respondió; intente más tarde.", "DNI_PROVIDER_FAILED"
        ) from None
    data = body.get("data") if isinstance(body, dict) and body.get("success") else None
    if not isinstance(data, dict):
        return None
    name = str(data.get("nombre_completo") or "").strip()
    if not name:
        parts = (data.get("apellido_paterno"), data.get("apellido_materno"), data.get("nombres"))
        name = " ".join(str(part).strip() for part in parts if part)
    if not name:
        return None
    ubigeo = data.get("ubigeo_sunat") or data.get("ubigeo") or ""
    ubigeo = ubigeo[-1] if isinstance(ubigeo, list) and ubigeo else ubigeo
    return {
        "number": number,
        "name": name[:500],
        "trade_name": "",
        "address": str(data.get("direccion") or "")[:500],
        **_location(str(ubigeo) if str(ubigeo).isdigit() else ""),
        "condition": "",
        "state": "",
        "source": "provider",
    }


def mobile_series(context: ServiceContext, tenant: TenantInfo, establishment_id: int) -> list[dict[str, Any]]:
    """``GET /api/document/series``: the caller's establishment's series of facturas, boletas and guides
    (``Series::getApiRowResource``); the first series of each type is its default."""
    with context.engine.connect() as connection:
        rows = connection.execute(
            select(SERIES)
            .where(
                SERIES.c.tenant_id == tenant.id,
                SERIES.c.establishment_id == establishment_id,
                SERIES.c.document_type_id.in_(MOBILE_SERIES_TYPES),
            )
            .order_by(SERIES.c.id)
        ).all()
    seen: set[str] = set()
    answer = []
    for row in rows:
        answer.append(
            {
                "id": row.id,
                "document_type_id": row.document_type_id,
                "number": row.number,
                "is_default": row.document_type_id not in seen,
                "establishment_id": row.establishment_id,
            }
        )
        seen.add(row.document_type_id)
    return answer


def persons_search(
    context: ServiceContext,
    tenant: TenantInfo,
    person_type: str,
    text: str,
    document_type_id: str | None = None,
    limit: int = SEARCH_LIMIT,
) -> list[dict[str, Any]]:
    """``document/search-customers`` and ``purchases/search-suppliers``: the tenant's persons of the type
    whose name or number holds ``text`` (accents and case aside), by name, with real PRO's identity
    filter (a factura, ``document_type_id`` 01, takes only RUCs)."""
    identities = ("6",) if document_type_id == "01" else ("1", "4", "6", "7", "0")
    condition = (
        (PERSONS.c.tenant_id == tenant.id)
        & (PERSONS.c.type == person_type)
        & PERSONS.c.identity_document_type_id.in_(identities)
    )
    if text:
        condition &= contains(PERSONS.c.search_text, text)
    with context.engine.connect() as connection:
        rows = connection.execute(select(PERSONS).where(condition).order_by(*PERSON_ORDER).limit(limit)).all()
    return [person_row(row) for row in rows]


def first_customers(context: ServiceContext, tenant: TenantInfo) -> list[dict[str, Any]]:
    """``GET /api/document/customers``: the first 20 customers by name."""
    with context.engine.connect() as connection:
        rows = connection.execute(
            select(PERSONS)
            .where(PERSONS.c.tenant_id == tenant.id, PERSONS.c.type == "customers")
            .order_by(*PERSON_ORDER)
            .limit(FIRST_ROWS)
        ).all()
    return [person_row(row) for row in rows]


def supplier_row(row: dict[str, Any]) -> dict[str, Any]:
    """A person as ``purchases/search-suppliers`` answers it (fewer keys than the customers')."""
    keys = (
        "id",
        "description",
        "name",
        "number",
        "identity_document_type_id",
        "address",
        "email",
        "selected",
    )
    return {key: row[key] for key in keys}


def affectation_types() -> list[dict[str, Any]]:
    """Catálogo 07 as real PRO's ``affectation_igv_types`` rows."""
    return [
        {
            "id": code,
            "active": True,
            "exportation": code == "40",
            "free": catalogs.is_free(code),
            "description": description,
        }
        for code, description in catalogs.AFFECTATIONS.items()
    ]
