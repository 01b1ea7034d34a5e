"""Bad input on every route, derived from the OpenAPI document the service serves, so that a new endpoint
is covered without writing its cases (the classes of ``test_bad_input_classes.py`` go deep into the
document body; these go wide):

- every field of every request body, null and then absent, one at a time, each from a valid base body
  (the operation's example, or a sample below when the example needs records that exist);
- every path parameter of every route (downloads included) with NUL, ``..``, a very long value and
  bytes that are not UTF-8, and the same for the GRE API the service mounts.

Never a 500: a refusal is a 4xx with the error envelope, a 422 names the field or parameter, a required
field is never accepted missing, and a refused request changes nothing in the database. Each class test
prints how many requests it made and what they were answered. The same suite runs on SQLite and on
PostgreSQL (scripts/test.sh), where a NUL byte used to reach SQL and fail there.
"""

from __future__ import annotations

import collections
import copy
import functools
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlalchemy import Select, func, select

from facturador.authority.gre.simulator import SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET
from facturador.domain.dispatches import GRE_MOUNT
from facturador.domain.states import ACCEPTED, CANCELING, OBSERVED, REGISTERED, REJECTED, SENT, VOIDED
from facturador.store.models import Tenant
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.samples.blocks import (
    export_boleta,
    global_charge_invoice,
    line_discount_invoice,
    payments_invoice,
    perception_invoice,
    references_invoice,
    retention_invoice,
)
from tests.samples.bodies import boleta_body, credit_note_body, full_invoice, invoice_body
from tests.samples.dispatches import carrier_body, dispatch_body
from tests.samples.isc import isc_invoice
from tests.samples.notes_and_cargo import cargo_invoice
from tests.samples.withholding import perception, retention
from tests.shops import Shop, new_shop

Body = dict[str, Any]
#: The states a record may be in (facturador.domain.states).
STATES = [REGISTERED, SENT, ACCEPTED, OBSERVED, REJECTED, VOIDED, CANCELING]

# ------------------------------------------------------------------------------------------------ set-up


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "routes")


@pytest.fixture(scope="module")
def client(live: LiveService, shop: Shop) -> Iterator[httpx.Client]:
    with live.client(shop.slug, shop.token) as client:
        yield client


@pytest.fixture(scope="module")
def document(client: httpx.Client) -> dict[str, Any]:
    """The OpenAPI document the service serves (every route but its own /openapi.json, /docs, /health)."""
    response = client.get("/openapi.json")
    assert response.status_code == 200, response.text
    return response.json()


def ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json().get("data")


@dataclass
class Seeded:
    """Records of the test's tenant that base bodies and path parameters name; ``fresh`` ones are made
    anew for each request that uses them up (voided, reversed, generated)."""

    client: httpx.Client
    item_id: int
    series_id: int
    accepted: str
    unsent: str
    summary_ticket: str
    voided_ticket: str
    retention: str
    perception: str
    dispatch: str
    examples: dict[str, Any]  # of each operation, by operationId
    counter: int = 10_000

    def fresh_factura(self) -> str:
        return str(ok(self.client.post("/api/documents", json=invoice_body()))["external_id"])

    def fresh_withholding(self, path: str, body: Body) -> str:
        return str(ok(self.client.post(path, json=body))["external_id"])

    def fresh_sale_note(self) -> str:
        return str(ok(self.client.post("/api/sale-note", json=self.sale_note_body()))["id"])

    def sale_note_body(self) -> Body:
        return {**self.examples["createSaleNote"], "series_id": self.series_id}

    def unique(self, digits: int) -> str:
        """A number of ``digits`` digits not given before (a DNI, a product code)."""
        self.counter += 1
        return str(self.counter).zfill(digits)


@pytest.fixture(scope="module")
def seeded(client: httpx.Client, document: dict[str, Any]) -> Seeded:
    examples = {op.operation_id: op.example for op in operations(document)}
    # stocked for every sale note the test makes (two units each; stock never goes below zero)
    item = ok(client.post("/api/item", json={**examples["createItem"], "stock": 1_000_000}))
    [series] = ok(client.get("/api/sale-note/series"))
    accepted = ok(client.post("/api/documents", json=invoice_body()))["external_id"]
    unsent = ok(client.post("/api/documents", json=invoice_body(acciones={"enviar_xml_firmado": False})))
    ok(client.post("/api/documents", json=boleta_body()))
    today = peru_today().isoformat()
    summary = ok(
        client.post(
            "/api/summaries", json={"fecha_de_emision_de_documentos": today, "codigo_tipo_proceso": "1"}
        )
    )
    to_void = ok(client.post("/api/documents", json=invoice_body()))["external_id"]
    voided = ok(
        client.post(
            "/api/voided",
            json={
                "fecha_de_emision_de_documentos": today,
                "documentos": [{"external_id": to_void, "motivo_anulacion": "Error de digitación"}],
            },
        )
    )
    return Seeded(
        client=client,
        item_id=item["id"],
        series_id=series["id"],
        accepted=accepted,
        unsent=unsent["external_id"],
        summary_ticket=summary["ticket"],
        voided_ticket=voided["ticket"],
        retention=ok(client.post("/api/retentions", json=retention()))["external_id"],
        perception=ok(client.post("/api/perceptions", json=perception()))["external_id"],
        dispatch=ok(client.post("/api/dispatches", json=dispatch_body()))["external_id"],
        examples=examples,
    )


@functools.cache
def footprint_query() -> Select[Any]:
    """One query of what a refused request must leave as it was: the rows of every table, those in each
    state where records have one, the series' last numbers and the stock."""
    tables = Tenant.metadata.sorted_tables
    series, stocks = Tenant.metadata.tables["series"], Tenant.metadata.tables["item_stocks"]
    figures = [select(func.count()).select_from(table).scalar_subquery() for table in tables]
    figures += [
        select(func.count()).select_from(table).where(table.c.state_type_id == state).scalar_subquery()
        for table in tables
        if "state_type_id" in table.c
        for state in STATES
    ]
    figures += [
        select(func.sum(series.c.last_number)).scalar_subquery(),
        select(func.sum(stocks.c.stock)).scalar_subquery(),
    ]
    return select(*figures)


def footprint(live: LiveService) -> tuple[Any, ...]:
    with live.context.engine.connect() as connection:
        return tuple(connection.execute(footprint_query()).one())


class Watch:
    """Counts the answers of one class of requests and collects what breaks the rules."""

    def __init__(self, live: LiveService):
        self.live = live
        self.answers: collections.Counter[int] = collections.Counter()
        self.problems: list[str] = []
        self.before = footprint(live)

    def send(
        self, label: str, client: httpx.Client, method: str, target: str, **options: Any
    ) -> httpx.Response | None:
        """The answer to one request, or None (and a problem) when the server broke the connection."""
        self.before = footprint(self.live)  # making the body may have made records (a factura to void)
        try:
            return client.request(method, target, **options)
        except httpx.TransportError as exc:
            self.problems.append(f"{label}: no answer ({exc!r})")
            return None

    def check(self, label: str, response: httpx.Response, *, field: str | None, required: bool) -> None:
        """``response`` answers bad input: a 4xx envelope (naming ``field`` when 422) that changed
        nothing since :meth:`send`, or a 2xx when ``required`` is false."""
        status = response.status_code
        self.answers[status] += 1
        if status >= 500 or status < 200:
            self.problems.append(f"{label}: {status} {response.text[:300]}")
            return
        if status < 300:
            if required:
                self.problems.append(f"{label}: accepted ({status}) without a required value")
            return
        try:
            payload = response.json()
        except ValueError:
            self.problems.append(f"{label}: {status} without a JSON envelope: {response.text[:200]}")
            return
        if set(payload) != {"success", "message", "error_code", "errors"} or payload["success"] is not False:
            self.problems.append(f"{label}: {status} without the error envelope: {response.text[:200]}")
        elif status == 422 and field is not None and not names(payload, field):
            self.problems.append(f"{label}: 422 does not name {field}: {response.text[:200]}")
        if footprint(self.live) != self.before:
            self.problems.append(f"{label}: refused with {status} but changed the database")

    def report(self, what: str) -> None:
        total = sum(self.answers.values())
        print(f"\n{what}: {total} requests, answered {dict(sorted(self.answers.items()))}")
        assert not self.problems, f"{len(self.problems)} of {total} broke the rules:\n" + "\n".join(
            self.problems[:60]
        )


def names(payload: dict[str, Any], field: str) -> bool:
    """Whether the envelope's errors name ``field`` or a field inside it."""
    named = [str(error.get("field", "")) for error in payload["errors"]]
    return any(n == field or n.startswith(f"{field}.") for n in named)


# ------------------------------------------------------------------------------------------ the schema


@dataclass(frozen=True)
class Operation:
    """One operation of the served OpenAPI document."""

    method: str
    path: str
    operation_id: str
    path_parameters: tuple[dict[str, Any], ...]
    body: dict[str, Any] | None
    example: Any

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"


def operations(document: dict[str, Any]) -> list[Operation]:
    found = []
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            found.append(
                Operation(
                    method=method,
                    path=path,
                    operation_id=operation["operationId"],
                    path_parameters=tuple(p for p in operation.get("parameters", []) if p["in"] == "path"),
                    body=content["schema"] if content else None,
                    example=content.get("example") if content else None,
                )
            )
    return found


def resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``$ref`` followed, and its first choice of an ``anyOf``: an optional value's
    ``[..., null]``, a list element's ``[declared, placeholder]`` (a zero discount, an empty attribute)."""
    while True:
        if "$ref" in schema:
            schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        elif (
            "anyOf" in schema
            and "properties" not in schema
            and (kept := [s for s in schema["anyOf"] if s.get("type") != "null"])
        ):
            schema = kept[0]
        else:
            return schema


def declared_fields(
    schema: dict[str, Any], value: Any, document: dict[str, Any], path: str = ""
) -> Iterator[tuple[str, bool]]:
    """(path, required) of every field the schema declares where ``value`` has a place for it: each
    property of an object present in ``value`` (present or not), inside lists at their first element."""
    schema = resolve(schema, document)
    if isinstance(value, dict) and "properties" in schema:
        required = set(schema.get("required", []))
        for key, child in schema["properties"].items():
            child_path = f"{path}.{key}" if path else key
            yield child_path, key in required
            if key in value:
                yield from declared_fields(child, value[key], document, child_path)
    elif isinstance(value, list) and value and "items" in schema:
        yield from declared_fields(schema["items"], value[0], document, f"{path}.0")


def without(body: Body, path: str, mode: str) -> Body | None:
    """A copy of ``body`` with the field at ``path`` null or absent (None when it is absent already)."""
    changed = copy.deepcopy(body)
    *parents, last = path.split(".")
    target: Any = changed
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if mode == "null":
        target[last] = None
    elif last in target:
        del target[last]
    else:
        return None
    return changed


# ------------------------------------------------------------------------------ base bodies and paths


#: Base bodies of the operations whose example is not enough: more blocks of a document than one
#: example holds, or records that must exist (and be used up) for the request to go through.
def codes_only_guide(seeded: Seeded) -> Body:
    """A private guide as old clients write it (docs/scenarios.md, "What real clients send"): lines with
    only the code of the tenant's product, the plate at the top level, a DD-MM-AAAA transfer date."""
    return dispatch_body(
        "02",
        vehiculo=None,
        vehiculo_secundario=None,
        numero_de_placa="BCD456",
        fecha_de_traslado=peru_today().strftime("%d-%m-%Y"),
        items=[{"codigo_interno": seeded.examples["createItem"]["internal_id"], "cantidad": 2}],
    )


def manual_carrier_guide() -> Body:
    """A carrier's guide as the real API manual writes it: its places in direcciones_proveedores, a third
    party paying the freight."""
    body = {k: v for k, v in carrier_body().items() if k not in ("direccion_partida", "direccion_llegada")}
    body["direcciones_proveedores"] = {
        "remitente": {"ubigeo": "150101", "direccion": "Av. Argentina 2020, Lima"},
        "destinatario": {"ubigeo": "040101", "direccion": "Calle Mercaderes 120, Arequipa"},
    }
    body["pagador_flete"] = {
        "indicador_pagador_flete": "Tercero",
        "codigo_tipo_documento_identidad": "6",
        "numero": "20131312955",
        "nombres": "PAGADOR DEL FLETE S.A.C.",
    }
    return body


def placeholders_invoice() -> Body:
    """A factura with the zero rows forms send after real ones: a line discount of 0.00 without code, an
    empty attribute (the first rows stay real: their fields are the ones made null or absent)."""
    body = line_discount_invoice()
    line = body["items"][0]
    line["descuentos"].append({"codigo": "", "descripcion": "", "monto": 0})
    line["datos_adicionales"] = [
        {"codigo": "5010", "descripcion": "Placa", "valor": "ABC123"},
        {"codigo": "", "descripcion": "", "valor": ""},
    ]
    return body


BASES: dict[str, Callable[[Seeded], list[Callable[[], Body]]]] = {
    "issueDocument": lambda s: [
        full_invoice,
        placeholders_invoice,
        payments_invoice,
        perception_invoice,
        retention_invoice,
        global_charge_invoice,
        line_discount_invoice,
        references_invoice,
        cargo_invoice,
        isc_invoice,
        export_boleta,
        lambda: credit_note_body(s.accepted),
    ],
    "sendDocument": lambda s: [lambda: {"external_id": s.unsent}],
    "updateDocumentStatus": lambda s: [lambda: {"externail_id": s.accepted, "state_type_id": "05"}],
    "summaryStatus": lambda s: [lambda: {"ticket": s.summary_ticket}],
    "sendVoided": lambda s: [
        lambda: {
            "fecha_de_emision_de_documentos": peru_today().isoformat(),
            "documentos": [{"external_id": s.fresh_factura(), "motivo_anulacion": "Error de digitación"}],
        }
    ],
    "voidedStatus": lambda s: [lambda: {"ticket": s.voided_ticket}],
    "issueRetention": lambda s: [retention],
    "issuePerception": lambda s: [perception],
    "reverseRetentions": lambda s: [
        lambda: {
            "fecha_de_emision_de_documentos": peru_today().isoformat(),
            "documentos": [
                {
                    "external_id": s.fresh_withholding("/api/retentions", retention()),
                    "motivo_anulacion": "Error",
                }
            ],
        }
    ],
    "reversePerceptions": lambda s: [
        lambda: {
            "fecha_de_emision_de_documentos": peru_today().isoformat(),
            "documentos": [
                {
                    "external_id": s.fresh_withholding("/api/perceptions", perception()),
                    "motivo_anulacion": "Error",
                }
            ],
        }
    ],
    "reversionRetentionStatus": lambda s: [lambda: {"external_id": s.retention}],
    "reversionPerceptionStatus": lambda s: [lambda: {"external_id": s.perception}],
    "savePerson": lambda s: [lambda: {**s.examples["savePerson"], "number": s.unique(8)}],
    "createItem": lambda s: [lambda: {**s.examples["createItem"], "internal_id": f"P{s.unique(6)}"}],
    "createSaleNote": lambda s: [s.sale_note_body],
    "issueDispatch": lambda s: [dispatch_body, lambda: dispatch_body("02"), lambda: codes_only_guide(s)],
    "issueDispatchCarrier": lambda s: [carrier_body, manual_carrier_guide],
    "sendDispatch": lambda s: [lambda: {"external_id": s.dispatch}],
    "dispatchStatus": lambda s: [lambda: {"external_id": s.dispatch}],
}


def base_bodies(operation: Operation, seeded: Seeded) -> list[Callable[[], Body]]:
    make = BASES.get(operation.operation_id)
    if make is not None:
        return make(seeded)
    assert operation.example is not None, f"{operation.label}: give it an example or a base body in BASES"
    return [lambda: copy.deepcopy(operation.example)]


def path_values(operation: Operation, seeded: Seeded) -> dict[str, str]:
    """A valid value of each path parameter of ``operation`` (records of the tenant where it names one;
    a sale note is made anew for each request, since a CPE is generated from it once)."""
    values = {}
    for parameter in operation.path_parameters:
        name, schema = parameter["name"], parameter.get("schema", {})
        if "enum" in schema:
            values[name] = str(schema["enum"][0])
        elif schema.get("format") == "date":
            values[name] = peru_today().isoformat()
        elif name == "id":
            values[name] = seeded.fresh_sale_note() if "sale-note" in operation.path else str(seeded.item_id)
        elif name == "external_id":
            values[name] = seeded.accepted
        else:
            values[name] = "x"
    return values


def url(operation: Operation, values: dict[str, str]) -> str:
    path = operation.path
    for name, value in values.items():
        path = path.replace(f"{{{name}}}", value)
    return path


# ------------------------------------------------------------------------- every body field null/absent


@pytest.mark.slow(seconds=30)
def test_every_body_field_null_or_absent(
    live: LiveService, client: httpx.Client, document: dict[str, Any], seeded: Seeded
) -> None:
    body_operations = [op for op in operations(document) if op.body is not None]
    assert len(body_operations) >= 24  # the derivation found the bodies (24 when this was written)
    watch = Watch(live)
    for operation in body_operations:
        tried: set[tuple[str, str]] = set()
        for make in base_bodies(operation, seeded):
            for path, required in declared_fields(operation.body or {}, make(), document):
                for mode in ("null", "absent"):
                    if (path, mode) in tried:
                        continue
                    body = without(make(), path, mode)
                    if body is None:
                        continue
                    tried.add((path, mode))
                    target = url(operation, path_values(operation, seeded))
                    label = f"{operation.label} {path} {mode}"
                    response = watch.send(label, client, operation.method, target, json=body)
                    if response is not None:
                        watch.check(label, response, field=path if required else None, required=required)
    watch.report("body fields null or absent, one at a time")


# ------------------------------------------------------------------------- every path parameter

#: Bad values of a path parameter, by class, as they go in the URL (percent-encoded where a client
#: would encode them; ``..`` encoded so that no client resolves it away).
PATH_CLASSES: dict[str, list[str]] = {
    "NUL": ["%00", "ab%00cd"],
    "dot-dot": ["%2E%2E", "..%2F..%2Fetc%2Fpasswd", "%2E%2E%2F%2E%2E%2Ffacturador.db"],
    "very long": ["a" * 5000, "%C3%91" * 1500],
    "not UTF-8": ["%FF", "ab%C3%28cd", "%ED%A0%80", "%C0%AF"],
}
#: Classes refused by the one check every path parameter goes through: 422 naming the parameter.
NAMED = {"NUL", "very long", "not UTF-8"}


@pytest.mark.parametrize("kind", list(PATH_CLASSES))
def test_every_path_parameter(
    live: LiveService, client: httpx.Client, document: dict[str, Any], seeded: Seeded, kind: str
) -> None:
    routes = [op for op in operations(document) if op.path_parameters]
    parameters = sum(len(op.path_parameters) for op in routes)
    assert parameters >= 40  # the derivation found the path parameters (42, of 23 routes, when written)
    watch = Watch(live)
    for operation in routes:
        for parameter in operation.path_parameters:
            name = parameter["name"]
            for value in PATH_CLASSES[kind]:
                values = {**path_values(operation, seeded), name: value}
                body = base_bodies(operation, seeded)[0]() if operation.body is not None else None
                label = f"{operation.label} {name}={value[:30]}"
                response = watch.send(label, client, operation.method, url(operation, values), json=body)
                if response is None:
                    continue
                if kind in NAMED and response.status_code != 422:
                    watch.problems.append(f"{label}: {response.status_code} (422 naming {name} expected)")
                if response.status_code == 200:
                    watch.problems.append(f"{label}: answered 200")
                watch.check(label, response, field=name if kind in NAMED else None, required=False)
    watch.report(f"path parameters, {kind}")


def gre_token(live: LiveService, shop: Shop) -> str:
    form = {
        "grant_type": "password",
        "scope": "https://api-cpe.sunat.gob.pe",
        "client_id": SIMULATOR_CLIENT_ID,
        "client_secret": SIMULATOR_CLIENT_SECRET,
        "username": f"{shop.ruc}MODDATOS",
        "password": "MODDATOS",
    }
    answer = httpx.post(
        f"{live.root}{GRE_MOUNT}/v1/clientessol/{SIMULATOR_CLIENT_ID}/oauth2/token/", data=form
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


def test_every_path_parameter_of_the_gre_api(live: LiveService, shop: Shop) -> None:
    """The GRE API simulator the service mounts answers in SUNAT's shapes; its path parameters go through
    the same check (a 4xx, never a 500, nothing changed)."""
    headers = {"Authorization": f"Bearer {gre_token(live, shop)}"}
    root = f"{live.root}{GRE_MOUNT}/v1"
    routes = [
        ("POST", f"{root}/clientessol/{{}}/oauth2/token/", {"data": {"grant_type": "password"}}),
        ("GET", f"{root}/contribuyente/gem/comprobantes/envios/{{}}", {}),
        ("POST", f"{root}/contribuyente/gem/comprobantes/{{}}", {"json": {"archivo": {}}}),
    ]
    answers: collections.Counter[int] = collections.Counter()
    before = footprint(live)
    with httpx.Client(headers=headers) as gre:
        for method, template, extra in routes:
            for kind, values in PATH_CLASSES.items():
                for value in values:
                    response = gre.request(method, template.format(value), **extra)
                    answers[response.status_code] += 1
                    assert 400 <= response.status_code < 500, (template, kind, value, response.text)
                    if kind in NAMED:
                        assert response.status_code in (400, 422), (template, value, response.text)
                        response.json()  # in SUNAT's JSON shape
    assert footprint(live) == before
    print(f"\nGRE API path parameters: {sum(answers.values())} requests, answered {dict(answers)}")


def test_a_path_longer_than_the_server_reads(live: LiveService) -> None:
    """A request line over the server's limit is refused by the HTTP layer, and the service goes on."""
    host, port = live.root.removeprefix("http://").split(":")
    target = "/downloads/document/xml/" + "a" * 100_000
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        answer = connection.recv(65536).decode(errors="replace")
    assert answer.startswith("HTTP/1.1 4"), answer[:200]
    assert httpx.get(f"{live.root}/health").status_code == 200
