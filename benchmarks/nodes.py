"""The service on several nodes over one PostgreSQL: documents/s with one node against three, and sends
per document at the simulator during a SUNAT outage and its recovery.

Throughput: ``facturador serve`` nodes (one process each, each with its background worker, as separate
machines would run) on one throw-away PostgreSQL database; C clients (stdlib ``http.client``, one
connection each, client i on node i mod N) issue facturas sent to the in-process simulator. One node and
three nodes alternate for R rounds on the same database; medians and every round are printed.

On a machine with fewer cores than nodes, ``--node-cpu F`` caps each node at F of one core (its own
Linux cgroup with a CPU quota, v1 or v2, as root), as separate machines each with a small CPU would be:
one capped node against three capped nodes, PostgreSQL and the clients uncapped beside them. On this
2-core machine three uncapped nodes only share the same two cores (the figure cannot pass 1x); with
``--node-cpu 0.4`` the three nodes get 1.2 cores between them and PostgreSQL and the clients the rest.

Outage: a tenant sending over SOAP to ``facturador sunat`` through a counting proxy (tests/nodes.py);
``facturador sunat-fault`` makes every sendBill answer 0109 for S seconds while documents are issued
across three nodes; then the nodes' workers send them again until accepted. Printed: sendBill calls per
document, accepted answers per document (must be exactly 1) and calls after acceptance (must be 0).

Run:  python benchmarks/nodes.py --documents 600 --clients 12 --rounds 2
      python benchmarks/nodes.py --documents 600 --clients 12 --rounds 3 --node-cpu 0.4 --skip-outage
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from facturador.config import Settings  # noqa: E402
from sunat.calendar import peru_today  # noqa: E402
from tests.conftest import _fresh_postgres  # noqa: E402
from tests.nodes import CountingProxy, Tenant, cli, new_tenant, nodes, simulator  # noqa: E402
from tests.samples.bodies import invoice_body  # noqa: E402

DEFAULT_URL = "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/postgres"


def load(roots: list[str], tenants: list[Tenant], documents: int, clients: int, expect: str = "05") -> float:
    """Issue ``documents`` facturas with ``clients`` threads spread over ``roots`` (client i on node
    i mod N, for tenant i mod T); wall seconds."""
    payload = json.dumps(invoice_body()).encode()
    lock = threading.Lock()
    left = iter(range(documents))

    def client(index: int) -> None:
        url = urlsplit(roots[index % len(roots)])
        tenant = tenants[index % len(tenants)]
        headers = {"Authorization": f"Bearer {tenant.token}", "Content-Type": "application/json"}
        connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=120)
        try:
            while True:
                with lock:
                    if next(left, None) is None:
                        return
                connection.request("POST", f"/t/{tenant.slug}/api/documents", payload, headers)
                response = connection.getresponse()
                answer = response.read()
                if response.status != 200:
                    raise RuntimeError(answer.decode(errors="replace"))
                state = json.loads(answer)["data"]["state_type_id"]
                if expect and state != expect:
                    raise RuntimeError(f"state {state}: {answer[:300]!r}")
        finally:
            connection.close()

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    return time.perf_counter() - start


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU seconds used so far by the processes ``pids`` (Linux ``/proc``)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / ticks


def descendants(pid: int) -> list[int]:
    """The processes started by ``pid`` and by them, as /proc lists them now."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found += [int(child), *descendants(int(child))]
    return found


CGROUP_V1 = Path("/sys/fs/cgroup/cpu")
CGROUP_V2 = Path("/sys/fs/cgroup")
QUOTA_PERIOD_US = 100_000


@contextlib.contextmanager
def cpu_capped(pids: list[int], fraction: float | None) -> Iterator[None]:
    """Each process of ``pids`` (with its threads and children) in a cgroup of its own allowed
    ``fraction`` of one core, until the block ends (nothing when ``fraction`` is None). Linux, as root:
    cgroup v1's ``cpu`` controller or v2's ``cpu.max``."""
    if fraction is None:
        yield
        return
    quota = int(fraction * QUOTA_PERIOD_US)
    v1 = (CGROUP_V1 / "cpu.cfs_quota_us").exists()
    base = CGROUP_V1 if v1 else CGROUP_V2
    if not v1 and "cpu" not in (CGROUP_V2 / "cgroup.controllers").read_text().split():
        raise SystemExit("--node-cpu needs the cgroup cpu controller (v1 /sys/fs/cgroup/cpu or v2 cpu.max)")
    groups = []
    try:
        for pid in pids:
            group = base / f"facturador-bench-node-{pid}"
            group.mkdir()
            groups.append(group)
            if v1:
                (group / "cpu.cfs_period_us").write_text(str(QUOTA_PERIOD_US))
                (group / "cpu.cfs_quota_us").write_text(str(quota))
            else:
                (group / "cpu.max").write_text(f"{quota} {QUOTA_PERIOD_US}")
            for member in (pid, *descendants(pid)):  # a node's --workers processes with it
                (group / "cgroup.procs").write_text(str(member))
        yield
    finally:
        for group in groups:
            for pid in (group / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):  # the process ended meanwhile
                    (base / "cgroup.procs").write_text(pid)
            group.rmdir()


def throughput(settings: Settings, folder: Path, args: argparse.Namespace) -> None:
    tenants = [new_tenant(settings, f"bench{n}") for n in range(args.tenants)]
    rates: dict[int, list[float]] = {1: [], 3: []}
    cpu: dict[int, list[float]] = {1: [], 3: []}
    for round_ in range(args.rounds):
        for count in (1, 3):
            with nodes(settings, folder, count, *args.node_options.split()) as servers:
                roots = [server.root for server in servers]
                pids = [server.process.pid for server in servers]
                with cpu_capped(pids, args.node_cpu):
                    pairs = count * len(tenants)  # warm-up: imports, connections, tenant caches
                    load(roots, tenants, 3 * pairs, pairs)
                    before = cpu_seconds(pids)
                    seconds = load(roots, tenants, args.documents, args.clients)
                    used = cpu_seconds(pids) - before
            rate = args.documents / seconds
            rates[count].append(rate)
            cpu[count].append(used / seconds)
            print(
                f"round {round_ + 1}: {count} node(s): {args.documents} docs in {seconds:.1f} s "
                f"= {rate:.1f} docs/s; the nodes used {used / seconds:.2f} CPU cores, "
                f"{1000 * used / args.documents:.1f} ms of CPU per document"
            )
    one, three = statistics.median(rates[1]), statistics.median(rates[3])
    capped = f" (each node capped at {args.node_cpu:g} of a core)" if args.node_cpu else ""
    print(
        f"one node {one:.1f} docs/s, three nodes {three:.1f} docs/s: {three / one:.2f}x (target 2.5x)"
        f"{capped}; every round: one {[round(r, 1) for r in rates[1]]}, three "
        f"{[round(r, 1) for r in rates[3]]}"
    )
    print(
        f"cores used by the nodes: one node {statistics.median(cpu[1]):.2f}, three nodes "
        f"{statistics.median(cpu[3]):.2f} (of {os.cpu_count()} on this machine, load average "
        f"{os.getloadavg()[0]:.1f})"
    )


def outage(settings: Settings, folder: Path, args: argparse.Namespace) -> None:
    with simulator(settings, folder) as sunat:
        proxy = CountingProxy(sunat.root)
        with proxy.running() as proxy_url:
            tenant = new_tenant(settings, "caida", sunat_url=proxy_url, send_retry_seconds=args.retry)
            with nodes(settings, folder, 3, "--send-pending-every", "0.5") as servers:
                roots = [server.root for server in servers]
                cli(settings, "sunat-fault", "add", "fault", "--code", "0109", "--operation", "sendBill",
                    "--for", str(args.outage))  # fmt: skip
                started = time.monotonic()
                load(roots, [tenant], args.outage_documents, 3, expect="")
                issued_in = time.monotonic() - started
                deadline = time.monotonic() + 600
                today = peru_today().strftime("%Y-%m-%d")
                while True:
                    connection = http.client.HTTPConnection(
                        urlsplit(roots[0]).hostname, urlsplit(roots[0]).port
                    )
                    connection.request(
                        "GET",
                        f"/t/{tenant.slug}/api/documents/lists/{today}/{today}",
                        headers={"Authorization": f"Bearer {tenant.token}"},
                    )
                    rows = json.loads(connection.getresponse().read())["data"]
                    connection.close()
                    if rows and all(row["state_type_id"] == "05" for row in rows):
                        break
                    if time.monotonic() > deadline:
                        raise RuntimeError("the documents were not all accepted in 10 minutes")
                    time.sleep(0.5)
                recovered = time.monotonic() - started
                time.sleep(3)  # a late second sending would show up now
    sends, accepted, late = proxy.sends(), proxy.accepted(), proxy.after_acceptance()
    names = [f"{tenant.ruc}-01-{row['number']}" for row in rows]
    print(
        f"outage: {len(names)} facturas issued over 3 nodes in {issued_in:.1f} s during a {args.outage:g} s "
        f"0109 outage (send_retry_seconds {args.retry:g}); all accepted {recovered:.1f} s after it began"
    )
    print(f"  sendBill calls per document: {dict(sorted(Counter(sends[n] for n in names).items()))}")
    print(f"  accepted answers per document: {dict(sorted(Counter(accepted[n] for n in names).items()))}")
    print(f"  sendBill calls after a document's acceptance: {sum(late[n] for n in names)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default=DEFAULT_URL, help="A PostgreSQL server (a database is made).")
    parser.add_argument("--documents", type=int, default=600)
    parser.add_argument("--clients", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tenants", type=int, default=1, help="Tenants issuing (one series each).")
    parser.add_argument("--outage", type=float, default=10.0, help="Seconds of the 0109 outage.")
    parser.add_argument("--outage-documents", type=int, default=30)
    parser.add_argument("--retry", type=float, default=3.0, help="The tenant's send_retry_seconds.")
    parser.add_argument(
        "--node-options", default="--send-pending-every 1", help="Options of each node's serve (throughput)."
    )
    parser.add_argument(
        "--node-cpu",
        type=float,
        default=None,
        help="Cap each node at this fraction of one core (a cgroup each; root): nodes as small machines.",
    )
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-outage", action="store_true")
    args = parser.parse_args()
    url, drop = _fresh_postgres(args.database)
    try:
        with tempfile.TemporaryDirectory() as folder:
            settings = Settings.resolve(Path(folder) / "data", url)
            if not args.skip_throughput:
                throughput(settings, Path(folder), args)
            if not args.skip_outage:
                outage(settings, Path(folder), args)
    finally:
        drop()


if __name__ == "__main__":
    main()
