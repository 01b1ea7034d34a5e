"""The dashboard in headless Chromium (Debian's ``/usr/bin/chromium`` driven by Playwright) against
``streamlit run`` on the live service: load a date range, see the chart, issue an invoice through the
form, find it in the list. Screenshots go to the test's temporary directory (printed with ``-s``).

Skipped, with the reason, when ``/usr/bin/chromium`` or Playwright is missing (``.ci/run`` installs
Chromium).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from dashboard.charts import MARKER
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.dashboard.browser import (
    assert_headers_fit,
    open_from_sidebar,
    require_browser,
    streamlit_app,
    wait_for_app,
)
from tests.dashboard.conftest import Issued, write_tenants
from tests.samples.tenants import ACME, ACME_TOKEN

sync_api = require_browser()

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def dashboard(live: LiveService, issued: Issued, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``streamlit run`` of the dashboard on a free loopback port, tenants pointing at the live service."""
    folder = tmp_path_factory.mktemp("dashboard")
    tenants = write_tenants(folder / "tenants.toml", live.base_url(ACME), ACME_TOKEN)
    with streamlit_app(folder, tenants) as url:
        yield url


def set_date_range(page: Any, start: Any, end: Any) -> None:
    """Type a range into the Documents page's date input (day, month and year segments of each end)."""
    for which, day in (("start", start), ("end", end)):
        page.get_by_role("spinbutton", name=f"day, Rango de fechas de emisión {which} date").click()
        page.keyboard.type(f"{day:%d%m%Y}", delay=20)
    page.keyboard.press("Escape")
    page.get_by_role("heading", name="Documentos", exact=True).click()  # leave the field: the range is sent
    wait_for_app(page)


def test_documents_range_and_chart(page: Any, dashboard: str, issued: Issued, shots: Path) -> None:
    scripts: list[str] = []
    page.on(
        "request", lambda request: scripts.append(request.url) if request.resource_type == "script" else None
    )
    page.goto(f"{dashboard}/documents")
    wait_for_app(page)
    sidebar = page.get_by_test_id("stSidebar")
    sync_api.expect(sidebar).to_contain_text("Conectado a ACME PERU S.A.C.")
    sync_api.expect(page.get_by_test_id("stSidebarNav")).to_contain_text("Emitir")

    today = peru_today()
    set_date_range(page, today - timedelta(days=6), today)
    hidden = (
        page.get_by_test_id("stDateInput").locator("input").evaluate_all("inputs => inputs.map(i => i.value)")
    )
    assert hidden == [(today - timedelta(days=6)).isoformat(), today.isoformat()], hidden

    charts = page.get_by_test_id(MARKER)
    sync_api.expect(charts).to_have_count(3)
    sync_api.expect(charts.first.locator(".main-svg").first).to_be_visible()
    sync_api.expect(charts.first).to_contain_text("Valor de venta por día")
    assert charts.first.locator("g.trace.bars").count() >= 2  # factura and boleta stacked
    # the bars are drawn (plotly's SVG paths with an area), in the page itself: no iframe per chart
    bar = charts.first.locator("g.trace.bars g.point path").first.bounding_box()
    assert bar is not None and bar["width"] > 0 and bar["height"] > 0, bar
    assert page.locator("iframe").count() == 0
    # three charts, plotly.js's basic bundle fetched and evaluated once; Streamlit's plotly chunk never
    bundles = [url for url in scripts if url.endswith("/plotly-basic.min.js")]
    assert len(bundles) == 1, scripts
    assert not [url for url in scripts if "PlotlyChart" in url], scripts
    assert page.evaluate("() => typeof window.Plotly.newPlot") == "function"
    # the width follows the container: a narrower window, narrower charts
    wide = charts.first.bounding_box()["width"]
    page.set_viewport_size({"width": 900, "height": 1000})
    page.wait_for_function(
        f"() => document.querySelector(\"[data-testid='{MARKER}'] .main-svg\").getBoundingClientRect().width"
        f" < {wide} - 100"
    )
    page.set_viewport_size({"width": 1440, "height": 2000})  # as the other tests of this page see it
    sync_api.expect(page.get_by_test_id("stMetric").filter(has_text="Documentos")).to_be_visible()
    sync_api.expect(page.get_by_test_id("stDataFrame")).to_be_visible()
    page.screenshot(path=str(shots / "documents.png"), full_page=True)


#: Middle of each column of the items editor, from its left edge: the row-marker column (33 px) and the
#: widths set in ``views/issue.py`` (Descripción 240, Cantidad 85, Precio unitario 110); and the column
#: index of its accessible cells (``glide-cell-<column>-<row>``, the row marker is column 0).
ITEM_X = {"descripcion": 33 + 120, "cantidad": 33 + 240 + 42, "precio": 33 + 240 + 85 + 55}
ITEM_COLUMN = {"descripcion": 1, "cantidad": 2, "precio": 3}


def edit_cell(page: Any, grid: Any, row: int, column: str, text: str, shown: str | None = None) -> None:
    """Type ``text`` into a cell of the items editor (a canvas): double-click opens the cell's editor,
    Enter confirms; wait for the rerun the edit causes and check the cell now shows ``shown`` (the
    grid's accessible cells mirror the canvas). An edit typed while a rerun repaints the grid can be
    lost, and a rerun can move the grid (a panel appears above it): each try closes a stray editor,
    scrolls the grid into view and measures it again, types only into an editor open over the wanted
    column, and waits longer than the last (five tries)."""
    cell = grid.get_by_test_id(f"glide-cell-{ITEM_COLUMN[column]}-{row}")
    for attempt in range(5):
        page.keyboard.press("Escape")
        wait_for_app(page)
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        page.mouse.dblclick(box["x"] + ITEM_X[column], box["y"] + 35 * (row + 1) + 17)
        page.wait_for_timeout(200 + 300 * attempt)
        editor = page.locator("#portal textarea, #portal input")
        if not editor.count():
            continue
        # the editor of another cell (a double-click that landed while a rerun moved the grid once put
        # «3» in Descripción): the overlay opens over its cell, so it must cover the column's middle
        where = editor.first.bounding_box()
        if where is None or not where["x"] <= box["x"] + ITEM_X[column] <= where["x"] + where["width"]:
            continue
        editor.first.focus()  # text input goes to the focused element: the editor
        page.keyboard.press("Control+A")
        # a character no key types (a Unicode minus) comes as text input, as an IME sends it
        for char in text:
            if char.isascii():
                page.keyboard.type(char, delay=10)
            else:
                page.keyboard.insert_text(char)
        page.keyboard.press("Enter")
        wait_for_app(page)
        if (shown or text) in cell.inner_text():
            return
    raise AssertionError(f"the items editor did not take {text!r} in {column} (shows {cell.inner_text()!r})")


def test_issue_an_invoice_and_find_it_in_the_list(page: Any, dashboard: str, shots: Path) -> None:
    page.goto(f"{dashboard}/issue")
    wait_for_app(page)
    sync_api.expect(page.get_by_role("heading", name="Emitir comprobante")).to_be_visible()
    customer = "CLIENTE DEL NAVEGADOR S.A.C."
    page.get_by_label("Número", exact=True).fill("20601030013")
    page.get_by_label("Nombre o razón social").fill(customer)
    page.get_by_label("Nombre o razón social").press("Enter")
    wait_for_app(page)

    grid = page.get_by_test_id("stDataFrame").first  # the items editor (a canvas)
    grid.scroll_into_view_if_needed()
    edit_cell(page, grid, 0, "descripcion", "Servicio de instalación")
    edit_cell(page, grid, 0, "cantidad", "2")
    edit_cell(page, grid, 0, "precio", "118")
    page.screenshot(path=str(shots / "issue_form.png"), full_page=True)
    metrics = page.get_by_test_id("stMetric")
    sync_api.expect(metrics.filter(has_text="Total")).to_contain_text("S/ 236.00")
    sync_api.expect(metrics.filter(has_text="IGV")).to_contain_text("S/ 36.00")

    page.get_by_role("button", name="Emitir factura").click()
    wait_for_app(page)
    result = page.locator(".st-key-issue_result_box")
    sync_api.expect(result).to_contain_text("emitida")
    heading = result.get_by_role("heading", level=3).inner_text().strip()
    assert heading.startswith("F001-"), heading
    sync_api.expect(result.get_by_test_id("stImage")).to_be_visible()  # the QR
    sync_api.expect(result).to_contain_text("Aceptado")
    page.screenshot(path=str(shots / "issue_result.png"), full_page=True)

    open_from_sidebar(page, "Documentos", "Documentos")
    page.get_by_label("Cliente", exact=True).fill("navegador")
    page.get_by_label("Cliente", exact=True).press("Enter")
    wait_for_app(page)
    documents = page.get_by_test_id("stMetric").filter(has_text="Documentos")
    sync_api.expect(documents.get_by_test_id("stMetricValue")).to_have_text("1")
    sync_api.expect(page.get_by_role("heading", name="1 documento", exact=True)).to_be_visible()
    table = page.get_by_test_id("stDataFrame").first
    sync_api.expect(table.locator("table")).to_contain_text(heading)

    # select its row (the checkbox of the row-marker column) and download its PDF and XML
    box = table.bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)
    wait_for_app(page)
    sync_api.expect(page.get_by_role("heading", name=f"{heading} · {customer}")).to_be_visible()
    for label, magic in (("PDF", b"%PDF"), ("XML", b"<?xml")):
        with page.expect_download() as download:
            page.get_by_role("button", name=label, exact=True).click()
        content = Path(download.value.path()).read_bytes()
        assert content.startswith(magic), content[:40]
        assert download.value.suggested_filename.startswith(heading)
    page.screenshot(path=str(shots / "documents_found.png"), full_page=True)


def test_a_price_the_form_cannot_take_is_refused_under_the_items(
    page: Any, dashboard: str, shots: Path
) -> None:
    """Issue 31: typed into the grid, «−50» (a Unicode minus) became 50 or 5.00 and a factura for
    S/ 5.00 was issued. The cell keeps what was typed, the error says it under the items, nothing is
    issued; a price the form can read is shown in the review as it will be signed."""
    page.goto(f"{dashboard}/issue")
    wait_for_app(page)
    page.get_by_label("Número", exact=True).fill("20601030013")
    page.get_by_label("Nombre o razón social").fill("CLIENTE DEL SIGNO S.A.C.")
    page.get_by_label("Nombre o razón social").press("Enter")
    wait_for_app(page)
    grid = page.get_by_test_id("stDataFrame").first
    grid.scroll_into_view_if_needed()
    edit_cell(page, grid, 0, "descripcion", "Servicio de instalación")
    edit_cell(page, grid, 0, "cantidad", "3")
    for typed in ("−50", "-50"):
        edit_cell(page, grid, 0, "precio", typed)  # the cell shows it as typed
        sync_api.expect(page.get_by_test_id("stMetric")).to_have_count(0)  # no totals from it
        page.get_by_role("button", name="Emitir factura").click()
        wait_for_app(page)
        error = page.get_by_test_id("stAlertContentError").filter(has_text=f"«{typed}» no puede ser negativo")
        sync_api.expect(error).to_be_visible()
        sync_api.expect(page.locator(".st-key-issue_result_box")).to_have_count(0)  # nothing issued
    page.screenshot(path=str(shots / "issue_minus_refused.png"), full_page=True)
    edit_cell(page, grid, 0, "precio", "1250.50")
    review = page.get_by_test_id("stDataFrame").nth(1)  # «Importes que se firmarán», open
    sync_api.expect(review.locator("table")).to_contain_text("1250.50")
    sync_api.expect(review.locator("table")).to_contain_text("3,751.50")
    sync_api.expect(page.get_by_test_id("stMetric").filter(has_text="Total")).to_contain_text("S/ 3,751.50")
    page.screenshot(path=str(shots / "issue_exact_price.png"), full_page=True)


def test_a_quantity_the_form_cannot_take_is_refused_under_the_items(
    page: Any, dashboard: str, live: LiveService, shots: Path
) -> None:
    """Issue 31: the quantity cell keeps what was typed («−2», «1,5»: a text column over a float one lost
    the edit), the error says it under the items and nothing is sent; «3» is shown in the review as it
    will be signed."""
    customer = "CLIENTE DE LA CANTIDAD S.A.C."
    page.goto(f"{dashboard}/issue")
    wait_for_app(page)
    page.get_by_label("Número", exact=True).fill("20601030013")
    page.get_by_label("Nombre o razón social").fill(customer)
    page.get_by_label("Nombre o razón social").press("Enter")
    wait_for_app(page)
    grid = page.get_by_test_id("stDataFrame").first
    grid.scroll_into_view_if_needed()
    edit_cell(page, grid, 0, "descripcion", "Cuaderno A4")
    edit_cell(page, grid, 0, "precio", "11.80")
    for typed, said in (("−2", "«−2» no puede ser negativo"), ("1,5", "«1,5» no es un número")):
        edit_cell(page, grid, 0, "cantidad", typed)  # the cell keeps it as typed
        sync_api.expect(page.get_by_test_id("stMetric")).to_have_count(0)  # no totals from it
        page.get_by_role("button", name="Emitir factura").click()
        wait_for_app(page)
        error = page.get_by_test_id("stAlertContentError").filter(has_text=f"Cantidad: {said}")
        sync_api.expect(error).to_be_visible()
        sync_api.expect(page.locator(".st-key-issue_result_box")).to_have_count(0)  # nothing issued
    page.screenshot(path=str(shots / "issue_quantity_refused.png"), full_page=True)
    edit_cell(page, grid, 0, "cantidad", "3")
    review = page.get_by_test_id("stDataFrame").nth(1)  # «Importes que se firmarán», open
    sync_api.expect(review.locator("table")).to_contain_text("Cuaderno A4")
    cells = review.locator("table tbody tr").first.locator("td")
    sync_api.expect(cells.nth(1)).to_have_text("3")  # Cantidad, as it will be signed
    sync_api.expect(cells.nth(7)).to_have_text("35.40")  # Total
    sync_api.expect(page.get_by_test_id("stMetric").filter(has_text="Total")).to_contain_text("S/ 35.40")
    page.screenshot(path=str(shots / "issue_quantity_exact.png"), full_page=True)
    from connector import Client

    with Client(live.base_url(ACME), ACME_TOKEN, cache=False) as client:  # nothing sent for this customer
        listed = client.documents.list(peru_today(), peru_today()).rows
    assert listed and not [row for row in listed if row.get("customer_name") == customer]


def test_a_state_changed_by_hand_asks_why_and_shows_the_record(
    page: Any, dashboard: str, live: LiveService, shots: Path
) -> None:
    """Issue 31: «Cambiar estado a…» asks for a reason, and the document's panel shows who changed it,
    when, from and to what and why; the figures name it."""
    from tests.samples.bodies import invoice_body

    customer = "CLIENTE DEL CAMBIO A MANO S.A.C."
    body = invoice_body()
    body["datos_del_cliente_o_receptor"]["apellidos_y_nombres_o_razon_social"] = customer
    with live.client(ACME, ACME_TOKEN) as client:
        answer = client.post("/api/documents", json=body)
    assert answer.status_code == 200, answer.text
    number = answer.json()["data"]["number"]

    page.goto(f"{dashboard}/documents")
    wait_for_app(page)
    # issued beside the dashboard after an earlier test read this range: asked again, as a user would
    page.get_by_role("button", name="Actualizar", exact=True).click()
    wait_for_app(page)
    page.get_by_label("Cliente", exact=True).fill("cambio a mano")
    page.get_by_label("Cliente", exact=True).press("Enter")
    wait_for_app(page)
    sync_api.expect(page.get_by_role("heading", name="1 documento", exact=True)).to_be_visible()
    table = page.get_by_test_id("stDataFrame").first
    box = table.bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)
    wait_for_app(page)
    sync_api.expect(page.get_by_role("heading", name=f"{number} · {customer}")).to_be_visible()

    page.get_by_test_id("stSelectbox").filter(has_text="Cambiar estado a").click()
    page.get_by_role("option", name="Por anular", exact=True).click()
    wait_for_app(page)
    update = page.get_by_role("button", name="Actualizar estado…")
    sync_api.expect(update).to_be_disabled()  # no reason yet
    reason = page.get_by_label("Motivo del cambio (obligatorio)")
    reason.fill("Baja pedida por el cliente por teléfono")
    reason.press("Enter")
    wait_for_app(page)
    sync_api.expect(update).to_be_enabled()
    update.click()
    wait_for_app(page)
    sync_api.expect(page.get_by_text("Motivo: «Baja pedida por el cliente por teléfono»")).to_be_visible()
    page.get_by_text("Sí, quiero cambiar el estado de este documento").click()
    wait_for_app(page)
    page.get_by_role("button", name="Sí, cambiar a Por anular").click()
    wait_for_app(page)
    sync_api.expect(
        page.get_by_test_id("stCaptionContainer").filter(has_text="cambiado a mano")
    ).to_contain_text(f"{number} (Aceptado → Por anular, «Baja pedida por el cliente por teléfono»)")

    table = page.get_by_test_id("stDataFrame").first
    box = table.bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)
    wait_for_app(page)
    sync_api.expect(page.get_by_text("Estado cambiado a mano 1 vez")).to_be_visible()
    record = page.get_by_test_id("stDataFrame").filter(has_text="Baja pedida por el cliente por teléfono")
    sync_api.expect(record.locator("table")).to_contain_text("Administrador")
    sync_api.expect(record.locator("table")).to_contain_text("Por anular")
    page.screenshot(path=str(shots / "state_changed_by_hand.png"), full_page=True)


def test_the_documents_table_shows_its_last_columns_at_1440_px(page: Any, dashboard: str) -> None:
    """Issue 31: at 1440 px the Documentos table cut off Total and CDR."""
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{dashboard}/documents")
    wait_for_app(page)
    table = page.get_by_test_id("stDataFrame").first
    # the rows shown first are whatever the other tests issued last: a factura's or a boleta's number
    sync_api.expect(table.locator("table")).to_contain_text(
        re.compile(r"[FB][A-Z0-9]{3}-\d+"), timeout=30_000
    )
    assert_headers_fit(table, ["Fecha", "Número", "Cliente", "IGV", "Total", "CDR"])
