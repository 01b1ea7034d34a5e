"""How long Inicio takes to show its alerts on the demo's tenant (issue 21: under 2 s).

The landing page checks a year of documents (boletas never declared, facturas without CDR, rejected
documents, voidings past their deadline) and the lists of summaries and voided communications. This
measures, in one run, in headless Chromium against ``streamlit run`` of the dashboard started fresh:

- first visit: the very first page after the dashboard starts (the server imports its modules too);
- cold: a new session after the modules were loaded (a visit to the empty Buscar page first), nothing
  cached (Streamlit, connector): what an analyst waits for when opening the dashboard;
- warm: the page opened again in a new tab (the year's documents cached for ``LIST_TTL``);

each from navigation to the alerts shown (the «Revisado: ...» caption and every alert box), and from the
page shown (its title drawn: Streamlit's own shell, the same for every page, is loaded) to the alerts:
what the analyst waits for under «Revisando documentos…», the issue's target of 2 s. Also the same work
without a browser (list of the year, Sale objects, summaries' lists, alerts) for the breakdown.

The tenant: the demo's by default, seeded like ``facturador demo`` (3,000 documents over 90 days, with
summaries and voidings) on a throw-away service; or ``--base``/``--token`` of a running one (say,
``bash scripts/demo.sh``: http://127.0.0.1:8000/t/demo).
Run:  python benchmarks/home_page.py [--documents 3000 --days 90] [--base URL --token TOKEN]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import statistics
import sys
import tempfile
import time
from pathlib import Path

from analysis.alerts import alerts
from analysis.sales import listed_sales
from connector import Client
from demo.seeding import seed
from facturador.config import Settings
from sunat.calendar import peru_today

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(ROOT))
from issue import TOKEN, create_bench_tenant, start_server  # noqa: E402

#: As ``dashboard/views/home.py`` looks back.
LOOK_BACK_DAYS = 366
#: True once the page is there: Inicio's title drawn (Streamlit's shell loaded, the script running).
PAGE_SHOWN = """() => [...document.querySelectorAll("h1")].some((h) => h.innerText.trim() === "Inicio")"""
#: True once Inicio shows its alerts: the «Revisado» caption is drawn after they are computed.
ALERTS_SHOWN = """() => [...document.querySelectorAll("[data-testid='stCaptionContainer']")]
  .some((c) => c.innerText.startsWith("Revisado: documentos emitidos"))
  && document.querySelectorAll("[data-testid='stMain'] [data-testid='stAlert']").length >= 3"""


def connector_work(base: str, token: str) -> dict[str, float]:
    """The page's work without Streamlit, on a new client (nothing cached): seconds by step."""
    today = peru_today()
    start = today - dt.timedelta(days=LOOK_BACK_DAYS - 1)
    with Client(base, token, cache=False, timeout=120) as client:
        t0 = time.perf_counter()
        listed = client.documents.list(start, today)
        t1 = time.perf_counter()
        sales = listed_sales(listed)
        t2 = time.perf_counter()
        records = [*client.summaries.list(start, today), *client.voided.list(start, today)]
        t3 = time.perf_counter()
        alerts(sales, today, records)
        t4 = time.perf_counter()
    return {"list": t1 - t0, "sales": t2 - t1, "records": t3 - t2, "alerts": t4 - t3, "total": t4 - t0}


def browser_runs(base: str, token: str, folder: Path, repeat: int) -> dict[str, list[float]]:
    """Seconds from navigating to Inicio to its alerts shown: first visit, cold and warm (see above)."""
    from playwright.sync_api import sync_playwright

    from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS, streamlit_app, wait_for_app

    tenants = folder / "tenants.toml"
    tenants.write_text(f'[tenants.demo]\nname = "Demo"\nbase_url = "{base}"\ntoken = "{token}"\n')
    runs: dict[str, list[float]] = {
        name: []
        for kind in ("first visit", "cold", "warm")
        for name in (kind, f"{kind}, after the page shows")
    }
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=False
        )

        def home(url: str) -> tuple[float, float]:
            page = browser.new_page(viewport={"width": 1440, "height": 1400})
            started = time.perf_counter()
            page.goto(url)
            page.wait_for_function(PAGE_SHOWN, timeout=120_000, polling=20)
            shown = time.perf_counter()
            page.wait_for_function(ALERTS_SHOWN, timeout=120_000, polling=20)
            done = time.perf_counter()
            page.close()
            return done - started, done - shown

        for attempt in range(repeat):
            for kind in ("first visit", "cold"):
                run_folder = folder / f"{kind.replace(' ', '-')}-{attempt}"
                run_folder.mkdir()
                with streamlit_app(run_folder, tenants) as url:
                    if kind == "cold":
                        warm_up = browser.new_page()
                        warm_up.goto(f"{url}/search")
                        wait_for_app(warm_up)
                        warm_up.close()
                    total, alerts_after = home(url)
                    runs[kind].append(total)
                    runs[f"{kind}, after the page shows"].append(alerts_after)
                    if kind == "cold":
                        total, alerts_after = home(url)
                        runs["warm"].append(total)
                        runs["warm, after the page shows"].append(alerts_after)
        browser.close()
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--documents", type=int, default=3000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--base", help="A running tenant's base URL (no seeding).")
    parser.add_argument("--token", default=TOKEN)
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        base = args.base
        if base is None:
            settings = Settings.resolve(tmp, None)
            overrides = {
                "restrict_receipt_date": False,
                "authority_check_deadlines": False,
                "authority_ticket_delay": 0.0,
            }
            create_bench_tenant(settings, overrides=overrides).engine.dispose()
            process, root = start_server(settings, 2)
            stack.callback(process.wait, 30)
            stack.callback(process.terminate)
            base = f"{root}/t/bench"
            started = time.perf_counter()
            report = seed(
                Client(base, args.token, cache=False, timeout=120), args.documents, args.days, workers=4
            )
            print(f"seeded: {report.summary()} in {time.perf_counter() - started:.0f} s")
        work = [connector_work(base, args.token) for _ in range(args.repeat)]
        runs = browser_runs(base, args.token, tmp, args.repeat)
    steps = " + ".join(
        f"{key} {statistics.median(w[key] for w in work):.3f}"
        for key in ("list", "sales", "records", "alerts")
    )
    print(f"connector work (no browser): {statistics.median(w['total'] for w in work):6.3f} s = {steps}")
    for kind, timings in runs.items():
        print(
            f"browser, Inicio {kind:32} to its alerts: {statistics.median(timings):6.3f} s "
            f"(min {min(timings):.3f}, max {max(timings):.3f}; target < 2 s)"
        )


if __name__ == "__main__":
    main()
