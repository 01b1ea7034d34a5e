"""SUNAT's padrón reducido in the store (issue 35): the import's time and peak memory for ``--lines``
generated lines in the register's exact format (zipped as SUNAT publishes it), a re-import of the next
day's file (1 line in 100 changed, 1 in 1,000 new: only those written), and the latency of
``GET /api/services/ruc/{number}`` over HTTP (a served tenant, ``--lookups`` random RUCs, p50/p99/max) and
of the store's look-up alone.

The imports run as ``facturador padron import`` in a child process (its peak RSS is the child's), on a
throw-away SQLite data directory, or on PostgreSQL with ``--database URL`` (a database of its own: it is
created and dropped)::

    python benchmarks/padron.py --lines 1000000
    python benchmarks/padron.py --lines 1000000 --database postgresql+psycopg://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STATES = ("ACTIVO", "ACTIVO", "ACTIVO", "BAJA DE OFICIO", "BAJA DEFINITIVA", "SUSPENSION TEMPORAL")
CONDITIONS = ("HABIDO", "HABIDO", "HABIDO", "NO HABIDO", "NO HALLADO", "PENDIENTE")


def ruc_of(index: int) -> str:
    from sunat.identity import ruc_check_digit

    first10 = "20" + str(index).zfill(8)
    return first10 + str(ruc_check_digit(first10))


def write_file(path: Path, lines: int, day: int) -> None:
    """``lines`` taxpayers (plus 1 in 1,000 more on day 2, and 1 in 100 renamed), zipped."""
    from facturador.domain.padron import HEADER

    count = lines + (lines // 1000 if day == 2 else 0)
    text = path.with_suffix(".txt")
    with text.open("w", encoding="latin-1", newline="\n") as out:
        out.write(HEADER + "\n")
        for index in range(count):
            renamed = " (NUEVA RAZÓN)" if day == 2 and index % 100 == 0 else ""
            out.write(
                f"{ruc_of(index)}|EMPRESA NÚMERO {index} S.A.C.{renamed}|{STATES[index % 6]}|"
                f"{CONDITIONS[index % 6]}|150131|JR.|CALLE {index % 997}|URB.|SANTA ROSA|{index % 400}|"
                "-|-|-|-|-|\n"
            )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(text, "padron_reducido_ruc.txt")
    text.unlink()


def run_import(data: Path, database: str | None, file: Path) -> dict[str, Any]:
    """``facturador padron import`` in a child process: its wall time, peak RSS and what it said."""
    command = [sys.executable, "-m", "facturador.cli", "padron", "import", str(file), "--data-dir", str(data)]
    if database:
        command += ["--database", database]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(done.stderr or done.stdout)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {
        "seconds": round(seconds, 1),
        "cpu_seconds": round(
            cpu, 1
        ),  # the command's own work: the wall time on a busy machine is mostly waiting
        "peak_rss_mb_so_far": round(peak_mb),
        "said": done.stdout.strip(),
    }


def lookups(data: Path, database: str | None, lines: int, count: int) -> dict[str, Any]:
    """The latency of services/ruc over HTTP on a served tenant, and of the store's look-up alone."""
    import httpx
    import uvicorn

    from facturador.app import create_app
    from facturador.config import Settings
    from facturador.context import ServiceContext
    from facturador.domain.padron import find_taxpayer
    from facturador.domain.tenants import create_tenant

    settings = Settings.resolve(data, database)
    context = ServiceContext(settings)
    token = uuid.uuid4().hex * 2
    with context.session() as session, session.begin():
        create_tenant(session, settings, "bench", ruc=ruc_of(99_999_999), name="BENCH S.A.C.", token=token)
    server = uvicorn.Server(
        uvicorn.Config(create_app(context), host="127.0.0.1", port=0, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    numbers = [ruc_of(random.randrange(lines)) for _ in range(count)]
    http: list[float] = []
    with httpx.Client(
        base_url=f"http://127.0.0.1:{port}/t/bench", headers={"Authorization": f"Bearer {token}"}
    ) as c:
        c.get(f"/api/services/ruc/{numbers[0]}")  # warm
        for number in numbers:
            began = time.perf_counter()
            answer = c.get(f"/api/services/ruc/{number}")
            http.append((time.perf_counter() - began) * 1000)
            assert answer.status_code == 200, answer.text
    store: list[float] = []
    with context.engine.connect() as connection:
        for number in numbers:
            began = time.perf_counter()
            assert find_taxpayer(connection, number) is not None
            store.append((time.perf_counter() - began) * 1000)
    server.should_exit = True
    thread.join(timeout=10)
    context.engine.dispose()

    def figures(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "p50_ms": round(statistics.median(ordered), 2),
            "p99_ms": round(ordered[int(len(ordered) * 0.99) - 1], 2),
            "max_ms": round(ordered[-1], 2),
        }

    return {"http": figures(http), "store": figures(store)}


def fresh_postgres(url: str) -> tuple[str, Any]:
    """A database of its own on the server of ``url``, and how to drop it."""
    import sqlalchemy as sa

    name = f"padron_bench_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return str(sa.engine.make_url(url).set(database=name).render_as_string(hide_password=False)), drop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="Taxpayers in the generated register.")
    parser.add_argument("--lookups", type=int, default=1000, help="RUCs looked up.")
    parser.add_argument("--database", default=None, help="A PostgreSQL URL (a database of its own is made).")
    args = parser.parse_args()
    drop = None
    database = args.database
    if database:
        database, drop = fresh_postgres(database)
    try:
        with tempfile.TemporaryDirectory(prefix="padron-bench-") as folder:
            root = Path(folder)
            day1, day2 = root / "day1" / "padron_reducido_ruc.zip", root / "day2" / "padron_reducido_ruc.zip"
            for day, path in ((1, day1), (2, day2)):
                path.parent.mkdir()
                write_file(path, args.lines, day)
            data = root / "data"
            first = run_import(data, database, day1)
            second = run_import(data, database, day2)
            latency = lookups(data, database, args.lines, args.lookups)
            load = os.getloadavg()
            print(
                json.dumps(
                    {
                        "lines": args.lines,
                        "database": "postgresql" if database else "sqlite",
                        "zip_mb": round(day1.stat().st_size / 1e6, 1),
                        "first_import": first,
                        "next_day_import": second,
                        "services_ruc_latency": latency,
                        "load_average": [round(value, 1) for value in load],
                    },
                    indent=2,
                    ensure_ascii=False,
                )
            )
    finally:
        if drop is not None:
            drop()


if __name__ == "__main__":
    main()
