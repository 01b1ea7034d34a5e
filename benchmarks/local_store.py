"""The analyst at a million documents: the local store (``connector/store.py``) against issue 22's targets.

Creates a throw-away tenant and writes N documents over the D days up to today straight into the
service's database (the rows ``POST /api/documents`` would leave: facturas, boletas, credit notes, a few
in dollars, some still registered, sent or rejected; one line each; issuing them over HTTP would take
hours), starts ``facturador serve`` (2 workers) on it and measures, each p50 and max of ``--repeat``:

- first sync of the whole range into a new store (target for a 1M-document year: < 10 min), with the
  extension (pages of 20,000) and, ``--plain``, as a real tenant is read (a week a request);
- the sync of a day: 3,000 new documents of today and 100 state changes written, then a sync of the
  whole range (target < 5 s), with the extension and without it (the recent week fetched again);
- Documentos cold: a new process (its imports timed apart) opens the store on disk, syncs the range
  and computes the page's view in SQL over the store (KPIs, three figures, the table's newest rows)
  (target for a 1M year < 3 s), and its peak memory (target < 1 GB); warm: the view again (target
  < 1 s); a 20,000-document range the same way (target < 1.5 s); ``benchmarks/store_pages.py`` times
  the same page in Chromium;
- the sales register of the last full month out of the store (target for 100k documents < 3 s).

Timings are in-process (the page's work, as ``benchmarks/documents_page.py`` measures it), not in
Chromium: the table of a year is not something a browser is sent.
Run:  python benchmarks/local_store.py --documents 100000 --days 365
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from connector import Client  # noqa: E402
from connector.store import LocalStore  # noqa: E402
from sunat.calendar import peru_today  # noqa: E402

DAY_DOCUMENTS = 3_000
CUSTOMERS = [(f"20{n:09d}", f"CLIENTE {n:04d} S.A.C.") for n in range(600)]


def _documents(
    tenant: int, establishment: int, user: int, days: list[dt.date], per_day: int, numbers: dict[str, int]
) -> list[dict[str, Any]]:
    """The rows of ``per_day`` documents a day (numbers go on from ``numbers``)."""
    rng = random.Random(len(days) * 7919 + per_day + sum(numbers.values()))
    rows = []
    today = peru_today()
    for day in days:
        stamp = dt.datetime.combine(day, dt.time(15), tzinfo=dt.UTC)
        for _ in range(per_day):
            pick = rng.random()
            kind, series = (
                ("03", "B001") if pick < 0.55 else ("07", "FC01") if pick < 0.58 else ("01", "F001")
            )  # noqa: E501
            numbers[series] = number = numbers.get(series, 0) + 1
            value = Decimal(rng.randrange(500, 500_000)) / 100
            igv = (value * Decimal("0.18")).quantize(Decimal("0.01"))
            ruc, name = CUSTOMERS[rng.randrange(len(CUSTOMERS))]
            recent = (today - day).days < 3
            state = rng.choices(["05", "01", "03", "09"], [90, 6, 3, 1])[0] if recent else "05"
            state = "09" if rng.random() < 0.005 else state
            currency = "USD" if rng.random() < 0.03 else "PEN"
            line = {"codigo_interno": "P01", "descripcion": "Producto", "unidad_de_medida": "NIU",
                    "cantidad": 1, "valor_unitario": str(value), "precio_unitario": str(value + igv),
                    "codigo_tipo_afectacion_igv": "10", "total_valor_item": str(value),
                    "total_igv": str(igv), "total_item": str(value + igv)}  # fmt: skip
            rows.append(
                {
                    "tenant_id": tenant,
                    "external_id": str(uuid.uuid4()),
                    "establishment_id": establishment,
                    "user_id": user,
                    "group_id": "02" if kind == "03" else "01",
                    "document_type_id": kind,
                    "series": series,
                    "number": number,
                    "filename": f"20100066603-{kind}-{series}-{number}",
                    "date_of_issue": day,
                    "time_of_issue": dt.time(10, 11, 12),
                    "currency_type_id": currency,
                    "exchange_rate_sale": Decimal("3.75") if currency == "USD" else Decimal(1),
                    "customer_identity_type": "6",
                    "customer_number": ruc,
                    "customer_name": name,
                    "customer": {},
                    "total_taxed": value,
                    "total_igv": igv,
                    "total_taxes": igv,
                    "total_value": value,
                    "total": value + igv,
                    "state_type_id": state,
                    "note_type_id": "01" if kind == "07" else None,
                    # a note names the factura it modifies, as this service's notes do
                    "affected_document": {
                        "document_type_id": "01",
                        "series": "F001",
                        "number": max(1, numbers.get("F001", 1) - 1),
                    }
                    if kind == "07"
                    else None,  # fmt: skip
                    "data_json": {"items": [line]},
                    "payments": [],
                    "created_at": stamp,
                    "updated_at": stamp,
                }
            )
    return rows


def seed_rows(settings: Any, documents: int, days: int) -> tuple[int, dict[str, int]]:
    """Write ``documents`` over ``days`` days up to today straight into the service's database."""
    from sqlalchemy import insert, select

    from facturador.context import ServiceContext
    from facturador.store.models import Document, Establishment, Tenant, User

    context = ServiceContext(settings)
    with context.session() as session:
        tenant = session.scalar(select(Tenant.id).where(Tenant.slug == "bench"))
        establishment = session.scalar(select(Establishment.id).where(Establishment.tenant_id == tenant))
        user = session.scalar(select(User.id).where(User.tenant_id == tenant))
    assert tenant is not None and establishment is not None and user is not None
    today = peru_today()
    all_days = [today - dt.timedelta(days=n) for n in range(days - 1, -1, -1)]
    per_day = max(1, documents // days)
    numbers: dict[str, int] = {}
    with context.engine.begin() as connection:
        for at in range(0, len(all_days), 7):
            rows = _documents(tenant, establishment, user, all_days[at : at + 7], per_day, numbers)
            connection.execute(insert(Document.__table__), rows)
    context.engine.dispose()
    return per_day * days, numbers


def add_day(settings: Any, numbers: dict[str, int]) -> None:
    """Today's 3,000 new documents and 100 of the recent ones changed (as a day of business would)."""
    from sqlalchemy import func, insert, select, update

    from facturador.context import ServiceContext
    from facturador.store.models import Document, Establishment, Tenant, User

    context = ServiceContext(settings)
    with context.engine.begin() as connection:
        tenant = connection.scalar(select(Tenant.id).where(Tenant.slug == "bench"))
        establishment = connection.scalar(select(Establishment.id).where(Establishment.tenant_id == tenant))
        user = connection.scalar(select(User.id).where(User.tenant_id == tenant))
        rows = _documents(tenant, establishment, user, [peru_today()], DAY_DOCUMENTS, numbers)
        now = dt.datetime.now(dt.UTC)
        for row in rows:
            row["created_at"] = row["updated_at"] = now
        connection.execute(insert(Document.__table__), rows)
        moving = select(Document.id).where(Document.state_type_id.in_(["01", "03"])).limit(100)
        connection.execute(
            update(Document)
            .where(Document.id.in_(moving.scalar_subquery()))
            .values(state_type_id="05", updated_at=func.now())
        )
    context.engine.dispose()


def page_work(path: Path, base: str, token: str, start: dt.date, end: dt.date) -> dict[str, float]:
    """What the Documentos page does for a range on a restarted dashboard, timed by step, with the peak
    memory of the process (run in a child process: ``--child``)."""
    began = time.perf_counter()
    from dashboard import data, figures  # the page's modules: part of a cold start

    imported = time.perf_counter()
    client = Client(base, token, cache=False, timeout=600)
    store = LocalStore(path, client)
    store.sync(start, end)
    synced = time.perf_counter()
    scope = data.Scope(store, start, end)  # the page reads the range in SQL (no per-document load)
    read = time.perf_counter()
    view = figures.documents_view(scope)
    done = time.perf_counter()
    warm = []
    for _ in range(2):
        t = time.perf_counter()
        figures.documents_view(scope)
        warm.append(time.perf_counter() - t)
    return {
        "rows": float(view.count),
        "imports": imported - began,
        "sync": synced - imported,
        "load": read - synced,
        "view": done - read,
        "cold": done - imported,  # the dashboard's modules are loaded when it starts: not the page's
        "warm": min(warm),
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def child(args: argparse.Namespace) -> None:
    start, end = dt.date.fromisoformat(args.start), dt.date.fromisoformat(args.end)
    print(json.dumps(page_work(Path(args.store), args.base, args.token, start, end)))


def page_in_child(path: Path, base: str, token: str, start: dt.date, end: dt.date) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", "--store", str(path), "--base", base, "--token", token,
         "--start", start.isoformat(), "--end", end.isoformat()],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def stats(values: list[float]) -> str:
    return f"p50 {statistics.median(values):7.2f} s  max {max(values):7.2f} s  (n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--first-repeat", type=int, default=None, help="Repeats of the first sync.")
    parser.add_argument("--plain", action="store_true", help="Also the first sync without the extension.")
    parser.add_argument("--database-url", default=None, help="The service on PostgreSQL (default SQLite).")
    parser.add_argument("--skip-page", action="store_true", help="Leave out the Documentos page runs.")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    for name in ("--store", "--base", "--token", "--start", "--end"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return

    from issue import RUC, TOKEN, create_bench_tenant, start_server

    from analysis.register import sales_register
    from facturador.config import Settings

    today = peru_today()
    start = today - dt.timedelta(days=args.days - 1)
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        database_url = args.database_url
        if database_url:
            from tests.conftest import _fresh_postgres

            database_url, drop = _fresh_postgres(database_url)
            stack.callback(drop)
        settings = Settings.resolve(tmp, database_url)
        create_bench_tenant(settings, overrides={"restrict_receipt_date": False}).engine.dispose()
        t = time.perf_counter()
        count, numbers = seed_rows(settings, args.documents, args.days)
        print(f"seeded {count:,} documents over {args.days} days in {time.perf_counter() - t:.0f} s")
        process, root = start_server(settings, 2)
        stack.callback(process.wait, 30)
        stack.callback(process.terminate)
        base = f"{root}/t/bench"
        client = stack.enter_context(Client(base, TOKEN, cache=False, timeout=600))

        def set_extension(on: bool) -> None:
            from facturador.context import CACHE_SECONDS, ServiceContext
            from facturador.domain.tenants import update_settings

            context = ServiceContext(settings)
            with context.session() as session, session.begin():
                update_settings(session, "bench", {"list_changes": on})
            context.engine.dispose()
            time.sleep(CACHE_SECONDS + 0.5)  # the workers' tenant cache

        first: list[float] = []
        kept = tmp / "kept.duckdb"
        for n in range(args.first_repeat or args.repeat):
            path = tmp / f"first-{n}.duckdb"
            with LocalStore(path, client) as store:
                report = store.sync(start, today)
                first.append(report.seconds)
                print(f"  first sync {n + 1}: {report.rows:,} rows, {report.requests} requests, "
                      f"{report.seconds:.1f} s")  # fmt: skip
            path.rename(kept) if n == 0 else path.unlink()
        plain_first: list[float] = []
        if args.plain:
            set_extension(False)
            path = tmp / "plain.duckdb"
            with LocalStore(path, client) as store:
                report = store.sync(start, today)
                plain_first.append(report.seconds)
                print(f"  first sync, no extension: {report.requests} requests, {report.seconds:.1f} s")
            path.unlink()
            set_extension(True)

        day_ext: list[float] = []
        day_plain: list[float] = []
        for n in range(args.repeat):
            add_day(settings, numbers)
            with LocalStore(kept, client) as store:
                report = store.sync(start, today)
                day_ext.append(report.seconds)
            print(f"  day {n + 1} with the extension: {report.rows:,} rows, {report.requests} requests")
        set_extension(False)
        for n in range(args.repeat):
            add_day(settings, numbers)
            with LocalStore(kept, client) as store:
                report = store.sync(start, today)
                day_plain.append(report.seconds)
            print(f"  day {n + 1} without it: {report.rows:,} rows, {report.requests} requests")
        set_extension(True)
        with LocalStore(kept, client) as store:
            store.sync(start, today)
            total = store.count()

        pages: list[dict[str, float]] = []
        small: list[dict[str, float]] = []
        if not args.skip_page:
            for _ in range(args.repeat):
                pages.append(page_in_child(kept, base, TOKEN, start, today))
                print(f"  Documentos {start}..{today}: {pages[-1]}")
            with LocalStore(kept) as store:
                per_day = store.sql("SELECT date_of_issue AS d, count(*) AS n FROM documents GROUP BY 1 "
                                    "ORDER BY 1 DESC")  # fmt: skip
            days_20k = int((per_day["n"].cumsum() < 20_000).sum()) + 1
            small_start = today - dt.timedelta(days=days_20k - 1)
            for _ in range(args.repeat):
                small.append(page_in_child(kept, base, TOKEN, small_start, today))
            print(f"  Documentos 20k range {small_start}..{today}: {small[-1]}")

        month_end = today.replace(day=1) - dt.timedelta(days=1)
        register: list[float] = []
        with LocalStore(kept, client) as store:
            month_rows = store.count_between(month_end.replace(day=1), month_end)
            for _ in range(args.repeat):
                t = time.perf_counter()
                built = sales_register(store.reading(client), month_end, ruc=RUC, name="BENCH S.A.C.")
                lines = len(built.ple_rows())
                register.append(time.perf_counter() - t)

    print()
    print(f"store: {total:,} documents, {args.days} days; SQLite" if not args.database_url else "PostgreSQL")
    print(f"first sync, extension ({count:,} documents): {stats(first)}  target < 600 s for 1M")
    if plain_first:
        print(f"first sync, no extension                : {stats(plain_first)}")
    print(f"a day's sync, extension                 : {stats(day_ext)}  target < 5 s")
    print(f"a day's sync, no extension (week again) : {stats(day_plain)}  target < 5 s")
    for name, runs, target in (("range", pages, 3.0), ("20k range", small, 1.5)):
        if runs:
            rows = int(runs[0]["rows"])
            print(f"Documentos {name} ({rows:,} docs) cold : {stats([r['cold'] for r in runs])}  target < "
                  f"{target} s  (sync {statistics.median(r['sync'] for r in runs):.2f} + load "
                  f"{statistics.median(r['load'] for r in runs):.2f} + view "
                  f"{statistics.median(r['view'] for r in runs):.2f})")  # fmt: skip
            print(f"Documentos {name} warm                : {stats([r['warm'] for r in runs])}  target < 1 s")
            print(f"Documentos {name} peak memory         : {max(r['rss_mb'] for r in runs):,.0f} MB  "
                  "target < 1024 MB")  # fmt: skip
    print(f"register {month_end:%Y-%m} ({month_rows:,} docs, {lines:,} lines): {stats(register)}  "
          "target < 3 s for 100k")  # fmt: skip


if __name__ == "__main__":
    main()
