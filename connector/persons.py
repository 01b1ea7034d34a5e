"""``client.persons``: customers and suppliers (``POST /api/person``, ``POST /api/persons/update``,
``GET /api/persons/{type}/records``).

:meth:`PersonsResource.create` registers one and :meth:`~PersonsResource.update` edits one, both through
the family's plugin pipeline (``facturador_issued`` gets the :class:`Person`); :meth:`~PersonsResource.list`
gives every person of a type, as a :class:`~connector.lists.RecordList` (``.to_dataframe()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal
from urllib.parse import urlencode

from connector.builders import Customer
from connector.errors import NotFoundError, NotOfferedError
from connector.http import Connection
from connector.lists import RecordList, pages
from connector.parsing import data_of, parse_bool, rows_of, text
from connector.person_types import classify
from connector.resources import Reply, Resource, offered

__all__ = ["PERSON_COLUMNS", "Person", "PersonType", "PersonsResource", "Taxpayer"]

PersonType = Literal["customers", "suppliers"]


@dataclass(frozen=True)
class Person:
    """A customer or supplier as the service lists it; ``id`` is its ``customer_id``; ``type`` is
    ``customers`` or ``suppliers`` (``""`` when the answer does not say)."""

    id: int
    number: str
    name: str
    identity_type: str
    identity_code: str
    address: str = ""
    email: str = ""
    telephone: str = ""
    country: str = "PE"
    district: str = ""
    enabled: bool = True
    type: str = ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any], *, person_type: str = "") -> Person:
        """Build from a list row or an answer's ``data``."""
        return cls(
            id=int(row["id"]),
            number=text(row.get("number")),
            name=text(row.get("name")),
            identity_type=text(row.get("identity_document_type_id")),
            identity_code=text(row.get("identity_document_type_code")),
            address=text(row.get("address")),
            email=text(row.get("email")),
            telephone=text(row.get("telephone")),
            country=text(row.get("country_id")) or "PE",
            district=text(row.get("district_id")),
            enabled=parse_bool(row.get("enabled", True)),
            type=person_type or text(row.get("type")),
        )


#: The columns of a list of persons as a DataFrame.
PERSON_COLUMNS = ("id", "number", "name", "identity_type", "address", "email", "telephone", "district")


@dataclass(frozen=True)
class Taxpayer:
    """A RUC or DNI as the tenant's ``services/ruc`` / ``services/dni`` gives it: the name and address to
    fill a customer with, and, for a RUC, SUNAT's ``state`` and ``condition`` (``""`` when not given);
    ``warning`` says why issuing to it deserves a second look (not ACTIVO, or not HABIDO)."""

    number: str
    name: str
    address: str
    district_id: str
    state: str
    condition: str
    warning: str | None

    @classmethod
    def from_answer(cls, number: str, data: Mapping[str, Any]) -> Taxpayer:
        state, condition = text(data.get("state")).upper(), text(data.get("condition")).upper()
        warning = data.get("warning") or None
        if warning is None and (state not in ("", "ACTIVO") or condition not in ("", "HABIDO")):
            said = [f"estado {state}" if state not in ("", "ACTIVO") else "", condition]
            warning = f"El contribuyente {number} figura en SUNAT con {' y '.join(p for p in said if p)}."
        location = data.get("location_id") or []
        district = text(data.get("district_id")) or (
            text(location[-1]) if isinstance(location, list) and location else ""
        )
        return cls(
            number=text(data.get("number")) or number,
            name=text(data.get("name")),
            address=text(data.get("address")),
            district_id=district,
            state=state,
            condition=condition,
            warning=text(warning) or None,
        )


class _PersonSearches:
    """The customers' and suppliers' searches of a real tenant (see :mod:`connector.person_types`),
    each text asked once."""

    def __init__(self, http: Connection, fresh: bool) -> None:
        self._http, self._fresh = http, fresh
        self._rows: dict[tuple[str, str], list[dict[str, Any]]] = {}

    def rows(self, which: str, search: str) -> list[dict[str, Any]]:
        key = (which, search)
        if key not in self._rows:
            path = (
                "/api/document/search-customers"
                if which == "customers"
                else "/api/purchases/search-suppliers"
            )
            relative = f"{path}?{urlencode({'input': search})}"
            response = self._http.get(relative, fresh=self._fresh, tag="persons.lists")
            body = Connection.parse(response)
            if isinstance(body, Mapping) and isinstance(body.get("data"), Mapping):
                body = body["data"].get("customers")  # {"success", "data": {"customers": [...]}}
            self._rows[key] = rows_of(body, response.url, response.status_code)
        return self._rows[key]

    def customers(self, search: str) -> set[int]:
        return {int(row["id"]) for row in self.rows("customers", search)}

    def suppliers(self, search: str) -> set[int]:
        return {int(row["id"]) for row in self.rows("suppliers", search)}


class PersonsResource(Resource):
    """Customers and suppliers: :meth:`create`, :meth:`update`, :meth:`list` (every page, of the type
    asked), :meth:`customer_id` (found or registered)."""

    family: ClassVar[str] = "persons"

    def create(
        self,
        *,
        number: str,
        name: str,
        identity_type: str,
        person_type: PersonType = "customers",
        country: str = "PE",
        form_values: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> Person:
        """Register a person; ``fields`` are other keys of the service's person (``address``, ``email``,
        ``telephone``, ``district_id``, ``trade_name`` ...).

        :raises ValidationError: a duplicate number or name of the type, a bad identity number, or
            plugins found problems (nothing sent).
        """
        payload = _payload(
            number=number,
            name=name,
            identity_type=identity_type,
            person_type=person_type,
            country=country,
            **fields,
        )
        return self._save("/api/person", payload, person_type, form_values)

    def update(self, person_id: int, **person: Any) -> Person:
        """Edit person ``person_id``: the same keywords as :meth:`create` (``number``, ``name``,
        ``identity_type`` ...), through the family's hooks.

        Real tenants' ``POST /api/person`` always registers a new person (``id`` is not fillable), so an
        edit goes to their ``POST /api/persons/update`` (Pro9, Tukifac); pro5 has none.

        :raises NotOfferedError: a tenant without ``/api/persons/update``.
        """
        form_values = person.pop("form_values", None)
        payload = {**_payload(**person), "id": person_id}
        person_type = payload["type"]
        if not self._http.is_laravel():  # this service edits through POST /api/person with the id
            return self._save("/api/person", payload, person_type, form_values)
        return self._save("/api/persons/update", payload, person_type, form_values, real_tenant=True)

    def _save(
        self,
        path: str,
        payload: dict[str, Any],
        person_type: str,
        form_values: Mapping[str, Any] | None,
        *,
        real_tenant: bool = False,
    ) -> Person:
        def read(reply: Reply) -> Person:  # a real tenant's edit answers no data: the person is what went
            row = reply.sent if real_tenant else data_of(reply.body, reply.url)
            return Person.from_row(row, person_type=person_type)

        return self._submit(
            path,
            payload,
            read,
            form_values=form_values,
            changes=(self.lists_tag,),
            offered_as="la edición de clientes y proveedores" if real_tenant else None,
        )

    def list(
        self, person_type: PersonType = "customers", search: str = "", *, fresh: bool = False
    ) -> RecordList[Person]:
        """Every person of the type whose name or number contains ``search`` (all pages, by name).

        Real tenants answer persons of both types when the name matches, without saying which:
        :mod:`connector.person_types` tells them apart (a few more searches). pro5 has no paginated
        list: its customers' and suppliers' searches give the candidates."""
        query = f"?{urlencode({'input': search})}" if search else ""
        path = f"/api/persons/{person_type}/records{query}"
        label = "la lista de clientes" if person_type == "customers" else "la lista de proveedores"
        if not self._http.is_laravel():  # this service filters by type itself
            rows = pages(self._http, path, tag=self.lists_tag, fresh=fresh, what=label)
            return RecordList(
                (Person.from_row(row, person_type=person_type) for row in rows), columns=PERSON_COLUMNS
            )
        searches = _PersonSearches(self._http, fresh)
        try:
            with offered(label):
                candidates = list(pages(self._http, path, tag=self.lists_tag, fresh=fresh, what=label))
        except NotOfferedError:
            candidates = list(
                {
                    int(row["id"]): row
                    for row in (*searches.rows("customers", search), *searches.rows("suppliers", search))
                }.values()
            )
            candidates.sort(key=lambda row: text(row.get("name")))
        types = classify(candidates, search, searches.customers, searches.suppliers)
        return RecordList(
            (
                Person.from_row(row, person_type=person_type)
                for row in candidates
                if types.get(int(row["id"])) == person_type
            ),
            columns=PERSON_COLUMNS,
        )

    def lookup(self, number: str) -> Taxpayer:
        """The taxpayer of a RUC (11 digits) or DNI (8) from the tenant's ``GET /api/services/ruc/{n}`` or
        ``/api/services/dni/{n}`` (on this service: SUNAT's imported padrón, with its state and condition,
        or the tenant's persons); before issuing to a customer, its ``warning`` flags a BAJA or NO HABIDO.

        :raises ValidationError: a malformed number (this service: a RUC's wrong check digit).
        :raises NotFoundError: nobody knows the number (real tenants answer ``success: false``).
        """
        kind = "ruc" if len(number) == 11 else "dni"
        response = self._http.get(f"/api/services/{kind}/{number}", fresh=True, tag="persons.lookup")
        body = Connection.json(response)
        data = body.get("data")
        if body.get("success") is False or not isinstance(data, Mapping):
            message = text(body.get("message")) or f"No se encontró el número {number}."
            raise NotFoundError(message, status=response.status_code, body=body, url=response.url)
        return Taxpayer.from_answer(number, data)

    def customer_id(self, customer: Customer) -> int:
        """The id of the customer with ``customer``'s identity number, registered when new."""
        for row in _PersonSearches(self._http, True).rows("customers", customer.number):
            if text(row.get("number")) == customer.number and text(row.get("identity_document_type_id")) in (
                customer.identity_type,
                "",
            ):
                return int(row["id"])
        fields: dict[str, Any] = {
            "address": customer.address,
            "email": customer.email,
            "district_id": customer.ubigeo,
        }
        return self.create(
            number=customer.number,
            name=customer.name,
            identity_type=customer.identity_type,
            country=customer.country or "PE",
            **{key: value for key, value in fields.items() if value},
        ).id


def _payload(
    *,
    number: str,
    name: str,
    identity_type: str,
    person_type: str = "customers",
    country: str = "PE",
    **fields: Any,
) -> dict[str, Any]:
    return {
        "type": person_type,
        "identity_document_type_id": identity_type,
        "number": number,
        "name": name,
        "country_id": country,
        **fields,
    }
