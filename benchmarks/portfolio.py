"""How long the portfolio («Cartera de empresas», ``facturador portfolio``) takes for 20 companies.

Starts ``facturador serve`` on a throw-away data directory with C tenants (20 by default), seeds each with
D documents over the last 30 days the way the demo does (summaries declared, a few voidings), writes a
tenants file for them (plus, with ``--unreachable``, one company on a port where nothing listens) and
times :func:`analysis.portfolio.portfolio` for this month with 1, 4 and 8 companies asked at once: the
whole portfolio (what the page and the command wait for) and each company's own time. Each company is
one list of the month, its certificate and its attention list over HTTP.

Run:  python benchmarks/portfolio.py [--companies 20 --documents 150 --workers 1,4,8 --repeat 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--companies", type=int, default=20)
    parser.add_argument("--documents", type=int, default=150, help="Documents seeded per company.")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--workers", default="1,4,8", help="Companies asked at once (comma-separated runs).")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--server-workers", type=int, default=2)
    parser.add_argument(
        "--unreachable", action="store_true", help="Then again with a company nothing answers for."
    )
    parser.add_argument("--period", default=None, help="YYYY-MM (default: last month, a whole month).")
    args = parser.parse_args()

    from issue import socket_port, start_server

    from analysis.portfolio import portfolio
    from connector import Client
    from demo.seeding import seed
    from facturador.config import Settings
    from facturador.context import ServiceContext
    from facturador.domain.tenants import create_tenant
    from sunat.calendar import peru_today
    from sunat.identity import ruc_check_digit

    folder = Path(tempfile.mkdtemp(prefix="portfolio-bench-"))
    settings = Settings.resolve(folder / "data", None)
    context = ServiceContext(settings)
    companies: list[tuple[str, str, str]] = []
    with context.session() as session, session.begin():
        for index in range(args.companies):
            first10 = "20" + str(uuid.uuid4().int % 10**8).zfill(8)
            ruc = first10 + str(ruc_check_digit(first10))
            slug, token = f"empresa{index:02d}", f"empresa{index:02d}-token-0123456789-abcdefghijklmn"
            create_tenant(
                session,
                settings,
                slug,
                ruc=ruc,
                name=f"EMPRESA {index:02d} S.A.C.",
                address="Av. Arequipa 123, Lima",
                ubigeo="150101",
                token=token,
                overrides={
                    "restrict_receipt_date": False,
                    "authority_check_deadlines": False,
                    "authority_ticket_delay": 0.0,
                },
            )
            companies.append((slug, ruc, token))
    context.engine.dispose()
    server, root = start_server(settings, args.server_workers)
    try:
        started = time.perf_counter()

        def seeded(company: tuple[str, str, str]) -> int:
            slug, _ruc, token = company
            with Client(f"{root}/t/{slug}", token, cache=False, timeout=120) as client:
                return seed(client, args.documents, args.days, seed=hash(slug) % 1000, workers=2).issued

        with ThreadPoolExecutor(max_workers=4) as pool:
            issued = sum(pool.map(seeded, companies))
        took = time.perf_counter() - started
        print(f"seeded {issued} documents in {args.companies} companies in {took:.0f} s")
        tenants = folder / "tenants.toml"
        text = "".join(
            f'[tenants.{slug}]\nname = "EMPRESA {slug[-2:]} S.A.C."\nbase_url = "{root}/t/{slug}"\n'
            f'token = "{token}"\ncache = false\n'
            for slug, _ruc, token in companies
        )
        tenants.write_text(text, encoding="utf-8")
        first = peru_today().replace(day=1)
        month = args.period or f"{(first - dt.timedelta(days=1)):%Y-%m}"
        portfolio(month, tenants, workers=4)  # a first run: imports, connections, the server's caches
        runs = [("", text)]
        if args.unreachable:
            with socket_port() as port:
                pass
            down = f'[tenants.caida]\nbase_url = "http://127.0.0.1:{port}/t/x"\ntoken = "{"x" * 40}"\n'
            runs.append((" + 1 unreachable", text + down + 'ruc = "20100066600"\n'))
        for label, content in runs:
            tenants.write_text(content, encoding="utf-8")
            for workers in (int(w) for w in args.workers.split(",")):
                totals, each = [], []
                for _ in range(args.repeat):
                    found = portfolio(month, tenants, workers=workers)
                    totals.append(found.seconds)
                    each += [row.seconds for row in found.rows]
                documents = sum(row.documents for row in found.rows)
                print(
                    f"{month}{label}, workers {workers}: {len(found.rows)} companies ({documents} documents "
                    f"of the month) in median {statistics.median(totals):.2f} s (runs "
                    f"{', '.join(f'{t:.2f}' for t in totals)}); a company median "
                    f"{statistics.median(each):.2f} s, max {max(each):.2f} s"
                )
        for line in found.lines()[:6]:
            print("  " + line)
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
