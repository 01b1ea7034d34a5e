"""The Issue page shows a block's section only for a tenant that enabled its plugin (``plugins = [...]``
in the tenants file), and an enabled section reaches the live service with its block."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from connector import Client
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.dashboard.test_app import app, fill_invoice, texts
from tests.samples.tenants import ACME, ACME_TOKEN

BLOCK_PLUGINS = [
    "plugins.allowances",
    "plugins.advances",
    "plugins.payments",
    "plugins.perception",
    "plugins.retention",
]
SECTIONS = {"Descuentos y cargos", "Anticipos", "Pagos recibidos", "Percepción", "Retención"}


@pytest.fixture
def tenants_with_blocks(tmp_path: Path, live: LiveService, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tenants file whose tenant ``acme`` enables the block plugins."""
    path = tmp_path / "tenants.toml"
    path.write_text(
        f'[tenants.acme]\nname = "ACME PERU S.A.C."\nbase_url = "{live.base_url(ACME)}"\n'
        f'token = "{ACME_TOKEN}"\ncache = false\nplugins = {json.dumps(BLOCK_PLUGINS)}\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    return path


def test_disabled_block_plugins_show_no_section(tenants: Path) -> None:
    at = app("views/issue.py")
    assert not at.exception, at.exception
    labels = {e.label for e in at.expander}
    assert "Detracción" in labels and not labels & SECTIONS
    fill_invoice(at, "EMPRESA SIN SECCIONES S.A.C.")
    assert not any("secciones de abajo" in str(i.value) for i in at.info)


def test_enabled_block_plugins_show_their_sections_and_issue_the_blocks(
    tenants_with_blocks: Path, live: LiveService
) -> None:
    at = app("views/issue.py")
    assert not at.exception, at.exception
    assert SECTIONS <= {e.label for e in at.expander}
    fill_invoice(at, "EMPRESA CON DESCUENTO S.A.C.")  # 2 x 59.00: value 100.00, IGV 18.00
    at.number_input(key="plugin:allowances.discount_percent").set_value(10.0)
    at.selectbox(key="plugin:payments.method").set_value("02")
    at.text_input(key="plugin:payments.reference").set_value("VOUCHER-77")
    at.selectbox(key="plugin:perception.code").set_value("51")
    at.run()
    assert not at.exception, at.exception
    payload = at.json[0].value
    payload = json.loads(payload) if isinstance(payload, str) else payload
    assert [d["codigo"] for d in payload["descuentos"]] == ["02"]
    assert payload["totales"]["total_venta"] == 106.2  # 90.00 + IGV 16.20
    assert payload["pagos"] == [
        {
            "codigo_metodo_pago": "02",
            "codigo_destino_pago": "cash",
            "monto": 106.2,
            "referencia": "VOUCHER-77",
        }
    ]
    assert payload["codigo_tipo_operacion"] == "2001" and payload["percepcion"]["monto"] == 2.12
    assert "S/ 106.20" in texts(at.info)  # the total the sections leave, under the form's totals
    at.button(key="issue_submit").click().run()
    assert not at.exception, at.exception
    assert "emitida" in texts(at.main.success), texts(at.main.error)
    number = next(m.value for m in at.markdown if str(m.value).startswith("### F001-"))[4:]
    with Client(live.base_url(ACME), ACME_TOKEN) as client:  # what the service stored and signed
        series, _, correlative = number.partition("-")
        record = client.documents.find(series, int(correlative))
        assert record is not None and record.total == Decimal("106.20")
        xml = client.documents.download_xml(record.external_id).decode()
        rows = client.documents.list(peru_today(), peru_today(), fresh=True).rows
    assert ">02</cbc:AllowanceChargeReasonCode>" in xml and ">51</cbc:AllowanceChargeReasonCode>" in xml
    row = next(r for r in rows if r.get("external_id") == record.external_id)
    assert Decimal(str(row["total_payments"])) == Decimal("106.20")


def test_an_enabled_section_refuses_bad_values_in_its_section(tenants_with_blocks: Path) -> None:
    at = app("views/issue.py")
    fill_invoice(at, "EMPRESA QUE PAGA DE MAS S.A.C.")
    at.selectbox(key="plugin:payments.method").set_value("01")
    at.number_input(key="plugin:payments.amount").set_value(500.0)
    at.run()
    at.button(key="issue_submit").click().run()
    assert not at.exception, at.exception
    assert not at.main.success
    assert "superan el importe total" in texts(at.error)


def test_the_isc_section_issues_an_invoice_with_isc(
    tmp_path: Path, live: LiveService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tenant that enables plugins.isc gets its section; 2 x 59.00 with ISC 01 at 10 %: value 100.00,
    ISC 10.00, IGV 18 % of 110.00 = 19.80, total 129.80."""
    path = tmp_path / "tenants.toml"
    path.write_text(
        f'[tenants.acme]\nname = "ACME PERU S.A.C."\nbase_url = "{live.base_url(ACME)}"\n'
        f'token = "{ACME_TOKEN}"\ncache = false\nplugins = ["plugins.isc"]\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    at = app("views/issue.py")
    assert not at.exception, at.exception
    assert "ISC y otros tributos" in {e.label for e in at.expander}
    fill_invoice(at, "LICORERIA DEL CENTRO S.A.C.")
    at.selectbox(key="plugin:isc.system").set_value("01")
    at.number_input(key="plugin:isc.percent").set_value(10.0)
    at.run()
    assert not at.exception, at.exception
    payload = at.json[0].value
    payload = json.loads(payload) if isinstance(payload, str) else payload
    assert payload["items"][0]["total_isc"] == 10.0 and payload["totales"]["total_venta"] == 129.8
    at.button(key="issue_submit").click().run()
    assert not at.exception, at.exception
    assert "emitida" in texts(at.main.success), texts(at.main.error)
    number = next(m.value for m in at.markdown if str(m.value).startswith("### F001-"))[4:]
    with Client(live.base_url(ACME), ACME_TOKEN) as client:
        series, _, correlative = number.partition("-")
        record = client.documents.find(series, int(correlative))
        assert record is not None and record.total == Decimal("129.80")
        xml = client.documents.download_xml(record.external_id).decode()
    assert "<cbc:TierRange>01</cbc:TierRange>" in xml
