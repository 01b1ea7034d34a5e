"""What the browser tests share: Debian's Chromium driven by Playwright, ``streamlit run`` of the dashboard
on a free loopback port, and waiting for a Streamlit run to finish.

A browser test module starts with ``sync_api = require_browser()``: it skips the module, with the reason,
when ``/usr/bin/chromium`` or Playwright is missing (``FACTURADOR_REQUIRE_BROWSER=1`` makes a missing
Chromium an error: CI installs it). The fixtures ``browser_context``, ``page`` and ``shots`` are in
``tests/dashboard/conftest.py``.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboard import APP_PATH, charts
from tests.conftest import free_port

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 30_000
#: The page's charts as plotly's elements (JavaScript): the dashboard's own (:data:`charts.MARKER`, the
#: element is plotly's) or, in a tree before them (the benchmarks' ``--before``), ``st.plotly_chart``'s
#: (plotly's element inside).
CHARTS = (
    f"[...document.querySelectorAll(\"[data-testid='{charts.MARKER}'], [data-testid='stPlotlyChart']\")]"
    ".map((c) => (c.matches('.js-plotly-plot') ? c : c.querySelector('.js-plotly-plot')))"
)
#: True once the page shows three charts drawn with their data: an empty frame (the loading one,
#: «Cargando…») holds no trace and does not count.
CHARTS_DRAWN = (
    "() => (" + CHARTS + ").filter((plot) => plot && plot.querySelector('.main-svg g.trace')).length >= 3"
)


def require_browser() -> Any:
    """Playwright's ``sync_api``; skip the calling module (at import) when Chromium or Playwright is
    missing."""
    if not CHROMIUM.exists():
        if os.environ.get("FACTURADOR_REQUIRE_BROWSER") == "1":  # CI installs chromium: missing is a failure
            raise RuntimeError(f"FACTURADOR_REQUIRE_BROWSER=1 but {CHROMIUM} is missing")
        pytest.skip(
            f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)",
            allow_module_level=True,
        )
    return pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")


@contextlib.contextmanager
def streamlit_app(
    folder: Path,
    tenants: Path,
    port: int | None = None,
    processes: list[Any] | None = None,
    tree: Path | None = None,
) -> Iterator[str]:
    """``streamlit run`` of the dashboard on loopback (on ``port``, or a free one) with the tenants file
    ``tenants``; yields its URL (the log goes to ``folder/streamlit.log``; the process is appended to
    ``processes`` when given: a benchmark reads its memory). ``tree``: the dashboard of another checkout
    of the project (a benchmark's before), instead of this one."""
    port = port or free_port()
    app = APP_PATH if tree is None else tree / "dashboard" / "app.py"
    env = {
        **os.environ,
        **({} if tree is None else {"PYTHONPATH": str(tree)}),
        "FACTURADOR_TENANTS": str(tenants),
        "FACTURADOR_CACHE_DIR": str(folder / "cache"),
        "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
    }
    command = [
        sys.executable, "-m", "streamlit", "run", str(app),
        "--server.headless", "true",
        "--server.address", "127.0.0.1",
        "--server.port", str(port),
        "--server.fileWatcherType", "none",
        "--browser.gatherUsageStats", "false",
        "--client.toolbarMode", "minimal",  # as facturador.cli.start_dashboard: no «Deploy»
        "--global.developmentMode", "false",
    ]  # fmt: skip
    log = (folder / "streamlit.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=folder)
    if processes is not None:
        processes.append(process)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                    if answer.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    "streamlit did not start:\n" + (folder / "streamlit.log").read_text(errors="replace")
                )
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            process.kill()
        log.close()


def open_from_sidebar(page: Any, label: str, heading: str, tries: int = 3) -> None:
    """Click the page ``label`` in the sidebar's navigation until the page titled ``heading`` shows (each
    click waits up to 10 s), then wait for its script: on a loaded CI machine a click that landed while
    the sidebar was being drawn again was lost once (the page stayed where it was for 30 s)."""
    link = page.get_by_test_id("stSidebarNav").get_by_text(label, exact=True)
    title = page.get_by_role("heading", name=heading, exact=True)
    for attempt in range(tries):
        link.click()
        try:
            title.wait_for(state="visible", timeout=10_000)
            break
        except Exception:  # playwright's TimeoutError (playwright is imported only where it is installed)
            if attempt == tries - 1:
                raise
    wait_for_app(page)


def wait_for_app(page: Any) -> None:
    """Wait until the script has finished running and nothing is loading (Streamlit's own e2e checks)."""
    page.wait_for_selector("[data-testid='stAppViewContainer']", state="attached")
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", state="attached")
    page.wait_for_function(
        "() => { const app = document.querySelector(\"[data-testid='stApp']\");"
        " return app && app.getAttribute('data-test-script-state') === 'notRunning'"
        " && document.querySelectorAll(\"[data-testid='stSkeleton']\").length === 0; }"
    )
    page.wait_for_timeout(300)


def assert_headers_fit(grid: Any, labels: list[str], width: int = 1440) -> None:
    """The table ``grid`` (an ``stDataFrame``) shows the whole headers ``labels`` inside a viewport
    ``width`` wide. The grid is a canvas; its accessible table holds the columns in view (those whose
    left edge is inside the grid's visible part), in order, and its cells have no box of their own. So a
    header ends inside the grid's view when a column after it is drawn too (its right edge is that
    column's left edge), or it is the last column and the grid scrolls nothing sideways; and the grid
    ends within the viewport."""
    found = grid.evaluate(
        """(el) => ({
            right: el.getBoundingClientRect().right,
            scroll: [...el.querySelectorAll('.dvn-scroller')].map((s) => [s.scrollWidth, s.clientWidth]),
            headers: [...el.querySelectorAll('th')].map((th) => th.innerText.trim()),
        })"""
    )
    assert found["right"] <= width, found
    headers, fits = (
        found["headers"],
        bool(found["scroll"]) and all(inner <= outer + 1 for inner, outer in found["scroll"]),
    )
    for label in labels:
        assert label in headers, (label, found)
        assert headers.index(label) < len(headers) - 1 or fits, (label, found)
