"""The Análisis comercial and Notas de venta pages in headless Chromium against ``streamlit run`` on the
live service, on a tenant of their own with sale notes, a boleta made from one, quotations (one
converted) and stocked products: the charts are drawn and the figures shown. Screenshots go to the
test's temporary folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboard.charts import MARKER
from tests.conftest import LiveService
from tests.dashboard.browser import assert_headers_fit, require_browser, streamlit_app, wait_for_app
from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_commerce_pages import trade
from tests.shops import new_shop

sync_api = require_browser()

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def dashboard(
    live: LiveService, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, dict[str, Any]]]:
    shop = new_shop(live, "browser-analisis")
    numbers = trade(shop)
    folder = tmp_path_factory.mktemp("commerce")
    tenants = write_tenants(folder / "tenants.toml", shop.base_url, shop.token, name="ANALISIS S.A.C.")
    with streamlit_app(folder, tenants) as url:
        yield url, numbers


def test_the_analyst_page_draws_sales_stock_and_quotations(
    page: Any, dashboard: tuple[str, dict[str, Any]], shots: Path
) -> None:
    url, _numbers = dashboard
    page.goto(f"{url}/commerce")
    wait_for_app(page)
    sync_api.expect(page.get_by_role("heading", name="Análisis comercial")).to_be_visible()
    charts = page.get_by_test_id(MARKER)
    sync_api.expect(charts).to_have_count(4)
    for title in (
        "Principales productos",
        "Principales clientes",
        "Valor del stock al costo",
        "Cotizaciones",
    ):
        sync_api.expect(page.locator(".gtitle", has_text=title)).to_have_count(1)
    cost = page.get_by_test_id("stMetric").filter(has_text="al costo").first
    sync_api.expect(cost).to_contain_text("S/ 532.50")
    rate = page.get_by_test_id("stMetric").filter(has_text="Tasa de conversión")
    sync_api.expect(rate).to_contain_text("50 %")
    page.screenshot(path=str(shots / "commerce.png"), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 900})  # a laptop: the stock table's last column
    wait_for_app(page)
    stock = page.get_by_test_id("stDataFrame").filter(has_text="Costo unitario")
    assert_headers_fit(stock, ["Producto", "Valor al costo", "Valor a precio de venta"])


def test_the_sale_notes_page_lists_each_note_with_its_document(
    page: Any, dashboard: tuple[str, dict[str, Any]], shots: Path
) -> None:
    url, numbers = dashboard
    page.goto(f"{url}/sale_notes")
    wait_for_app(page)
    converted = page.get_by_test_id("stMetric").filter(has_text="Convertidas en comprobante")
    sync_api.expect(converted).to_contain_text("1 de 3")
    sync_api.expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    page.screenshot(path=str(shots / "sale_notes.png"), full_page=True)
    assert numbers["boleta"].startswith("B001-")
