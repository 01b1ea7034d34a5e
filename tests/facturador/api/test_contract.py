"""The service holds its OpenAPI contract: schemathesis runs against the schema the live service serves.

A tenant of its own is seeded with real documents (an accepted factura with its CDR, an unsent one, a
boleta declared in a daily summary, a voided factura) whose ids feed schemathesis' dictionaries, so the
generated requests reach real downloads, sends, state changes and tickets, not only 404s. Every phase
runs (the schema's examples, coverage of boundaries and negative values, fuzzing, stateful sequences along
the schema's links) with a bounded number of examples per operation and every check but
``positive_data_acceptance`` (a body that merely fits the schema is seldom a valid tax document: totals
must add up, documents must exist). Any 500, response that breaks its schema, undocumented status code or
content type, 405 without ``Allow`` or request that should have been refused fails the test.
"""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from facturador.domain.document_schema import DOCUMENT
from facturador.domain.documents import SEND_BODY, UPDATE_STATUS_BODY
from facturador.domain.fields import DATE_PATTERN, DATE_TIME_PATTERN, Object
from facturador.domain.inventory import TRANSACTION_BODY
from facturador.domain.items import ITEM_BODY, ITEM_UPDATE_BODY
from facturador.domain.persons import PERSON_BODY
from facturador.domain.quotations import QUOTATION_BODY
from facturador.domain.sale_notes import GENERATE_BODY, SALE_NOTE_BODY
from facturador.domain.summaries import SUMMARY_BODY, TICKET_QUERY, VOIDED_BODY
from sunat import catalogs
from tests.conftest import LiveService
from tests.samples.bodies import boleta_body, invoice_body
from tests.samples.tenants import ACME
from tests.samples.withholding import perception, retention
from tests.shops import Shop, new_shop

#: Generated examples per operation and phase (the coverage phase adds its boundary cases on top).
MAX_EXAMPLES = 25
SEED = 20261123  # a fixed seed: the same cases on every run, so a failure reproduces
SCHEMATHESIS = Path(sys.executable).with_name("st")


def seed_documents(shop: Shop, client: httpx.Client) -> dict[str, list[Any]]:
    """Real documents, summaries (one answered, one whose ticket SUNAT keeps in process) and a voided
    communication of a fresh tenant; their ids by kind."""

    def ok(response: httpx.Response) -> dict[str, Any]:
        assert response.status_code == 200, response.text
        return response.json()["data"]

    accepted = ok(client.post("/api/documents", json=invoice_body()))
    unsent = ok(client.post("/api/documents", json=invoice_body(acciones={"enviar_xml_firmado": False})))
    to_void = ok(client.post("/api/documents", json=invoice_body()))
    boleta = ok(client.post("/api/documents", json=boleta_body()))
    today = boleta_body()["fecha_de_emision"]
    summary = ok(
        client.post(
            "/api/summaries", json={"fecha_de_emision_de_documentos": today, "codigo_tipo_proceso": "1"}
        )
    )
    voided = ok(
        client.post(
            "/api/voided",
            json={
                "fecha_de_emision_de_documentos": today,
                "documentos": [{"external_id": to_void["external_id"], "motivo_anulacion": "Se duplicó"}],
            },
        )
    )
    for path, answer in (("/api/summaries/status", summary), ("/api/voided/status", voided)):
        assert client.post(path, json={"ticket": answer["ticket"]}).status_code == 200
    shop.set(authority_ticket_delay=3600.0)  # from now on tickets stay in process: status answers 202
    ok(client.post("/api/documents", json=boleta_body()))
    pending = ok(
        client.post(
            "/api/summaries", json={"fecha_de_emision_de_documentos": today, "codigo_tipo_proceso": "1"}
        )
    )
    assert client.post("/api/summaries/status", json={"ticket": pending["ticket"]}).status_code == 202
    ok(client.post("/api/documents", json=boleta_body()))  # registered: the summary example declares it
    return {
        **seed_backoffice(client),
        "documents": [doc["external_id"] for doc in (accepted, unsent, to_void, boleta)],
        "summaries": [summary["external_id"], pending["external_id"]],
        "voided": [voided["external_id"]],
        "tickets": [summary["ticket"], voided["ticket"], pending["ticket"]],
        "retentions": [ok(client.post("/api/retentions", json=retention()))["external_id"]],
        "perceptions": [ok(client.post("/api/perceptions", json=perception()))["external_id"]],
    }


def seed_backoffice(client: httpx.Client) -> dict[str, list[Any]]:
    """A customer, a product with stock, a sale note and a quotation; their ids by kind."""

    def ok(response: httpx.Response) -> dict[str, Any]:
        assert response.status_code == 200, response.text
        return response.json()["data"]

    person = ok(
        client.post(
            "/api/person",
            json={
                "type": "customers",
                "identity_document_type_id": "1",
                "number": "70000001",
                "name": "CLIENTE SEMILLA",
                "country_id": "PE",
            },
        )
    )
    item = {
        "internal_id": "SEED-1",
        "description": "Producto sembrado",
        "unit_type_id": "NIU",
        "currency_type_id": "PEN",
        "sale_unit_price": 59,
        "sale_affectation_igv_type_id": "10",
        "stock": 100,
    }
    product = ok(client.post("/api/item", json=item))
    [series] = client.get("/api/sale-note/series").json()["data"]
    line = {
        "item_id": product["id"],
        "quantity": 1,
        "unit_value": 50,
        "unit_price": 59,
        "price_type_id": "01",
        "affectation_igv_type_id": "10",
        "total_base_igv": 50,
        "percentage_igv": 18,
        "total_igv": 9,
        "total_taxes": 9,
        "total_value": 50,
        "total": 59,
    }
    body = {
        "date_of_issue": boleta_body()["fecha_de_emision"],
        "time_of_issue": "10:00:00",
        "customer_id": person["id"],
        "currency_type_id": "PEN",
        "items": [line],
    }
    notes = [ok(client.post("/api/sale-note", json={**body, "series_id": series["id"]})) for _ in range(2)]
    quotation = ok(client.post("/api/quotations", json=body))
    return {
        "items": [product["id"]],
        "sale_notes": [note["id"] for note in notes],
        "sale_note_files": [note["external_id"] for note in notes],
        "quotations": [quotation["external_id"]],
    }


def config(token: str, ids: dict[str, list[Any]]) -> str:
    """schemathesis.toml: both auth schemes with the tenant's token, the seeded ids as dictionaries that
    half the generated values of each id parameter are drawn from."""

    def operation(operation_id: str, **parameters: str) -> str:
        bindings = ", ".join(
            f'"{key}" = {{ dictionary = "{name}", probability = 0.5 }}' for key, name in parameters.items()
        )
        return f'[[operations]]\ninclude-operation-id = "{operation_id}"\nparameters = {{ {bindings} }}\n'

    lines = [
        f"seed = {SEED}",
        "[generation]",
        f"max-examples = {MAX_EXAMPLES}",
        "[checks.positive_data_acceptance]",
        "enabled = false",
        "[auth.openapi.bearerAuth]",
        f'bearer = "{token}"',
        "[auth.openapi.apiToken]",
        f'api_key = "{token}"',
    ]
    for name, values in ids.items():
        lines += [f"[dictionaries.{name}]", f"values = {json.dumps(values)}"]
    text = "\n".join(lines) + "\n"
    text += operation("downloadDocument", **{"path.external_id": "documents"})
    text += operation("downloadDocumentPdf", **{"path.external_id": "documents"})
    text += operation("downloadSummary", **{"path.external_id": "summaries"})
    text += operation("downloadVoided", **{"path.external_id": "voided"})
    text += operation("sendDocument", **{"body.external_id": "documents"})
    text += operation(
        "updateDocumentStatus", **{"body.externail_id": "documents", "body.external_id": "documents"}
    )
    text += operation("summaryStatus", **{"body.external_id": "summaries", "body.ticket": "tickets"})
    text += operation("voidedStatus", **{"body.external_id": "voided", "body.ticket": "tickets"})
    text += operation("updateItem", **{"path.id": "items"})
    text += operation("itemKardex", **{"path.id": "items"})
    text += operation("generateCpe", **{"path.id": "sale_notes"})
    text += operation("downloadSaleNote", **{"path.external_id": "sale_note_files"})
    text += operation("downloadSaleNoteFormat", **{"path.external_id": "sale_note_files"})
    text += operation("printQuotation", **{"path.external_id": "quotations"})
    text += operation("downloadRetention", **{"path.external_id": "retentions"})
    text += operation("downloadPerception", **{"path.external_id": "perceptions"})

    return text


def answers_per_operation(events: Path) -> dict[str, collections.Counter[int]]:
    """The status codes answered to each operation, from schemathesis' event log (ndjson report)."""
    seen: dict[str, collections.Counter[int]] = collections.defaultdict(collections.Counter)
    for line in events.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        finished = event.get("ScenarioFinished")
        if not finished:
            continue
        recorder = finished["recorder"]
        for interaction in recorder.get("interactions", {}).values():
            response = interaction.get("response") or {}
            seen[recorder["label"]][response.get("status_code", 0)] += 1
    return seen


@pytest.mark.slow(seconds=440)
def test_the_service_holds_its_openapi_contract(live: LiveService, tmp_path: Path) -> None:
    shop = new_shop(live, "contract")
    with live.client(shop.slug, shop.token) as client:
        ids = seed_documents(shop, client)
    config_file = tmp_path / "schemathesis.toml"
    config_file.write_text(config(shop.token, ids), encoding="utf-8")
    reports = tmp_path / "reports"
    run = subprocess.run(
        [
            str(SCHEMATHESIS),
            "--config-file",
            str(config_file),
            "run",
            f"{shop.base_url}/openapi.json",
            "--no-color",
            "--report",
            "ndjson",
            "--report-dir",
            str(reports),
        ],
        capture_output=True,
        text=True,
        timeout=1800,  # ~2 min alone; a loaded machine has taken 7, and more than 15 beside the PostgreSQL
        # run's own contract test and the other workers (load 10-14 on 2 cores)
        cwd=tmp_path,
    )
    summary = run.stdout[run.stdout.find("SUMMARY") :]
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    answers = answers_per_operation(next(reports.glob("*.ndjson")))
    table = "\n".join(
        f"{sum(counts.values()):6}  {label}  {dict(sorted(counts.items()))}"
        for label, counts in sorted(answers.items())
    )
    print(f"schemathesis: examples per operation and the statuses they got\n{table}\n{summary}")
    operations = [label for label in answers if label != "Stateful tests"]
    # 18 of documents (with their states set by hand), summaries and voided communications; 17 of
    # retentions, perceptions and reversions; 16 of the back office; 7 of the dispatch guides; the
    # company's certificate and what needs a person; 3 of documents and sale notes e-mailed to customers;
    # 11 of real PRO's look-ups and mobile tables (services/ruc, services/dni, service/{type},
    # services/exchange, document/series, customers, search-customers, tables, purchases/search-suppliers,
    # services/consult_cdr_status, validate_cpe)
    assert len(operations) == 74, sorted(answers)
    assert not any(status >= 500 for counts in answers.values() for status in counts)
    # the seeded ids and the schema's examples reach real answers, not only refusals
    for label in (
        "POST /api/documents",
        "POST /api/documents/send",
        "POST /api/summaries",
        "POST /api/documents/updatedocumentstatus",
        "POST /api/summaries/status",
        "POST /api/voided/status",
        "GET /downloads/document/{kind}/{external_id}",
        "GET /downloads/summary/{kind}/{external_id}",
        "GET /downloads/voided/{kind}/{external_id}",
        "POST /api/retentions",
        "POST /api/perceptions",
        "GET /downloads/retention/{kind}/{external_id}",
        "POST /api/person",
        "GET /api/persons/{type}/records",
        "GET /api/document/search-items",
        "GET /api/items/{id}/kardex",
        "GET /api/sale-note/series",
        "GET /api/sale-note/lists",
        "GET /downloads/salenote/sale_note/{external_id}",
        "GET /api/quotations/list",
    ):
        assert answers[label][200] > 0, (label, answers[label])
    assert answers["POST /api/summaries/status"][202] > 0  # a ticket in process


# ------------------------------------------------------------------------------ the schema itself


@pytest.fixture(scope="module")
def served(live: LiveService) -> dict[str, Any]:
    response = httpx.get(f"{live.base_url(ACME)}/openapi.json")
    assert response.status_code == 200
    return response.json()


def resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``$ref`` (and an optional-field ``anyOf [ref, null]``) followed."""
    if "anyOf" in schema and any("$ref" in option for option in schema["anyOf"]):
        schema = next(option for option in schema["anyOf"] if "$ref" in option)
    if "$ref" in schema:
        return document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def request_schema(document: dict[str, Any], path: str) -> dict[str, Any]:
    body = document["paths"][path]["post"]["requestBody"]
    assert body["required"] is True
    return resolve(body["content"]["application/json"]["schema"], document)


@pytest.mark.parametrize(
    ("path", "declared"),
    [
        ("/api/documents", DOCUMENT),
        ("/api/documents/send", SEND_BODY),
        ("/api/documents/updatedocumentstatus", UPDATE_STATUS_BODY),
        ("/api/summaries", SUMMARY_BODY),
        ("/api/summaries/status", TICKET_QUERY),
        ("/api/voided", VOIDED_BODY),
        ("/api/voided/status", TICKET_QUERY),
        ("/api/person", PERSON_BODY),
        ("/api/item", ITEM_BODY),
        ("/api/items/{id}/update", ITEM_UPDATE_BODY),
        ("/api/inventory/transaction", TRANSACTION_BODY),
        ("/api/sale-note", SALE_NOTE_BODY),
        ("/api/sale-note/{id}/generate-cpe", GENERATE_BODY),
        ("/api/quotations", QUOTATION_BODY),
    ],
)
def test_every_body_is_described_field_by_field_from_its_declaration(
    served: dict[str, Any], path: str, declared: Object
) -> None:
    schema = request_schema(served, path)
    assert schema["properties"].keys() == declared.fields.keys()
    assert schema.get("required", []) == [key for key, field in declared.fields.items() if field.required]


def test_the_document_schema_carries_catalogs_lengths_and_bounds(served: dict[str, Any]) -> None:
    components = served["components"]["schemas"]
    item, customer, document = components["Item"], components["Customer"], components["DocumentBody"]
    assert item["properties"]["descripcion"]["maxLength"] == 500
    assert customer["properties"]["apellidos_y_nombres_o_razon_social"]["maxLength"] == 1500
    assert customer["properties"]["direccion"]["maxLength"] == 200
    assert set(catalogs.UNITS) <= set(item["properties"]["unidad_de_medida"]["enum"])
    assert set(catalogs.IDENTITY_TYPES) <= set(
        customer["properties"]["codigo_tipo_documento_identidad"]["enum"]
    )
    assert item["properties"]["cantidad"]["exclusiveMinimum"] == 0
    assert item["properties"]["total_item"]["exclusiveMaximum"] == 10**12
    assert document["properties"]["items"]["maxItems"] == 999
    # a date, or a date with a time of day as PHP clients send it (docs/scenarios.md)
    assert document["properties"]["fecha_de_emision"]["pattern"] == f"({DATE_PATTERN})|({DATE_TIME_PATTERN})"


def test_security_errors_and_downloads_are_described(served: dict[str, Any]) -> None:
    assert set(served["components"]["securitySchemes"]) == {"bearerAuth", "apiToken"}
    assert served["components"]["securitySchemes"]["apiToken"] == {
        **served["components"]["securitySchemes"]["apiToken"],
        "in": "query",
        "name": "api_token",
    }
    error = served["components"]["schemas"]["Error"]
    assert error["required"] == ["success", "message", "error_code", "errors"]
    for path, methods in served["paths"].items():
        for method, operation in methods.items():
            secured = path.startswith("/api/")
            assert ("security" in operation) is secured, (method, path)
            if secured:
                assert {"401", "404"} <= set(operation["responses"]), (method, path)
    pdf = served["paths"]["/downloads/document/{kind}/{external_id}/{fmt}"]["get"]["responses"]["200"]
    assert set(pdf["content"]) == {"application/pdf", "application/xml", "application/zip"}
    assert served["servers"] == [{"url": f"/t/{ACME}"}]


def test_405_names_the_allowed_methods(acme: httpx.Client) -> None:
    for method, path, allowed in (
        ("GET", "/api/documents", "POST"),
        ("DELETE", "/api/summaries/status", "POST"),
        ("POST", "/api/documents/lists", "GET"),
    ):
        response = acme.request(method, path)
        assert response.status_code == 405, response.text
        assert allowed in response.headers["Allow"]
        assert response.json()["error_code"] == "METHOD_NOT_ALLOWED"
