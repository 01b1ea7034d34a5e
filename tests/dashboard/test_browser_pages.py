"""Every page of the dashboard, as an accountant sees it, in headless Chromium on a seeded tenant at
1280 and 1920 px: nothing overlaps or is cut (a KPI amount running into the next card, a page that
scrolls sideways), no English of Streamlit's own shows («View 6 more», «Select all», «Deploy»,
«Press Enter to apply»), and figures read one way: dates dd/mm/yyyy, amounts with thousands separators
and two decimals, no «documento(s)». The screenshots stay in the test's folder to look at."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboard.charts import MARKER
from demo.seeding import seed
from tests.conftest import LiveService
from tests.dashboard.browser import require_browser, streamlit_app, wait_for_app
from tests.dashboard.conftest import write_tenants
from tests.shops import new_shop

sync_api = require_browser()

pytestmark = [pytest.mark.browser, pytest.mark.slow(seconds=40)]

#: Every page's path (``dashboard/app.py``'s PAGES), and its title.
PAGES = {
    "": "Inicio",
    "documents": "Documentos",
    "periods": "Periodos",
    "search": "Buscar",
    "portfolio": "Cartera de empresas",
    "register": "Registro de ventas",
    "igv": "IGV del mes (621)",
    "receivables": "Cuentas por cobrar",
    "issue": "Emitir",
    "summaries": "Resúmenes",
    "void": "Anular",
    "tickets": "Tickets",
    "withholding": "Retenciones / Percepciones",
    "dispatches": "Guías",
    "customers": "Clientes",
    "products": "Productos",
    "sale_notes": "Notas de venta / Cotizaciones",
    "commerce": "Análisis comercial",
}
#: Streamlit's own English, which must not reach the page.
ENGLISH = ("View ", "Select all", "Press Enter", "Help agents", "Deploy", "Running...")
#: Figures written the wrong way: an ISO date, an amount without thousands separators, a stray ".0",
#: "(s)" plurals.
WRONG = {
    "fecha ISO": re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
    "importe sin separador de miles": re.compile(r"(?<![\d,.])\d{4,}\.\d{2}\b"),
    "cantidad con .0": re.compile(r"(?<![\d.])\d+\.0(?![\d.]| ?%)\b"),
    "plural (s)": re.compile(r"\w\(s\)"),
}
#: What overlaps or is cut: a metric's amount wider than its card, a button's text cut, the main area
#: scrolling sideways.
OVERLAPS = """() => {
  const bad = [];
  for (const value of document.querySelectorAll("[data-testid='stMetricValue'] > div")) {
    if (value.scrollWidth > value.clientWidth + 1) bad.push("tarjeta: " + value.innerText);
  }
  for (const text of document.querySelectorAll("button p, button div")) {  // download buttons too
    if (text.innerText && text.scrollWidth > text.clientWidth + 1) bad.push("botón: " + text.innerText);
  }
  const main = document.querySelector("[data-testid='stMain']");
  if (main && main.scrollWidth > main.clientWidth + 1) bad.push("la página se desplaza de lado");
  return bad;
}"""


@pytest.fixture(scope="module")
def seeded_app(live: LiveService, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The dashboard on a tenant seeded like the demo (fewer documents: 240 over 40 days)."""
    shop = new_shop(
        live,
        "pages",
        restrict_receipt_date=False,
        authority_check_deadlines=False,
        authority_ticket_delay=0.0,
    )
    with shop.client() as client:
        report = seed(client, 240, 40, seed=5, workers=3)
    assert report.issued >= 230, report.summary()
    folder = tmp_path_factory.mktemp("pages")
    tenants = write_tenants(
        folder / "tenants.toml", live.base_url(shop.slug), shop.token, name="TIENDA DEMO S.A.C."
    )
    with streamlit_app(folder, tenants) as url:
        yield url


@pytest.mark.parametrize("width", [1280, 1920])
def test_every_page_reads_as_one_careful_spanish_product(
    browser_context: Any, seeded_app: str, shots: Path, width: int
) -> None:
    page = browser_context.new_page()
    page.set_viewport_size({"width": width, "height": 1400})
    problems: dict[str, list[str]] = {}
    try:
        for path, title in PAGES.items():
            page.goto(f"{seeded_app}/{path}")
            wait_for_app(page)
            nav = page.get_by_test_id("stSidebarNav").inner_text()
            assert all(name in nav for name in PAGES.values()), nav  # every page listed
            found = list(page.evaluate(OVERLAPS))
            text = page.get_by_test_id("stApp").inner_text()
            found += [f"inglés: {word!r}" for word in ENGLISH if word in text]
            for what, pattern in WRONG.items():
                found += [f"{what}: {match!r}" for match in sorted(set(pattern.findall(text)))[:5]]
            if found:
                problems[title] = found
            page.screenshot(path=str(shots / f"{path or 'home'}_{width}.png"), full_page=True)
    finally:
        page.close()
    assert problems == {}, "\n".join(f"{title}: {found}" for title, found in problems.items())


def test_periods_draws_its_bars_points_and_slices_with_one_bundle(
    browser_context: Any, seeded_app: str, shots: Path
) -> None:
    """Periodos has seven charts of the three kinds of trace the dashboard draws (bars, a line with its
    points, a pie): each drawn as SVG by the one plotly.js basic bundle the tab fetched."""
    page = browser_context.new_page()
    scripts: list[str] = []
    page.on(
        "request", lambda request: scripts.append(request.url) if request.resource_type == "script" else None
    )
    try:
        page.goto(f"{seeded_app}/periods")
        wait_for_app(page)
        charts = page.get_by_test_id(MARKER)
        sync_api.expect(charts).to_have_count(7)
        sync_api.expect(page.locator(f"[data-testid='{MARKER}'] g.trace")).not_to_have_count(0)
        page.wait_for_function(
            f"() => [...document.querySelectorAll(\"[data-testid='{MARKER}']\")]"
            ".every((c) => c.querySelector('.main-svg g.trace'))"
        )
        for kind in ("g.trace.bars g.point path", "g.trace.scatter g.points path", "g.slice path"):
            shapes = page.locator(f"[data-testid='{MARKER}'] {kind}")
            assert shapes.count() > 0, kind
            box = shapes.first.bounding_box()
            assert box is not None and box["width"] > 0 and box["height"] > 0, (kind, box)
        assert len([url for url in scripts if url.endswith("/plotly-basic.min.js")]) == 1, scripts
        page.screenshot(path=str(shots / "periods_charts.png"), full_page=True)
    finally:
        page.close()
