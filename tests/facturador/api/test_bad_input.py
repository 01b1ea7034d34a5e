"""Bad input gets a clear 4xx envelope and changes nothing: no document stored, no number consumed."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.samples.bodies import boleta_body, credit_note_body, invoice_body


def latest_ids(client: httpx.Client) -> list[str]:
    return [row["external_id"] for row in client.get("/api/documents/lists").json()["data"]]


def next_number(client: httpx.Client, series: str = "F001") -> int:
    """Issue one valid factura on ``series`` and return its correlative."""
    response = client.post("/api/documents", json=invoice_body(serie_documento=series))
    assert response.status_code == 200, response.text
    return int(response.json()["data"]["number"].split("-")[1])


def assert_error(
    response: httpx.Response, status: int, code: str | None = None, field: str | None = None
) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["success"] is False
    assert isinstance(body["message"], str) and body["message"]
    if code is not None:
        assert body["error_code"] == code
    if field is not None:
        assert field in [e["field"] for e in body["errors"]], body["errors"]
    return body


def mutate(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    body = invoice_body()
    change(body)
    return body


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(body: dict[str, Any]) -> None:
        target = body
        keys = path.split(".")
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]
        target[keys[-1]] = value

    return change


def _delete(path: str) -> Callable[[dict[str, Any]], None]:
    def change(body: dict[str, Any]) -> None:
        target = body
        keys = path.split(".")
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]
        del target[keys[-1]]

    return change


BAD_BODIES: dict[str, tuple[Callable[[dict[str, Any]], None], int, str, str | None]] = {
    "missing series": (_delete("serie_documento"), 422, "MISSING_FIELDS", "serie_documento"),
    "missing items": (_delete("items"), 422, "MISSING_FIELDS", "items"),
    "missing totals": (_delete("totales"), 422, "MISSING_FIELDS", "totales"),
    "missing customer name": (
        _delete("datos_del_cliente_o_receptor.apellidos_y_nombres_o_razon_social"),
        422,
        "MISSING_FIELDS",
        "datos_del_cliente_o_receptor.apellidos_y_nombres_o_razon_social",
    ),
    "customer name SUNAT rejects (2022)": (
        _set("datos_del_cliente_o_receptor.apellidos_y_nombres_o_razon_social", "AB"),
        422,
        "INVALID_CUSTOMER",
        "datos_del_cliente_o_receptor.apellidos_y_nombres_o_razon_social",
    ),
    "missing line quantity": (_delete("items.0.cantidad"), 422, "MISSING_FIELDS", "items.0.cantidad"),
    "quantity not a number": (_set("items.0.cantidad", "dos"), 422, "INVALID_FIELDS", "items.0.cantidad"),
    "quantity boolean": (_set("items.0.cantidad", True), 422, "INVALID_FIELDS", "items.0.cantidad"),
    "items not a list": (_set("items", {"a": 1}), 422, "INVALID_FIELDS", "items"),
    "empty items": (_set("items", []), 422, None, "items"),
    "customer not an object": (
        _set("datos_del_cliente_o_receptor", "x"),
        422,
        "INVALID_FIELDS",
        "datos_del_cliente_o_receptor",
    ),
    "bad date": (_set("fecha_de_emision", "17/09/2019"), 422, "INVALID_FIELDS", "fecha_de_emision"),
    "impossible date": (_set("fecha_de_emision", "2026-02-30"), 422, "INVALID_FIELDS", "fecha_de_emision"),
    "bad time": (_set("hora_de_emision", "25:99"), 422, "INVALID_FIELDS", "hora_de_emision"),
    "document type not in catalog": (
        _set("codigo_tipo_documento", "99"),
        422,
        "INVALID_FIELDS",
        "codigo_tipo_documento",
    ),
    "operation type not in catalog": (
        _set("codigo_tipo_operacion", "9999"),
        422,
        "INVALID_FIELDS",
        "codigo_tipo_operacion",
    ),
    "currency not in catalog": (
        _set("codigo_tipo_moneda", "XXX"),
        422,
        "INVALID_FIELDS",
        "codigo_tipo_moneda",
    ),
    "unit not in catalog": (
        _set("items.0.unidad_de_medida", "BOTELLA"),
        422,
        "INVALID_FIELDS",
        "items.0.unidad_de_medida",
    ),
    "affectation not in catalog": (
        _set("items.0.codigo_tipo_afectacion_igv", "99"),
        422,
        "INVALID_FIELDS",
        "items.0.codigo_tipo_afectacion_igv",
    ),
    "identity type not in catalog": (
        _set("datos_del_cliente_o_receptor.codigo_tipo_documento_identidad", "9"),
        422,
        "INVALID_FIELDS",
        "datos_del_cliente_o_receptor.codigo_tipo_documento_identidad",
    ),
    "series not registered": (_set("serie_documento", "F777"), 422, "INVALID_SERIES", "serie_documento"),
    "series of another type": (_set("serie_documento", "B001"), 422, "INVALID_SERIES", "serie_documento"),
    "factura 0101 to a DNI": (
        lambda b: b["datos_del_cliente_o_receptor"].update(
            codigo_tipo_documento_identidad="1", numero_documento="46027862"
        ),
        422,
        "INVALID_CUSTOMER",
        "datos_del_cliente_o_receptor.codigo_tipo_documento_identidad",
    ),
    "ubigeo of 5 digits": (
        _set("datos_del_cliente_o_receptor.ubigeo", "15010"),
        422,
        "INVALID_FIELDS",
        "datos_del_cliente_o_receptor.ubigeo",
    ),
    "unknown ubigeo": (
        _set("datos_del_cliente_o_receptor.ubigeo", "999999"),
        422,
        "INVALID_FIELDS",
        "datos_del_cliente_o_receptor.ubigeo",
    ),
    "issue date too old": (
        _set("fecha_de_emision", (peru_today() - dt.timedelta(days=10)).isoformat()),
        422,
        "ISSUE_DATE_OUT_OF_RANGE",
        "fecha_de_emision",
    ),
    "issue date in the future": (
        _set("fecha_de_emision", (peru_today() + dt.timedelta(days=9)).isoformat()),
        422,
        "ISSUE_DATE_OUT_OF_RANGE",
        "fecha_de_emision",
    ),
    "wrong line igv": (_set("items.0.total_igv", 25), 422, "TOTALS_MISMATCH", "items.0.total_igv"),
    "wrong line value": (_set("items.0.total_valor_item", 150), 422, "TOTALS_MISMATCH", None),
    "wrong total": (_set("totales.total_venta", 130), 422, "TOTALS_MISMATCH", "totales.total_venta"),
    "wrong igv percent": (_set("items.0.porcentaje_igv", 19), 422, "TOTALS_MISMATCH", None),
    "detraction on a non-detraction operation": (
        _set("detraccion", {"codigo_tipo_detraccion": "037", "porcentaje": 12}),
        422,
        "MISSING_FIELDS",
        "detraccion",
    ),
    "credit without instalments": (
        _set("codigo_condicion_de_pago", "02"),
        422,
        "MISSING_FIELDS",
        "cuotas",
    ),
    "line discount 00 left in the line value (SUNAT 3271)": (
        _set("items.0.descuentos", [{"codigo": "00", "monto": 10, "base": 100}]),
        422,
        "TOTALS_MISMATCH",
        "items.0.total_valor_item",
    ),
    "global discount code at line level": (
        _set("items.0.descuentos", [{"codigo": "02", "monto": 1}]),
        422,
        None,
        "items.0.descuentos.0.codigo",
    ),
    "free line with price type 01": (
        _set("items.0.codigo_tipo_afectacion_igv", "16"),
        422,
        None,
        "items.0.codigo_tipo_precio",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_BODIES))
def test_bad_body_is_refused_and_changes_nothing(acme: httpx.Client, name: str) -> None:
    change, status, code, field = BAD_BODIES[name]
    before = latest_ids(acme)
    assert_error(acme.post("/api/documents", json=mutate(change)), status, code, field)
    assert latest_ids(acme) == before


def test_refused_requests_consume_no_number(acme: httpx.Client) -> None:
    first = next_number(acme, "F002")
    for name in (
        "wrong total",
        "missing items",
        "unknown ubigeo",
        "detraction on a non-detraction operation",
    ):
        body = mutate(BAD_BODIES[name][0])
        body["serie_documento"] = "F002"
        assert acme.post("/api/documents", json=body).status_code == 422
    assert next_number(acme, "F002") == first + 1


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"{not json", "INVALID_JSON"),
        (b"", "EMPTY_BODY"),
        (b"[1, 2]", "BODY_IS_LIST"),
        (b'"text"', "BODY_NOT_OBJECT"),
    ],
)
def test_malformed_json(acme: httpx.Client, raw: bytes, code: str) -> None:
    before = latest_ids(acme)
    response = acme.post("/api/documents", content=raw, headers={"Content-Type": "application/json"})
    assert_error(response, 400, code)
    assert latest_ids(acme) == before


def test_series_message_is_the_real_one(acme: httpx.Client) -> None:
    body = assert_error(
        acme.post("/api/documents", json=invoice_body(serie_documento="F777")), 422, "INVALID_SERIES"
    )
    assert body["message"] == "La serie ingresada F777, es incorrecta."


def test_duplicate_number_is_a_conflict(acme: httpx.Client) -> None:
    number = next_number(acme)
    before = latest_ids(acme)
    body = assert_error(
        acme.post("/api/documents", json=invoice_body(numero_documento=str(number))),
        409,
        "DUPLICATE_DOCUMENT",
    )
    assert body["message"] == f"El documento: 01 F001-{number} ya se encuentra registrado."
    assert latest_ids(acme) == before


def test_note_with_unknown_affected_external_id(acme: httpx.Client) -> None:
    before = latest_ids(acme)
    body = credit_note_body()  # references an invoice this service never issued
    response = acme.post("/api/documents", json=body)
    err = assert_error(response, 422, "AFFECTED_DOCUMENT_NOT_FOUND", "documento_afectado.external_id")
    assert body["documento_afectado"]["external_id"] in err["message"]
    assert latest_ids(acme) == before


def test_note_of_other_tenants_document_is_not_found(acme: httpx.Client, other: httpx.Client) -> None:
    theirs = other.post("/api/documents", json=invoice_body()).json()["data"]["external_id"]
    body = credit_note_body(theirs)
    assert_error(acme.post("/api/documents", json=body), 422, "AFFECTED_DOCUMENT_NOT_FOUND")


def test_boleta_over_700_needs_identified_customer(acme: httpx.Client) -> None:
    body = boleta_body()
    body["datos_del_cliente_o_receptor"].update(codigo_tipo_documento_identidad="0", numero_documento="-")
    item = body["items"][0]
    item.update(
        cantidad=20,
        total_base_igv=1000,
        total_igv=180,
        total_impuestos=180,
        total_valor_item=1000,
        total_item=1180,
    )
    body["totales"].update(
        total_operaciones_gravadas=1000,
        total_igv=180,
        total_impuestos=180,
        total_valor=1000,
        total_venta=1180,
    )
    assert_error(acme.post("/api/documents", json=body), 422, "INVALID_CUSTOMER")


def test_window_setting_is_per_tenant(live: LiveService, acme: httpx.Client) -> None:
    old = (peru_today() - dt.timedelta(days=5)).isoformat()
    assert acme.post("/api/documents", json=invoice_body(fecha_de_emision=old)).status_code == 422
    live.set_tenant("acme", shipping_time_days=7)
    try:
        response = acme.post("/api/documents", json=invoice_body(fecha_de_emision=old))
        assert response.status_code == 200, response.text
        # SUNAT takes facturas up to 3 days late: the simulator rejects (2108) and the number stays used
        assert response.json()["data"]["state_type_id"] == "09"
        assert response.json()["response"]["code"] == "2108"
    finally:
        live.set_tenant("acme", shipping_time_days=4)


def test_wrong_method_and_unknown_path(acme: httpx.Client) -> None:
    assert_error(acme.get("/api/documents"), 405)
    assert_error(acme.get("/api/nothing-here"), 404)
