"""What an analyst waits for on the Documents page and the sales register, for a large month.

Creates a throw-away tenant, fills it with N documents over the days of the current month so far (or D
days) issued through the API (the seeding module, on ``facturador serve`` with 2 workers), then measures
in one run:

- list endpoint: GET /api/documents/lists/{start}/{end} for the whole range, raw HTTP;
- cold: connector list (cache cleared) + DataFrame + the page's Decimal KPIs and its three figures;
- warm: the same with the connector's cache warm (the answer's DataFrame and ``Sale`` objects are
  reused; the KPIs and figures are computed again - the page itself also keeps them per range and
  filters, so its reruns do not even do that);
- browser (``--browser``): ``streamlit run`` of the dashboard started fresh, headless Chromium opens the
  Documentos page: time from navigation to the three charts drawn (cold: nothing cached anywhere);
- register: ``analysis.register.sales_register(client, month)`` with the cache off, on a new client each time
  (a client keeps the last parsed answer of a path: the same bytes again are not parsed again), list of
  the month and the weeks before it, and its PLE lines.

Targets (issues 3 and 10): cold < 3 s, warm < 0.5 s, list endpoint < 1 s, browser < 3 s, register < 2 s,
for 20,000 documents.
Run:  python benchmarks/documents_page.py --documents 20000 --browser
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from analysis.register import sales_register
from analysis.sales import by_customer, group_totals, listed_sales, summarize
from connector import CacheSettings, Client
from dashboard import data, figures
from demo.seeding import seed
from facturador.config import Settings
from sunat.calendar import peru_today

sys.path.insert(0, str(Path(__file__).parent))
from issue import RUC, TOKEN, create_bench_tenant, start_server  # noqa: E402


def dashboard_work(client: Client, start, end) -> tuple[int, dict[str, float]]:  # type: ignore[no-untyped-def]
    """Fetch the range, build the DataFrame and every figure of the Documents page; timings by step."""
    steps: dict[str, float] = {}
    t0 = time.perf_counter()
    documents = client.documents.list(start, end)
    t1 = time.perf_counter()
    frame = documents.to_dataframe()
    t2 = time.perf_counter()
    sales = listed_sales(documents)
    figures.kpis(summarize(sales))
    figures.daily_figure(sales, start, end)
    data.state_totals_figure(frame)
    figures.customers_figure(group_totals(sales, by_customer)[0])
    t3 = time.perf_counter()
    steps.update(fetch=t1 - t0, dataframe=t2 - t1, figures=t3 - t2, total=t3 - t0)
    return len(frame), steps


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--documents", type=int, default=20000)
    parser.add_argument("--days", type=int, default=None, help="Default: the days of this month so far.")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--browser", action="store_true", help="Also open the page in headless Chromium.")
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="Keep the seeded service in this folder and reuse it on later runs (no seeding when it "
        "already holds the documents). Default: a temporary folder.",
    )
    args = parser.parse_args()
    today = peru_today()
    if args.days is None:
        args.days = max(today.day - 1, 1)  # documents of this month only: the register's month

    with contextlib.ExitStack() as stack:
        if args.data is None:
            tmp = stack.enter_context(tempfile.TemporaryDirectory())
        else:
            args.data.mkdir(parents=True, exist_ok=True)
            tmp = str(args.data)
        seeded = Path(tmp) / f"seeded-{args.documents}-{args.days}"
        settings = Settings.resolve(Path(tmp), None)
        if not seeded.exists():
            overrides = {"restrict_receipt_date": False, "authority_check_deadlines": False}
            create_bench_tenant(settings, overrides=overrides).engine.dispose()
        process, root = start_server(settings, 2)
        try:
            base = f"{root}/t/bench"
            if seeded.exists():
                print(f"reused the documents seeded in {tmp}")
            else:
                started = time.perf_counter()
                report = seed(
                    Client(base, TOKEN, cache=False, timeout=120),
                    args.documents,
                    args.days,
                    workers=6,
                    tickets=False,
                )
                print(f"seeded: {report.summary()} in {time.perf_counter() - started:.0f} s")
                if args.data is not None:
                    seeded.touch()
            end = peru_today()
            start = min(end.fromordinal(end.toordinal() - args.days), end)

            raw = []
            with httpx.Client(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=120) as http:
                for _ in range(args.repeat):
                    t = time.perf_counter()
                    response = http.get(f"{base}/api/documents/lists/{start}/{end}")
                    raw.append(time.perf_counter() - t)
                rows = len(response.json()["data"])
                size = len(response.content)

            client = Client(base, TOKEN, cache=CacheSettings(backend="memory"), timeout=120)
            cold, warm = [], []
            for _ in range(args.repeat):
                client.clear_cache()
                count, steps = dashboard_work(client, start, end)
                cold.append(steps)
                count, steps = dashboard_work(client, start, end)
                warm.append(steps)
            register = []
            for _ in range(args.repeat):  # a new client each time: one client keeps the parsed answer
                with Client(base, TOKEN, cache=False, timeout=120) as plain:
                    t = time.perf_counter()
                    built = sales_register(plain, end, ruc=RUC, name="BENCH S.A.C.")
                    lines = len(built.ple_rows())
                    register.append(time.perf_counter() - t)
            first_visit, browser, returning = (
                browser_cold(base, Path(stack.enter_context(tempfile.TemporaryDirectory())), args.repeat)
                if args.browser
                else ([], [], [])
            )
        finally:
            process.terminate()
            process.wait(timeout=30)

    def median(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(run[key] for run in runs)

    print(f"range {start}..{end}: {rows} rows, {size / 1e6:.1f} MB of JSON")
    took = statistics.median(register)
    print(f"sales register {end:%Y-%m}: {lines} PLE lines in {took:6.3f} s  (target < 2 s)")
    if browser:
        print(
            f"browser, Documentos cold (modules loaded, no data cached) to 3 charts drawn: "
            f"{statistics.median(browser):6.3f} s (min {min(browser):.3f}, max {max(browser):.3f}; "
            "target < 3 s)"
        )
        print(
            "browser, first visit after the server starts (imports too): "
            f"{statistics.median(first_visit):6.3f} s"
        )
        print(
            "browser, returning analyst (static JavaScript in the browser's cache, documents cold on a "
            f"restarted dashboard): {statistics.median(returning):6.3f} s "
            f"(min {min(returning):.3f}, max {max(returning):.3f})"
        )
    print(f"list endpoint (raw HTTP)  : {statistics.median(raw):6.3f} s  (target < 1 s)")
    for name, runs, target in (("cold (cache cleared)", cold, 3.0), ("warm (cache warm)   ", warm, 0.5)):
        print(
            f"{name}: {median(runs, 'total'):6.3f} s  = fetch {median(runs, 'fetch'):.3f} + DataFrame "
            f"{median(runs, 'dataframe'):.3f} + KPIs/figures {median(runs, 'figures'):.3f}"
            f"  (target < {target} s)"
        )


def browser_cold(base: str, folder: Path, repeat: int) -> tuple[list[float], list[float], list[float]]:
    """Seconds from navigating to the Documentos page to its three charts drawn, in headless Chromium, on
    a freshly started dashboard: first as the very first visit (the server also imports its modules),
    then cold again in a new session after only the modules were loaded (a visit to the empty Buscar
    page): no document cached anywhere (Streamlit, connector), the browser's HTTP cache empty too (each
    page is a new browser context). Third, a returning analyst: the same browser context visited the
    page once on an earlier dashboard process on the same port (so Streamlit's and plotly's static
    JavaScript sit in the browser's HTTP cache, as in any browser that opened the dashboard before),
    then the dashboard restarts and the page is opened again: the documents are cold on the server."""
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    from playwright.sync_api import sync_playwright

    from tests.dashboard.browser import (
        CHARTS_DRAWN,
        CHROMIUM,
        CHROMIUM_ARGS,
        free_port,
        streamlit_app,
        wait_for_app,
    )

    tenants = folder / "tenants.toml"
    tenants.write_text(f'[tenants.bench]\nbase_url = "{base}"\ntoken = "{TOKEN}"\ncache = false\n')
    first_visit: list[float] = []
    cold: list[float] = []
    returning_visit: list[float] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=False
        )

        def documents_page(url: str) -> float:
            page = browser.new_page(viewport={"width": 1440, "height": 1600})
            started = time.perf_counter()
            page.goto(f"{url}/documents")
            page.wait_for_function(CHARTS_DRAWN, timeout=120_000)
            took = time.perf_counter() - started
            page.close()
            return took

        def returning(attempt: int) -> float:
            context = browser.new_context(viewport={"width": 1440, "height": 1600})
            port = free_port()
            for visit in ("before", "after"):
                run_folder = folder / f"browser-returning-{visit}-{attempt}"
                run_folder.mkdir()
                with streamlit_app(run_folder, tenants, port=port) as url:
                    page = context.new_page()
                    started = time.perf_counter()
                    page.goto(f"{url}/documents")
                    page.wait_for_function(CHARTS_DRAWN, timeout=120_000)
                    took = time.perf_counter() - started
                    page.close()
            context.close()
            return took

        for attempt in range(repeat):
            for kind, timings in (("first", first_visit), ("cold", cold)):
                run_folder = folder / f"browser-{kind}-{attempt}"
                run_folder.mkdir()
                with streamlit_app(run_folder, tenants) as url:
                    if kind == "cold":
                        warm = browser.new_page()
                        warm.goto(f"{url}/search")
                        wait_for_app(warm)
                        warm.close()
                    timings.append(documents_page(url))
            returning_visit.append(returning(attempt))
        browser.close()
    return first_visit, cold, returning_visit


if __name__ == "__main__":
    main()
