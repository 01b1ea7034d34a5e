"""Every page of the dashboard in one browser session against a real tenant's stand-in with its rate
limit on (Pro9's ``throttle:60,1``, shortened to 3 requests a second: a wait every second
request, however slow the machine), reading through the local store:
the store's sync waits for the window in its worker thread, the sidebar says so, and no page shows an
exception (``streamlit.errors.NoSessionContext`` was one on six of them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.dashboard.browser import require_browser, streamlit_app, wait_for_app
from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_browser_pages import PAGES
from tests.real_tenant.seed import seed
from tests.real_tenant.server import StandIn, running, stand_in
from tests.real_tenant.variants import PRO9

require_browser()

pytestmark = [pytest.mark.browser, pytest.mark.slow(seconds=120)]

#: The pages that read through the local store's sync (its pages of a range come in a worker thread).
SYNCED = ("periods", "register", "receivables", "summaries", "void", "commerce")


@pytest.fixture
def throttled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[StandIn, str]]:
    standin = stand_in(PRO9, limit=3, window=1.0)
    seed(standin.tenant)
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))
    with running(standin):
        tenants = write_tenants(tmp_path / "tenants.toml", standin.root, standin.token, name="COMERCIAL REAL")
        with tenants.open("a", encoding="utf-8") as file:
            file.write("store = true\nrate_window = 1\n")
        with streamlit_app(tmp_path, tenants) as url:
            yield standin, url


def test_every_page_in_one_session_while_the_tenant_throttles(
    browser_context: Any, throttled: tuple[StandIn, str], shots: Path
) -> None:
    standin, url = throttled
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 1400})
    page.set_default_timeout(180_000)  # a page waits for the window every second request
    broken: dict[str, str] = {}
    visited: list[str] = []
    waits: list[str] = []
    try:
        page.goto(url)
        wait_for_app(page)
        order = [*SYNCED, *(p for p in PAGES if p not in SYNCED)]
        for path in order:  # from the sidebar: the same session all along
            page.get_by_test_id("stSidebarNav").get_by_text(PAGES[path], exact=True).click()
            page.wait_for_url(f"{url}/{path}", timeout=30_000)
            wait_for_app(page)
            visited.append(PAGES[path])
            text = page.get_by_test_id("stApp").inner_text()
            if page.get_by_test_id("stException").count() or "Traceback" in text:
                broken[PAGES[path]] = text[:400]
            waits += [line for line in text.splitlines() if "Esperando" in line]
            page.screenshot(path=str(shots / f"throttled_{path or 'home'}.png"), full_page=True)
    finally:
        page.close()
    print(f"\nvisited: {visited}\nwaits said: {sorted(set(waits))}\nthrottled: {standin.throttled}")
    assert broken == {}, broken
    assert len(visited) == len(PAGES)
    assert standin.throttled == 0  # the connector waited for the window instead of being refused
    assert waits, "the rate limit never made the connector wait: the test proves nothing"
