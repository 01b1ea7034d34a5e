"""The Void, Summaries and Tickets pages in headless Chromium (Playwright) against ``streamlit run`` on the
live service: void a factura through the page, follow its ticket until SUNAT accepts it, download its
XML and CDR, and find the factura "Anulado" on the Documents page; declare a day's boletas.

Works on a tenant of its own (:mod:`tests.shops`) whose tickets stay in process 1 s, so the page shows
the ticket before SUNAT's answer. Skipped, with the reason, without Chromium or Playwright
(:mod:`tests.dashboard.browser`).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from connector import IssueResult
from connector.builders import Customer, Invoice, Line, Receipt
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.dashboard.browser import (
    assert_headers_fit,
    open_from_sidebar,
    require_browser,
    streamlit_app,
    wait_for_app,
)
from tests.dashboard.conftest import write_tenants
from tests.shops import Shop, new_shop

sync_api = require_browser()

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CUSTOMER = "CLIENTE QUE ANULA S.A.C."


@pytest.fixture(scope="module")
def shop(live: LiveService) -> Shop:
    return new_shop(live, "browser-tickets", authority_ticket_delay=1.0)


@pytest.fixture(scope="module")
def app_url(shop: Shop, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("dashboard-tickets")
    tenants = write_tenants(
        folder / "tenants.toml", shop.base_url, shop.token, name="TIENDA DEL NAVEGADOR S.A.C."
    )
    with streamlit_app(folder, tenants) as url:
        yield url


def issue_factura(shop: Shop) -> IssueResult:
    with shop.client() as client:
        result = client.documents.issue(
            Invoice(
                customer=Customer.ruc("20601030013", CUSTOMER, address="Av. Lima 123", ubigeo="150101"),
                lines=[Line("Servicio de instalación", 1, unit_price=236)],
            )
        )
    assert result.state_type_id == "05"
    return result


def query_until(page: Any, box: Any, text: str, tries: int = 5) -> None:
    """Click the box's "Consultar estado" until the box shows ``text`` (each click waits up to 10 s)."""
    for _ in range(tries):
        box.get_by_role("button", name="Consultar estado").click()
        wait_for_app(page)
        if text in box.inner_text():
            return
    raise AssertionError(f"the ticket box never showed {text!r}: {box.inner_text()}")


def download(page: Any, box: Any, label: str) -> bytes:
    with page.expect_download() as started:
        box.get_by_role("button", name=label, exact=True).click()
    return Path(started.value.path()).read_bytes()


def test_void_a_factura_and_follow_its_ticket(page: Any, app_url: str, shop: Shop, shots: Path) -> None:
    document = issue_factura(shop)
    page.goto(f"{app_url}/void")
    wait_for_app(page)
    sync_api.expect(page.get_by_role("heading", name="Anular documentos")).to_be_visible()
    sync_api.expect(page.get_by_test_id("stSidebarNav")).to_contain_text("Tickets")

    # pick the factura in the multiselect
    page.get_by_test_id("stMultiSelect").click()
    page.get_by_role("option", name=f"{document.number} · Factura").click()
    page.keyboard.press("Escape")
    wait_for_app(page)
    reason = page.get_by_role("textbox", name="Motivo de la anulación")
    reason.fill("Error en la descripción del servicio")
    reason.press("Enter")
    wait_for_app(page)
    page.screenshot(path=str(shots / "void_form.png"), full_page=True)
    page.get_by_role("button", name="Anular 1 documento").click()
    wait_for_app(page)
    # what will be voided, to read and confirm: nothing is sent before
    review = page.locator(".st-key-void_review")
    sync_api.expect(review).to_contain_text("Vas a anular 1 documento emitido el")
    sync_api.expect(review).to_contain_text("por S/ 236.00 en total")
    sync_api.expect(review.get_by_role("button", name="Sí, anular 1 documento")).to_be_disabled()
    page.screenshot(path=str(shots / "void_review.png"), full_page=True)
    review.get_by_text("Sí, quiero anular este documento").click()
    wait_for_app(page)
    review.get_by_role("button", name="Sí, anular 1 documento").click()
    wait_for_app(page)
    sync_api.expect(page.get_by_test_id("stMain").get_by_test_id("stAlert").first).to_contain_text(
        "Comunicación de baja enviada"
    )
    box = page.locator(".st-key-void_ticket_box")
    sync_api.expect(box).to_contain_text("Enviado")
    sync_api.expect(box).to_contain_text(document.number)
    page.screenshot(path=str(shots / "void_sent.png"), full_page=True)

    query_until(page, box, "Aceptado")
    sync_api.expect(box).to_contain_text("La Comunicación de baja RA-")
    page.screenshot(path=str(shots / "void_accepted.png"), full_page=True)

    # the Tickets page lists it, with its files
    open_from_sidebar(page, "Tickets", "Tickets")
    table = page.get_by_test_id("stDataFrame").first
    sync_api.expect(table.locator("table")).to_contain_text("Comunicación de baja")
    sync_api.expect(table.locator("table")).to_contain_text(document.number)
    page.set_viewport_size({"width": 1440, "height": 900})  # a laptop: SUNAT's answer in view
    wait_for_app(page)
    assert_headers_fit(table, ["Enviado", "Estado", "Código", "Respuesta de SUNAT"])
    ticket = page.locator(".st-key-ticket_box")
    sync_api.expect(ticket).to_contain_text("Aceptado")
    identifier = ticket.get_by_role("heading", level=4).inner_text().strip()
    assert identifier.startswith(f"RA-{peru_today():%Y%m%d}-"), identifier
    xml = download(page, ticket, "XML")
    assert xml.startswith(b"<?xml") and b"VoidedDocuments" in xml
    assert "Error en la descripción del servicio".encode() in xml  # the reason typed in the page
    cdr = download(page, ticket, "CDR")
    with zipfile.ZipFile(io.BytesIO(cdr)) as archive:
        assert archive.namelist()[0].startswith("R-") and identifier in archive.namelist()[0]
    page.screenshot(path=str(shots / "tickets.png"), full_page=True)

    # the Documents page shows the factura voided
    open_from_sidebar(page, "Documentos", "Documentos")
    page.get_by_label("Cliente", exact=True).fill("que anula")
    page.get_by_label("Cliente", exact=True).press("Enter")
    wait_for_app(page)
    table = page.get_by_test_id("stDataFrame").first
    sync_api.expect(table.locator("table")).to_contain_text(document.number)
    sync_api.expect(table.locator("table")).to_contain_text("Anulado")
    page.screenshot(path=str(shots / "documents_voided.png"), full_page=True)


def test_declare_a_day_of_boletas(page: Any, app_url: str, shop: Shop, shots: Path) -> None:
    with shop.client() as client:
        numbers = [
            client.documents.issue(
                Receipt(
                    customer=Customer.dni("46027862", "JUAN PEREZ QUISPE"),
                    lines=[Line("Polo algodón", 1, unit_price=59)],
                )
            ).number
            for _ in range(2)
        ]
    page.goto(f"{app_url}/summaries")
    wait_for_app(page)
    sync_api.expect(page.get_by_role("heading", name="Resúmenes diarios")).to_be_visible()
    metric = page.get_by_test_id("stMetric").filter(has_text="Boletas por declarar")
    sync_api.expect(metric).to_contain_text("2")
    page.get_by_role("button", name=f"Declarar 2 documentos del {peru_today():%d/%m/%Y}").click()
    wait_for_app(page)
    review = page.locator(".st-key-summary_review")
    sync_api.expect(review).to_contain_text("Vas a declarar 2 documentos")
    review.get_by_text("Sí, quiero declarar estos 2 documentos").click()
    wait_for_app(page)
    review.get_by_role("button", name="Sí, declarar 2 documentos").click()
    wait_for_app(page)
    box = page.locator(".st-key-summary_ticket_box")
    sync_api.expect(box).to_contain_text("Resumen diario")
    sync_api.expect(box).to_contain_text(numbers[0])
    query_until(page, box, "Aceptado")
    sync_api.expect(box).to_contain_text("El Resumen diario RC-")
    sync_api.expect(metric).to_contain_text("0")
    page.screenshot(path=str(shots / "summaries.png"), full_page=True)
