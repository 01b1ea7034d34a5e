"""Bad input by class, many inputs each: text XML cannot carry, numbers out of range, deep nesting, sizes
and correlatives. Every one gets its 4xx with the error envelope naming the field, never a 500, and
changes nothing: the tenant's documents, summaries and series counters are the same after it.

The same suite runs on SQLite and on PostgreSQL (scripts/test.sh), where a NUL byte or an out-of-range
number used to reach SQL and fail there.
"""

from __future__ import annotations

import copy
import json
import socket
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from sqlalchemy import func, select

from facturador.domain.document_schema import DOCUMENT
from facturador.domain.fields import List, Number, Object, Text
from facturador.domain.tenants import add_series
from facturador.store.models import DISPATCHES, DOCUMENTS, SERIES, SUMMARIES, TENANTS
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.samples.bodies import credit_note_body, full_invoice, invoice_body
from tests.samples.dispatches import carrier_body, dispatch_body
from tests.served import serve
from tests.shops import Shop, new_shop

TODAY = peru_today()
#: Characters XML 1.0 cannot carry: NUL, other C0 controls, a lone surrogate of each kind, U+FFFE/U+FFFF.
UNSAFE = ["\x00", "\x01", "\x08", "\x0b", "\x1f", "\ud800", "\udfff", "\ufffe", "\uffff"]
EXHAUSTED_SERIES = "F998"


# ------------------------------------------------------------------------------------------------ set-up


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    shop = new_shop(live, "bad")
    with live.context.session() as session, session.begin():
        add_series(session, shop.slug, "01", EXHAUSTED_SERIES)
    return shop


@pytest.fixture(scope="module")
def client(live: LiveService, shop: Shop) -> Iterator[httpx.Client]:
    with live.client(shop.slug, shop.token) as client:
        yield client


def stored(live: LiveService, slug: str) -> tuple[int, int, int, tuple[tuple[str, int], ...]]:
    """What the tenant has: its documents, its summaries, its guides and each series' last number."""
    with live.context.engine.connect() as connection:
        tenant_id = connection.execute(select(TENANTS.c.id).where(TENANTS.c.slug == slug)).scalar_one()
        documents = connection.execute(
            select(func.count()).select_from(DOCUMENTS).where(DOCUMENTS.c.tenant_id == tenant_id)
        ).scalar_one()
        summaries = connection.execute(
            select(func.count()).select_from(SUMMARIES).where(SUMMARIES.c.tenant_id == tenant_id)
        ).scalar_one()
        guides = connection.execute(
            select(func.count()).select_from(DISPATCHES).where(DISPATCHES.c.tenant_id == tenant_id)
        ).scalar_one()
        series = connection.execute(
            select(SERIES.c.number, SERIES.c.last_number)
            .where(SERIES.c.tenant_id == tenant_id)
            .order_by(SERIES.c.id)
        ).all()
    return documents, summaries, guides, tuple((row.number, row.last_number) for row in series)


@pytest.fixture
def unchanged(live: LiveService, shop: Shop) -> Iterator[None]:
    """The test must leave the tenant's documents, summaries and numbering as they were."""
    before = stored(live, shop.slug)
    yield
    assert stored(live, shop.slug) == before


def post(client: httpx.Client, path: str, body: Any) -> httpx.Response:
    """POST ``body`` as JSON text with every non-ASCII character escaped (lone surrogates, NaN included)."""
    return client.post(path, content=json.dumps(body).encode(), headers={"Content-Type": "application/json"})


def refused(response: httpx.Response, status: int, field: str | None = None, code: str | None = None) -> dict:
    """The error envelope with ``status``, naming ``field`` among its errors."""
    assert response.status_code == status, response.text
    payload = response.json()
    assert set(payload) == {"success", "message", "error_code", "errors"}, payload
    assert payload["success"] is False and payload["message"] and payload["error_code"]
    if code is not None:
        assert payload["error_code"] == code, payload
    if field is not None:
        assert field in [error["field"] for error in payload["errors"]], payload
    return payload


# ------------------------------------------------------------------------------------------------ bodies


def note_with_fields() -> dict[str, Any]:
    """A credit note naming its affected document by type, series and number."""
    note = credit_note_body()
    note["documento_afectado"] = {
        "codigo_tipo_documento": "01",
        "serie_documento": "F001",
        "numero_documento": "1",
    }
    return note


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every (path, value) of the scalars in ``value``, paths as the service names them."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield from leaves(child, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from leaves(child, f"{path}.{index}")
    else:
        yield path, value


def at(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``body`` with ``value`` at ``path``; a block the body lacks (``anticipos.0``,
    ``percepcion``) is added holding only that field, so every declared field can be reached."""
    changed = copy.deepcopy(body)
    *parents, last = path.split(".")
    target: Any = changed
    for position, key in enumerate(parents):
        if isinstance(target, list):
            target = target[int(key)]
            continue
        if key not in target:
            following = parents[position + 1] if position + 1 < len(parents) else last
            target[key] = [{}] if following.isdigit() else {}
        target = target[key]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return changed


def declared(fields: Object, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every declared leaf field of ``fields`` with its path (lists at their first element)."""
    for key, field in fields.fields.items():
        path = f"{prefix}{key}"
        while isinstance(field, List):
            path, field = f"{path}.0", field.item
        if isinstance(field, Object):
            yield from declared(field, f"{path}.")
        else:
            yield path, field


INVOICE_TEXTS = sorted(path for path, value in leaves(full_invoice()) if isinstance(value, str))
NOTE_TEXTS = sorted(
    path
    for path, value in leaves(note_with_fields())
    if isinstance(value, str)
    and path.split(".")[0] in {"codigo_tipo_nota", "motivo_o_sustento_de_nota", "documento_afectado"}
)
NUMBERS = sorted(path for path, field in declared(DOCUMENT) if isinstance(field, Number))
TEXT_LIMITS = sorted(
    (path, field.max_length)
    for path, field in declared(DOCUMENT)
    if isinstance(field, Text) and field.max_length is not None and field.pattern is None
)


def test_the_full_invoice_is_valid(client: httpx.Client) -> None:
    """The baseline of the classes below: unchanged, it is issued (so each refusal is the mutation's)."""
    response = post(client, "/api/documents", full_invoice())
    assert response.status_code == 200, response.text
    assert {path for path, _ in declared(DOCUMENT)} >= set(NUMBERS)


# ------------------------------------------------------------------------------ text XML cannot carry


@pytest.mark.parametrize("char", UNSAFE, ids=[f"U+{ord(c):04X}" for c in UNSAFE])
@pytest.mark.parametrize("path", INVOICE_TEXTS)
def test_unsafe_character_in_any_invoice_text(
    client: httpx.Client, unchanged: None, path: str, char: str
) -> None:
    original = dict(leaves(full_invoice()))[path]
    body = at(full_invoice(), path, original[:2] + char + original[2:])
    payload = refused(post(client, "/api/documents", body), 422, path, "INVALID_CHARACTERS")
    assert f"U+{ord(char):04X}" in payload["message"]


@pytest.mark.parametrize("char", UNSAFE, ids=[f"U+{ord(c):04X}" for c in UNSAFE])
@pytest.mark.parametrize("path", NOTE_TEXTS)
def test_unsafe_character_in_note_fields(client: httpx.Client, unchanged: None, path: str, char: str) -> None:
    body = at(note_with_fields(), path, "x" + char)
    refused(post(client, "/api/documents", body), 422, path, "INVALID_CHARACTERS")


@pytest.mark.parametrize("char", UNSAFE, ids=[f"U+{ord(c):04X}" for c in UNSAFE])
@pytest.mark.parametrize(
    "path",
    ["items.0.cantidad", "totales.total_venta", "x_extra.nota", "x_extra.lista.0", "items.0.x_extra"],
)
def test_unsafe_character_in_numbers_and_unknown_keys(
    client: httpx.Client, unchanged: None, path: str, char: str
) -> None:
    body = at(full_invoice(), path, "1" + char)
    refused(post(client, "/api/documents", body), 422, path, "INVALID_CHARACTERS")


@pytest.mark.parametrize("char", UNSAFE, ids=[f"U+{ord(c):04X}" for c in UNSAFE])
def test_unsafe_character_in_a_key(client: httpx.Client, unchanged: None, char: str) -> None:
    body = full_invoice()
    body["items"][0][f"clave{char}"] = 1
    payload = refused(post(client, "/api/documents", body), 422, None, "INVALID_CHARACTERS")
    assert payload["errors"][0]["field"] == f"items.0.clave\\u{ord(char):04x}"


@pytest.mark.parametrize(
    "char", ["\ufffe", "\uffff", "\x01", "\x0c"], ids=["U+FFFE", "U+FFFF", "U+0001", "U+000C"]
)
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_unsafe_character_however_the_json_is_written(
    client: httpx.Client, unchanged: None, encoding: str, char: str
) -> None:
    """As UTF-8 bytes (U+FFFE, U+FFFF) or short escapes (\\f), and in JSON of any encoding."""
    body = full_invoice()
    body["items"][0]["descripcion"] = f"a{char}b"
    raw = json.dumps(body, ensure_ascii=False).encode(encoding)
    response = client.post("/api/documents", content=raw, headers={"Content-Type": "application/json"})
    refused(response, 422, "items.0.descripcion", "INVALID_CHARACTERS")


def other_bodies(value: str) -> list[tuple[str, dict[str, Any], str]]:
    """(path, body, field) of every other endpoint with ``value`` in one of its texts."""
    today = TODAY.isoformat()
    ext = "00000000-0000-4000-8000-000000000000"
    return [
        ("/api/documents/send", {"external_id": value}, "external_id"),
        (
            "/api/documents/updatedocumentstatus",
            {"externail_id": value, "state_type_id": "05"},
            "externail_id",
        ),
        (
            "/api/documents/updatedocumentstatus",
            {"external_id": ext, "state_type_id": value},
            "state_type_id",
        ),
        (
            "/api/summaries",
            {
                "fecha_de_emision_de_documentos": today,
                "codigo_tipo_proceso": "3",
                "documentos": [{"external_id": value}],
            },
            "documentos.0.external_id",
        ),
        (
            "/api/summaries",
            {
                "fecha_de_emision_de_documentos": today,
                "codigo_tipo_proceso": "3",
                "documentos": [{"external_id": ext, "motivo_anulacion": value}],
            },
            "documentos.0.motivo_anulacion",
        ),
        (
            "/api/summaries",
            {"fecha_de_emision_de_documentos": value, "codigo_tipo_proceso": "1"},
            "fecha_de_emision_de_documentos",
        ),
        ("/api/summaries/status", {"external_id": value}, "external_id"),
        ("/api/summaries/status", {"ticket": value}, "ticket"),
        (
            "/api/voided",
            {
                "fecha_de_emision_de_documentos": today,
                "documentos": [{"external_id": value, "motivo_anulacion": "Error"}],
            },
            "documentos.0.external_id",
        ),
        (
            "/api/voided",
            {
                "fecha_de_emision_de_documentos": today,
                "documentos": [{"external_id": ext, "motivo_anulacion": value}],
            },
            "documentos.0.motivo_anulacion",
        ),
        ("/api/voided/status", {"external_id": value}, "external_id"),
        ("/api/voided/status", {"ticket": value}, "ticket"),
    ]


@pytest.mark.parametrize("char", UNSAFE, ids=[f"U+{ord(c):04X}" for c in UNSAFE])
@pytest.mark.parametrize("case", range(len(other_bodies(""))))
def test_unsafe_character_in_other_endpoints(
    client: httpx.Client, unchanged: None, case: int, char: str
) -> None:
    path, body, field = other_bodies("ab" + char)[case]
    refused(post(client, path, body), 422, field, "INVALID_CHARACTERS")


#: Characters a URL can carry (a lone surrogate cannot be percent-encoded as UTF-8).
URL_UNSAFE = [c for c in UNSAFE if not 0xD800 <= ord(c) <= 0xDFFF]


#: (path with {} for the bad text, status, field named): every path parameter goes through one check before
#: its route reads it (test_bad_input_routes.py tries every one of every route).
PATHS = [
    ("/downloads/document/xml/{}", 422, "external_id"),
    ("/downloads/document/cdr/{}", 422, "external_id"),
    ("/downloads/document/pdf/{}", 422, "external_id"),
    ("/downloads/document/pdf/{}/a4", 422, "external_id"),
    ("/downloads/document/pdf/00000000-0000-4000-8000-000000000000/{}", 422, "fmt"),
    ("/downloads/document/{}/00000000-0000-4000-8000-000000000000", 422, "kind"),
    ("/downloads/summary/xml/{}", 422, "external_id"),
    ("/downloads/voided/cdr/{}", 422, "external_id"),
    ("/downloads/dispatch/xml/{}", 422, "external_id"),
    ("/api/documents/lists/{}/2026-01-01", 422, "start"),
    ("/api/summaries/lists/2026-01-01/{}", 422, "end"),
    ("/api/voided/lists/{}/2026-01-01", 422, "start"),
]


@pytest.mark.parametrize("char", URL_UNSAFE, ids=[f"U+{ord(c):04X}" for c in URL_UNSAFE])
@pytest.mark.parametrize(("template", "status", "field"), PATHS)
def test_unsafe_character_in_a_path(
    client: httpx.Client, unchanged: None, template: str, status: int, field: str | None, char: str
) -> None:
    refused(client.get(template.replace("{}", quote(f"ab{char}cd", safe=""))), status, field)


# ------------------------------------------------------------------------------ numbers out of range

OUT_OF_RANGE: list[Any] = [
    1e26,
    1e308,
    -1e308,
    float("nan"),
    float("inf"),
    float("-inf"),
    10**12,
    10**13,
    10**30,
    -(10**30),
    "1" * 1000,
    "0." + "0" * 998 + "1",
    "NaN",
    "Infinity",
    "-Infinity",
    "1e5",
    "1,5",
    "0x10",
    " 5",
    "",
    True,
    [1],
    {"valor": 1},
    -1,
]


@pytest.mark.parametrize("value", OUT_OF_RANGE, ids=[repr(v)[:24] for v in OUT_OF_RANGE])
@pytest.mark.parametrize("path", NUMBERS)
def test_number_out_of_range(client: httpx.Client, unchanged: None, path: str, value: Any) -> None:
    body = at(full_invoice(), path, value)
    refused(post(client, "/api/documents", body), 422, path)


@pytest.mark.parametrize("path", NUMBERS)
def test_number_that_rounds_past_its_digits(client: httpx.Client, unchanged: None, path: str) -> None:
    """999...9.99..95 rounds half up to one more integer digit than the field takes."""
    field = dict(declared(DOCUMENT))[path]
    value = "9" * field.integer_digits + "." + "9" * field.decimals + "5"
    refused(post(client, "/api/documents", at(full_invoice(), path, value)), 422, path)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("factor_tipo_de_cambio", 0),
        ("factor_tipo_de_cambio", "0.0000001"),  # rounds to 0 at 6 decimals
        ("factor_tipo_de_cambio", 1_000_000),  # 7 integer digits: the column holds 6
        ("items.0.cantidad", 0),
        ("items.0.cantidad", "0.00000000001"),  # rounds to 0 at 10 decimals
        ("items.0.porcentaje_igv", 1000),
        ("detraccion.porcentaje", 100.5),
        ("detraccion.monto", 0),
        ("cuotas.0.monto", 0),
    ],
)
def test_bounds_of_particular_numbers(client: httpx.Client, unchanged: None, path: str, value: Any) -> None:
    refused(post(client, "/api/documents", at(full_invoice(), path, value)), 422, path)


def test_largest_amounts_do_not_break_the_arithmetic(client: httpx.Client, unchanged: None) -> None:
    """Every amount at its largest (12 integer digits, 10 decimals for unit values) is a clear 422 about
    the totals, never an arithmetic error."""
    body = full_invoice()
    top, unit = "999999999999.99", "999999999999.9999999999"
    item = body["items"][0]
    item.update(cantidad="0.0000000001", valor_unitario=unit, precio_unitario=unit, total_valor_item=top)
    item.update(total_base_igv=top, total_igv=top, total_impuestos=top, total_item=top)
    body["totales"].update({key: top for key in body["totales"]})
    body["items"] = [copy.deepcopy(item) for _ in range(999)]
    refused(post(client, "/api/documents", body), 422)


def test_numbers_as_text_and_rounding_are_accepted(client: httpx.Client) -> None:
    """Numbers given as text and with more decimals than SUNAT carries are rounded half up, as SUNAT's
    amounts are (the factura is issued with 2-decimal amounts)."""
    body = invoice_body()
    body["items"][0].update(valor_unitario="50.00000000004", total_igv="18.004", total_item=118.0000001)
    body["totales"].update(total_venta="118.00", total_igv=18.0049)
    response = post(client, "/api/documents", body)
    assert response.status_code == 200, response.text


# ------------------------------------------------------------------------------ nesting


def nested(depth: int, kind: str) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value}
    return value


def deep_json(depth: int, kind: str) -> bytes:
    """``depth`` levels written directly (json.dumps itself would recurse)."""
    if kind == "list":
        return b"[" * depth + b"1" + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


DEPTHS = [33, 100, 999, 5_000, 100_000]
ENDPOINTS = [
    "/api/documents",
    "/api/documents/send",
    "/api/documents/updatedocumentstatus",
    "/api/summaries",
    "/api/summaries/status",
    "/api/voided",
    "/api/voided/status",
]


@pytest.mark.parametrize("kind", ["list", "object"])
@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_deep_nesting_is_a_400(
    client: httpx.Client, unchanged: None, endpoint: str, depth: int, kind: str
) -> None:
    response = client.post(
        endpoint, content=deep_json(depth, kind), headers={"Content-Type": "application/json"}
    )
    refused(response, 400, None, "BODY_TOO_DEEP")


@pytest.mark.parametrize("kind", ["list", "object"])
@pytest.mark.parametrize("depth", [31, 40, 2_000])
def test_deep_nesting_inside_a_document(client: httpx.Client, unchanged: None, depth: int, kind: str) -> None:
    """Nesting counts from the body: an unknown key of an item starts at level 3."""
    body = full_invoice()
    body["items"][0]["x_extra"] = "PLACEHOLDER"
    raw = json.dumps(body).encode().replace(b'"PLACEHOLDER"', deep_json(depth, kind))
    response = client.post("/api/documents", content=raw, headers={"Content-Type": "application/json"})
    refused(response, 400, None, "BODY_TOO_DEEP")


# ------------------------------------------------------------------------------ sizes


def test_body_over_the_limit_is_413(live: LiveService, client: httpx.Client, unchanged: None) -> None:
    limit = live.settings.max_body_bytes
    body = full_invoice()
    body["x_extra"] = "a" * limit
    payload = refused(post(client, "/api/documents", body), 413, None, "BODY_TOO_LARGE")
    assert str(limit) in payload["message"]


def test_chunked_body_over_the_limit_is_413(live: LiveService, client: httpx.Client, unchanged: None) -> None:
    """Without Content-Length the limit holds while the body arrives."""
    limit = live.settings.max_body_bytes

    def chunks() -> Iterator[bytes]:
        yield b'{"x_extra": "'
        for _ in range(limit // 65536 + 2):
            yield b"a" * 65536
        yield b'"}'

    response = client.post("/api/documents", content=chunks(), headers={"Content-Type": "application/json"})
    refused(response, 413, None, "BODY_TOO_LARGE")


def test_content_length_over_the_limit_is_refused_before_the_body(live: LiveService, shop: Shop) -> None:
    """A client that announces too many bytes gets 413 at once (nothing is read)."""
    host, port = live.root.removeprefix("http://").split(":")
    head = [
        f"POST /t/{shop.slug}/api/documents HTTP/1.1",
        f"Host: {host}",
        f"Authorization: Bearer {shop.token}",
        "Content-Type: application/json",
        f"Content-Length: {live.settings.max_body_bytes + 1}",
    ]
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(("\r\n".join(head) + "\r\n\r\n{").encode())
        answer = connection.recv(65536).decode()
    assert answer.startswith("HTTP/1.1 413 "), answer
    assert '"error_code":"BODY_TOO_LARGE"' in answer


def test_a_client_that_leaves_mid_body_is_one_line_of_log(
    live: LiveService, shop: Shop, tmp_path: Path
) -> None:
    """An upload the client aborts is normal: one line in the server's log (no traceback, no "unexpected
    error"), nothing stored, and the service goes on (a real ``facturador serve`` on the same store)."""
    before = stored(live, shop.slug)
    with serve(live.settings, tmp_path / "serve.log", "--send-pending-every", "0") as served:
        host, port = served.root.removeprefix("http://").split(":")
        body = json.dumps(full_invoice()).encode()
        for _ in range(3):
            head = [
                f"POST /t/{shop.slug}/api/documents HTTP/1.1",
                f"Host: {host}:{port}",
                f"Authorization: Bearer {shop.token}",
                "Content-Type: application/json",
                f"Content-Length: {len(body)}",
            ]
            with socket.create_connection((host, int(port)), timeout=10) as connection:
                connection.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body[: len(body) // 2])
                time.sleep(0.2)  # the server is reading the body when the client goes
        deadline = time.monotonic() + 20
        while served.output().count("left before") < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert stored(live, shop.slug) == before
        with served.client(shop.slug, shop.token) as client:
            assert post(client, "/api/documents", invoice_body()).status_code == 200
    output = served.output()
    assert "Traceback" not in output and "unexpected error" not in output, output[-3000:]
    lines = [line for line in output.splitlines() if "left before" in line]
    assert len(lines) == 3, output[-3000:]
    assert f"POST /t/{shop.slug}/api/documents" in lines[0]


def body_with(path: str) -> dict[str, Any]:
    """The body where ``path`` belongs: the note for the note's fields, else the full factura."""
    return (
        note_with_fields() if path.startswith(("documento_afectado", "motivo_o_sustento")) else full_invoice()
    )


@pytest.mark.parametrize(("path", "limit"), TEXT_LIMITS)
def test_text_over_its_length(client: httpx.Client, unchanged: None, path: str, limit: int) -> None:
    payload = refused(post(client, "/api/documents", at(body_with(path), path, "x" * (limit + 1))), 422, path)
    assert f"no debe superar {limit} caracteres" in json.dumps(payload, ensure_ascii=False)


def test_every_text_at_its_length_is_issued(live: LiveService, client: httpx.Client, shop: Shop) -> None:
    """SUNAT's maxima are accepted: each declared free text of the factura at its maximum length."""
    body = full_invoice()
    present = dict(leaves(body))
    for path, limit in TEXT_LIMITS:
        if path in present and path not in (
            "serie_documento",
            "datos_del_cliente_o_receptor.numero_documento",
        ):
            body = at(body, path, "Ñ" * limit)
    documents = stored(live, shop.slug)[0]
    response = post(client, "/api/documents", body)
    assert response.status_code == 200, response.text
    assert stored(live, shop.slug)[0] == documents + 1


@pytest.mark.parametrize(
    ("path", "count"),
    [("items", 1000), ("cuotas", 1000), ("leyendas", 15)],
)
def test_too_many_elements(client: httpx.Client, unchanged: None, path: str, count: int) -> None:
    body = full_invoice()
    body[path] = [copy.deepcopy(body[path][0]) for _ in range(count)]
    refused(post(client, "/api/documents", body), 422, path)


@pytest.mark.parametrize("endpoint", ["/api/summaries", "/api/voided"])
def test_too_many_documents_to_void(client: httpx.Client, unchanged: None, endpoint: str) -> None:
    entries = [
        {"external_id": f"00000000-0000-4000-8000-{i:012d}", "motivo_anulacion": "Error"} for i in range(501)
    ]
    body = {
        "fecha_de_emision_de_documentos": TODAY.isoformat(),
        "codigo_tipo_proceso": "3",
        "documentos": entries,
    }
    refused(post(client, endpoint, body), 422, "documentos")


def test_unknown_keys_are_kept(live: LiveService, client: httpx.Client) -> None:
    body = full_invoice()
    response = post(client, "/api/documents", body)
    assert response.status_code == 200, response.text
    external_id = response.json()["data"]["external_id"]
    with live.context.engine.connect() as connection:
        data = connection.execute(
            select(DOCUMENTS.c.data_json).where(DOCUMENTS.c.external_id == external_id)
        ).scalar_one()
    assert data["x_extra"] == body["x_extra"]


# ------------------------------------------------------------------------------ correlatives


@pytest.mark.parametrize(
    "number", ["100000000", 100000000, "999999999999", "0", "00000000", "-1", "1.5", "1e3"]
)
def test_explicit_number_out_of_range(client: httpx.Client, unchanged: None, number: Any) -> None:
    refused(post(client, "/api/documents", invoice_body(numero_documento=number)), 422, "numero_documento")


def test_a_series_ends_at_99999999(live: LiveService, client: httpx.Client, shop: Shop) -> None:
    last = post(
        client, "/api/documents", invoice_body(serie_documento=EXHAUSTED_SERIES, numero_documento="99999999")
    )
    assert last.status_code == 200, last.text
    assert last.json()["data"]["number"] == f"{EXHAUSTED_SERIES}-99999999"
    before = stored(live, shop.slug)
    for _ in range(2):
        payload = refused(
            post(client, "/api/documents", invoice_body(serie_documento=EXHAUSTED_SERIES)),
            422,
            "serie_documento",
            "SERIES_EXHAUSTED",
        )
        assert "99999999" in payload["message"] and "serie nueva" in payload["message"]
    assert stored(live, shop.slug) == before
    assert post(client, "/api/documents", invoice_body()).status_code == 200  # other series go on


def test_amounts_are_stored_alike_on_every_database(live: LiveService, client: httpx.Client) -> None:
    """The largest exchange rate and a rounded one come back as sent (rounded to 6 decimals) on SQLite and
    PostgreSQL alike."""
    response = post(client, "/api/documents", invoice_body(factor_tipo_de_cambio="999999.9999994"))
    assert response.status_code == 200, response.text
    external_id = response.json()["data"]["external_id"]
    with live.context.engine.connect() as connection:
        rate = connection.execute(
            select(DOCUMENTS.c.exchange_rate_sale).where(DOCUMENTS.c.external_id == external_id)
        ).scalar_one()
    assert Decimal(rate) == Decimal("999999.999999")


# ----------------------------------------------------------------------------------------------------
# What real clients send (docs/scenarios.md): the leniencies keep refusing what is not a boolean, a time
# or a date, with a 422 naming the field and nothing stored.

NOT_BOOLEANS = ["maybe", "yes", "si", "2", " true", "verdadero", 2, -1, 0.5, [], {}]


@pytest.mark.parametrize("value", NOT_BOOLEANS, ids=[repr(v) for v in NOT_BOOLEANS])
@pytest.mark.parametrize("path", ["acciones.enviar_xml_firmado", "pago_anticipado"])
def test_a_text_that_is_no_boolean(client: httpx.Client, unchanged: None, path: str, value: Any) -> None:
    refused(post(client, "/api/documents", at(full_invoice(), path, value)), 422, path)


NOT_TIMES = ["24:00:00", "7:60:00", "7:59:60", "123:00:00", "7", "7:5", "7:59:48 PM", "07.59.48", "", 75948]


@pytest.mark.parametrize("value", NOT_TIMES, ids=[repr(v) for v in NOT_TIMES])
def test_a_time_that_is_no_time(client: httpx.Client, unchanged: None, value: Any) -> None:
    body = at(full_invoice(), "hora_de_emision", value)
    refused(post(client, "/api/documents", body), 422, "hora_de_emision")


NOT_DATES = ["2026-02-30 10:00:00", "2026-05-14 25:00:00", "2026-05-14 10:00:00 PM", "2026-05-14X10:00:00"]


@pytest.mark.parametrize("value", NOT_DATES)
def test_a_date_and_time_that_is_no_date(client: httpx.Client, unchanged: None, value: str) -> None:
    body = at(full_invoice(), "fecha_de_vencimiento", value)
    refused(post(client, "/api/documents", body), 422, "fecha_de_vencimiento")


@pytest.mark.parametrize(
    ("sent", "sends"), [("True", True), ("FALSE", False), ("1", True), ("0", False), ("", False)]
)
def test_php_booleans_are_read(live: LiveService, client: httpx.Client, sent: str, sends: bool) -> None:
    body = at(full_invoice(), "acciones.enviar_xml_firmado", sent)
    response = post(client, "/api/documents", body)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["state_type_id"] == ("05" if sends else "01")


def test_an_hour_without_its_leading_zero_is_stored_with_it(client: httpx.Client) -> None:
    response = post(client, "/api/documents", at(full_invoice(), "hora_de_emision", "7:59:48"))
    assert response.status_code == 200, response.text
    xml = httpx.get(response.json()["links"]["xml"]).text
    assert "<cbc:IssueTime>07:59:48</cbc:IssueTime>" in xml


# Zero-amount placeholders are left out only when they say nothing: a row with an amount, a value or a
# malformed zero is read as any row, and its code must be its catalog's.
NOT_PLACEHOLDERS = [
    ("descuentos", {"codigo": "", "monto": "0.00x"}, "descuentos.0.monto"),
    ("descuentos", {"codigo": "", "monto": "-0"}, "descuentos.0.codigo"),
    ("descuentos", {"codigo": "99", "monto": 0.01}, "descuentos.0.codigo"),
    ("descuentos", {"codigo": "", "monto": 0, "descripcion": "x" * 101}, "descuentos.0.descripcion"),
    ("descuentos", {"codigo": "", "monto": 0, "factor": "abc"}, "descuentos.0.factor"),
    ("descuentos", "00", "descuentos.0"),
    ("cargos", {"codigo": "", "monto": True}, "cargos.0.monto"),
    (
        "items.0.datos_adicionales",
        {"codigo": "", "descripcion": "", "valor": " "},
        "items.0.datos_adicionales.0.codigo",
    ),
    (
        "items.0.datos_adicionales",
        {"codigo": "9999", "valor": "", "duracion": 3},  # a code outside catalog 55 is SUNAT's to take
        "items.0.datos_adicionales.0.descripcion",
    ),
    ("items.0.datos_adicionales", [], "items.0.datos_adicionales.0"),
]


@pytest.mark.parametrize(
    ("path", "row", "field"),
    NOT_PLACEHOLDERS,
    ids=[case[2] + repr(case[1])[:20] for case in NOT_PLACEHOLDERS],
)
def test_a_row_that_says_something_is_no_placeholder(
    client: httpx.Client, unchanged: None, path: str, row: Any, field: str
) -> None:
    refused(post(client, "/api/documents", at(full_invoice(), path, [row])), 422, field)


def test_placeholders_are_kept_in_the_stored_body(live: LiveService, client: httpx.Client) -> None:
    body = at(full_invoice(), "descuentos", [{"codigo": "", "monto": 0}])
    response = post(client, "/api/documents", body)
    assert response.status_code == 200, response.text
    external_id = response.json()["data"]["external_id"]
    with live.context.engine.connect() as connection:
        data = connection.execute(
            select(DOCUMENTS.c.data_json).where(DOCUMENTS.c.external_id == external_id)
        ).scalar_one()
    assert data["descuentos"] == [{"codigo": "", "monto": 0}]
    assert "AllowanceCharge" not in httpx.get(response.json()["links"]["xml"]).text


# Guides: what old clients and the manual send is taken; what is still no date, no place, no product or no
# payer is a 422 naming it, and no guide is stored (nor its series registered).
NOT_GUIDE_DATES = ["31-02-2026", "14/05/2026", "14-5-2026", "2026-14-05", "14-05-26", 14052026]
BAD_GUIDES: list[tuple[str, str, dict[str, Any] | Any, str]] = [
    *(
        ("/api/dispatches", "dmy", {"fecha_de_traslado": value}, "fecha_de_traslado")
        for value in NOT_GUIDE_DATES
    ),
    (
        "/api/dispatches",
        "unknown product",
        {"items": [{"codigo_interno": "NO-EXISTE", "cantidad": 1}]},
        "items.0.descripcion",
    ),
    ("/api/dispatches", "no code no description", {"items": [{"cantidad": 1}]}, "items.0.descripcion"),
    (
        "/api/dispatches",
        "plate too long",
        {"vehiculo": None, "numero_de_placa": "ABCDEFGHI"},
        "numero_de_placa",
    ),
    (
        "/api/dispatches",
        "plate not text",
        {"vehiculo": None, "numero_de_placa": ["ABC123"]},
        "numero_de_placa",
    ),
    (
        "/api/dispatches",
        "bare secondary driver",
        {"chofer_secundario": [{"codigo_tipo_documento_identidad": "1", "numero_documento": "1"}]},
        "chofer_secundario.0.nombres",
    ),
    (
        "/api/dispatch-carrier",
        "places not objects",
        {"direcciones_proveedores": {"remitente": "Lima", "destinatario": []}},
        "direcciones_proveedores.remitente",
    ),
    (
        "/api/dispatch-carrier",
        "provider place without address",
        {"direcciones_proveedores": {"remitente": {"ubigeo": "150101"}}},
        "direcciones_proveedores.remitente.direccion",
    ),
    (
        "/api/dispatch-carrier",
        "payer type",
        {
            "pagador_flete": {
                "indicador_pagador_flete": "Tercero",
                "codigo_tipo_documento_identidad": "Z",
                "numero": "20131312955",
                "nombres": "X",
            }
        },
        "pagador_flete.codigo_tipo_documento_identidad",
    ),
    (
        "/api/dispatch-carrier",
        "payer number with a space",
        {
            "pagador_flete": {
                "indicador_pagador_flete": "Tercero",
                "codigo_tipo_documento_identidad": "4",
                "numero": "AB 12",
                "nombres": "X",
            }
        },
        "pagador_flete.numero",
    ),
    (
        "/api/dispatch-carrier",
        "payer without name",
        {
            "pagador_flete": {
                "indicador_pagador_flete": "Subcontratador",
                "codigo_tipo_documento_identidad": "6",
                "numero": "20131312955",
            }
        },
        "pagador_flete.nombres",
    ),
]


@pytest.mark.parametrize(
    ("endpoint", "label", "changes", "field"),
    BAD_GUIDES,
    ids=[f"{case[1]}-{case[3]}-{i}" for i, case in enumerate(BAD_GUIDES)],
)
def test_a_guide_that_is_still_wrong(
    client: httpx.Client, unchanged: None, endpoint: str, label: str, changes: dict[str, Any], field: str
) -> None:
    base = dispatch_body("02") if endpoint == "/api/dispatches" else carrier_body()
    for key, value in changes.items():
        if value is None:
            base.pop(key, None)
        else:
            base[key] = value
    if endpoint == "/api/dispatch-carrier" and "direcciones_proveedores" in changes:
        base.pop("direccion_partida")
        base.pop("direccion_llegada")
    refused(post(client, endpoint, base), 422, field)
