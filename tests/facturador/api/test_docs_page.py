"""``/docs`` works on a machine without internet: the Swagger UI page loads its script, style and icon from
the service itself (shipped in a package from PyPI), never from a CDN, at the root and under a tenant."""

from __future__ import annotations

import os
import re

import httpx
import pytest

from tests.conftest import LiveService
from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS

ASSET = re.compile(r"""(?:src|href)=['"]([^'"]+)['"]""")


@pytest.mark.parametrize("prefix", ["", "/t/acme"])
def test_the_docs_page_loads_every_asset_from_the_service(live: LiveService, prefix: str) -> None:
    page = httpx.get(f"{live.root}{prefix}/docs")
    assert page.status_code == 200
    assets = ASSET.findall(page.text)
    assert len(assets) >= 3, page.text  # the script, the style sheet and the icon
    for asset in assets:
        assert asset.startswith(f"{prefix}/"), f"{asset} is not served by the service"
        answer = httpx.get(live.root + asset)
        assert answer.status_code == 200, asset
        assert len(answer.content) > 100
    kinds = {httpx.get(live.root + a).headers["content-type"].split(";")[0] for a in assets}
    assert {"text/javascript", "text/css", "image/png"} <= kinds
    assert f"url: '{prefix}/openapi.json'" in page.text


@pytest.mark.slow
def test_the_docs_page_renders_with_the_network_cut_off(live: LiveService) -> None:
    """In Chromium every request outside the service fails, as on a machine without internet."""
    if not CHROMIUM.exists():
        if os.environ.get("FACTURADOR_REQUIRE_BROWSER") == "1":  # CI installs it
            pytest.fail(f"FACTURADOR_REQUIRE_BROWSER=1 but {CHROMIUM} is missing")
        pytest.skip(f"needs Debian's chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    outside: list[str] = []

    def only_the_service(route, request) -> None:  # type: ignore[no-untyped-def]
        if request.url.startswith(live.root):
            route.continue_()
        else:
            outside.append(request.url)
            route.abort()

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.route("**/*", only_the_service)
            page.goto(f"{live.root}/docs")
            page.wait_for_selector(".swagger-ui .info .title", timeout=30_000)
            assert "facturador-kit service" in page.inner_text(".swagger-ui .info .title")
            page.wait_for_selector(".opblock-summary-path", timeout=30_000)
            assert page.locator(".opblock").count() > 20
        finally:
            browser.close()
    assert outside == []
