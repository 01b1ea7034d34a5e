"""Latency of small requests while one tenant issues big documents and their PDFs are rendered.

Starts ``facturador serve`` (W workers) on a throw-away data directory, SQLite by default or a fresh
database on the PostgreSQL server of --database (created and dropped here), with two tenants: ``bench``
does the big work, ``small`` is another company whose clients only want quick answers. Three probes
(one thread and one kept-alive connection each) send small requests one after the other with a short
pause, and their latency is recorded in three phases:

- idle: nothing else runs (what the small requests cost by themselves);
- issuing: B clients of ``bench`` issue facturas of L lines in a loop, and right after each one R
  clients ask for its PDF at once (the first download renders it, the others should share that);
- burst: N concurrent first downloads of the PDFs of M big documents issued just before.

The small requests: ``GET /health``; a one-line factura of ``small`` (``POST /api/documents``, sent to
the simulated SUNAT); the list of its latest 50 documents (``GET /api/documents/lists``). For each phase
and kind the benchmark prints p50, p99 and the maximum, and beside them what the big requests took.
Timing on a shared machine is noisy: compare figures of one run, or runs made one after the other.

Run:  python benchmarks/busy_tenant.py
      python benchmarks/busy_tenant.py --database postgresql+psycopg://postgres:postgres@127.0.0.1/postgres
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import http.client
import json
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).parent))
from issue import (  # noqa: E402
    TOKEN,
    create_bench_tenant,
    invoice,
    percentile,
    start_server,
    throwaway_database,
)

SMALL = "small"
SMALL_RUC = "20456789014"
SMALL_TOKEN = "small-token-0123456789-abcdefghijklmno"


def big_invoice(lines: int) -> dict:
    """A factura of ``lines`` lines, each of its own product (as a big order is)."""
    body = invoice(lines)
    for index, item in enumerate(body["items"]):
        item["codigo_interno"] = f"P{index:05d}"
        item["descripcion"] = f"Producto {index:05d} de la orden grande, caja de 12 unidades"
    return body


class Connection:
    """One kept-alive HTTP/1.1 connection (stdlib: the client shares the machine's cores with the server
    and should cost as little as it can), reopened if the server closed it."""

    def __init__(self, root: str):
        self.url = urlsplit(root)
        self.http: http.client.HTTPConnection | None = None

    def request(
        self, method: str, path: str, body: bytes | None = None, token: str | None = None
    ) -> tuple[int, bytes]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        for attempt in range(2):
            if self.http is None:
                self.http = http.client.HTTPConnection(self.url.hostname or "", self.url.port, timeout=300)
            try:
                self.http.request(method, path, body, headers)
                response = self.http.getresponse()
                return response.status, response.read()
            except (ConnectionError, http.client.HTTPException):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.http is not None:
            self.http.close()
            self.http = None


@dataclass
class Sample:
    at: float  # when the request was sent (time.perf_counter)
    seconds: float
    status: int


@dataclass
class Probe:
    """A small request sent again and again, ``pause`` seconds apart, until stopped."""

    kind: str
    method: str
    path: str
    body: bytes | None = None
    token: str | None = None
    samples: list[Sample] = field(default_factory=list)

    def run(self, root: str, stop: threading.Event, pause: float) -> None:
        connection = Connection(root)
        try:
            while not stop.is_set():
                start = time.perf_counter()
                status, _answer = connection.request(self.method, self.path, self.body, self.token)
                self.samples.append(Sample(start, time.perf_counter() - start, status))
                stop.wait(pause)
        finally:
            connection.close()


@dataclass
class Phase:
    name: str
    start: float = 0.0
    end: float = 0.0
    big: dict[str, list[float]] = field(default_factory=dict)

    def record(self, kind: str, seconds: float) -> None:
        self.big.setdefault(kind, []).append(seconds)


def issue_big(root: str, body: bytes) -> tuple[str, float]:
    """Issue one big factura of ``bench``; its PDF link and the seconds it took."""
    connection = Connection(root)
    try:
        start = time.perf_counter()
        status, answer = connection.request("POST", "/t/bench/api/documents", body, TOKEN)
        took = time.perf_counter() - start
    finally:
        connection.close()
    if status != 200:
        raise RuntimeError(f"issuing the big factura answered {status}: {answer[:500]!r}")
    return urlsplit(json.loads(answer)["links"]["pdf"]).path, took


def download(root: str, path: str) -> float:
    """Seconds until ``path``'s PDF arrives: a big one not ready is answered 202 (Retry-After), and asked
    again every half second as a client does (benchmarks/pdf_downloads.py times the answers)."""
    connection = Connection(root)
    try:
        start = time.perf_counter()
        status, answer = connection.request("GET", path)
        while status == 202:
            time.sleep(0.5)
            status, answer = connection.request("GET", path)
        took = time.perf_counter() - start
    finally:
        connection.close()
    if status != 200 or not answer.startswith(b"%PDF"):
        raise RuntimeError(f"GET {path} answered {status}: {answer[:200]!r}")
    return took


def issuing_phase(root: str, body: bytes, phase: Phase, seconds: float, clients: int, readers: int) -> None:
    """``clients`` loops of: issue a big factura, then ``readers`` concurrent first downloads of its PDF."""
    deadline = time.perf_counter() + seconds

    def client(_: int) -> None:
        with ThreadPoolExecutor(readers) as pool:
            while time.perf_counter() < deadline:
                path, took = issue_big(root, body)
                phase.record("issue", took)
                for took in pool.map(download, [root] * readers, [path] * readers):
                    phase.record("pdf", took)

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))


def burst_phase(root: str, paths: list[str], phase: Phase, requests: int) -> None:
    """``requests`` concurrent first downloads spread over the PDFs of ``paths``."""
    with ThreadPoolExecutor(requests) as pool:
        for took in pool.map(lambda index: download(root, paths[index % len(paths)]), range(requests)):
            phase.record("pdf", took)


def report(phases: list[Phase], probes: list[Probe]) -> None:
    for phase in phases:
        print(f"-- {phase.name}: {phase.end - phase.start:5.1f} s")
        for probe in probes:
            samples = [s for s in probe.samples if phase.start <= s.at < phase.end]
            failed = sum(1 for s in samples if s.status != 200)
            if not samples:
                print(f"   {probe.kind:24} no request in this phase")
                continue
            ms = [s.seconds * 1000 for s in samples]
            print(
                f"   {probe.kind:24} p50 {percentile(ms, 0.5):8.1f} ms  p99 {percentile(ms, 0.99):8.1f} ms  "
                f"max {max(ms):8.1f} ms  n={len(ms)}" + (f"  NOT 200: {failed}" if failed else "")
            )
        for kind, values in phase.big.items():
            ms = [v * 1000 for v in values]
            print(
                f"   big: {kind:19} p50 {percentile(ms, 0.5):8.1f} ms  p99 {percentile(ms, 0.99):8.1f} ms  "
                f"max {max(ms):8.1f} ms  n={len(ms)}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--database", default=None, help="a PostgreSQL server URL (default: SQLite in a temp dir)"
    )
    parser.add_argument("--workers", type=int, default=1, help="server worker processes")
    parser.add_argument("--lines", type=int, default=999, help="lines of a big factura")
    parser.add_argument("--idle-seconds", type=float, default=5)
    parser.add_argument("--seconds", type=float, default=30, help="length of the issuing phase")
    parser.add_argument("--big-clients", type=int, default=2, help="clients issuing big facturas")
    parser.add_argument("--readers", type=int, default=4, help="concurrent downloads of each big PDF")
    parser.add_argument("--burst", type=int, default=20, help="concurrent first PDF downloads")
    parser.add_argument("--burst-documents", type=int, default=4, help="big documents the burst asks for")
    parser.add_argument("--pause", type=float, default=0.05, help="seconds between a probe's requests")
    args = parser.parse_args()

    from facturador.config import Settings
    from facturador.domain.tenants import create_tenant

    small_body = copy.deepcopy(invoice(1))
    small_body["datos_del_cliente_o_receptor"]["numero_documento"] = "20100066603"
    small = json.dumps(small_body).encode()
    big = json.dumps(big_invoice(args.lines)).encode()
    probes = [
        Probe("GET /health", "GET", "/health"),
        Probe("one-line factura (small)", "POST", f"/t/{SMALL}/api/documents", small, SMALL_TOKEN),
        Probe("list of 50 (small)", "GET", f"/t/{SMALL}/api/documents/lists", token=SMALL_TOKEN),
    ]
    phases = [Phase("idle"), Phase(f"issuing {args.lines}-line facturas"), Phase("burst of first PDFs")]
    with tempfile.TemporaryDirectory() as tmp, throwaway_database(args.database) as url:
        settings = Settings.resolve(Path(tmp), url)
        context = create_bench_tenant(settings, address="Av. Lima 1", ubigeo="150101")
        with context.session() as session, session.begin():
            create_tenant(session, settings, SMALL, ruc=SMALL_RUC, name="PEQUEÑA S.A.C.", token=SMALL_TOKEN)
        context.engine.dispose()
        process, root = start_server(settings, args.workers)
        stop = threading.Event()
        try:
            warm = Connection(root)
            for _ in range(55):  # the list has its 50 rows; imports and caches of every worker are warm
                status, answer = warm.request("POST", f"/t/{SMALL}/api/documents", small, SMALL_TOKEN)
                if status != 200:
                    raise RuntimeError(answer.decode(errors="replace"))
            warm.close()
            for _ in range(args.workers):
                download(root, issue_big(root, big)[0])
            threads = [
                threading.Thread(target=probe.run, args=(root, stop, args.pause), daemon=True)
                for probe in probes
            ]
            for thread in threads:
                thread.start()
            idle, issuing, burst = phases
            idle.start = time.perf_counter()
            time.sleep(args.idle_seconds)
            idle.end = issuing.start = time.perf_counter()
            issuing_phase(root, big, issuing, args.seconds, args.big_clients, args.readers)
            issuing.end = time.perf_counter()
            paths = [issue_big(root, big)[0] for _ in range(args.burst_documents)]
            burst.start = time.perf_counter()
            burst_phase(root, paths, burst, args.burst)
            burst.end = time.perf_counter()
        finally:
            stop.set()
            process.terminate()
            process.wait(timeout=60)

    database = "sqlite" if not args.database else args.database.split("://")[0]
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"date {dt.datetime.now():%Y-%m-%d %H:%M}  cpus {os.cpu_count()}  load average {load}  "
        f"database {database}  workers {args.workers}  big: {args.lines} lines, {args.big_clients} "
        f"clients x {args.readers} PDF readers; burst {args.burst} over {args.burst_documents} documents"
    )
    report(phases, probes)


if __name__ == "__main__":
    main()
