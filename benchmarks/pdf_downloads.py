"""Wall time of concurrent first downloads of a big document's PDF: each answer (200 with the PDF, or 202
with Retry-After while it is rendered) and the time until each client holds the PDF.

Starts ``facturador serve`` (W workers) on a throw-away data directory, SQLite by default or a fresh
database on the PostgreSQL server of --database (created and dropped here); issues D facturas of L lines
and, for each, sends C first downloads of its PDF at once; then C first downloads at once spread over S
new big documents (--spread: many renderings queued behind each other, the slow case). Each client
follows a 202 as the connector does (asks again after Retry-After) until it has the PDF. Prints, per
burst and over all: the first answers' statuses, every answer's time (p50, p99, max: what a connection,
a proxy or a client's timeout sees), the time to the PDF, and how many different PDFs were answered (1
a document: one rendering for everyone). A small document's first downloads are timed too (answered at
once, never 202).

Run:  python benchmarks/pdf_downloads.py
      python benchmarks/pdf_downloads.py --database postgresql+psycopg://postgres:postgres@127.0.0.1/postgres
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).parent))
from busy_tenant import big_invoice  # noqa: E402
from issue import TOKEN, create_bench_tenant, percentile, start_server, throwaway_database  # noqa: E402


@dataclass
class Fetched:
    first_status: int
    first_seconds: float  # the first answer's wall time
    answers: list[float]  # every answer's wall time (202s and the 200)
    to_pdf: float  # until the PDF was held
    content: bytes


def fetch(root: str, path: str, start: threading.Barrier) -> Fetched:
    """GET ``path`` on a connection of its own, following 202s after their Retry-After."""
    url = urlsplit(root)
    connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=300)
    answers: list[float] = []
    first_status = 0
    try:
        start.wait()
        began = time.perf_counter()
        while True:
            sent = time.perf_counter()
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
            answers.append(time.perf_counter() - sent)
            first_status = first_status or response.status
            if response.status != 202:
                break
            time.sleep(float(response.getheader("Retry-After") or 1))
        if response.status != 200 or not body.startswith(b"%PDF"):
            raise RuntimeError(f"GET {path} answered {response.status}: {body[:200]!r}")
        return Fetched(first_status, answers[0], answers, time.perf_counter() - began, body)
    finally:
        connection.close()


def issue(root: str, body: dict) -> str:
    url = urlsplit(root)
    connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=300)
    try:
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"}
        connection.request("POST", "/t/bench/api/documents", json.dumps(body).encode(), headers)
        response = connection.getresponse()
        answer = response.read()
    finally:
        connection.close()
    if response.status != 200:
        raise RuntimeError(f"issuing answered {response.status}: {answer[:300]!r}")
    return urlsplit(json.loads(answer)["links"]["pdf"]).path


def burst(root: str, path: str | list[str], clients: int) -> list[Fetched]:
    """``clients`` first downloads at once, of ``path`` or of each path in turn."""
    paths = [path] if isinstance(path, str) else path
    start = threading.Barrier(clients)
    with ThreadPoolExecutor(clients) as pool:
        return list(pool.map(lambda n: fetch(root, paths[n % len(paths)], start), range(clients)))


def line(name: str, fetched: list[Fetched]) -> str:
    answers = [seconds for f in fetched for seconds in f.answers]
    to_pdf = [f.to_pdf for f in fetched]
    statuses = {status: sum(f.first_status == status for f in fetched) for status in (200, 202)}
    return (
        f"{name}: first answers 200×{statuses[200]} 202×{statuses[202]}; every answer p50 "
        f"{percentile(answers, 0.5):6.2f} s p99 {percentile(answers, 0.99):6.2f} s "
        f"max {max(answers):6.2f} s; "
        f"to the PDF p50 {percentile(to_pdf, 0.5):6.2f} s max {max(to_pdf):6.2f} s; "
        f"different PDFs {len({f.content for f in fetched})}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database", default=None, help="a PostgreSQL server URL (default: SQLite)")
    parser.add_argument("--workers", type=int, default=2, help="server worker processes")
    parser.add_argument("--lines", type=int, default=999, help="lines of the big factura")
    parser.add_argument("--documents", type=int, default=2, help="big documents, one burst each")
    parser.add_argument("--clients", type=int, default=20, help="concurrent first downloads of each PDF")
    parser.add_argument(
        "--spread",
        type=int,
        default=20,
        help="then the clients' first downloads over this many big documents",
    )
    args = parser.parse_args()

    from facturador.config import Settings

    with tempfile.TemporaryDirectory() as tmp, throwaway_database(args.database) as url:
        settings = Settings.resolve(Path(tmp), url)
        create_bench_tenant(settings, address="Av. Lima 1", ubigeo="150101").engine.dispose()
        process, root = start_server(settings, args.workers)
        results: list[tuple[str, list[Fetched]]] = []
        try:
            for _ in range(args.workers):  # warm-up: every worker has rendered a PDF once
                burst(root, issue(root, big_invoice(3)), 1)
            results.append(("3-line factura", burst(root, issue(root, big_invoice(3)), args.clients)))
            for index in range(args.documents):
                path = issue(root, big_invoice(args.lines))
                results.append((f"{args.lines}-line factura #{index + 1}", burst(root, path, args.clients)))
            if args.spread:  # the clients' first downloads spread over that many new big documents
                paths = [issue(root, big_invoice(args.lines)) for _ in range(args.spread)]
                results.append(
                    (f"{args.spread} {args.lines}-line facturas at once", burst(root, paths, args.clients))
                )
        finally:
            process.terminate()
            process.wait(timeout=60)

    database = "sqlite" if not args.database else args.database.split("://")[0]
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"date {dt.datetime.now():%Y-%m-%d %H:%M}  cpus {os.cpu_count()}  load average {load}  "
        f"database {database}  workers {args.workers}  {args.clients} concurrent first downloads each"
    )
    for name, fetched in results:
        print(line(name, fetched))
    big = [f for _name, fetched in results[1:] for f in fetched]
    if big:
        print(line(f"all {args.lines}-line", big))


if __name__ == "__main__":
    main()
