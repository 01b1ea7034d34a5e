"""Issuing throughput and latency over HTTP, beside the in-process cost of the same work.

Starts ``facturador serve`` with W worker processes on a throw-away data directory (SQLite by default,
or a fresh database on the PostgreSQL server of --database, dropped after), issues N facturas with C
concurrent clients (each sent to the simulated SUNAT, so every document costs: HTTP, validation,
numbering, XML, signature, storage, zip, CDR with its own signature), and prints documents/s and p50/p99
latency next to:

- build+sign: the in-process time to check the same body, build the UBL XML and sign it;
- RSA: one bare RSA-2048 PKCS#1 v1.5 signature;

so the ratios show where time goes. Run:  python benchmarks/issue.py --documents 2000 --clients 8

``--series F001 B001`` issues facturas and boletas (DNI customers; not sent one by one, they go in daily
summaries) in turn, as a shop's tills do: each series has its own correlative, so its own row lock.
``--compare DIR`` serves a second checkout (a clone of main) beside this tree, each on its own store,
and alternates the concurrent runs between the two (A B B A ...: the machine's load touches both alike);
it prints both trees' figures and the ratio of each pair of runs.

The machine's speed drifts: the 1-client rounds are each measured beside an in-process round, and the
concurrent run is repeated; medians are reported with every round's figure.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import datetime as dt
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding

from facturador.config import Settings
from facturador.context import ServiceContext
from facturador.domain.document_input import parse_document
from facturador.domain.documents import DocumentService, sales_document
from facturador.domain.tenants import create_tenant, hash_token
from facturador.issued import Issuer
from facturador.ubl.invoice import build_and_sign
from facturador.ubl.signing import SigningIdentity, generate_identity
from sunat.calendar import peru_today

TOKEN = "bench-token-0123456789-abcdefghijklmnop"
RUC = "20100066603"
#: The tenant's address in this benchmark's stores (the issuer of :class:`InProcess` too).
BENCH_FIELDS = {"address": "Av. Lima 1", "ubigeo": "150101"}


def invoice(lines: int = 3, series: str = "F001") -> dict:
    """A taxed factura with ``lines`` lines of 2 x 50.00 (+ IGV); a boleta to a DNI customer when
    ``series`` is a boleta's (``B...``)."""
    item = {
        "codigo_interno": "P0121",
        "descripcion": "Inca Kola 250 ml",
        "unidad_de_medida": "NIU",
        "cantidad": 2,
        "valor_unitario": 50,
        "codigo_tipo_precio": "01",
        "precio_unitario": 59,
        "codigo_tipo_afectacion_igv": "10",
        "total_base_igv": 100,
        "porcentaje_igv": 18,
        "total_igv": 18,
        "total_impuestos": 18,
        "total_valor_item": 100,
        "total_item": 118,
    }
    today = peru_today().isoformat()
    boleta = series.startswith("B")
    return {
        "serie_documento": series,
        "numero_documento": "#",
        "fecha_de_emision": today,
        "hora_de_emision": "10:11:11",
        "codigo_tipo_operacion": "0101",
        "codigo_tipo_documento": "03" if boleta else "01",
        "codigo_tipo_moneda": "PEN",
        "fecha_de_vencimiento": today,
        "datos_del_cliente_o_receptor": {
            "codigo_tipo_documento_identidad": "1" if boleta else "6",
            "numero_documento": "41235678" if boleta else "20601030013",
            "apellidos_y_nombres_o_razon_social": "ROSA HUAMAN TORRES" if boleta else "EMPRESA XYZ S.A.C.",
            "codigo_pais": "PE",
            "ubigeo": "150101",
            "direccion": "Av. 2 de Mayo 123",
        },
        "totales": {
            "total_operaciones_gravadas": 100 * lines,
            "total_igv": 18 * lines,
            "total_impuestos": 18 * lines,
            "total_valor": 100 * lines,
            "total_venta": 118 * lines,
        },
        "items": [copy.deepcopy(item) for _ in range(lines)],
    }


class InProcess:
    """The in-process costs the HTTP figures are compared with, measured in the benchmark's process."""

    def __init__(self, body: dict):
        key_pem, cert_pem = generate_identity(RUC, "BENCH")
        self.identity = SigningIdentity.from_pem(key_pem, cert_pem)
        self.issuer = Issuer(ruc=RUC, name="BENCH S.A.C.", **BENCH_FIELDS)
        self.body = body
        self.today = peru_today()
        self.build_sign(20)  # warm-up
        self.rsa(20)

    def p10s(self, rounds: int) -> tuple[float, float]:
        """p10 seconds of check+build+sign and of one bare RSA signature, timed call by call and
        alternately (the drift of the machine touches both alike)."""
        data = b"x" * 2000
        key = self.identity.key
        builds, signatures = [], []
        for number in range(1, rounds + 1):
            start = time.perf_counter()
            self._once(number)
            middle = time.perf_counter()
            key.sign(data, padding.PKCS1v15(), hashes.SHA1())  # noqa: S303
            builds.append(middle - start)
            signatures.append(time.perf_counter() - middle)
        return percentile(builds, 0.1), percentile(signatures, 0.1)

    def _once(self, number: int) -> None:
        """What the service does to a body before storing it: check it, make the document (with its
        legends) and build + sign the XML with the number."""
        request = parse_document(self.body, today=self.today)
        build_and_sign(replace(sales_document(self.issuer, request), number=number), self.identity)

    def build_sign(self, rounds: int) -> float:
        """Mean seconds to check the body, build the UBL XML and sign it."""
        start = time.perf_counter()
        for number in range(1, rounds + 1):
            self._once(number)
        return (time.perf_counter() - start) / rounds

    def rsa(self, rounds: int) -> float:
        """Mean seconds of one bare RSA-2048 PKCS#1 v1.5 signature (SHA-1, SUNAT's algorithm)."""
        data = b"x" * 2000
        start = time.perf_counter()
        for _ in range(rounds):
            self.identity.key.sign(data, padding.PKCS1v15(), hashes.SHA1())  # noqa: S303
        return (time.perf_counter() - start) / rounds


class InProcessIssue:
    """``DocumentService.issue`` of the benchmark's tenant in this process, on the server's store."""

    def __init__(self, settings: Settings, body: dict):
        self.context = ServiceContext(settings)
        self.service = DocumentService(self.context)
        tenant = self.context.tenant_by_slug("bench")
        assert tenant is not None
        caller = self.context.authenticate(tenant, hash_token(TOKEN))
        assert caller is not None
        self.tenant, self.caller, self.body = tenant, caller, body
        self.latencies(10)  # warm-up: imports, caches, connections

    def latencies(self, documents: int) -> list[float]:
        """Seconds of each of ``documents`` issues in a row."""
        out = []
        for _ in range(documents):
            start = time.perf_counter()
            issued = self.service.issue(self.tenant, self.caller, self.body)
            out.append(time.perf_counter() - start)
            if issued.document.state_type_id != "05":
                raise RuntimeError(f"not accepted: {issued.document.state_type_id}")
        return out

    def close(self) -> None:
        self.context.engine.dispose()


def create_bench_tenant(settings: Settings, **fields: Any) -> ServiceContext:
    """The service of ``settings`` with the benchmarks' tenant ``bench`` (:data:`RUC`, :data:`TOKEN`);
    ``fields`` are more of ``create_tenant``'s keywords (address, overrides...). The caller disposes of
    the context's engine."""
    context = ServiceContext(settings)
    with context.session() as session, session.begin():
        create_tenant(session, settings, "bench", ruc=RUC, name="BENCH S.A.C.", token=TOKEN, **fields)
    return context


@contextlib.contextmanager
def throwaway_database(server_url: str | None) -> Iterator[str | None]:
    """A new, empty database on the PostgreSQL server of ``server_url`` (dropped afterwards); ``None``
    (SQLite in the data directory) when no URL is given."""
    if server_url is None:
        yield None
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    parsed = make_url(server_url)
    name = f"facturador_bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(parsed, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield parsed.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def tree_env(tree: Path | None) -> dict[str, str]:
    """The environment of a process running the code of checkout ``tree`` (``None``: this one)."""
    if tree is None:
        return dict(os.environ)
    return {**os.environ, "PYTHONPATH": str(tree)}


def start_server(settings: Settings, workers: int, tree: Path | None = None) -> tuple[subprocess.Popen, str]:
    """``facturador serve`` on a free port, from checkout ``tree`` (default: this one); its output goes
    to a temporary file (an unread pipe would block the server once full), shown if it does not start
    within 120 s (a loaded machine starts it slowly)."""
    with socket_port() as port:
        pass
    env = {**tree_env(tree), **settings.export()}
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(
        [sys.executable, "-m", "facturador.cli", "serve", "--port", str(port), "--workers", str(workers)],
        env=env,
        cwd=tree,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    root = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(f"{root}/health", timeout=1)
            return process, root
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                process.wait()
                log.seek(0)
                raise RuntimeError(log.read().decode(errors="replace")) from None
            time.sleep(0.2)


class socket_port:
    """A free loopback port (closed again before the server binds it)."""

    def __enter__(self) -> int:
        import socket

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        return self.sock.getsockname()[1]

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


def accepted_state(body: dict) -> str:
    """The state an issued ``body`` answers with: a factura is sent at once (05, accepted), a boleta
    waits for its daily summary (01, registered)."""
    return "01" if body["serie_documento"].startswith("B") else "05"


def run_load(
    base: str, bodies: list[dict], documents: int, clients: int, keyed: bool = False
) -> tuple[float, list[float]]:
    """Issue ``documents`` with ``clients`` threads, the ``bodies`` in turn; return wall seconds and
    per-request latencies. ``keyed``: each request carries its own ``Idempotency-Key`` (the cost of
    idempotent issuing).

    Each client keeps one HTTP/1.1 connection (stdlib ``http.client``) and sends the bodies encoded once:
    the client shares the machine's two cores with the server, so it should cost as little as it can
    (httpx spent ~2 ms of CPU per request here, a fifth of the server's own cost).
    """
    latencies: list[float] = []
    lock = threading.Lock()
    counter = iter(range(documents))
    url = urlsplit(base)
    path = f"{url.path}/api/documents"
    payloads = [(json.dumps(body).encode(), accepted_state(body)) for body in bodies]
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}

    def worker(_: int) -> None:
        connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=60)
        mine = []
        try:
            while True:
                with lock:
                    index = next(counter, None)
                if index is None:
                    break
                payload, state = payloads[index % len(payloads)]
                sent = {**headers, "Idempotency-Key": uuid.uuid4().hex} if keyed else headers
                start = time.perf_counter()
                connection.request("POST", path, payload, sent)
                response = connection.getresponse()
                answer = response.read()
                mine.append(time.perf_counter() - start)
                if response.status != 200 or json.loads(answer)["data"]["state_type_id"] != state:
                    raise RuntimeError(answer.decode(errors="replace"))
        finally:
            connection.close()
        with lock:
            latencies.extend(mine)

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(worker, range(clients)))
    return time.perf_counter() - start, latencies


def server_cpu(pid: int) -> float:
    """User + system CPU seconds used so far by the server ``pid`` and its worker processes."""
    import psutil

    root = psutil.Process(pid)
    total = 0.0
    for process in [root, *root.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def database_cpu(url: str | None) -> dict[int, float]:
    """User + system CPU seconds used so far by each PostgreSQL backend serving the database of ``url``
    (the server's share of a request's work: parsing, planning, executing, WAL); empty for SQLite, whose
    work is in the server's own processes."""
    if url is None:
        return {}
    import psutil
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            pids = connection.scalars(
                text("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
            ).all()
    finally:
        engine.dispose()
    used = {}
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.NoSuchProcess:
            continue
        used[pid] = times.user + times.system
    return used


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Served:
    """One checkout's server and what its concurrent runs measured."""

    name: str
    process: subprocess.Popen
    base: str
    database_url: str | None
    runs: list[tuple[float, list[float]]] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # server CPU seconds per document of each run
    db_cpu: list[float] = field(default_factory=list)  # PostgreSQL's CPU seconds per document
    loads: list[float] = field(default_factory=list)  # the 1-minute load average after each run

    def measure(self, bodies: list[dict], args: argparse.Namespace) -> None:
        before, db_before = server_cpu(self.process.pid), database_cpu(self.database_url)
        self.runs.append(run_load(self.base, bodies, args.documents, args.clients, args.idempotency_keys))
        self.cpu.append((server_cpu(self.process.pid) - before) / args.documents)
        db_after = database_cpu(self.database_url)
        used = sum(seconds - db_before.get(pid, 0.0) for pid, seconds in db_after.items())
        self.db_cpu.append(used / args.documents)
        self.loads.append(os.getloadavg()[0])

    @property
    def throughputs(self) -> list[float]:
        return [len(latencies) / wall for wall, latencies in self.runs]

    def report(self, args: argparse.Namespace) -> float:
        """Print docs/s, latency and CPU per document; return the median docs/s."""
        throughputs = self.throughputs
        throughput = statistics.median(throughputs)
        _wall, latencies = self.runs[throughputs.index(throughput)] if len(self.runs) % 2 else self.runs[0]
        print(
            f"{self.name}: HTTP {args.clients} clients: {throughput:7.1f} docs/s  (runs: "
            + ", ".join(f"{t:.1f}" for t in throughputs)
            + f")  p50 {statistics.median(latencies) * 1000:6.2f} ms  "
            f"p99 {percentile(latencies, 0.99) * 1000:6.2f} ms   ({args.documents} documents per run)"
        )
        print(
            f"{self.name}: server CPU per document: {statistics.median(self.cpu) * 1000:6.2f} ms median  "
            "(runs: "
            + ", ".join(f"{c * 1000:.2f}" for c in self.cpu)
            + "; load after each run: "
            + ", ".join(f"{x:.2f}" for x in self.loads)
            + ")"
        )
        if self.database_url is not None:
            print(
                f"{self.name}: PostgreSQL CPU per document: {statistics.median(self.db_cpu) * 1000:6.2f} ms "
                "median  (runs: " + ", ".join(f"{c * 1000:.2f}" for c in self.db_cpu) + ")"
            )
        return throughput


def create_tenant_with_cli(settings: Settings, tree: Path | None) -> None:
    """The tenant ``bench`` made by ``facturador tenant create`` of checkout ``tree`` (each tree writes
    its own store as its own code does)."""
    fields = [f"--{name}={value}" for name, value in BENCH_FIELDS.items()]
    subprocess.run(
        [sys.executable, "-m", "facturador.cli", "tenant", "create", "bench", f"--ruc={RUC}"]
        + ["--name=BENCH S.A.C.", f"--token={TOKEN}", *fields],
        env={**tree_env(tree), **settings.export()},
        cwd=tree,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--documents", type=int, default=1000, help="documents per concurrent run")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3, help="concurrent runs (the median is reported)")
    parser.add_argument(
        "--rounds", type=int, default=15, help="1-client rounds, each beside an in-process one"
    )
    parser.add_argument("--workers", type=int, default=2, help="server worker processes")
    parser.add_argument("--lines", type=int, default=3, help="lines per factura issued")
    parser.add_argument(
        "--sign-lines", type=int, default=10, help="lines of the factura of the build+sign vs RSA figure"
    )
    parser.add_argument(
        "--database",
        default=None,
        help="a PostgreSQL server's URL: each store is a fresh database made there and dropped after "
        "(default: SQLite in a temp dir)",
    )
    parser.add_argument(
        "--idempotency-keys", action="store_true", help="every request carries its own Idempotency-Key"
    )
    parser.add_argument(
        "--series",
        nargs="+",
        default=["F001"],
        help="the series issued in turn (B...: boletas to a DNI customer); default F001",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        default=None,
        metavar="DIR",
        help="another checkout served beside this one; the concurrent runs alternate between the two",
    )
    args = parser.parse_args()

    body = invoice(args.lines)
    bodies = [invoice(args.lines, series) for series in args.series]
    local = InProcess(invoice(args.sign_lines))
    # each round measured together: (build+sign p10, RSA p10, in-process issue p50, 1-client p50)
    rounds: list[tuple[float, float, float, float]] = []
    trees = [("this tree", None)] + ([(f"compare {args.compare}", args.compare)] if args.compare else [])
    served: list[Served] = []
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        stores = []
        for index, (name, tree) in enumerate(trees):
            url = stack.enter_context(throwaway_database(args.database))
            settings = Settings.resolve(Path(tmp) / str(index), url)
            create_tenant_with_cli(settings, tree)
            process, root = start_server(settings, args.workers, tree)
            stack.callback(process.wait, 30)
            stack.callback(process.terminate)
            served.append(Served(name, process, f"{root}/t/bench", url))
            stores.append(settings)
        for server in served:  # warm-up of both workers: imports, caches, connections
            run_load(server.base, bodies, 400, 2, args.idempotency_keys)
        if args.rounds:
            # The machine's speed drifts (a shared VM): each 1-client round is measured right beside an
            # in-process one, and the ratio is the median of the rounds' ratios. The in-process service
            # is closed before the concurrent runs: only this tree's store would have it beside its server.
            in_process = InProcessIssue(stores[0], body)
            for _ in range(args.rounds):
                build_sign, rsa = local.p10s(100)
                issue = statistics.median(in_process.latencies(40))
                _wall, single = run_load(served[0].base, [body], 40, 1, args.idempotency_keys)
                rounds.append((build_sign, rsa, issue, statistics.median(single)))
            in_process.close()
        for repeat in range(args.repeat):
            # alternated, in the order A B B A...: a drift of the machine's load touches both trees alike,
            # and neither always runs right after the other's writes (checkpoints, autovacuum)
            for server in served if repeat % 2 == 0 else served[::-1]:
                server.measure(bodies, args)

    load = os.getloadavg()
    print(
        f"date {dt.datetime.now():%Y-%m-%d %H:%M}  cpus {os.cpu_count()}  load {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f}  database {'sqlite' if not args.database else args.database.split('://')[0]}  "
        f"workers {args.workers}  lines/doc {args.lines}  series {' '.join(args.series)}"
    )
    throughput = served[0].report(args)
    for other in served[1:]:
        other.report(args)
        ratios = [a / b for a, b in zip(served[0].throughputs, other.throughputs, strict=True)]
        print(
            f"ratio docs/s this tree / {other.name}: {statistics.median(ratios):.2f}x median of the pairs' "
            "(" + ", ".join(f"{r:.2f}" for r in ratios) + ")"
        )
    print(f"target 150 docs/s with {args.workers} workers: {'met' if throughput >= 150 else 'NOT met'}")
    if not rounds:
        return
    build_sign = statistics.median(r[0] for r in rounds)
    rsa = statistics.median(r[1] for r in rounds)
    issue = statistics.median(r[2] for r in rounds)
    p50_1 = statistics.median(r[3] for r in rounds)
    sign_ratio = statistics.median(r[0] / r[1] for r in rounds)
    http_ratio = statistics.median(r[3] / r[2] for r in rounds)
    print(
        f"in-process  check+build+sign : {build_sign * 1000:7.3f} ms p10  ({args.sign_lines} lines; "
        f"median of {len(rounds)} rounds' p10)"
    )
    print(f"in-process  bare RSA-2048 sig: {rsa * 1000:7.3f} ms p10")
    print(f"in-process  issue            : {issue * 1000:7.2f} ms p50  ({args.lines} lines, same store)")
    print(f"HTTP 1 client   : p50 {p50_1 * 1000:6.2f} ms  ({1 / p50_1:5.1f} docs/s)")
    print(
        f"ratio  build+sign p10 / bare RSA p10          : {sign_ratio:5.2f}x  (target <= 3x; rounds: "
        + ", ".join(f"{r[0] / r[1]:.2f}" for r in rounds)
        + ")"
    )
    print(
        f"ratio  HTTP 1-client p50 / in-process issue  : {http_ratio:5.2f}x  (target <= 2x; rounds: "
        + ", ".join(f"{r[3] / r[2]:.2f}" for r in rounds)
        + ")"
    )
    print(f"target build+sign <= 3x RSA: {'met' if sign_ratio <= 3 else 'NOT met'}")
    print(f"target HTTP 1-client <= 2x in-process issue: {'met' if http_ratio <= 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
