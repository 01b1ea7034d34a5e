"""The Registro de ventas page of a 100k-document month in a real dashboard: a ``streamlit run`` process
and headless Chromium (/usr/bin/chromium), the peak memory (VmHWM) of the dashboard's process and the
time to the month's register shown (issue 31: the dashboard < 1 GB in every run).

The service is seeded as ``benchmarks/register_store.py`` seeds it (``--data`` keeps it: the same
folder serves both). Then ``--repeat`` runs, each a new ``streamlit run`` (``store = true``) opening
Registro de ventas and choosing the last full month:

- run 1, *first*: the store folder is new, so the dashboard itself syncs the register's range (the month
  and the 45 days before it, ~250,000 documents) from the service before it builds the register: the
  first run on a store just seeded and synced;
- the next runs: a restarted dashboard on that store (synced, on disk).

Each run prints its peak RSS, the seconds to the register shown and the load average (the machine is
shared); then p50 and max. Run::

    python benchmarks/register_dashboard.py --data /tmp/reg --repeat 5
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

MB = 1024


def status_mb(pid: int, key: str) -> float:
    """A ``/proc/PID/status`` figure (``VmHWM``, ``VmRSS``) in MB (nan once the process is gone)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def visit(url: str, month: str, timeout_ms: int) -> float:
    """Open Registro de ventas, choose ``month`` (``11/2026``) and wait for its register: seconds."""
    from playwright.sync_api import sync_playwright

    from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS, wait_for_app

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=False, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900}, locale="es-PE")
            page.set_default_timeout(timeout_ms)
            began = time.perf_counter()
            page.goto(f"{url}/register")
            page.get_by_role("heading", name="Registro de ventas", exact=True).wait_for()
            wait_for_app(page)
            page.get_by_test_id("stSelectbox").filter(has_text="Periodo").click()
            page.get_by_role("option", name=month, exact=True).click()
            page.get_by_text(f"periodo {month}.", exact=False).wait_for()
            page.get_by_text("Archivo PLE:", exact=False).wait_for()
            wait_for_app(page)
            return time.perf_counter() - began
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--month-documents", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=None, help="Keep (or reuse) the seeded service here.")
    parser.add_argument("--timeout", type=int, default=900, help="Seconds a run may take.")
    args = parser.parse_args()

    from issue import TOKEN, start_server
    from register_store import seed

    from tests.dashboard.browser import streamlit_app

    with contextlib.ExitStack() as stack:
        if args.data is None:
            data = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        else:
            data = args.data.resolve()
            data.mkdir(parents=True, exist_ok=True)
        settings, month = seed(data, args.month_documents)
        shown = f"{month[5:]}/{month[:4]}"
        process, root = start_server(settings, 2)
        stack.callback(process.wait, 30)
        stack.callback(process.terminate)
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="register-dashboard-")))
        stores = folder / "stores"
        shutil.rmtree(stores, ignore_errors=True)  # run 1 syncs a new store
        tenants = folder / "tenants.toml"
        tenants.write_text(
            f'[tenants.bench]\nname = "BENCH S.A.C."\nbase_url = "{root}/t/bench"\ntoken = "{TOKEN}"\n'
            "cache = false\nstore = true\n",
            encoding="utf-8",
        )
        os.environ["FACTURADOR_STORE_DIR"] = str(stores)
        runs: list[dict[str, Any]] = []
        for n in range(args.repeat):
            load = os.getloadavg()[0]
            processes: list[Any] = []
            peak = [0.0]
            done = threading.Event()

            def sample(processes: list[Any] = processes, peak: list[float] = peak, done: Any = done) -> None:
                while not done.wait(0.25):  # VmHWM read at the end too; this also sees a process that dies
                    if processes:
                        peak[0] = max(peak[0], status_mb(processes[0].pid, "VmRSS") or 0.0)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            with streamlit_app(folder, tenants, processes=processes) as url:
                seconds = visit(url, shown, args.timeout * 1000)
                hwm = status_mb(processes[0].pid, "VmHWM")
            done.set()
            sampler.join()
            run = {"run": "first (syncs)" if n == 0 else "store on disk", "seconds": seconds,
                   "rss_mb": max(hwm, peak[0]), "load": load}  # fmt: skip
            runs.append(run)
            print(f"  run {n + 1} ({run['run']}): register shown in {seconds:.1f} s, dashboard peak RSS "
                  f"{run['rss_mb']:,.0f} MB, load {load:.1f}", flush=True)  # fmt: skip
    rss = [r["rss_mb"] for r in runs]
    took = [r["seconds"] for r in runs]
    print(f"\nregister {month} in the dashboard, {len(runs)} runs (the first syncs the store):")
    print(f"  peak RSS : p50 {statistics.median(rss):,.0f} MB  max {max(rss):,.0f} MB  (target < {MB} MB)")
    print(f"  shown in : p50 {statistics.median(took):.1f} s  max {max(took):.1f} s")


if __name__ == "__main__":
    main()
