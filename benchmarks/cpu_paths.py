"""CPU time of the Documentos page's cold work and of the sales register on a captured list body.

The machine these run on is shared: wall time says more about the neighbours than about the code. This
measures ``time.process_time`` of one process, on a list body captured once (the JSON of
``GET /api/documents/lists/{start}/{end}``, e.g. from ``benchmarks/documents_page.py``'s service or
``curl -H "Authorization: Bearer …" …/api/documents/lists/2026-11-01/2026-11-30 > list.json``):

- ``page``: parse the body, the list's DataFrame and sales (what ``dashboard.session.load_range`` keeps),
  then the page's KPIs, three figures and table (``figures.documents_view`` over the answer held in an
  in-memory store, as a client without a local store reads it, no filters);
- ``register``: parse the body, build the month's register from its rows, its PLE and RVIE lines;
- ``register-page``: the register and what the Registro de ventas page asks of it.

To compare two trees (before/after a change), run it with ``--tree`` twice or more: every sample is a
fresh process, the trees alternate, medians are printed with the ratio.

Run:  python benchmarks/cpu_paths.py list.json --month 2026-11 --tree /tmp/before --tree . --samples 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

KINDS = ("page", "register", "register-page")


def sample(kind: str, body: Path, month: str) -> dict[str, float]:
    """One measurement in this process (the modules are imported and used once before: a cold page
    still finds its modules loaded)."""
    from analysis.register import Period, SalesRegister
    from connector.http import parse_json
    from connector.models import DocumentList
    from dashboard import data, figures
    from dashboard.session import _loaded

    content = body.read_bytes()
    period = Period.of(month)

    def page() -> None:
        got = _loaded(DocumentList(parse_json(content)["data"]))
        dates = got.frame["date_of_issue"]
        start, end = dates.min().date(), dates.max().date()
        if hasattr(data, "Scope"):  # the page reads the range in SQL (an in-memory store of the answer)
            from connector.store import LocalStore

            figures.documents_view(data.Scope(LocalStore.holding(got.rows), start, end))
        else:  # older trees
            figures.documents_view(got.frame, got.sales_of, data.Filters(), start, end)  # type: ignore

    def register() -> SalesRegister:
        listed = DocumentList(parse_json(content)["data"])
        rows = listed.rows if hasattr(SalesRegister, "adjustment_rows") else list(listed)  # older trees
        built = SalesRegister.build(rows, period, ruc="20100066603", name="BENCH S.A.C.")
        built.ple_rows(), built.sire_rows()
        return built

    def register_page() -> None:
        built = register()
        lines = built.ple_rows()
        built.totals(), len(built.sire_rows()), built.ple_bytes(), built.sire_zip()
        built.ple_name, built.sire_name, bool(lines)

    work = {"page": page, "register": register, "register-page": register_page}[kind]
    work()
    started, cpu = time.perf_counter(), time.process_time()
    work()
    return {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("body", type=Path, help="A captured list body (JSON).")
    parser.add_argument("--month", required=True, help="The register's month, YYYY-MM.")
    parser.add_argument("--kind", choices=KINDS, action="append", help="Default: all three.")
    parser.add_argument("--tree", action="append", help="A source tree to measure (default: this one).")
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a single sample in this process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(sample(args.one, args.body, args.month)))
        return
    trees = [str(Path(t).resolve()) for t in args.tree or [Path(__file__).resolve().parents[1]]]
    for kind in args.kind or KINDS:
        runs: dict[str, list[dict[str, float]]] = {tree: [] for tree in trees}
        for index in range(args.samples):
            for tree in trees if index % 2 == 0 else trees[::-1]:  # alternate: the load drifts
                command = [sys.executable, __file__, str(args.body), "--month", args.month, "--one", kind]
                env = {**os.environ, "PYTHONPATH": tree}
                out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
                runs[tree].append(json.loads(out.stdout.strip().splitlines()[-1]))
        medians = {tree: statistics.median(r["cpu"] for r in runs[tree]) for tree in trees}
        for tree in trees:
            wall = statistics.median(r["wall"] for r in runs[tree])
            print(f"{kind:14s} {tree}: CPU {medians[tree]:.3f} s (median of {args.samples}), wall {wall:.3f}")
        if len(trees) > 1:
            print(f"{kind:14s} last/first CPU ratio: {medians[trees[-1]] / medians[trees[0]]:.2f}")


if __name__ == "__main__":
    main()
