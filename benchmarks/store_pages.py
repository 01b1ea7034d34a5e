"""The analyst's pages over a local store of a year, in Chromium (issue 22's targets).

A throw-away tenant gets a week of real documents (written into the service's database as
``benchmarks/local_store.py`` does) and ``facturador serve`` lists them; the local store of that tenant
is synced from the service for that week (the real path), then filled with ``--documents`` more over the
``--days`` before it, written straight into the store: each row a copy of one of the real list rows
(same keys and formats: a factura, a boleta or a credit note) with its own number, date, customer,
amounts (its line too), state and currency, staged through ``LocalStore``'s own staging (the typed
columns are read out of the JSON as a sync reads them), each day marked fetched with the week's cursor.
A first sync from the service of 1M documents takes ~8 minutes; this takes well under one.

Then, each of ``--repeat`` times, a fresh ``streamlit run`` of the dashboard (store on disk, process new)
and headless Chromium (/usr/bin/chromium) open Documentos for the whole range (``?desde=&hasta=``) and
time it to its three charts drawn:

- *first visit*: the first page the restarted process serves (its imports too);
- *cold*: a new session after the modules were loaded (a visit to the empty Buscar page first), the
  store's range not yet read by the process (the team's cold, as ``benchmarks/documents_page.py``);
- the range of the newest ~20k documents, cold the same way (its range not read yet);
- *warm*: the year again in a browser that showed the page before (the range's figures computed by
  the process, Streamlit's and plotly's JavaScript in the browser's cache), and with the figures
  computed but in a new browser (nothing cached in it);
- today's documents alone (a hundred), cold the same way: what the browser and Streamlit cost whatever
  the range (the machine's load shows there first);
- *in session*, as an analyst keeps the dashboard open (a booted page in a new browser, timed to the
  three charts redrawn with the new data): back to Documentos from Buscar through the sidebar with the
  year read (warm), and a ~20k range not read yet (a day before the small one) typed into the page;
- the peak memory (VmHWM) of the dashboard process after those visits.

The load average (``/proc/loadavg``) is printed beside every figure: the machine is shared.
Run:  python benchmarks/store_pages.py --documents 1000000 --days 365 --data /tmp/pages
Before/after in process on one store (a checkout of an earlier commit in /tmp/before):
      python benchmarks/store_pages.py --compare /tmp/before STORE.duckdb 2026-10-01 2026-12-01 --repeat 3
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import datetime as dt
import itertools
import os
import random
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from connector import Client  # noqa: E402
from connector.store import LocalStore, store_path  # noqa: E402
from sunat.calendar import peru_today  # noqa: E402
from tests.dashboard.browser import CHARTS, CHARTS_DRAWN  # noqa: E402

#: The real documents the service lists (a week of them), the templates of the rest.
REAL_DAYS = 7
REAL_PER_DAY = 100
BATCH = 20_000
CUSTOMERS = [(f"20{n:09d}", f"CLIENTE {n:04d} S.A.C.") for n in range(2_000)]
#: What each chart draws (its traces, as plotly holds them), ``null`` for a frame not drawn or without
#: traces (a loading frame): a chart counts as redrawn when its entry is drawn and differs from before.
CHART_DATA = (
    "() => ("
    + CHARTS
    + ").map((plot) => plot && plot.querySelector('.main-svg g.trace') ? JSON.stringify(plot.data) : null)"
)
CHARTS_REDRAWN = (
    "(before) => { const now = ("
    + CHART_DATA
    + ")(); return now.length >= 3 && now.every((shown, n) => shown !== null && shown !== before[n]); }"
)
CENT = Decimal("0.01")
VIEWPORT = {"width": 1440, "height": 1600}
#: How long a page may take to draw its charts before the run fails.
TIMEOUT_MS = 300_000
#: The ids of the documents written into the store start here (the service's are below).
FIRST_ID = 10_000_000


def load() -> str:
    """The 1-minute load average now."""
    return Path("/proc/loadavg").read_text().split()[0]


def _money(template: Any, value: Decimal) -> Any:
    """``value`` written as the template's amount is (a string with two decimals, or a number)."""
    return f"{value:.2f}" if isinstance(template, str) or template is None else float(value)


def _scaled_items(items: Any, value: Decimal, igv: Decimal) -> Any:
    """The template's one line with this document's amounts."""
    if not isinstance(items, list) or not items:
        return items
    line = copy.deepcopy(items[0])
    for key, amount in (
        ("total_value", value),
        ("total_base_igv", value),
        ("unit_value", value),
        ("total_igv", igv),
        ("total_taxes", igv),
        ("unit_price", value + igv),
        ("total", value + igv),
    ):
        if key in line:
            line[key] = _money(line[key], amount)
    if "quantity" in line:
        line["quantity"] = _money(line["quantity"], Decimal(1))
    return [line]


def generated(
    templates: dict[str, list[dict[str, Any]]], day: dt.date, count: int, numbers: dict[str, int], rng: Any
) -> list[dict[str, Any]]:
    """``count`` documents issued on ``day``: copies of the real rows, each its own document."""
    rows = []
    for _ in range(count):
        pick = rng.random()
        kind = "03" if pick < 0.55 else "07" if pick < 0.58 else "01"
        template = rng.choice(templates.get(kind) or templates["01"])
        row = dict(template)
        series = str(template.get("series") or str(template["number"]).rpartition("-")[0])
        numbers[series] = number = numbers.get(series, 0) + 1
        numbers["id"] += 1
        value = Decimal(rng.randrange(500, 500_000)) / 100
        igv = (value * Decimal("0.18")).quantize(CENT)
        ruc, name = CUSTOMERS[rng.randrange(len(CUSTOMERS))]
        currency = "USD" if rng.random() < 0.03 else "PEN"
        state = "09" if rng.random() < 0.005 else "11" if rng.random() < 0.003 else "05"
        row.update(
            id=numbers["id"],
            external_id=f"00000000-seed-{numbers['id']:012d}",
            number=f"{series}-{number}",
            date_of_issue=day.isoformat()
            if "-" in str(template["date_of_issue"])[4:5]
            else f"{day:%d-%m-%Y}",
            customer_number=ruc if kind != "03" else f"{rng.randrange(10**7, 10**8)}",
            customer_name=name,
            currency_type_id=currency,
            exchange_rate_sale=_money(
                template.get("exchange_rate_sale"), Decimal("3.75") if currency == "USD" else Decimal(1)
            ),
            total_taxed=_money(template.get("total_taxed"), value),
            total_value=_money(template.get("total_value"), value),
            total_igv=_money(template.get("total_igv"), igv),
            total_taxes=_money(template.get("total_taxes"), igv),
            total=_money(template.get("total"), value + igv),
            state_type_id=state,
            has_cdr=state == "05" and kind != "03",
        )
        if "correlative" in template:
            row["correlative"] = number
        if "series" in template:
            row["series"] = series
        if "items" in template:
            row["items"] = _scaled_items(template["items"], value, igv)
        rows.append(row)
    return rows


def seed_store(
    store: LocalStore, templates: dict[str, list[dict[str, Any]]], days: list[dt.date], per_day: int
) -> int:
    """Write ``per_day`` documents a day of ``days`` into ``store`` through its staging (the real file
    format), each day marked fetched with the cursor the real sync left."""
    db = store._db
    as_of = db.execute("SELECT max(as_of) FROM days").fetchone()[0]  # the real week's cursor
    numbers: dict[str, int] = {"id": FIRST_ID}
    rng = random.Random(22)
    written = 0
    batch: list[dict[str, Any]] = []

    def flush() -> None:
        db.execute("CREATE OR REPLACE TEMP TABLE stage AS SELECT * FROM documents LIMIT 0")
        store._stage(batch)
        db.execute("INSERT INTO documents SELECT * FROM stage")
        db.execute("DROP TABLE stage")
        batch.clear()

    for day in days:
        batch.extend(generated(templates, day, per_day, numbers, rng))
        written += per_day
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    db.executemany("INSERT INTO days VALUES (?, now()::TIMESTAMP, ?)", [(day, as_of) for day in days])
    db.execute("CHECKPOINT")
    return written


def children_cpu() -> float:
    """CPU seconds (user and system) used so far by this process's descendants: Chromium, the
    dashboard and the service. Less sensitive to the machine's load than the wall time (a process waiting
    for a core uses none)."""
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rpartition(")")[2].split()
            pid = int(stat.parent.name)
            parents[pid] = int(fields[1])
            used[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    mine, total = {os.getpid()}, 0.0
    for pid in parents:
        chain, up = [], pid
        while up in parents and up not in mine and up > 1:
            chain.append(up)
            up = parents[up]
        if up in mine:
            mine.update(chain)
            total += sum(used[p] for p in chain if p != os.getpid())
    return total


def peak_rss_mb(pid: int) -> float:
    """The peak resident memory of a process (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def type_range(page: Any, start: dt.date, end: dt.date) -> None:
    """Type a range into Documentos' date input (day, month and year of each end), not yet sent: the
    range is sent when the field is closed (Escape)."""
    for which, day in (("start", start), ("end", end)):
        page.get_by_role("spinbutton", name=f"day, Rango de fechas de emisión {which} date").click()
        page.keyboard.type(f"{day:%d%m%Y}", delay=20)


def in_session(
    browser: Any, url: str, year: tuple[dt.date, dt.date], unread: tuple[dt.date, dt.date]
) -> dict[str, float]:
    """The analyst's open dashboard (a booted page, Streamlit's and plotly's JavaScript evaluated), each
    timed to the three charts redrawn with the new data: *back*, to Documentos from Buscar through the
    sidebar, the ``year`` read and its range kept (NaN when the page forgot it); *range*, the
    ``unread`` range typed into the page (timed from closing the field, when it is sent); each with the
    CPU seconds it took (``_cpu``: :func:`children_cpu`)."""
    from tests.dashboard.browser import wait_for_app

    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(f"{url}/documents?desde={year[0].isoformat()}&hasta={year[1].isoformat()}")
    page.wait_for_function(CHARTS_DRAWN, timeout=TIMEOUT_MS)
    wait_for_app(page)
    nav = page.get_by_test_id("stSidebarNav")
    nav.get_by_text("Buscar", exact=True).click()
    wait_for_app(page)
    started, cpu = time.perf_counter(), children_cpu()
    nav.get_by_text("Documentos", exact=True).click()
    page.wait_for_function(CHARTS_REDRAWN, arg=[None, None, None], timeout=TIMEOUT_MS)
    back, back_cpu = time.perf_counter() - started, children_cpu() - cpu
    wait_for_app(page)
    shown = page.get_by_test_id("stDateInput").locator("input").evaluate_all("i => i.map((e) => e.value)")
    kept = shown == [year[0].isoformat(), year[1].isoformat()]  # an older dashboard forgot the range
    type_range(page, *unread)
    page.wait_for_timeout(300)  # nothing is sent while typing
    before = page.evaluate(CHART_DATA)
    started, cpu = time.perf_counter(), children_cpu()
    page.keyboard.press("Escape")  # closing the field sends the range
    page.wait_for_function(CHARTS_REDRAWN, arg=before, timeout=TIMEOUT_MS)
    changed, changed_cpu = time.perf_counter() - started, children_cpu() - cpu
    context.close()
    if not kept:
        back = back_cpu = float("nan")
    return {"back": back, "back_cpu": back_cpu, "range": changed, "range_cpu": changed_cpu}


def browser_runs(
    base: str,
    folder: Path,
    start: dt.date,
    end: dt.date,
    small_start: dt.date,
    repeat: int,
    before: Path | None = None,
) -> list[dict[str, Any]]:
    """``repeat`` restarts of the dashboard, each timed as the module's docstring says; with ``before``
    (a checkout of an earlier commit), each restart of this tree's dashboard follows one of that tree's,
    alternated so the machine's load hits both alike (``tree`` in each run: ``before`` or ``after``)."""
    from issue import TOKEN
    from playwright.sync_api import sync_playwright

    from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS, streamlit_app, wait_for_app

    tenants = folder / "tenants.toml"
    tenants.write_text(f'[tenants.bench]\nbase_url = "{base}"\ntoken = "{TOKEN}"\nstore = true\n')
    runs: list[dict[str, Any]] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=False
        )

        def documents(url: str, first: dt.date, context: Any = None) -> float:
            page = context.new_page() if context else browser.new_page(viewport=VIEWPORT)
            started = time.perf_counter()
            page.goto(f"{url}/documents?desde={first.isoformat()}&hasta={end.isoformat()}")
            page.wait_for_function(CHARTS_DRAWN, timeout=TIMEOUT_MS)
            took = time.perf_counter() - started
            subheader = page.locator("h3").all_inner_texts()
            page.close()
            if not any("documentos" in text for text in subheader):  # pragma: no cover - a broken page
                raise RuntimeError(f"the page did not show its documents: {subheader}")
            return took

        trees: dict[str, Path | None] = (
            {"after": None} if before is None else {"before": before, "after": None}
        )
        for attempt, kind, (name, tree) in itertools.product(range(repeat), ("first", "cold"), trees.items()):
            run_folder = folder / f"run-{kind}-{attempt}-{name}"
            run_folder.mkdir()
            processes: list[Any] = []
            with streamlit_app(run_folder, tenants, processes=processes, tree=tree) as url:
                run: dict[str, Any] = {"tree": name, "kind": kind, "load_before": load()}
                if kind == "cold":
                    warm = browser.new_page()
                    warm.goto(f"{url}/search")
                    wait_for_app(warm)
                    warm.close()
                run["year"] = documents(url, start)
                run["load_year"] = load()
                if kind == "cold":
                    run["small"] = documents(url, small_start)  # its range not read yet
                    run["load_small"] = load()
                    run["warm_new_browser"] = documents(url, start)  # figures computed, no JS cached
                    context = browser.new_context(viewport=VIEWPORT)  # a browser that showed the page
                    documents(url, start, context)
                    run["warm"] = documents(url, start, context)
                    run["load_warm"] = load()
                    context.close()
                    run["tiny"] = documents(url, end)  # today's ~100: what the browser costs anyway
                    run["load_tiny"] = load()
                    day = dt.timedelta(days=1)  # a range of ~20k not read yet: a day before the small
                    run.update(in_session(browser, url, (start, end), (small_start - day, end - day)))
                    run["load_session"] = load()
                run["rss_mb"] = peak_rss_mb(processes[0].pid)
                print(f"  {run}", flush=True)
                runs.append(run)
        browser.close()
    return runs


def in_process(path: Path, start: dt.date, end: dt.date) -> dict[str, float]:
    """The Documentos view of a range computed in a new process on the store on disk (no browser): its
    imports, opening the file, the view cold, the view again on a new scope (DuckDB's buffers warm,
    nothing of the page memoised), and the process's peak memory (run in a child: ``--child``)."""
    import resource

    began = time.perf_counter()
    from dashboard import data, figures
    from dashboard.session import STORE_MEMORY  # the dashboard's own modules: part of its start

    imported = time.perf_counter()
    store = LocalStore(path, read_only=True, memory_limit=STORE_MEMORY)  # as the dashboard opens it
    opened = time.perf_counter()
    view = figures.documents_view(data.Scope(store, start, end))
    cold = time.perf_counter()
    figures.documents_view(data.Scope(store, start, end))
    warm = time.perf_counter()
    home, periods = other_pages(store, end)
    return {
        "home": home,
        "periods": periods,
        "documents": float(view.count),
        "imports": imported - began,
        "open": opened - imported,
        "cold": cold - opened,
        "warm": warm - cold,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def other_pages(store: LocalStore, today: dt.date) -> tuple[float, float]:
    """Seconds of the SQL work of Inicio (the alerts over a year, the month's KPIs) and of Periodos (the
    last whole month against the one before: KPIs, groups, customers, products, rates), called as the
    pages call it."""
    from analysis.alerts import ALERT_STATES, alerts
    from analysis.sales import (
        by_month,
        by_series,
        by_type,
        customer_totals_sql,
        group_totals,
        previous_period,
        product_totals_sql,
        rejection_rate,
        sales_cells,
        sales_of,
        summarize_cells,
        summarize_sql,
    )
    from dashboard.data import Scope

    began = time.perf_counter()
    year = Scope(store, today - dt.timedelta(days=365), today)
    where, values = year.where()
    marks = ", ".join("?" for _ in ALERT_STATES)
    watched = store.listed(f"{where} AND state_type_id IN ({marks})", [*values, *sorted(ALERT_STATES)])
    alerts(sales_of(watched.rows), today)
    month = Scope(store, today.replace(day=1), today)
    summarize_sql(month.run, month.source, month.parameters)
    home = time.perf_counter() - began
    began = time.perf_counter()
    last = today.replace(day=1) - dt.timedelta(days=1)
    now = Scope(store, last.replace(day=1), last)
    then = Scope(store, *previous_period(now.start, now.end))
    for scope in (now, then):
        cells = sales_cells(scope.run, scope.source, scope.parameters)
        summarize_cells(cells, scope.run, scope.source, scope.parameters)
        for key in (by_month, by_series, by_type):
            group_totals(cells, key)  # type: ignore[arg-type]
        customer_totals_sql(scope.run, scope.source, scope.parameters)
        rejection_rate(cells)  # type: ignore[arg-type]
    product_totals_sql(now.run, now.source, now.parameters)
    return home, time.perf_counter() - began


def in_child(path: Path, start: dt.date, end: dt.date) -> dict[str, float]:
    import json
    import subprocess

    done = subprocess.run(
        [sys.executable, __file__, "--child", str(path), start.isoformat(), end.isoformat()],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


#: The page's work on a range of a store on disk, in a tree of this project before or after the pages
#: read in SQL (``--compare``): the before reads every document (``LocalStore.documents``, one ``Sale``
#: each) and computes the view over them.
_COMPARE_CHILD = r"""
import datetime as dt, json, resource, sys, time
from connector.store import LocalStore
from dashboard import data, figures
store = LocalStore(sys.argv[1], read_only=True)
first, last = dt.date.fromisoformat(sys.argv[2]), dt.date.fromisoformat(sys.argv[3])
began = time.perf_counter()
if hasattr(data, "Scope"):
    count = figures.documents_view(data.Scope(store, first, last)).count
else:
    from dashboard.session import _loaded
    got = _loaded(store.documents(first, last))
    count = len(figures.documents_view(got.frame, got.sales_of, data.Filters(), first, last).filtered)
took = time.perf_counter() - began
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"documents": count, "view": took, "rss_mb": peak}))
"""


def compare(before: Path, path: Path, first: dt.date, last: dt.date, rounds: int) -> None:
    """The Documentos view of ``first``..``last`` in process, this tree against ``before`` (a checkout
    of an earlier commit), alternated, each sample a new process on the same store file."""
    import json
    import subprocess

    runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    for _ in range(rounds):
        for name, tree in (("before", before), ("after", ROOT)):
            taken = load()
            done = subprocess.run(
                [sys.executable, "-c", _COMPARE_CHILD, str(path), first.isoformat(), last.isoformat()],
                capture_output=True, text=True, check=True, cwd=tree,
                env={**os.environ, "PYTHONPATH": str(tree)},
            )  # fmt: skip
            runs[name].append({**json.loads(done.stdout.strip().splitlines()[-1]), "load": taken})
            print(f"  {name}: {runs[name][-1]}", flush=True)
    for name, part in runs.items():
        loads = ", ".join(r["load"] for r in part)
        print(f"{name}: {int(part[0]['documents']):,} documents, view {stats([r['view'] for r in part])}, "
              f"peak RSS max {max(r['rss_mb'] for r in part):,.0f} MB (load {loads})")  # fmt: skip


def stats(values: list[float]) -> str:
    return f"p50 {statistics.median(values):6.2f} s  max {max(values):6.2f} s  (n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--documents", type=int, default=20_000, help="Documents written into the store.")
    parser.add_argument("--days", type=int, default=365, help="Days they span (the real week included).")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--small", type=int, default=20_000, help="Documents of the small range.")
    parser.add_argument(
        "--data", default=None, help="Keep the service and the store in this folder, reused by later runs."
    )
    parser.add_argument("--skip-browser", action="store_true", help="Only the in-process timings.")
    parser.add_argument(
        "--before",
        type=Path,
        default=None,
        help="A checkout of an earlier commit: its dashboard's restarts alternate with this tree's.",
    )
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument(
        "--compare",
        nargs=4,
        metavar=("BEFORE_TREE", "STORE", "START", "END"),
        help="Only the view in process, this tree against BEFORE_TREE on the STORE file, alternated.",
    )
    args = parser.parse_args()
    if args.compare:
        tree, file, first, last = args.compare
        compare(
            Path(tree), Path(file), dt.date.fromisoformat(first), dt.date.fromisoformat(last), args.repeat
        )
        return
    if args.child:
        import json

        path, first, last = args.child
        print(json.dumps(in_process(Path(path), dt.date.fromisoformat(first), dt.date.fromisoformat(last))))
        return

    from issue import TOKEN, create_bench_tenant, start_server
    from local_store import seed_rows

    from facturador.config import Settings

    today = peru_today()
    start = today - dt.timedelta(days=args.days - 1)
    with contextlib.ExitStack() as stack:
        if args.data:
            tmp = Path(args.data).resolve()
            tmp.mkdir(parents=True, exist_ok=True)
        else:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        settings = Settings.resolve(tmp, None)
        reuse = (tmp / "seeded").is_file()
        if not reuse:
            create_bench_tenant(settings, overrides={"restrict_receipt_date": False}).engine.dispose()
            seed_rows(settings, REAL_DAYS * REAL_PER_DAY, REAL_DAYS)
        process, root = start_server(settings, 2)
        stack.callback(process.wait, 30)
        stack.callback(process.terminate)
        base = f"{root}/t/bench"
        stores = tmp / "stores"
        os.environ["FACTURADOR_STORE_DIR"] = str(stores)  # the dashboard's processes inherit it
        real_start = today - dt.timedelta(days=REAL_DAYS - 1)
        t = time.perf_counter()
        path = store_path(base, stores)
        if reuse:  # the service listens on another port now: its store is the same file under a new name
            kept = stores / (tmp / "seeded").read_text().strip()
            if kept != path:
                kept.rename(path)
                with LocalStore(path) as moved:
                    moved.fetch("UPDATE meta SET value = ? WHERE key = 'base_url'", [base])
        with (
            Client(base, TOKEN, cache=False, timeout=600) as client,
            LocalStore.for_client(client, stores) as store,
        ):
            store.sync(real_start, today)
            real = store.listed(f"id < {FIRST_ID}")
            templates: dict[str, list[dict[str, Any]]] = {}
            for row in real.rows:
                templates.setdefault(str(row.get("document_type_id")), []).append(row)
            days = [start + dt.timedelta(days=n) for n in range((real_start - start).days)]
            per_day = max(1, (args.documents - len(real)) // max(1, len(days)))
            if not reuse:
                seed_store(store, templates, days, per_day)
                (tmp / "seeded").write_text(path.name)
            total = store.count()
            per_day_rows = store.fetch(
                "SELECT date_of_issue, count(*) FROM documents GROUP BY 1 ORDER BY 1 DESC"
            )
        (tmp / "seeded").write_text(path.name)
        newest = per_day_rows[0][0] if per_day_rows else today
        if newest < today:  # a reused store seeded on an earlier day (Lima's date moved on): its own days
            today, start = newest, newest - dt.timedelta(days=args.days - 1)
        size = path.stat().st_size / 2**20
        print(f"store: {total:,} documents over {args.days} days, {size:,.0f} MiB on disk, written in "
              f"{time.perf_counter() - t:.0f} s (load {load()})", flush=True)  # fmt: skip
        counted = 0
        small_start = today
        for day, count in per_day_rows:
            counted += count
            small_start = day
            if counted >= args.small:
                break
        small_count = counted
        process_runs = []
        for _ in range(args.repeat):
            for first in (start, small_start):
                process_runs.append({"first": first, "load": load(), **in_child(path, first, today)})
                print(f"  in process: {process_runs[-1]}", flush=True)
        runs: list[dict[str, Any]] = []
        if not args.skip_browser:
            runs_folder = tmp / f"runs-{time.time():.0f}"
            runs_folder.mkdir()
            runs = browser_runs(base, runs_folder, start, today, small_start, args.repeat, args.before)

    print()
    for first, name in ((start, "year"), (small_start, f"{small_count:,} docs")):
        part = [r for r in process_runs if r["first"] == first]
        loads = ", ".join(r["load"] for r in part)
        print(f"in process, {name}: view cold {stats([r['cold'] for r in part])}, warm "
              f"{stats([r['warm'] for r in part])}, open {statistics.median(r['open'] for r in part):.2f} s, "
              f"imports {statistics.median(r['imports'] for r in part):.2f} s, peak RSS "
              f"{max(r['rss_mb'] for r in part):,.0f} MB (load {loads})")  # fmt: skip
    year_runs = [r for r in process_runs if r["first"] == start]
    print(
        f"in process, Inicio (alerts of the year, the month's KPIs): {stats([r['home'] for r in year_runs])}"
    )
    print(
        f"in process, Periodos (last month against the one before): "
        f"{stats([r['periods'] for r in year_runs])}"
    )
    for tree in ("before", "after"):
        if any(r["tree"] == tree for r in runs):
            print(f"\n{tree}:" if args.before else "")
            report([r for r in runs if r["tree"] == tree], args.repeat, total, start, today, small_start,
                   small_count, min(len(per_day_rows) and per_day_rows[0][1] or 0, total))  # fmt: skip


def report(
    runs: list[dict[str, Any]],
    repeat: int,
    total: int,
    start: dt.date,
    today: dt.date,
    small_start: dt.date,
    small_count: int,
    tiny: int,
) -> None:
    """The browser figures of one tree's runs."""
    firsts = [r for r in runs if r["kind"] == "first"]
    colds = [r for r in runs if r["kind"] == "cold"]
    print(f"Documentos in Chromium, {total:,} documents ({start}..{today}), {repeat} restarts each:")
    print(f"  year, first visit after a restart : {stats([r['year'] for r in firsts])}  "
          f"(load {', '.join(r['load_year'] for r in firsts)})")  # fmt: skip
    print(f"  year, cold (modules loaded)       : {stats([r['year'] for r in colds])}  target < 3 s  "
          f"(load {', '.join(r['load_year'] for r in colds)})")  # fmt: skip
    print(f"  year, warm (page seen before)     : {stats([r['warm'] for r in colds])}  target < 1 s  "
          f"(load {', '.join(r['load_warm'] for r in colds)})")  # fmt: skip
    print(f"  year, warm data, new browser      : {stats([r['warm_new_browser'] for r in colds])}")
    print(f"  {small_count:,} docs ({small_start}..{today}), cold : {stats([r['small'] for r in colds])}  "
          f"target < 1.5 s  (load {', '.join(r['load_small'] for r in colds)})")  # fmt: skip
    print(f"  {tiny:,} docs (today), cold, the page's own cost  : {stats([r['tiny'] for r in colds])}  "
          f"(load {', '.join(r['load_tiny'] for r in colds)})")  # fmt: skip
    print("Documentos in session (the dashboard open in the analyst's browser, the page booted):")
    for key, name in (("back", "back from Buscar (sidebar), year read"),
                      ("range", f"a ~{small_count:,}-doc range not read, typed")):  # fmt: skip
        print(f"  {name:<38}: {stats([r[key] for r in colds])}, CPU (Chromium + dashboard + service) "
              f"p50 {statistics.median(r[key + '_cpu'] for r in colds):.2f} s  "
              f"(load {', '.join(r['load_session'] for r in colds)})")  # fmt: skip
    print(f"  dashboard peak RSS                : max {max(r['rss_mb'] for r in runs):,.0f} MB, p50 "
          f"{statistics.median(r['rss_mb'] for r in runs):,.0f} MB  target < 1024 MB")  # fmt: skip


if __name__ == "__main__":
    main()
