"""The Guías page in ``streamlit.testing.v1.AppTest`` against the live service, on a tenant of its own:
issue a guide from the form, send it, follow its ticket to the CDR, and refused input shown."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_app import app, texts
from tests.samples.bodies import CUSTOMER_RUC, invoice_body
from tests.shops import Shop, new_shop


@pytest.fixture
def shop(live: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Shop:
    shop = new_shop(live, "dash-guias", authority_ticket_delay=0.3)
    path = write_tenants(tmp_path / "tenants.toml", shop.base_url, shop.token, name="GUIAS S.A.C.")
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    return shop


def fill(at: AppTest, **values: object) -> None:
    for key, value in values.items():
        widget = at.number_input(key=key) if isinstance(value, int | float) else at.text_input(key=key)
        widget.set_value(value)


def test_issue_send_and_follow_a_guide(shop: Shop) -> None:
    at = app("views/dispatches.py")
    assert not at.exception, at.exception
    assert at.title[0].value == "Guías"
    assert "No hay guías" in texts(at.info)
    fill(
        at,
        guide_customer_ruc="20100070970",
        guide_customer_name="CLIENTE DESTINO S.A.C.",
        guide_origin="Av. Principal 123",
        guide_delivery_ubigeo="150132",
        guide_delivery="Jr. Los Olivos 456",
        guide_driver_dni="12345678",
        guide_driver_names="PEREZ GARCIA, JUAN",
        guide_licence="Q12345678",
        guide_plate="ABC123",
        guide_item="Cajas",
    )
    at.get("form_submit_button")[0].click().run()
    assert not at.exception, at.exception
    assert "emitida" in texts(at.success), texts(at.error)
    assert len(at.dataframe) == 1 and at.dataframe[0].value.iloc[0]["Estado"] == "Registrada"
    at.button(key="guide_send").click().run()
    assert "Se obtuvo el nro. de ticket correctamente" in texts(at.success)
    time.sleep(0.6)
    at.button(key="guide_status").click().run()
    assert "ha sido aceptada" in texts(at.success), texts(at.info) + texts(at.error)
    assert at.dataframe[0].value.iloc[0]["Estado"] == "Aceptada"


def test_refused_guide_shows_the_fields(shop: Shop) -> None:
    at = app("views/dispatches.py")
    fill(
        at, guide_customer_ruc="20100070970", guide_customer_name="CLIENTE S.A.C.", guide_delivery_ubigeo="15"
    )
    at.get("form_submit_button")[0].click().run()
    assert not at.exception
    error = texts(at.error)
    assert "No se emitió la guía" in error and "direccion_llegada.ubigeo" in error


def test_a_guide_from_an_accepted_factura(shop: Shop) -> None:
    """Pick an accepted factura, fill the form from it, add the transport and issue: the guide carries the
    factura's lines and cites it."""
    with shop.live.client(shop.slug, shop.token) as http:
        invoice = http.post("/api/documents", json=invoice_body()).json()["data"]
    at = app("views/dispatches.py")
    assert not at.exception, at.exception
    picker = at.selectbox(key="guide_document_pick")
    assert any(invoice["number"] in option for option in picker.options), picker.options
    picker.set_value(invoice["external_id"]).run()
    at.button(key="guide_fill").click().run()
    assert not at.exception, at.exception
    assert at.text_input(key="guide_customer_ruc").value == CUSTOMER_RUC
    assert invoice["number"] in texts(at.info)
    fill(
        at,
        guide_origin="Av. Principal 123",
        guide_delivery_ubigeo="150132",
        guide_delivery="Jr. Los Olivos 456",
        guide_driver_dni="12345678",
        guide_driver_names="PEREZ GARCIA, JUAN",
        guide_licence="Q12345678",
        guide_plate="ABC123",
    )
    at.get("form_submit_button")[0].click().run()
    assert not at.exception, at.exception
    assert "emitida" in texts(at.success), texts(at.error)
    assert invoice["number"] not in texts(at.info)  # the form forgets the document once issued
    with shop.client() as client:
        [guide] = client.dispatches.list(peru_today(), peru_today())
        xml = client.dispatches.download_xml(guide.external_id).decode()
    assert f"<cbc:ID>{invoice['number']}</cbc:ID>" in xml and "ARCH-A4" in xml
