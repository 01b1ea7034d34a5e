"""Customers and suppliers (``docs/facturador_pro_api.md``): ``POST /api/person`` with the internal English
keys and the paginated ``GET /api/persons/{type}/records``.

A person's number and name are unique per type (``customers`` | ``suppliers``); a body with the ``id`` of
a stored person edits it. The customers of documents (``datos_del_cliente_o_receptor``) and of sale notes
created with ``force_create_if_not_exist`` are upserted into the same table by number
(:func:`upsert_document_customer`), so every customer a tenant ever billed is listed here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from facturador.context import ServiceContext, TenantInfo
from facturador.domain.fields import MAX_RECORD_ID, Boolean, Code, Number, Object, Text
from facturador.errors import FieldError, ServiceError, field_error, not_found
from facturador.issued import Party
from facturador.store.backoffice import upsert_customer
from facturador.store.models import KEY_CHARACTERS, PERSON_ORDER, PERSONS
from facturador.store.search import contains, gather, search_text
from sunat import catalogs
from sunat.identity import identity_problem
from sunat.ubigeo import is_valid_ubigeo

PERSON_TYPES = {"customers": "Cliente", "suppliers": "Proveedor"}
PER_PAGE = 20
#: Short names of the identity document types (``identity_document_type_code``).
IDENTITY_CODES = {"0": "DOC.TRIB.NO.DOM.SIN.RUC", "1": "DNI", "4": "CE", "6": "RUC", "7": "PASAPORTE"}

PERSON_TYPE = Code(
    "customers (clientes) o suppliers (proveedores).",
    required=True,
    codes=PERSON_TYPES,
    message="El campo {path} debe ser customers o suppliers.",
)
PERSON_BODY = Object(
    name="PersonBody",
    description="Un cliente o proveedor (claves internas del servicio real).",
    required=True,
    fields={
        "id": Number(
            "El id de una persona registrada, para editarla.",
            integer_digits=10,
            decimals=0,
            maximum=MAX_RECORD_ID,
            absent=None,
        ),
        "type": PERSON_TYPE,
        "identity_document_type_id": Code(
            "Tipo de documento de identidad.",
            required=True,
            codes=catalogs.IDENTITY_TYPES,
            catalog="catálogo 06",
            upper=True,
        ),
        "number": Text("Número de documento (único por tipo de persona).", required=True, max_length=15),
        "name": Text("Nombre o razón social (único por tipo de persona).", required=True, max_length=1500),
        "country_id": Text(
            "País (ISO 3166-1 alfa-2).",
            required=True,
            pattern="^[A-Za-z]{2}$",
            pattern_message="El campo {path} debe ser un código de país de 2 letras.",
            upper=True,
        ),
        "trade_name": Text("Nombre comercial.", max_length=1500),
        "department_id": Text("Departamento (2 dígitos; '-' borra la ubicación).", max_length=2),
        "province_id": Text("Provincia (4 dígitos).", max_length=4),
        "district_id": Text(
            "Distrito: ubigeo INEI de 6 dígitos.",
            pattern="^([0-9]{6})?$",
            pattern_message="El código ubigeo debe contener 6 dígitos",
            check=lambda code: None if is_valid_ubigeo(code) else "El código ubigeo es incorrecto",
        ),
        "address": Text("Dirección.", max_length=500),
        "telephone": Text("Teléfono.", max_length=30),
        "email": Text(
            "Correo electrónico.",
            max_length=254,
            pattern=r"^([^@\s]+@[^@\s]+\.[^@\s]+)?$",
            pattern_message="El campo {path} debe ser una dirección de correo válida.",
        ),
        "perception_agent": Boolean("Agente de percepción."),
        "percentage_perception": Number("Porcentaje de percepción.", integer_digits=3, decimals=2),
        "internal_code": Text("Código interno.", max_length=100),
    },
)


@dataclass(frozen=True)
class Page:
    """One page of a list: its rows and where it sits."""

    rows: list[dict[str, Any]]
    page: int
    last_page: int
    total: int


def person_row(row: Any) -> dict[str, Any]:
    """A person as the real services answer it (``Person::getApiRowResource``)."""
    identity = row.identity_document_type_id
    district = row.district_id or ""
    return {
        "id": row.id,
        "description": f"{row.number} - {row.name}",
        "name": row.name,
        "number": row.number,
        "trade_name": row.trade_name,
        "identity_document_type_id": identity,
        "identity_document_type_code": IDENTITY_CODES.get(identity, identity),
        "identity_document_type_description": catalogs.IDENTITY_TYPES.get(identity, identity),
        "address": row.address,
        "telephone": row.telephone,
        "email": row.email,
        "country_id": row.country_id,
        "district_id": district or None,
        "location_id": [district[:2], district[:4], district] if district else [],
        "addresses": [],
        "enabled": bool(row.enabled),
        "selected": False,
    }


def document_customer_values(customer: Party) -> dict[str, Any]:
    """The person fields a document's customer gives (``datos_del_cliente_o_receptor``)."""
    ubigeo = customer.ubigeo or ""
    return {
        "identity_document_type_id": customer.identity_type,
        "number": customer.number,
        "name": customer.name,
        "trade_name": customer.trade_name,
        "country_id": customer.country or "PE",
        "department_id": ubigeo[:2],
        "province_id": ubigeo[:4],
        "district_id": ubigeo,
        "address": customer.address,
        "email": customer.email,
        "telephone": customer.phone,
    }


def upsert_document_customer(connection: Connection, tenant_id: int, customer: Party) -> int:
    """Create or update the tenant's customer a document (or sale note) names; its id."""
    return upsert_customer(connection, tenant_id, document_customer_values(customer))


class PersonService:
    """Registers and lists a tenant's customers and suppliers."""

    def __init__(self, context: ServiceContext):
        self.context = context

    def save(self, tenant: TenantInfo, body: Any) -> tuple[dict[str, Any], str]:
        """``POST /api/person``: create (or, with ``id``, edit) a person; its row and the answer's message."""
        values = PERSON_BODY.read_body(body)
        person_id = values.pop("id")
        problem = identity_problem(
            values["identity_document_type_id"], values["number"], check_ruc_digit=True
        )
        if problem:
            raise field_error("number", problem, "INVALID_IDENTITY")
        if values["department_id"] == "-":  # the real services' way to clear the location
            values["department_id"] = values["province_id"] = values["district_id"] = ""
        elif values["district_id"]:
            values["department_id"], values["province_id"] = (
                values["district_id"][:2],
                values["district_id"][:4],
            )
        with self.context.writing() as connection:
            if person_id is not None:
                person_id = int(person_id)
                found = connection.scalar(
                    select(PERSONS.c.type).where(PERSONS.c.tenant_id == tenant.id, PERSONS.c.id == person_id)
                )
                if found is None:
                    raise not_found(f"No existe la persona con id {person_id}.", "PERSON_NOT_FOUND", "id")
            self._check_unique(connection, tenant.id, values, person_id)
            if person_id is None:
                person_id = connection.execute(
                    PERSONS.insert().values(tenant_id=tenant.id, **values).returning(PERSONS.c.id)
                ).scalar_one()
                created = True
            else:
                connection.execute(
                    PERSONS.update()
                    .where(PERSONS.c.id == person_id)
                    .values(
                        **values,
                        search_text=search_text(values["number"], values["name"]),
                        updated_at=func.now(),
                    )
                )
                created = False
            row = connection.execute(select(PERSONS).where(PERSONS.c.id == person_id)).one()
        kind = PERSON_TYPES[values["type"]]
        return person_row(row), f"{kind} {'registrado' if created else 'editado'} con éxito"

    @staticmethod
    def _check_unique(
        connection: Connection, tenant_id: int, values: dict[str, Any], own_id: int | None
    ) -> None:
        errors = []
        for key, label in (("number", "número"), ("name", "nombre")):
            query = select(PERSONS.c.id).where(
                PERSONS.c.tenant_id == tenant_id,
                PERSONS.c.type == values["type"],
                PERSONS.c[key] == values[key],
            )
            if key == "name":  # found through the records' index, which holds the name's first characters
                query = query.where(PERSONS.c.name_key == values["name"][:KEY_CHARACTERS])
            if own_id is not None:
                query = query.where(PERSONS.c.id != own_id)
            if connection.scalar(query) is not None:
                errors.append(FieldError(key, f"El {label} {values[key]} ya ha sido registrado."))
        if errors:
            raise ServiceError(422, errors[0].message, "DUPLICATE_PERSON", errors)

    def records(
        self, tenant: TenantInfo, person_type: str, text: str, page: int, *, by_number: bool = False
    ) -> Page:
        """``GET /api/persons/{type}/records``: 20 per page, by name, filtered by name or number (accents and
        case aside, see facturador.store.search), or by the number alone when ``by_number``."""
        order = PERSON_ORDER  # the name's first 200 characters, then the number (unique per type): total
        offset = (page - 1) * PER_PAGE
        kind = PERSONS.c.type == person_type
        condition = (PERSONS.c.tenant_id == tenant.id) & kind
        with self.context.engine.connect() as connection:
            found = (
                gather(connection, PERSONS, tenant.id, kind, text, order, PER_PAGE, offset)
                if text and not by_number
                else None
            )
            if text and by_number:
                condition &= PERSONS.c.number.contains(text, autoescape=True)
            elif text:
                condition &= contains(PERSONS.c.search_text, text)
            if found is not None:  # few matches, gathered, counted and ordered
                total, ids = found.total, found.ids
            else:
                total = int(
                    connection.scalar(select(func.count()).select_from(PERSONS).where(condition)) or 0
                )
                # the page's ids from the covering index alone (a deep page skips index entries, not rows)
                ids = list(
                    connection.scalars(
                        select(PERSONS.c.id).where(condition).order_by(*order).limit(PER_PAGE).offset(offset)
                    )
                )
            last_page = max(1, math.ceil(total / PER_PAGE))
            rows = connection.execute(select(PERSONS).where(PERSONS.c.id.in_(ids)).order_by(*order)).all()
        return Page([person_row(row) for row in rows], page, last_page, total)

    def find(self, connection: Connection, tenant_id: int, person_id: int) -> Any:
        """The tenant's person ``person_id`` (a row), or ``None``."""
        return connection.execute(
            select(PERSONS).where(PERSONS.c.tenant_id == tenant_id, PERSONS.c.id == person_id)
        ).one_or_none()
