"""Tokens, tenant isolation, host routing, downloads, send, status updates and lists over HTTP."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest

from sunat.calendar import peru_today
from tests.common import issue
from tests.conftest import LiveService
from tests.facturador.api.test_bad_input import assert_error
from tests.samples.bodies import boleta_body, invoice_body
from tests.samples.tenants import ACME_TOKEN, OTHER_TOKEN


@pytest.mark.parametrize("token", [None, "x", "wrong-token-xxxxxxxxxxxxxxxxxxxx", OTHER_TOKEN])
def test_missing_wrong_or_foreign_token_is_401(live: LiveService, token: str | None) -> None:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    for method, path in [
        ("POST", "/api/documents"),
        ("GET", "/api/documents/lists"),
        ("POST", "/api/documents/send"),
        ("GET", "/api/documents/lists/2026-01-01/2026-01-31"),
    ]:
        response = httpx.request(method, live.base_url("acme") + path, headers=headers, json=invoice_body())
        assert response.status_code == 401, (method, path, response.text)
        assert response.json() == {
            "success": False,
            "message": "No se encuentra autenticado",
            "error_code": "UNAUTHENTICATED",
            "errors": [],
        }


def test_unknown_tenant_is_404(live: LiveService) -> None:
    response = httpx.get(
        live.base_url("nobody") + "/api/documents/lists", headers={"Authorization": f"Bearer {ACME_TOKEN}"}
    )
    assert_error(response, 404, "TENANT_NOT_FOUND")


def test_tenant_by_host_header(live: LiveService) -> None:
    response = httpx.post(
        f"{live.root}/api/documents",
        json=invoice_body(),
        headers={"Host": "otra.localhost", "Authorization": f"Bearer {OTHER_TOKEN}"},
    )
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["data"]["filename"].startswith("20601030013-01-F001-")
    assert data["links"]["xml"].startswith("http://otra.localhost/downloads/document/xml/")
    wrong = httpx.post(
        f"{live.root}/api/documents",
        json=invoice_body(),
        headers={"Host": "otra.localhost", "Authorization": f"Bearer {ACME_TOKEN}"},
    )
    assert wrong.status_code == 401


def test_tenants_never_see_each_other(acme: httpx.Client, other: httpx.Client) -> None:
    mine = issue(acme, invoice_body())["data"]
    ext = mine["external_id"]
    for kind in ("xml", "pdf", "cdr"):
        assert other.get(f"/downloads/document/{kind}/{ext}").status_code == 404
    assert ext not in [row["external_id"] for row in other.get("/api/documents/lists").json()["data"]]
    day = peru_today().isoformat()
    assert ext not in [
        row["external_id"] for row in other.get(f"/api/documents/lists/{day}/{day}").json()["data"]
    ]
    assert_error(other.post("/api/documents/send", json={"external_id": ext}), 404)
    assert_error(
        other.post("/api/documents/updatedocumentstatus", json={"externail_id": ext, "state_type_id": "11"}),
        404,
    )
    assert acme.get(f"/downloads/document/xml/{ext}").status_code == 200
    # both tenants number F001 independently
    assert issue(other, invoice_body())["data"]["filename"].startswith("20601030013-01-F001-")


def test_downloads_unknown_and_bad_kind(acme: httpx.Client) -> None:
    assert_error(acme.get("/downloads/document/xml/00000000-0000-4000-8000-000000000000"), 404)
    ext = issue(acme, invoice_body())["data"]["external_id"]
    assert_error(acme.get(f"/downloads/document/zip/{ext}"), 404)
    assert_error(acme.get(f"/downloads/document/pdf/{ext}/a3"), 404)


def test_send_rules(acme: httpx.Client) -> None:
    boleta = issue(acme, boleta_body())["data"]
    body = assert_error(
        acme.post("/api/documents/send", json={"external_id": boleta["external_id"]}),
        422,
        "DOCUMENT_NOT_SENDABLE",
    )
    assert body["message"] == "El tipo de documento 03 es inválido, no es posible enviar."
    assert_error(acme.post("/api/documents/send", json={}), 422, "MISSING_FIELDS")
    unknown = assert_error(acme.post("/api/documents/send", json={"external_id": "nope"}), 404)
    assert unknown["message"] == "El documento con código externo nope, no se encuentra registrado."
    # re-sending an accepted factura answers the same CDR again and keeps it accepted
    invoice = issue(acme, invoice_body())["data"]
    again = acme.post("/api/documents/send", json={"external_id": invoice["external_id"]}).json()
    assert again["data"]["state_type_id"] == "05" and again["response"]["code"] == "0"


def test_update_status_accepts_the_real_key(acme: httpx.Client) -> None:
    ext = issue(acme, invoice_body())["data"]["external_id"]
    response = acme.post(
        "/api/documents/updatedocumentstatus", json={"externail_id": ext, "state_type_id": "11"}
    )
    assert response.status_code == 200 and response.json()["success"] is True
    rows = acme.get("/api/documents/lists").json()["data"]
    row = next(r for r in rows if r["external_id"] == ext)
    assert row["state_type_id"] == "11" and row["state_type_description"] == "Anulado"
    ok = acme.post("/api/documents/updatedocumentstatus", json={"external_id": ext, "state_type_id": "05"})
    assert ok.status_code == 200
    assert_error(
        acme.post("/api/documents/updatedocumentstatus", json={"externail_id": ext, "state_type_id": "99"}),
        422,
        "INVALID_FIELDS",
    )


def test_lists_by_range(acme: httpx.Client) -> None:
    doc = issue(acme, invoice_body())["data"]
    day = peru_today()
    rows = acme.get(f"/api/documents/lists/{day}/{day}").json()["data"]
    row = next(r for r in rows if r["external_id"] == doc["external_id"])
    for key in (
        "id",
        "external_id",
        "date_of_issue",
        "number",
        "document_type_id",
        "document_type_description",
        "customer_name",
        "customer_number",
        "currency_type_id",
        "total_exportation",
        "total_free",
        "total_unaffected",
        "total_exonerated",
        "total_taxed",
        "total_igv",
        "total",
        "state_type_id",
        "state_type_description",
        "has_xml",
        "has_pdf",
        "has_cdr",
        "download_xml",
        "download_pdf",
        "download_cdr",
    ):
        assert key in row, key
    assert row["number"] == doc["number"] and row["total"] == "118.00" and row["total_igv"] == "18.00"
    assert row["date_of_issue"] == day.isoformat() and row["has_cdr"] is True
    assert row["document_type_description"] == "Factura"
    dates = [r["date_of_issue"] for r in rows]
    assert dates == sorted(dates, reverse=True)
    yesterday = day - dt.timedelta(days=1)
    assert doc["external_id"] not in [
        r["external_id"] for r in acme.get(f"/api/documents/lists/{yesterday}/{yesterday}").json()["data"]
    ]


@pytest.mark.parametrize(
    "path", ["2026-13-01/2026-12-31", "01-01-2026/2026-12-31", "2026-12-31/2026-01-01", "x/y"]
)
def test_lists_bad_dates(acme: httpx.Client, path: str) -> None:
    assert_error(acme.get(f"/api/documents/lists/{path}"), 422)


def test_openapi_schema_is_served(live: LiveService) -> None:
    schema = httpx.get(f"{live.root}/openapi.json").json()
    assert "/api/documents" in schema["paths"]
    assert "/downloads/document/{kind}/{external_id}" in schema["paths"]
