"""Real PRO's look-up and mobile routes over HTTP: ``services/ruc`` from SUNAT's padrón imported by the
tests' own file (state, condition, the warning before issuing), ``services/dni`` from the tenant's persons
and a provider served on a loopback port, SUNAT's exchange rate served on a loopback port (and used by a
dollar factura without ``factor_tipo_de_cambio``), ``document/series``, ``document/customers``,
``document/search-customers``, ``purchases/search-suppliers``, ``document/tables`` and the persons'
records searched with ``column``/``value``; bad numbers, wrong tokens and other tenants included."""

from __future__ import annotations

import datetime as dt
import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from facturador.cli import main
from facturador.domain.padron import import_padron
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.facturador.api.test_bad_input import assert_error
from tests.padron_file import generated_lines, line, ruc, write_padron
from tests.samples.bodies import invoice_body
from tests.shops import Shop, new_shop

#: RUCs of the padrón file of this module (prefix 20999 keeps them apart from generated shops').
GOOD = ruc("2099900001")
GONE = ruc("2099900002")
UNKNOWN = ruc("2099900003")


class Served:
    """Answers a loopback HTTP server gives: path -> (status, content type, body)."""

    def __init__(self) -> None:
        self.answers: dict[str, tuple[int, str, bytes]] = {}
        self.asked: list[str] = []

    def set(self, path: str, status: int, body: Any, content_type: str = "application/json") -> None:
        raw = (
            body
            if isinstance(body, bytes)
            else (body if isinstance(body, str) else json.dumps(body)).encode()
        )
        self.answers[path] = (status, content_type, raw)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Served, str]]:
    answers = Served()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            answers.asked.append(self.path)
            status, content_type, body = answers.answers.get(self.path, (404, "text/plain", b"not found"))
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield answers, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def padron(live: LiveService, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("padron") / "padron_reducido_ruc.zip"
    write_padron(
        path,
        [
            line(
                GOOD,
                "COMERCIAL ÑANDÚ S.A.C.",
                "ACTIVO",
                "HABIDO",
                "150131",
                ("CAL.", "MORELLI", "URB.", "SAN BORJA", "181", "P-2", "-", "-", "-", "-"),
            ),
            line(GONE, "EMPRESA CERRADA E.I.R.L.", "BAJA DE OFICIO", "NO HABIDO", "040101"),
            "12345|UNA LÍNEA QUE NO SE LEE|ACTIVO|",
        ],
        zipped=True,
    )
    result = import_padron(live.context.engine, path, force=True)
    assert result.skipped == 1 and result.written >= 0
    return path


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "pro-services")


@pytest.fixture
def client(shop: Shop) -> Iterator[httpx.Client]:
    with shop.http() as client:
        yield client


def test_ruc_answers_from_sunats_padron_with_state_and_condition(padron: Path, client: httpx.Client) -> None:
    answer = client.get(f"/api/services/ruc/{GOOD}")
    assert answer.status_code == 200, answer.text
    data = answer.json()["data"]
    assert answer.json()["success"] is True
    assert data["name"] == "COMERCIAL ÑANDÚ S.A.C."  # Latin-1 read as such
    assert data["state"] == "ACTIVO" and data["condition"] == "HABIDO" and data["warning"] is None
    assert data["address"] == "CAL. MORELLI NRO. 181 INT. P-2 URB. SAN BORJA"
    assert data["district_id"] == "150131" and data["location_id"] == ["15", "1501", "150131"]
    assert data["department"] == "LIMA" and data["source"] == "padron"

    gone = client.get(f"/api/services/ruc/{GONE}").json()["data"]
    assert gone["state"] == "BAJA DE OFICIO" and gone["condition"] == "NO HABIDO"
    assert "BAJA DE OFICIO" in gone["warning"] and "NO HABIDO" in gone["warning"]

    same = client.get(f"/api/service/ruc/{GONE}")  # ApiPeruDev's route answers the same
    assert same.status_code == 200 and same.json()["data"]["state"] == "BAJA DE OFICIO"


def test_ruc_bad_paths(padron: Path, live: LiveService, shop: Shop, client: httpx.Client) -> None:
    bad_digit = GOOD[:10] + str((int(GOOD[10]) + 1) % 10)
    problem = assert_error(client.get(f"/api/services/ruc/{bad_digit}"), 422, "INVALID_RUC")
    assert "dígito verificador" in problem["message"]
    assert_error(client.get("/api/services/ruc/2099900001"), 422, "INVALID_RUC")
    prefix = assert_error(client.get("/api/services/ruc/30999000011"), 422, "INVALID_RUC")
    assert "debe empezar con 10, 15, 16, 17, 20" in prefix["message"]
    assert_error(client.get("/api/services/ruc/abc"), 422, "INVALID_RUC")
    missing = assert_error(client.get(f"/api/services/ruc/{UNKNOWN}"), 404, "RUC_NOT_FOUND")
    assert UNKNOWN in missing["message"]
    assert_error(client.get("/api/service/cedula/12345678"), 422, "INVALID_REQUEST")
    with live.client(shop.slug, "not-the-token") as stranger:
        assert_error(stranger.get(f"/api/services/ruc/{GOOD}"), 401, "UNAUTHENTICATED")
    with live.client(shop.slug, None) as anonymous:
        assert_error(anonymous.get(f"/api/services/ruc/{GOOD}"), 401, "UNAUTHENTICATED")
    other = new_shop(live, "pro-other")
    with live.client(shop.slug, other.token) as crossed:  # another tenant's token
        assert_error(crossed.get(f"/api/services/ruc/{GOOD}"), 401, "UNAUTHENTICATED")
    with live.client("no-such-tenant", shop.token) as nowhere:
        assert_error(nowhere.get(f"/api/services/ruc/{GOOD}"), 404, "TENANT_NOT_FOUND")


def test_ruc_and_dni_from_the_tenants_own_persons_only(live: LiveService, client: httpx.Client) -> None:
    own_ruc = ruc("2099900777")
    saved = client.post(
        "/api/person",
        json={
            "type": "suppliers",
            "identity_document_type_id": "6",
            "number": own_ruc,
            "name": "PROVEEDOR PROPIO",
            "country_id": "PE",
            "address": "Jr. Uno 1",
            "district_id": "150101",
        },
    )
    assert saved.status_code == 200, saved.text
    data = client.get(f"/api/services/ruc/{own_ruc}").json()["data"]
    assert data["name"] == "PROVEEDOR PROPIO" and data["source"] == "persons" and data["state"] == ""
    assert data["location_id"] == ["15", "1501", "150101"]
    client.post(
        "/api/person",
        json={
            "type": "customers",
            "identity_document_type_id": "1",
            "number": "70112233",
            "name": "ROSA PÉREZ",
            "country_id": "PE",
            "address": "Av. Dos 2",
        },
    )
    dni = client.get("/api/services/dni/70112233")
    assert dni.status_code == 200 and dni.json()["data"]["name"] == "ROSA PÉREZ"
    other = new_shop(live, "pro-persons")
    with other.http() as stranger:  # another tenant does not see them
        assert_error(stranger.get(f"/api/services/ruc/{own_ruc}"), 404, "RUC_NOT_FOUND")
        missing = assert_error(stranger.get("/api/services/dni/70112233"), 404, "DNI_NOT_FOUND")
        assert "proveedor" in missing["message"]
    assert_error(client.get("/api/services/dni/7011223"), 422, "INVALID_DNI")
    assert_error(client.get("/api/services/dni/7011223X"), 422, "INVALID_DNI")


def test_dni_from_a_configured_provider(
    client: httpx.Client, served: tuple[Served, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    answers, root = served
    answers.set(
        "/api/dni/45678912",
        200,
        {
            "success": True,
            "data": {
                "numero": "45678912",
                "nombre_completo": "LUIS QUISPE MAMANI",
                "direccion": "JR. TRES 3",
                "ubigeo": ["15", "1501", "150101"],
            },
        },
    )
    monkeypatch.setenv("FACTURADOR_DNI_PROVIDER_URL", f"{root}/api/dni/{{number}}")
    found = client.get("/api/services/dni/45678912")
    assert found.status_code == 200, found.text
    data = found.json()["data"]
    assert data["name"] == "LUIS QUISPE MAMANI" and data["source"] == "provider"
    assert data["address"] == "JR. TRES 3" and data["district_id"] == "150101"
    assert_error(client.get("/api/services/dni/45678913"), 404, "DNI_NOT_FOUND")  # the provider's 404
    answers.set("/api/dni/45678914", 500, {"message": "caído"})
    assert_error(client.get("/api/services/dni/45678914"), 502, "DNI_PROVIDER_FAILED")


def test_the_issue_answer_warns_of_a_customer_the_padron_gives_as_gone(
    padron: Path, client: httpx.Client
) -> None:
    body = invoice_body()
    body["datos_del_cliente_o_receptor"] = {
        **body["datos_del_cliente_o_receptor"],
        "numero_documento": GONE,
        "apellidos_y_nombres_o_razon_social": "EMPRESA CERRADA E.I.R.L.",
    }
    issued = client.post("/api/documents", json=body)
    assert issued.status_code == 200, issued.text
    assert "NO HABIDO" in issued.json()["customer_warning"]
    good = invoice_body()
    good["datos_del_cliente_o_receptor"] = {**good["datos_del_cliente_o_receptor"], "numero_documento": GOOD}
    answer = client.post("/api/documents", json=good)
    assert answer.status_code == 200 and "customer_warning" not in answer.json()


def test_exchange_rate_from_sunats_published_text(
    live: LiveService, client: httpx.Client, served: tuple[Served, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    answers, root = served
    today = peru_today()
    friday = today - dt.timedelta(days=(today.weekday() - 4) % 7 or 7)  # a past Friday
    lines = [
        f"{(friday - dt.timedelta(days=1)).strftime('%d/%m/%Y')}|3.701|3.709|",
        f"{friday.strftime('%d/%m/%Y')}|3.712|3.721|",
        "una línea que no se lee",
        f"{today.strftime('%d/%m/%Y')}|3.390|3.398|",
    ]
    path = f"/a/txt/tipoCambio-{uuid.uuid4().hex}.txt"  # each test run's own source (fetches are spaced)
    answers.set(path, 200, "\n".join(lines), "text/plain")
    monkeypatch.setenv("FACTURADOR_EXCHANGE_RATE_URL", root + path)

    rate = client.get(f"/api/services/exchange/{friday.isoformat()}")
    assert rate.status_code == 200, rate.text
    assert rate.json() == {
        "date": friday.isoformat(),
        "date_sunat": friday.isoformat(),
        "purchase": 3.712,
        "sale": 3.721,
    }
    saturday = friday + dt.timedelta(days=1)
    if saturday < today:  # a day SUNAT published nothing for: the last rate published before it
        weekend = client.get(f"/api/services/exchange/{saturday.isoformat()}").json()
        assert weekend["date"] == saturday.isoformat() and weekend["date_sunat"] == friday.isoformat()
        assert weekend["sale"] == 3.721
    asked = len(answers.asked)
    client.get(f"/api/services/exchange/{friday.isoformat()}")
    assert len(answers.asked) == asked  # cached: SUNAT is not asked again
    assert_error(client.get("/api/services/exchange/2001-01-01"), 404, "EXCHANGE_RATE_NOT_FOUND")
    assert_error(client.get("/api/services/exchange/2026-13-01"), 422, "INVALID_DATE")
    with live.client(client.base_url.path.split("/")[2], "wrong") as stranger:
        assert_error(stranger.get(f"/api/services/exchange/{friday.isoformat()}"), 401, "UNAUTHENTICATED")

    body = invoice_body(codigo_tipo_moneda="USD")  # no factor_tipo_de_cambio: SUNAT's sell rate of the day
    body.pop("factor_tipo_de_cambio", None)
    issued = client.post("/api/documents", json=body)
    assert issued.status_code == 200, issued.text
    external_id = issued.json()["data"]["external_id"]
    row = next(
        r for r in client.get("/api/documents/lists").json()["data"] if r["external_id"] == external_id
    )
    assert row["currency_type_id"] == "USD" and row["exchange_rate_sale"] == "3.398"
    stated = invoice_body(codigo_tipo_moneda="USD", factor_tipo_de_cambio=3.5)  # a stated rate stays
    stated_id = client.post("/api/documents", json=stated).json()["data"]["external_id"]
    row = next(r for r in client.get("/api/documents/lists").json()["data"] if r["external_id"] == stated_id)
    assert row["exchange_rate_sale"] == "3.5"
    monkeypatch.setenv("FACTURADOR_EXCHANGE_RATE_URL", "off")  # off: a rate cached is not applied either
    kept = invoice_body(codigo_tipo_moneda="USD")
    kept.pop("factor_tipo_de_cambio", None)
    kept_id = client.post("/api/documents", json=kept).json()["data"]["external_id"]
    row = next(r for r in client.get("/api/documents/lists").json()["data"] if r["external_id"] == kept_id)
    assert row["exchange_rate_sale"] == "1"


def test_mobile_series_customers_and_searches(shop: Shop, client: httpx.Client, live: LiveService) -> None:
    series = client.get("/api/document/series")
    assert series.status_code == 200, series.text
    rows = series.json()
    assert rows and {row["document_type_id"] for row in rows} <= {"01", "03", "09", "31"}
    assert set(rows[0]) == {"id", "document_type_id", "number", "is_default", "establishment_id"}
    defaults = [row["document_type_id"] for row in rows if row["is_default"]]
    assert len(defaults) == len(set(defaults))  # one default per type

    people = [
        ("customers", "6", ruc("2099900501"), "ZAPATERÍA ANDINA S.A.C."),
        ("customers", "1", "41000501", "ANDREA ZAPATA"),
        ("suppliers", "6", ruc("2099900502"), "ZAPATOS DEL NORTE S.R.L."),
    ]
    for kind, identity, number, name in people:
        answer = client.post(
            "/api/person",
            json={
                "type": kind,
                "identity_document_type_id": identity,
                "number": number,
                "name": name,
                "country_id": "PE",
                "address": "Av. Tres 3",
            },
        )
        assert answer.status_code == 200, answer.text
    found = client.get("/api/document/search-customers", params={"input": "zapat"}).json()
    names = [row["name"] for row in found["data"]["customers"]]
    assert names == ["ANDREA ZAPATA", "ZAPATERÍA ANDINA S.A.C."]  # by name; no supplier
    assert found["data"]["customers"][0]["identity_document_type_code"] == "DNI"
    facturable = client.get(
        "/api/document/search-customers", params={"input": "zapat", "document_type_id": "01"}
    )
    assert [row["name"] for row in facturable.json()["data"]["customers"]] == ["ZAPATERÍA ANDINA S.A.C."]
    suppliers = client.get("/api/purchases/search-suppliers", params={"input": "zapat"}).json()
    assert isinstance(suppliers, list) and [row["name"] for row in suppliers] == ["ZAPATOS DEL NORTE S.R.L."]
    assert set(suppliers[0]) == {
        "id",
        "description",
        "name",
        "number",
        "identity_document_type_id",
        "address",
        "email",
        "selected",
    }
    first = client.get("/api/document/customers").json()["data"]["customers"]
    assert 0 < len(first) <= 20 and [row["name"] for row in first] == sorted(row["name"] for row in first)

    by_number = client.get(
        "/api/persons/customers/records", params={"column": "number", "page": 1, "value": "41000501"}
    ).json()
    assert [row["name"] for row in by_number["data"]] == ["ANDREA ZAPATA"]
    by_name = client.get(
        "/api/persons/customers/records", params={"column": "name", "page": 1, "value": "andina"}
    )
    assert [row["name"] for row in by_name.json()["data"]] == ["ZAPATERÍA ANDINA S.A.C."]
    assert "column=name" in by_name.json()["links"]["first"]
    assert_error(
        client.get("/api/persons/customers/records", params={"column": "email", "value": "x"}),
        422,
        "INVALID_REQUEST",
    )
    assert_error(
        client.get("/api/document/search-customers", params={"document_type_id": "99"}),
        422,
        "INVALID_REQUEST",
    )
    assert_error(
        client.get("/api/document/search-customers", params={"input": "x" * 101}), 422, "INVALID_REQUEST"
    )

    tables = client.get("/api/document/tables").json()["data"]
    assert {"items", "affectation_types", "categories"} <= set(tables)
    codes = {row["id"]: row for row in tables["affectation_types"]}
    assert codes["10"]["free"] is False and codes["21"]["free"] is True and codes["40"]["exportation"] is True

    other = new_shop(live, "pro-mobile")
    with other.http() as stranger:  # another tenant sees none of them
        assert stranger.get("/api/document/search-customers", params={"input": "zapat"}).json()["data"] == {
            "customers": []
        }
        assert stranger.get("/api/purchases/search-suppliers", params={"input": "zapat"}).json() == []
    with live.client(shop.slug, "wrong") as wrong:
        for path in (
            "/api/document/series",
            "/api/document/customers",
            "/api/document/tables",
            "/api/document/search-customers",
            "/api/purchases/search-suppliers",
        ):
            assert_error(wrong.get(path), 401, "UNAUTHENTICATED")


def test_padron_import_is_incremental_and_resumes(tmp_path: Path) -> None:
    """The command line over a store of its own: an import stopped after its first batch resumes at its
    checkpoint, the same file is not read twice, and a day's update writes only the lines that changed."""
    from facturador.config import Settings
    from facturador.context import ServiceContext

    data = tmp_path / "data"
    first = write_padron(tmp_path / "day1.zip", generated_lines(12_000), zipped=True)
    context = ServiceContext(Settings.resolve(data, None))
    try:
        stopped = import_padron(context.engine, first, batch_lines=5000, stop_after_batches=1)
        assert stopped.lines == 5000 and stopped.written == 4999  # the header, then 4,999 taxpayers
        resumed = import_padron(context.engine, first, batch_lines=5000)
        assert resumed.resumed_from > 0 and resumed.lines == 12_001 and resumed.written == 12_000
    finally:
        context.engine.dispose()

    runner = CliRunner()
    again = runner.invoke(main, ["padron", "import", str(first), "--data-dir", str(data)])
    assert again.exit_code == 0, again.output
    assert "imported in full already" in again.output

    second = write_padron(tmp_path / "day2.txt", generated_lines(12_500, variant=1))  # 12 renamed, 500 new
    update = runner.invoke(main, ["padron", "import", str(second), "--data-dir", str(data)])
    assert update.exit_code == 0, update.output
    assert "12501 lines read, 512 rows written" in update.output

    missing = runner.invoke(main, ["padron", "import", str(tmp_path / "nope.zip"), "--data-dir", str(data)])
    assert missing.exit_code != 0 and "is not a file" in missing.output


def test_consult_cdr_status_and_validate_cpe_of_the_tenants_documents(
    live: LiveService, shop: Shop, client: httpx.Client
) -> None:
    issued = client.post("/api/documents", json=invoice_body())
    assert issued.status_code == 200, issued.text
    series, number = issued.json()["data"]["number"].split("-")
    asked = {"codigo_tipo_documento": "01", "serie_documento": series, "numero_documento": int(number)}

    cdr = client.post("/api/services/consult_cdr_status", json=asked)
    assert cdr.status_code == 200, cdr.text
    answer = cdr.json()
    assert answer["success"] is True and answer["data"]["code"] == "0" and answer["data"]["sent"] is True
    assert f"{series}-{number}" in answer["message"] and "aceptada" in answer["message"]

    validity = client.post(
        "/api/services/validate_cpe",
        json={
            **asked,
            "numero_ruc_emisor": shop.ruc,
            "fecha_de_emision": peru_today().isoformat(),
            "total": 118,
        },
    )
    assert validity.status_code == 200, validity.text
    data = validity.json()["data"]
    assert data["comprobante_estado_codigo"] == "1" and data["comprobante_estado_descripcion"] == "ACEPTADO"

    missing = {**asked, "numero_documento": 99_999_999}
    found = assert_error(
        client.post("/api/services/consult_cdr_status", json=missing), 404, "DOCUMENT_NOT_FOUND"
    )
    assert "Documento no encontrado" in found["message"]
    # another issuer's document: asked of SUNAT's validity API (here the simulator, which holds another
    # company's factura as accepted and knows nothing of an unknown number)
    seller = new_shop(live, "pro-seller")
    with seller.http() as seller_client:
        sold = seller_client.post("/api/documents", json=invoice_body())
        assert sold.status_code == 200, sold.text
    sold_series, sold_number = sold.json()["data"]["number"].split("-")
    bought = {
        "numero_ruc_emisor": seller.ruc,
        "codigo_tipo_documento": "01",
        "serie_documento": sold_series,
        "numero_documento": int(sold_number),
        "fecha_de_emision": peru_today().isoformat(),
        "total": 118,
    }
    checked = client.post("/api/services/validate_cpe", json=bought)
    assert checked.status_code == 200, checked.text
    assert checked.json()["data"]["comprobante_estado_codigo"] == "1"
    assert checked.json()["data"]["comprobante_estado_descripcion"] == "ACEPTADO"
    unknown = client.post("/api/services/validate_cpe", json={**bought, "numero_documento": 99_999_999})
    assert unknown.status_code == 200, unknown.text
    assert unknown.json()["data"]["comprobante_estado_codigo"] == "0"
    undated = {key: value for key, value in bought.items() if key != "fecha_de_emision"}
    assert_error(client.post("/api/services/validate_cpe", json=undated), 422, "INVALID_FIELDS")
    assert_error(
        client.post("/api/services/consult_cdr_status", json={**asked, "codigo_tipo_documento": "09"}),
        422,
        "INVALID_FIELDS",
    )
    assert_error(
        client.post("/api/services/consult_cdr_status", json={**asked, "serie_documento": "F0011"}),
        422,
        "INVALID_FIELDS",
    )
    assert client.post("/api/services/consult_cdr_status", content=b"[]").status_code == 400
    other = new_shop(live, "pro-cdr")
    with other.http() as stranger:  # another tenant's document is not found for it
        assert_error(stranger.post("/api/services/consult_cdr_status", json=asked), 404, "DOCUMENT_NOT_FOUND")
    with live.client(shop.slug, "wrong") as wrong:
        assert_error(wrong.post("/api/services/consult_cdr_status", json=asked), 401, "UNAUTHENTICATED")


def test_the_connector_looks_a_customer_up_and_sees_the_warning(padron: Path, shop: Shop) -> None:
    from connector.errors import NotFoundError, ValidationError

    client = shop.client()
    good = client.persons.lookup(GOOD)
    assert good.name == "COMERCIAL ÑANDÚ S.A.C." and good.state == "ACTIVO" and good.warning is None
    assert good.district_id == "150131" and good.address.startswith("CAL. MORELLI")
    gone = client.persons.lookup(GONE)
    assert gone.condition == "NO HABIDO" and gone.warning is not None and "BAJA DE OFICIO" in gone.warning
    with pytest.raises(NotFoundError):
        client.persons.lookup(UNKNOWN)
    with pytest.raises(ValidationError):
        client.persons.lookup(GOOD[:10] + str((int(GOOD[10]) + 1) % 10))
