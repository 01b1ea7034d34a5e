"""The Retenciones / Percepciones page in AppTest against the live service: issuing from the form (the
amounts computed by the connector), the refusals of a bad form, the list, the monthly chart."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from connector.withholding import WithholdingRecord
from dashboard import APP_PATH
from dashboard.withholding import monthly, monthly_figure
from sunat.calendar import peru_today
from tests.common import wait_for
from tests.conftest import LiveService
from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_app import chart_figures, texts
from tests.samples.withholding import retention
from tests.shops import new_shop

TIMEOUT = 60
PAGE = "views/withholding.py"


def open_page() -> AppTest:
    at = AppTest.from_file(str(APP_PATH), default_timeout=TIMEOUT)
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def fill(at: AppTest, family: str, *, ruc: str = "20100070970", paid: str = "1000.00") -> None:
    at.text_input(key=f"wh_{family}_ruc").set_value(ruc)
    at.text_input(key=f"wh_{family}_name").set_value("SUPERMERCADOS PERUANOS S.A.")
    at.text_input(key=f"wh_{family}_doc").set_value("F001-77")
    at.text_input(key=f"wh_{family}_paid").set_value(paid)


def submit(at: AppTest) -> None:
    next(b for b in at.button if b.label == "Emitir").click().run()
    assert not at.exception, at.exception


def test_issue_a_retention_and_a_perception_from_the_page(tenants: Path) -> None:
    at = open_page()
    assert at.title[0].value == "Retenciones / Percepciones"
    fill(at, "retentions")
    submit(at)
    assert "R001-" in texts(at.success) and ": 0 · El Comprobante de Retencion" in texts(at.success)
    tables = [t.value for t in at.dataframe]
    assert tables and "Retenido" in tables[0].columns
    assert 30.0 in set(tables[0]["Retenido"])  # 3 % of 1000.00, computed with sunat.withholding
    assert ["Aceptado"] in list(tables[0]["Estado"])  # the state's name, never "05"
    assert "Emitir una retención" in [e.label for e in at.expander]
    assert len(chart_figures(at)) == 1
    at.segmented_control(key="withholding_family").set_value("perceptions").run()
    fill(at, "perceptions", paid="500.00")
    submit(at)
    assert "P001-" in texts(at.success)
    tables = [t.value for t in at.dataframe]
    assert 10.0 in set(tables[0]["Percibido"])  # 2 % of 500.00


def test_a_bad_form_sends_nothing(tenants: Path) -> None:
    at = open_page()
    fill(at, "retentions", paid="cero")
    at.text_input(key="wh_retentions_name").set_value("")
    submit(at)
    errors = texts(at.error)
    assert "razón social" in errors and "mayores que 0" in errors
    assert "R001-" not in texts(at.success)
    fill(at, "retentions", ruc="123")
    submit(at)
    assert "No se emitió" in texts(at.error) and "datos_del_proveedor.numero_documento" in texts(at.error)


def test_monthly_counts_accepted_ones_only() -> None:
    def record(day: str, total: str, state: str) -> WithholdingRecord:
        return WithholdingRecord.from_row(
            {
                "external_id": day + total,
                "number": "R001-1",
                "date_of_issue": day,
                "total": total,
                "total_net": "0",
                "percent": "3",
                "state_type_id": state,
            }
        )

    frame = monthly(
        [
            record("2026-10-03", "30.00", "05"),
            record("2026-10-20", "6.00", "05"),
            record("2026-11-01", "9.00", "09"),
            record("2026-11-02", "3.00", "05"),
        ]
    )
    assert frame.to_dict("records") == [
        {"Mes": "10/2026", "Comprobantes": 2, "Total": 36.0},
        {"Mes": "11/2026", "Comprobantes": 1, "Total": 3.0},
    ]
    assert Decimal("0") == Decimal(0) and peru_today()
    # the chart's axis reads months, never a date-time plotly guessed ("23:59:59.9996 Oct 31")
    figure = monthly_figure(frame, "retentions")
    assert figure.layout.xaxis.type == "category"
    assert list(figure.data[0].x) == ["10/2026", "11/2026"]
    assert figure.layout.yaxis.tickformat == ",.2f" and figure.layout.yaxis.tickprefix == "S/ "


def test_the_reversions_of_each_family_are_listed(
    live: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shop = new_shop(live, "dash-rr")
    path = write_tenants(tmp_path / "tenants.toml", shop.base_url, shop.token, name="RR S.A.C.")
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    with live.client(shop.slug, shop.token) as client:
        issued = client.post("/api/retentions", json=retention()).json()["data"]
        sent = client.post(
            "/api/retentions/voided",
            json={
                "fecha_de_emision_de_documentos": peru_today().isoformat(),
                "documentos": [{"external_id": issued["external_id"], "motivo_anulacion": "Error"}],
            },
        ).json()["data"]
        answer = wait_for(client, "/api/retentions/voided/status", {"external_id": sent["external_id"]})
        assert answer.status_code == 200, answer.text
    at = open_page()
    [table] = [t.value for t in at.dataframe if "Reversión" in t.value.columns]
    assert table.iloc[0]["Reversión"].startswith(f"RR-{peru_today():%Y%m%d}-")
    assert table.iloc[0]["Fecha"] == f"{peru_today():%d/%m/%Y}" and table.iloc[0]["Comprobantes"] == 1
    assert "ha sido aceptado" in table.iloc[0]["Respuesta"]
    at.segmented_control(key="withholding_family").set_value("perceptions").run()
    assert not at.exception, at.exception
    assert not any("Reversión" in t.value.columns for t in at.dataframe)
