"""What an analyst waits for on the Documents page, for a large date range.

Creates a throw-away tenant, fills it with N documents over D days issued through the API (the seeding
module, on ``facturador serve`` with 2 workers), then measures in one run:

- list endpoint: GET /api/documents/lists/{start}/{end} for the whole range, raw HTTP;
- cold: connector list (cache cleared) + DataFrame + the dashboard's KPI and three chart figures;
- warm: the same with the connector's cache warm.

Targets (issue 3): cold < 3 s, warm < 0.5 s, list endpoint < 1 s for 20,000 rows.
Run:  python benchmarks/dashboard.py --documents 20000 --days 90
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from facturador.connector import CacheSettings, Client
from facturador.dashboard import data
from facturador.seeding import seed
from facturador.service.config import Settings
from facturador.service.context import ServiceContext
from facturador.service.domain.tenants import create_tenant
from facturador.sunat.calendar import peru_today

sys.path.insert(0, str(Path(__file__).parent))
from issue import RUC, TOKEN, start_server  # noqa: E402


def dashboard_work(client: Client, start, end) -> tuple[int, dict[str, float]]:  # type: ignore[no-untyped-def]
    """Fetch the range, build the DataFrame and every figure of the Documents page; timings by step."""
    steps: dict[str, float] = {}
    t0 = time.perf_counter()
    documents = client.documents.list(start, end)
    t1 = time.perf_counter()
    frame = documents.to_dataframe()
    t2 = time.perf_counter()
    data.kpis(frame)
    data.daily_totals_figure(frame)
    data.state_totals_figure(frame)
    data.top_customers_figure(frame)
    t3 = time.perf_counter()
    steps.update(fetch=t1 - t0, dataframe=t2 - t1, figures=t3 - t2, total=t3 - t0)
    return len(frame), steps


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--documents", type=int, default=20000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.resolve(Path(tmp), None)
        context = ServiceContext(settings)
        with context.session() as session, session.begin():
            create_tenant(
                session,
                settings,
                "bench",
                ruc=RUC,
                name="BENCH S.A.C.",
                token=TOKEN,
                overrides={"restrict_receipt_date": False, "authority_check_deadlines": False},
            )
        context.engine.dispose()
        process, root = start_server(settings, 2)
        try:
            base = f"{root}/t/bench"
            started = time.perf_counter()
            report = seed(
                Client(base, TOKEN, cache=False, timeout=120),
                args.documents,
                args.days,
                workers=6,
                tickets=False,
            )
            print(f"seeded: {report.summary()} in {time.perf_counter() - started:.0f} s")
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
        finally:
            process.terminate()
            process.wait(timeout=30)

    def median(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(run[key] for run in runs)

    print(f"range {start}..{end}: {rows} rows, {size / 1e6:.1f} MB of JSON")
    print(f"list endpoint (raw HTTP)  : {statistics.median(raw):6.3f} s  (target < 1 s)")
    for name, runs, target in (("cold (cache cleared)", cold, 3.0), ("warm (cache warm)   ", warm, 0.5)):
        print(
            f"{name}: {median(runs, 'total'):6.3f} s  = fetch {median(runs, 'fetch'):.3f} + DataFrame "
            f"{median(runs, 'dataframe'):.3f} + KPIs/figures {median(runs, 'figures'):.3f}"
            f"  (target < {target} s)"
        )


if __name__ == "__main__":
    main()
