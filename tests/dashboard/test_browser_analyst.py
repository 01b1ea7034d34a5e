"""The analyst's flows in headless Chromium against ``streamlit run`` on the live service: a double click
on «Emitir» makes one document, a KPI shows its whole amount, the PLE file downloads with a right first
line, and the overdue-boleta alert is on the first page. Screenshots go to the test's temporary folder."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from analysis.sales import sales_of, summarize
from connector import Client
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.dashboard.browser import require_browser, streamlit_app, wait_for_app
from tests.dashboard.conftest import History, Issued, write_tenants
from tests.dashboard.test_browser import edit_cell
from tests.samples.tenants import ACME, ACME_TOKEN

sync_api = require_browser()

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def dashboard(
    live: LiveService, issued: Issued, history: History, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("analyst")
    tenants = write_tenants(folder / "tenants.toml", live.base_url(ACME), ACME_TOKEN)
    with streamlit_app(folder, tenants) as url:
        yield url


def documents_of(live: LiveService, customer: str) -> list[str]:
    """Numbers of today's documents of ``customer``, asked to the service."""
    today = peru_today()
    with Client(live.base_url(ACME), ACME_TOKEN, cache=False) as client:
        return [r.number for r in client.documents.list(today, today) if r.customer_name == customer]


def test_a_double_click_on_emitir_issues_one_document(
    page: Any, dashboard: str, live: LiveService, shots: Path
) -> None:
    page.goto(f"{dashboard}/issue")
    wait_for_app(page)
    customer = f"DOBLE CLIC {uuid.uuid4().hex[:6].upper()} S.A.C."
    page.get_by_label("Número", exact=True).fill("20601030013")
    page.get_by_label("Nombre o razón social").fill(customer)
    page.get_by_label("Nombre o razón social").press("Enter")
    wait_for_app(page)
    grid = page.get_by_test_id("stDataFrame").first
    grid.scroll_into_view_if_needed()
    edit_cell(page, grid, 0, "descripcion", "Servicio de instalación")
    edit_cell(page, grid, 0, "precio", "118")
    button = page.get_by_role("button", name="Emitir factura")
    button.dblclick()
    page.wait_for_timeout(400)
    if button.count():  # a third, late click while the first one runs (the button may be going away)
        try:
            button.click(timeout=2_000, no_wait_after=True, force=True)
        except sync_api.Error:
            pass
    wait_for_app(page)
    result = page.locator(".st-key-issue_result_box")
    sync_api.expect(result).to_contain_text("emitida y aceptada por SUNAT")
    sync_api.expect(page.get_by_role("button", name="Emitir factura")).to_have_count(0)  # only «Nuevo»
    page.screenshot(path=str(shots / "issue_double_click.png"), full_page=True)
    assert len(documents_of(live, customer)) == 1


def test_a_kpi_shows_its_whole_amount(page: Any, dashboard: str, live: LiveService, shots: Path) -> None:
    page.goto(f"{dashboard}/documents")
    wait_for_app(page)
    card = page.get_by_test_id("stMetric").filter(has_text="Importe total")
    sync_api.expect(card).to_be_visible()
    value = card.get_by_test_id("stMetricValue")
    text, scroll, client = value.evaluate(
        "el => { const inner = el.firstElementChild || el;"
        " return [inner.innerText, inner.scrollWidth, inner.clientWidth]; }"
    )
    assert re.fullmatch(r"S/ -?[\d,]+\.\d{2}", text.strip()), text
    assert scroll <= client + 1, (text, scroll, client)  # not cut with an ellipsis
    end = peru_today()
    with Client(live.base_url(ACME), ACME_TOKEN, cache=False) as connector_client:
        listed = connector_client.documents.list(end - timedelta(days=29), end)
    expected = summarize(sales_of(listed.rows)).soles.total
    assert text.strip() == f"S/ {expected:,.2f}"
    page.screenshot(path=str(shots / "documents_kpis.png"), full_page=True)


def test_the_ple_file_downloads_with_its_first_line(page: Any, dashboard: str, shots: Path) -> None:
    page.goto(f"{dashboard}/register")
    wait_for_app(page)
    with page.expect_download() as download:
        page.get_by_role("button", name="PLE 14.1 (TXT)").click()
    name = download.value.suggested_filename
    today = peru_today()
    assert re.fullmatch(rf"LE20\d{{9}}{today:%Y%m}00140100001[01]11\.TXT", name), name
    content = Path(download.value.path()).read_bytes().decode("ascii")
    first = content.split("\r\n")[0].split("|")
    assert len(first) == 36 and first[-1] == ""
    assert first[0] == f"{today:%Y%m}00" and first[34] in ("1", "2")
    assert re.fullmatch(r"\d{2}/\d{2}/\d{4}", first[3]) and first[5] in ("01", "03", "07", "08")
    page.screenshot(path=str(shots / "register.png"), full_page=True)


def test_the_first_page_shows_the_overdue_boleta(
    page: Any, dashboard: str, history: History, shots: Path
) -> None:
    page.goto(dashboard)
    wait_for_app(page)
    sync_api.expect(page.get_by_role("heading", name="Inicio", exact=True)).to_be_visible()
    alert = page.get_by_test_id("stAlert").filter(has_text="sin declarar")
    sync_api.expect(alert).to_contain_text("fuera del plazo de 7 días")
    page.get_by_text("detalle", exact=False).first.click()
    wait_for_app(page)
    page.screenshot(path=str(shots / "home_alerts.png"), full_page=True)
