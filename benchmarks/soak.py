"""Soak: a day's traffic at a steady rate for a while (an hour, or a compressed equivalent), watching that
nothing grows: memory of every process, file descriptors, database connections, latencies, errors.

Starts ``facturador serve`` (W workers, its background worker in the main process) on a throw-away data
directory, SQLite by default or a fresh database on the PostgreSQL server of --database (created and
dropped here); measures the issuing capacity (8 clients, a short burst) and then, for --minutes, issues
facturas and boletas at --rate documents/s (default: half the capacity measured), with the rest of a
day's traffic mixed in: a list of the latest documents every 5 issues, a download (XML, CDR or PDF of a
recent document) every 3, a voided communication of an accepted factura every 40, a daily summary of the
boletas every 60 (answered 4xx when none is left to declare: counted apart, not as errors).

Every --sample-seconds it samples each process of the server (RSS, open file descriptors) and the
database connections (PostgreSQL: pg_stat_activity of the database; SQLite: open handles of its file).
It prints the memory slope of each process (MB per hour, least squares over the samples after the first
bucket, when caches warm), the ranges of descriptors and connections, p50/p99 per endpoint per bucket
(--minutes / 12: an hour's 5-minute buckets, compressed), and every error.

Run:  python benchmarks/soak.py                  (10 minutes)
      python benchmarks/soak.py --minutes 60     (the hour)
      python benchmarks/soak.py --database postgresql+psycopg://postgres:postgres@127.0.0.1/postgres
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import psutil

sys.path.insert(0, str(Path(__file__).parent))
from issue import (  # noqa: E402
    TOKEN,
    create_bench_tenant,
    invoice,
    percentile,
    run_load,
    start_server,
    throwaway_database,
)


@dataclass
class Record:
    """What the clients saw and what the sampler read."""

    started: float = field(default_factory=time.monotonic)
    answers: list[tuple[float, str, int, float]] = field(default_factory=list)  # (at, endpoint, status, s)
    errors: list[str] = field(default_factory=list)
    samples: list[tuple[float, dict[int, tuple[float, int]], int]] = field(default_factory=list)
    recent: list[tuple[str, str]] = field(default_factory=list)  # (external_id, series) issued
    lock: threading.Lock = field(default_factory=threading.Lock)


class Client:
    """One kept-alive connection to the tenant ``bench``."""

    def __init__(self, root: str):
        self.url = urlsplit(root)
        self.http = http.client.HTTPConnection(self.url.hostname or "", self.url.port, timeout=120)

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        for attempt in range(2):
            try:
                self.http.request(method, f"/t/bench{path}", data, headers)
                response = self.http.getresponse()
                return response.status, response.read()
            except (ConnectionError, http.client.HTTPException):
                self.http.close()
                self.http = http.client.HTTPConnection(self.url.hostname or "", self.url.port, timeout=120)
                if attempt:
                    raise
        raise AssertionError("unreachable")


def timed(record: Record, client: Client, endpoint: str, method: str, path: str, body: dict | None = None):
    sent = time.monotonic()
    try:
        status, answer = client.call(method, path, body)
    except Exception as exc:  # a transport error is an error of the soak
        with record.lock:
            record.errors.append(f"{endpoint}: {type(exc).__name__}: {exc}")
        return None, b""
    with record.lock:
        record.answers.append((sent - record.started, endpoint, status, time.monotonic() - sent))
        if status >= 500 or (status >= 400 and endpoint != "POST /api/summaries"):
            record.errors.append(f"{endpoint}: {status} {answer[:200]!r}")
    return status, answer


def traffic(root: str, record: Record, rate: float, until: float, clients: int) -> None:
    """Issue at ``rate`` documents/s from ``clients`` threads (a shared schedule), the rest mixed in."""
    schedule = iter(range(10**9))
    today = dt.date.fromisoformat(invoice()["fecha_de_emision"])

    def worker(seed: int) -> None:
        client, rng = Client(root), random.Random(seed)
        while True:
            with record.lock:
                n = next(schedule)
            at = record.started + n / rate
            if at > until:
                return
            time.sleep(max(at - time.monotonic(), 0))
            series = "B001" if n % 4 == 3 else "F001"
            status, answer = timed(
                record, client, "POST /api/documents", "POST", "/api/documents", invoice(3, series)
            )
            if status == 200:
                with record.lock:
                    record.recent = (record.recent + [(json.loads(answer)["data"]["external_id"], series)])[
                        -200:
                    ]
            if n % 5 == 0:
                timed(record, client, "GET /api/documents/lists", "GET", "/api/documents/lists")
            if n % 3 == 0 and record.recent:
                external_id, chosen = rng.choice(record.recent)
                kind = rng.choice(
                    ["xml", "cdr", "pdf"] if chosen == "F001" else ["xml", "pdf"]
                )  # boletas: no CDR
                timed(
                    record,
                    client,
                    f"GET /downloads/document/{kind}",
                    "GET",
                    f"/downloads/document/{kind}/{external_id}",
                )
            if n % 40 == 20:
                with record.lock:
                    facturas = [e for e, s in record.recent if s == "F001"]
                    if facturas:
                        record.recent = [(e, s) for e, s in record.recent if e != facturas[0]]
                if facturas:
                    body = {
                        "fecha_de_emision_de_documentos": today.isoformat(),
                        "documentos": [
                            {"external_id": facturas[0], "motivo_anulacion": "Error de digitación"}
                        ],
                    }
                    timed(record, client, "POST /api/voided", "POST", "/api/voided", body)
            if n % 60 == 30:
                body = {"fecha_de_emision_de_documentos": today.isoformat(), "codigo_tipo_proceso": "1"}
                timed(record, client, "POST /api/summaries", "POST", "/api/summaries", body)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def connections(database_url: str | None, data_dir: Path, processes: list[psutil.Process]) -> int:
    if database_url:
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        url = make_url(database_url)
        engine = create_engine(url.set(database="postgres"))
        try:
            with engine.connect() as connection:
                query = text("SELECT count(*) FROM pg_stat_activity WHERE datname = :name")
                return int(connection.execute(query, {"name": url.database}).scalar_one())
        finally:
            engine.dispose()
    count = 0
    for process in processes:
        try:
            count += sum(f.path.startswith(str(data_dir / "facturador.db")) for f in process.open_files())
        except psutil.Error:
            pass
    return count


def sampler(
    pid: int, record: Record, database_url: str | None, data_dir: Path, every: float, stop: threading.Event
) -> None:
    while not stop.wait(every):
        try:
            parent = psutil.Process(pid)
            processes = [parent, *parent.children(recursive=True)]
        except psutil.Error:
            return
        figures: dict[int, tuple[float, int]] = {}
        for process in processes:
            try:
                figures[process.pid] = (process.memory_info().rss / 2**20, process.num_fds())
            except psutil.Error:
                pass
        record.samples.append(
            (time.monotonic() - record.started, figures, connections(database_url, data_dir, processes))
        )


def slope(points: list[tuple[float, float]]) -> float:
    """Least squares slope of (seconds, MB), in MB per hour."""
    if len(points) < 3:
        return 0.0
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return 3600 * sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0


def report(record: Record, seconds: float, bucket: float) -> None:
    pids = sorted({pid for _t, figures, _c in record.samples for pid in figures})
    print("memory (RSS) per process, first / last MB, slope MB/hour after the first bucket:")
    for pid in pids:
        points = [(t, figures[pid][0]) for t, figures, _c in record.samples if pid in figures]
        fds = [figures[pid][1] for _t, figures, _c in record.samples if pid in figures]
        warm = [(t, mb) for t, mb in points if t >= bucket] or points
        print(
            f"  pid {pid}: {points[0][1]:7.1f} -> {points[-1][1]:7.1f} MB  slope {slope(warm):+8.1f} MB/h  "
            f"fds {min(fds)}..{max(fds)}  ({len(points)} samples)"
        )
    connections_seen = [c for _t, _f, c in record.samples]
    if connections_seen:
        print(f"database connections: {min(connections_seen)}..{max(connections_seen)}")
    endpoints = sorted({endpoint for _at, endpoint, _s, _took in record.answers})
    buckets = int(seconds // bucket) + 1
    print(f"latency p50/p99 ms per endpoint per bucket of {bucket:.0f} s (count):")
    for endpoint in endpoints:
        cells = []
        for index in range(buckets):
            took = [
                t
                for at, e, _s, t in record.answers
                if e == endpoint and index * bucket <= at < (index + 1) * bucket
            ]
            if took:
                cells.append(
                    f"{percentile(took, 0.5) * 1000:.0f}/{percentile(took, 0.99) * 1000:.0f} ({len(took)})"
                )
        print(f"  {endpoint}: " + "  ".join(cells))
    statuses: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for _at, endpoint, status, _took in record.answers:
        statuses[endpoint][status] += 1
    print("statuses: " + "; ".join(f"{e} {dict(s)}" for e, s in sorted(statuses.items())))
    print(f"errors: {len(record.errors)}")
    for error in record.errors[:20]:
        print(f"  {error}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10, help="length of the soak (60: the hour)")
    parser.add_argument("--database", default=None, help="a PostgreSQL server URL (default: SQLite)")
    parser.add_argument("--workers", type=int, default=2, help="server worker processes")
    parser.add_argument("--rate", type=float, default=None, help="documents/s (default: half the capacity)")
    parser.add_argument("--clients", type=int, default=4, help="client threads sharing the schedule")
    parser.add_argument("--sample-seconds", type=float, default=5)
    args = parser.parse_args()

    from facturador.config import Settings

    with tempfile.TemporaryDirectory() as tmp, throwaway_database(args.database) as url:
        data_dir = Path(tmp)
        settings = Settings.resolve(data_dir, url)
        create_bench_tenant(settings, address="Av. Lima 1", ubigeo="150101").engine.dispose()
        process, root = start_server(settings, args.workers)
        try:
            bodies = [invoice(3), invoice(3, "B001")]
            run_load(f"{root}/t/bench", bodies, 100, 4)  # warm-up
            wall, _latencies = run_load(f"{root}/t/bench", bodies, 300, 8)
            capacity = 300 / wall
            rate = args.rate or capacity / 2
            record = Record()
            stop = threading.Event()
            watcher = threading.Thread(
                target=sampler,
                args=(process.pid, record, url, data_dir, args.sample_seconds, stop),
                daemon=True,
            )
            watcher.start()
            seconds = args.minutes * 60
            traffic(root, record, rate, record.started + seconds, args.clients)
            stop.set()
            watcher.join(timeout=30)
        finally:
            process.terminate()
            process.wait(timeout=60)

    database = "sqlite" if not args.database else args.database.split("://")[0]
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"date {dt.datetime.now():%Y-%m-%d %H:%M}  cpus {os.cpu_count()}  load average {load}  database "
        f"{database}  workers {args.workers}  {args.minutes:g} min  capacity {capacity:.1f} docs/s  rate "
        f"{rate:.1f} docs/s  issued {sum(e == 'POST /api/documents' for _a, e, _s, _t in record.answers)}"
    )
    report(record, seconds, seconds / 12)


if __name__ == "__main__":
    main()
