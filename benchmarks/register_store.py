"""The Registro de ventas of a large month out of the local store (issues 22 and 31: a 100k-document
month < 2 s, the process < 1 GB; the dashboard itself: ``benchmarks/register_dashboard.py``).

Seeds a throw-away tenant straight into the service's database (``local_store.seed_rows``: facturas,
boletas, credit notes naming their factura, a few in dollars, some rejected), ``--month-documents``
in the last full month and as many a day over the :data:`~analysis.register.REGISTER_LOOK_BACK_DAYS`
before it and the days of this month, starts ``facturador serve``, syncs a store once, then measures in
a new process each time (a restarted dashboard opening the store on disk) what the Registro de ventas
page does: the register of the month (``sales_register(store.reading(client), month)``: the store
synced first, then read), its PLE 14.1 lines counted, totals and the table's frame (its first page of
:data:`~dashboard.widgets.TABLE_PAGE_LINES` lines, every line before: "view"), and the PLE
and SIRE RVIE files of its download buttons ("files": made on a click now, before the page showed
before); and the process's CPU seconds and peak memory. p50 and max of ``--repeat``, with the load
average beside each run (the machine is shared).

``--data DIR`` keeps the seeded service and store there and reuses them; ``--tree PATH`` runs the
measured process on another checkout (a clone of main as "before"): before and after alternate in one
run with ``--tree`` given twice, e.g.::

    python benchmarks/register_store.py --data /tmp/reg --tree /tmp/before --tree .
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def work(store_path: Path, base: str, token: str, month: str, ruc: str) -> dict[str, Any]:
    """What the register page does on a restarted dashboard, timed by step (run in a child process)."""
    began = time.perf_counter()
    import pandas as pd

    from analysis.register import PLE_FIELDS, sales_register
    from connector import Client
    from connector.store import LocalStore

    try:  # the lines of a page of the register's table (imports Streamlit, as a dashboard has it)
        from dashboard.widgets import TABLE_PAGE_LINES
    except ImportError:  # a checkout before the table had pages
        TABLE_PAGE_LINES = 0

    imported, cpu_began = time.perf_counter(), time.process_time()
    client = Client(base, token, cache=False, timeout=600)
    store = LocalStore(store_path, client)
    register = sales_register(store.reading(client), month, ruc=ruc, name="BENCH S.A.C.")
    built, cpu_built = time.perf_counter(), time.process_time()
    paged = hasattr(register, "ple_count")  # the page now: the lines counted, a table page's made
    lines = register.ple_count() if paged else len(register.ple_rows())
    totals = register.totals()
    adjustments = len(register.adjustment_rows())
    if paged:  # the table's first page, as the page shows it
        frame = register.ple_frame(count=TABLE_PAGE_LINES)
        sire = register.sire_count()
    elif hasattr(register, "ple_frame"):  # the page at 93c8584: the table's frame of every line
        frame = register.ple_frame()
        sire = register.sire_count()
    else:  # the page before: a frame of the text lines, amounts converted; the RVIE lines made
        frame = pd.DataFrame(register.ple_rows(), columns=list(PLE_FIELDS))
        frame = frame.astype({name: float for name in PLE_FIELDS[12:25]})
        sire = len(register.sire_rows())
    viewed, cpu_viewed = time.perf_counter(), time.process_time()
    files = [register.ple_bytes(), register.sire_zip()]  # the PLE and RVIE download buttons' files
    done = time.perf_counter()
    eager = not hasattr(register, "ple_frame")  # the page before made both files before showing
    return {
        "entries": len(register.entries),
        "ple_lines": lines,
        "sire_lines": sire,
        "adjustments": adjustments,
        "warnings": len(register.warnings),
        "total": str(totals["Importe total"]),
        "ple_bytes": len(files[0]),
        "frame_rows": len(frame),
        "imports": imported - began,
        "register": built - imported,
        "view": viewed - built,
        "files": done - viewed,
        "page": (done if eager else viewed) - imported,
        "cpu_page": (time.process_time() if eager else cpu_viewed) - cpu_began,
        "cpu_register": cpu_built - cpu_began,
        "rss_mb": peak_rss_mb(),
    }


def peak_rss_mb() -> float:
    """This process's peak resident memory (``VmHWM``), in MB: ``ru_maxrss`` would be the benchmark's
    own (the parent that synced the store) after the fork, whichever is larger."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_child(tree: Path, store: Path, base: str, token: str, month: str, ruc: str) -> dict[str, Any]:
    """:func:`work` in a new process on the checkout ``tree``, with the load average before it."""
    load = os.getloadavg()[0]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, __file__, "--child", "--store", str(store), "--base", base, "--token", token,
         "--month", month, "--ruc", ruc],
        capture_output=True, text=True, env=env, cwd=tree,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"the measured process failed:\n{done.stderr}")
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "load": load}


def seed(data: Path, month_documents: int) -> tuple[Any, str]:
    """The service's database in ``data`` with the documents seeded (once: kept for later runs)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from issue import create_bench_tenant
    from local_store import seed_rows

    from analysis.register import REGISTER_LOOK_BACK_DAYS
    from facturador.config import Settings
    from sunat.calendar import peru_today

    settings = Settings.resolve(data, None)
    today = peru_today()
    month_end = today.replace(day=1) - dt.timedelta(days=1)
    first = month_end.replace(day=1) - dt.timedelta(days=REGISTER_LOOK_BACK_DAYS)
    days = (today - first).days + 1
    marker = data / "seeded.json"
    if not marker.exists():
        create_bench_tenant(settings, overrides={"restrict_receipt_date": False}).engine.dispose()
        per_day = -(-month_documents // month_end.day)
        t = time.perf_counter()
        count, _ = seed_rows(settings, per_day * days, days)
        print(f"seeded {count:,} documents over {days} days in {time.perf_counter() - t:.0f} s", flush=True)
        marker.write_text(json.dumps({"documents": count, "days": days, "first": first.isoformat()}))
    return settings, f"{month_end:%Y-%m}"


def stats(values: list[float]) -> str:
    return f"p50 {statistics.median(values):6.2f} s  max {max(values):6.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--month-documents", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=None, help="Keep (or reuse) the service and store here.")
    parser.add_argument("--tree", type=Path, action="append", help="A checkout to measure (repeatable).")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    for name in ("--store", "--base", "--token", "--month", "--ruc"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(work(Path(args.store), args.base, args.token, args.month, args.ruc)))
        return

    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from issue import RUC, TOKEN, start_server

    from connector import Client
    from connector.store import LocalStore
    from sunat.calendar import peru_today

    trees = [tree.resolve() for tree in args.tree or [ROOT]]
    with contextlib.ExitStack() as stack:
        if args.data is None:
            import tempfile

            data = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        else:
            data = args.data.resolve()
            data.mkdir(parents=True, exist_ok=True)
        settings, month = seed(data, args.month_documents)
        first = dt.date.fromisoformat(json.loads((data / "seeded.json").read_text())["first"])
        process, root = start_server(settings, 2)
        stack.callback(process.wait, 30)
        stack.callback(process.terminate)
        base = f"{root}/t/bench"
        path = data / "store.duckdb"
        if path.exists():  # kept from an earlier run: the same tenant, served on another port now
            import duckdb

            with duckdb.connect(str(path)) as db:
                db.execute("UPDATE meta SET value = ? WHERE key = 'base_url'", [base])
        with Client(base, TOKEN, cache=False, timeout=600) as client, LocalStore(path, client) as store:
            report = store.sync(first, peru_today())
            print(f"store synced: {report.rows:,} rows in {report.seconds:.1f} s; "
                  f"{store.count():,} documents", flush=True)  # fmt: skip
        for tree in trees:  # each checkout opens the store once before it is timed (an upgrade of an
            # older file to its schema happens here, as a dashboard's first start after an update does)
            subprocess.run(
                [sys.executable, "-c", "import sys; from connector.store import LocalStore; "
                 "LocalStore(sys.argv[1]).close()", str(path)],
                env={**os.environ, "PYTHONPATH": str(tree)}, cwd=tree, check=True,
            )  # fmt: skip
        runs: dict[Path, list[dict[str, Any]]] = {tree: [] for tree in trees}
        for n in range(args.repeat):
            for tree in trees:  # alternated: each tree's run n beside the others'
                result = run_child(tree, path, base, TOKEN, month, RUC)
                runs[tree].append(result)
                print(f"  {tree.name} {n + 1}: " + ", ".join(
                    f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in result.items()
                ), flush=True)  # fmt: skip
    print()
    for tree, results in runs.items():
        head = results[0]
        print(f"{tree} — register {month}: {head['entries']:,} entries, {head['ple_lines']:,} PLE lines, "
              f"total {head['total']}")  # fmt: skip
        for step in ("register", "cpu_register", "view", "files", "page", "cpu_page"):
            print(f"  {step:9}: {stats([r[step] for r in results])}")
        print(f"  peak RSS : p50 {statistics.median(r['rss_mb'] for r in results):,.0f} MB  "
              f"max {max(r['rss_mb'] for r in results):,.0f} MB  (target < 1024 MB)")  # fmt: skip
        loads = ", ".join(f"{r['load']:.1f}" for r in results)
        print(f"  load avg : {loads}")
    print(
        "target: the register of a 100k-document month < 2 s ('page': the register, its PLE lines, totals "
        "and table frame, plus the PLE and RVIE files where the page made them before showing; 'files': "
        "those two files; 'cpu_page': the process's CPU seconds for 'page', DuckDB's threads included; "
        "'cpu_register': those of 'register'; peak RSS: VmHWM)"
    )


if __name__ == "__main__":
    main()
