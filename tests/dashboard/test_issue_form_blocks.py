"""The Issue page with issue 11's form plugins (line discounts and charges, item attributes, related
documents and guides, cargo transport): their sections appear only for a tenant that enables them, and
the cargo transport section issues a 1004 factura on the live service."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import LiveService
from tests.dashboard.test_app import app, fill_invoice, texts
from tests.samples.tenants import ACME, ACME_TOKEN

FORM_PLUGINS = [
    "plugins.line_allowances",
    "plugins.item_attributes",
    "plugins.references",
    "plugins.cargo_transport",
]
SECTIONS = {
    "Descuentos y cargos por ítem",
    "Datos adicionales del ítem",
    "Documentos relacionados y guías",
    "Transporte de carga (detracción 1004)",
}


@pytest.fixture
def tenants_with_form_blocks(tmp_path: Path, live: LiveService, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tenants file whose tenant ``acme`` enables the form plugins."""
    path = tmp_path / "tenants.toml"
    path.write_text(
        f'[tenants.acme]\nname = "ACME PERU S.A.C."\nbase_url = "{live.base_url(ACME)}"\n'
        f'token = "{ACME_TOKEN}"\ncache = false\nplugins = {json.dumps(FORM_PLUGINS)}\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    return path


def test_disabled_form_plugins_show_no_section(tenants: Path) -> None:
    at = app("views/issue.py")
    assert not at.exception, at.exception
    assert not {e.label for e in at.expander} & SECTIONS


def test_enabled_form_plugins_show_their_sections_and_issue_a_cargo_factura(
    tenants_with_form_blocks: Path, live: LiveService
) -> None:
    at = app("views/issue.py")
    assert not at.exception, at.exception
    assert SECTIONS <= {e.label for e in at.expander}
    fill_invoice(at, "TRANSPORTES DEL SUR S.A.C.")  # 2 x 59.00 = 118.00
    for key, value in {
        "cargo.detail": "Traslado de 12 t de cemento",
        "cargo.origin_ubigeo": "150101",
        "cargo.origin_address": "Av. Argentina 2050, Lima",
        "cargo.destination_ubigeo": "040101",
        "cargo.destination_address": "Av. Parra 300, Arequipa",
        "cargo.account": "00-068-123456",
    }.items():
        at.text_input(key=f"plugin:{key}").set_value(value)
    for key, amount in {
        "service_value": 1100.0,
        "effective_load_value": 900.0,
        "payload_value": 950.0,
    }.items():
        at.number_input(key=f"plugin:cargo.{key}").set_value(amount)
    at.run()
    assert not at.exception, at.exception
    payload = at.json[0].value
    payload = json.loads(payload) if isinstance(payload, str) else payload
    assert payload["codigo_tipo_operacion"] == "1004"
    block = payload["detraccion"]
    assert block["codigo_tipo_detraccion"] == "027" and block["monto"] == 4.72
    assert block["ubigeo_destino"] == "040101" and block["valor_referencial_servicio_transporte"] == 1100.0
    at.button(key="issue_submit").click().run()
    assert not at.exception, at.exception
    assert "emitida" in texts(at.main.success), texts(at.main.error)
