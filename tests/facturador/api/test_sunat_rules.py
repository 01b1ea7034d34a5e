"""SUNAT's own rules as the judge: every scenario the service issues passes SUNAT's stylesheets.

Each scenario of ``tests/samples/scenarios.py`` is issued over HTTP on a tenant of its own; the stored
signed XML is downloaded and run through SUNAT's published validation stylesheets
(``tests/sunat_judge.py``, from the reference folder). Any rejection fails the test. Observations are
allowed only where :data:`EXPLAINED` says why; anything else fails too, so a new observation is either
fixed in the service or explained here. Daily summaries (declaring and voiding boletas) and voided
communications are judged the same way.

Skipped with a reason without the reference folder or saxonche; CI (FACTURADOR_REQUIRE_SHARED=1) runs it.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from facturador.domain.tenants import add_series
from tests.common import issue, wait_for
from tests.conftest import LiveService
from tests.facturador.api.test_summaries import declare, void_boletas
from tests.facturador.api.test_summaries import status_of as summary_status
from tests.helpers import assert_schema_valid
from tests.reference import requires_shared
from tests.samples import isc
from tests.samples.bodies import boleta_body, credit_note_body, invoice_body
from tests.samples.scenarios import SCENARIOS, Scenario
from tests.shops import Shop, new_shop
from tests.sunat_judge import Judge, Verdict, load_judge

#: Observations SUNAT's stylesheets make on documents the service issues, and why each is right.
#: Keyed by scenario name ("*" for every scenario); a code not listed here fails the test.
EXPLAINED: dict[str, dict[str, str]] = {
    "public_boleta": {
        "4207": "the public documentation's boleta names its customer with identity type 1 (DNI) and an "
        "11-digit number (10414711225). The service keeps what the client sent, as SUNAT does: on a "
        "boleta a bad DNI is an observation, not a rejection, and the simulator observes 4207 too",
    },
}

pytestmark = requires_shared


@pytest.fixture(scope="module")
def judge() -> Judge:
    return load_judge()


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    created = new_shop(live, "xsl")
    with live.context.session() as session, session.begin():  # contingency series, as acme has
        add_series(session, created.slug, "01", "0001", contingency=True)
        add_series(session, created.slug, "03", "0004", contingency=True)
    return created


@pytest.fixture
def client(shop: Shop) -> Iterator[httpx.Client]:
    with shop.live.client(shop.slug, shop.token) as client:
        yield client


def _judged(judge: Judge, xml: bytes, name: str) -> Verdict:
    assert_schema_valid(xml)
    return judge(xml, name)


def _assert_passes(verdict: Verdict, scenario: str) -> None:
    """No rejection, and every observation explained (see :data:`EXPLAINED`)."""
    assert not verdict.rejections, f"SUNAT rejects {scenario}:\n{verdict.describe()}"
    explained = EXPLAINED.get("*", {}) | EXPLAINED.get(scenario, {})
    unexplained = [code for code in verdict.observation_codes if code not in explained]
    assert not unexplained, f"SUNAT observes {scenario} ({unexplained}), unexplained:\n{verdict.describe()}"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_every_scenario_passes_sunats_stylesheets(
    judge: Judge, client: httpx.Client, scenario: Scenario
) -> None:
    body = scenario.build(lambda prerequisite: issue(client, prerequisite)["data"])
    payload = issue(client, body)
    data = payload["data"]
    xml = httpx.get(payload["links"]["xml"])
    assert xml.status_code == 200
    verdict = _judged(judge, xml.content, data["filename"])
    _assert_passes(verdict, scenario.name)
    # the simulator's answer agrees: what SUNAT's stylesheets accept, the service's SUNAT accepts
    if payload["response"]:
        assert payload["response"]["code"] == "0", payload["response"]


def _summary_xml(client: httpx.Client, kind: str, external_id: str) -> tuple[bytes, str]:
    response = client.get(f"/downloads/{kind}/xml/{external_id}")
    assert response.status_code == 200, response.text
    disposition = response.headers["content-disposition"]
    return response.content, disposition.split('filename="')[1].rstrip('"')


def test_daily_summaries_pass_sunats_stylesheets(judge: Judge, live: LiveService) -> None:
    """A day's boletas and boleta notes declared (condition 1), then one voided (condition 3)."""
    shop = new_shop(live, "xsl-rc")
    with live.client(shop.slug, shop.token) as client:
        first = issue(client, boleta_body())["data"]
        big = boleta_body()
        big["items"][0].update(cantidad=20, total_base_igv=1000, total_igv=180, total_impuestos=180)
        big["items"][0].update(total_valor_item=1000, total_item=1180)
        big["totales"].update(
            total_operaciones_gravadas=1000, total_igv=180, total_impuestos=180, total_valor=1000
        )
        big["totales"]["total_venta"] = 1180
        issue(client, big)
        issue(
            client,
            boleta_body(
                codigo_tipo_moneda="USD",
                datos_del_cliente_o_receptor={
                    "codigo_tipo_documento_identidad": "0",
                    "numero_documento": "-",
                    "apellidos_y_nombres_o_razon_social": "CLIENTES VARIOS",
                },
            ),
        )
        note = credit_note_body(first["external_id"], serie_documento="BC01")
        note["datos_del_cliente_o_receptor"] = boleta_body()["datos_del_cliente_o_receptor"]
        issue(client, note)
        declared = declare(client)
        summary_status(client, declared, accepted=True)
        xml, name = _summary_xml(client, "summary", declared["external_id"])
        _assert_passes(_judged(judge, xml, name), "summary_declare")
        voiding = void_boletas(client, first["external_id"])
        summary_status(client, voiding, accepted=True)
        xml, name = _summary_xml(client, "summary", voiding["external_id"])
        _assert_passes(_judged(judge, xml, name), "summary_void")


def test_daily_summary_of_boletas_with_isc_and_other_taxes(judge: Judge, live: LiveService) -> None:
    """A boleta with ISC and one with other taxes: their summary lines carry the 2000 and 9999 taxes, so
    SUNAT's sum of the line (4027: bases + IGV + ISC + other taxes = total) holds."""
    shop = new_shop(live, "xsl-rc-isc")
    with live.client(shop.slug, shop.token) as client:
        issue(client, isc.isc_boleta("02"))
        other = boleta_body()
        other["items"] = [isc.other_taxes_item()]
        other["totales"] = {
            "total_operaciones_gravadas": 100,
            "total_igv": 18,
            "total_base_otros_impuestos": 100,
            "total_otros_impuestos": 5,
            "total_impuestos": 23,
            "total_valor": 100,
            "total_venta": 123,
        }
        issue(client, other)
        declared = declare(client)
        summary_status(client, declared, accepted=True)
        xml, name = _summary_xml(client, "summary", declared["external_id"])
        verdict = _judged(judge, xml, name)
        _assert_passes(verdict, "summary_isc")
        assert not verdict.observation_codes, verdict.describe()
    text = xml.decode()
    assert ">2000</cbc:ID>" in text and ">9999</cbc:ID>" in text
    assert '<cbc:TaxAmount currencyID="PEN">9.00</cbc:TaxAmount>' in text  # the pisco's ISC


def test_voided_communications_pass_sunats_stylesheets(judge: Judge, live: LiveService) -> None:
    """A factura and a credit note voided in one communication."""
    shop = new_shop(live, "xsl-ra")
    with live.client(shop.slug, shop.token) as client:
        factura = issue(client, invoice_body())["data"]
        other = issue(client, invoice_body())["data"]
        note = issue(client, credit_note_body(other["external_id"]))["data"]
        response = client.post(
            "/api/voided",
            json={
                "fecha_de_emision_de_documentos": invoice_body()["fecha_de_emision"],
                "documentos": [
                    {"external_id": factura["external_id"], "motivo_anulacion": "Error en el RUC"},
                    {"external_id": note["external_id"], "motivo_anulacion": "Nota emitida por error"},
                ],
            },
        )
        assert response.status_code == 200, response.text
        data = response.json()["data"]
        answer = wait_for(client, "/api/voided/status", {"external_id": data["external_id"]})
        assert answer.status_code == 200 and answer.json()["response"]["is_accepted"] is True, answer.text
        xml, name = _summary_xml(client, "voided", data["external_id"])
        _assert_passes(_judged(judge, xml, name), "voided")
