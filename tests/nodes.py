"""Several ``facturador serve`` nodes over one database, the SUNAT simulator served alone, and a proxy in
front of it that counts what reaches it: for tests/facturador/api/test_nodes.py and benchmarks/nodes.py.

The proxy forwards every request unchanged to the simulator (``facturador sunat``) and writes down, for
each SOAP call, its operation, the file or ticket it names and whether the answer was an accepted CDR;
so "sends per document" is measured on the wire, where SUNAT would see it.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from facturador.config import Settings
from facturador.context import ServiceContext
from facturador.domain.tenants import create_tenant, set_secret
from sunat.identity import ruc_check_digit
from tests.conftest import free_port

SOL_USER = "NODOS001"
SOL_PASSWORD = "Clave.SOL-nodos"
OPERATION_RE = re.compile(rb"<(?:\w+:)?(sendBill|sendSummary|sendPack|getStatusCdr|getStatus)\b")
FILE_RE = re.compile(rb"<(?:\w+:)?fileName>([^<]+)<")
TICKET_RE = re.compile(rb"<(?:\w+:)?ticket>([^<]+)<")
#: An accepted answer: sendBill's CDR (applicationResponse), getStatus's status 0 (with its CDR).
ACCEPTED_RE = re.compile(rb"<(?:\w+:)?applicationResponse>|statusCode>0<")
START_SECONDS = 300  # as tests/served.py's: a loaded machine took more than 120 s to start a node


@dataclass(frozen=True)
class Call:
    """One SOAP call the simulator received: operation, file name (or ticket) and its answer."""

    operation: str
    name: str
    status: int
    accepted: bool


@dataclass
class CountingProxy:
    """An HTTP proxy on loopback in front of ``upstream`` that keeps every SOAP :class:`Call`."""

    upstream: str
    calls: list[Call] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def sends(self, operation: str = "sendBill") -> Counter[str]:
        """Calls of ``operation`` per file name (document)."""
        with self.lock:
            return Counter(call.name for call in self.calls if call.operation == operation)

    def accepted(self, operation: str = "sendBill") -> Counter[str]:
        """Answers with a CDR of ``operation`` per file name."""
        with self.lock:
            return Counter(c.name for c in self.calls if c.operation == operation and c.accepted)

    def after_acceptance(self, operation: str = "sendBill") -> Counter[str]:
        """Calls of ``operation`` per file name made after that file's first accepted answer."""
        seen: set[str] = set()
        late: Counter[str] = Counter()
        with self.lock:
            for call in self.calls:
                if call.operation != operation:
                    continue
                if call.name in seen:
                    late[call.name] += 1
                if call.accepted:
                    seen.add(call.name)
        return late

    @contextlib.contextmanager
    def running(self) -> Iterator[str]:
        """Serve the proxy until the block ends; yields its root URL."""
        proxy = self
        client = httpx.Client(base_url=self.upstream, timeout=120)

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {
                    k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")
                }
                try:
                    answer = client.request(self.command, self.path, content=body, headers=headers)
                except httpx.HTTPError:
                    self.send_response(502)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                operation = OPERATION_RE.search(body)
                if operation is not None:
                    name = FILE_RE.search(body) or TICKET_RE.search(body)
                    call = Call(
                        operation.group(1).decode(),
                        name.group(1).decode().removesuffix(".zip") if name else "",
                        answer.status_code,
                        answer.status_code == 200 and ACCEPTED_RE.search(answer.content) is not None,
                    )
                    with proxy.lock:
                        proxy.calls.append(call)
                self.send_response(answer.status_code)
                for key, value in answer.headers.items():
                    if key.lower() not in (
                        "content-length",
                        "transfer-encoding",
                        "connection",
                        "content-encoding",
                    ):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = _forward
            do_POST = _forward

        port = free_port()
        server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.shutdown()
            server.server_close()
            client.close()


@dataclass
class Process:
    """A child ``facturador`` process, its root URL (servers) and its log file."""

    process: subprocess.Popen[bytes]
    root: str
    log: Path

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def child_env(settings: Settings, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a child process on ``settings`` (and this checkout's code)."""
    root = str(Path(__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, **settings.export(), "PYTHONPATH": path, **(extra or {})}


def start(
    settings: Settings,
    log: Path,
    *arguments: str,
    env: dict[str, str] | None = None,
    port: int | None = None,
    cwd: Path | None = None,
) -> Process:
    """Start ``facturador ARGUMENTS`` (``--port`` added when ``port`` is given) with its output to ``log``
    (in ``cwd``: ``python -m`` finds the code of its working folder first)."""
    command = [sys.executable, "-m", "facturador.cli", *arguments]
    if port is not None:
        command += ["--port", str(port)]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, env=child_env(settings, env), stdout=sink, stderr=subprocess.STDOUT, cwd=cwd
        )
    return Process(process, f"http://127.0.0.1:{port}" if port else "", log)


def wait_until_up(child: Process, path: str = "/health") -> None:
    """Wait until ``child`` answers ``path`` (RuntimeError with its output if it stops or never does)."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            httpx.get(f"{child.root}{path}", timeout=2)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline or child.process.poll() is not None:
                raise RuntimeError(f"{child.process.args} did not start:\n{child.output()}") from None
            time.sleep(0.2)


@contextlib.contextmanager
def nodes(settings: Settings, folder: Path, count: int, *options: str) -> Iterator[list[Process]]:
    """``count`` ``facturador serve`` processes on ``settings`` (one port each), up until the block ends."""
    started = [
        start(settings, folder / f"node-{n}.log", "serve", *options, port=free_port()) for n in range(count)
    ]
    try:
        for child in started:
            wait_until_up(child)
        yield started
    finally:
        for child in started:
            child.stop()


@contextlib.contextmanager
def simulator(settings: Settings, folder: Path) -> Iterator[Process]:
    """``facturador sunat`` (the simulator's SOAP services alone) on ``settings``."""
    state = str(folder / "sunat-state")
    child = start(settings, folder / "sunat.log", "sunat", "--state-dir", state, port=free_port())
    try:
        wait_until_up(child, "/ol-ti-itcpfegem-beta/billService?wsdl")
        yield child
    finally:
        child.stop()


@dataclass(frozen=True)
class Tenant:
    slug: str
    ruc: str
    token: str


def new_tenant(settings: Settings, prefix: str, sunat_url: str | None = None, **overrides: Any) -> Tenant:
    """A fresh tenant on ``settings``' store; sending over SOAP to ``sunat_url`` when given (SUNAT
    production paths, its own SOL user: beta would get only ``MODDATOS``), else to the in-process
    simulator."""
    first10 = "20" + str(uuid.uuid4().int % 10**8).zfill(8)
    ruc = first10 + str(ruc_check_digit(first10))
    slug = f"{prefix}-{uuid.uuid4().hex[:6]}"
    token = f"{slug}-token-0123456789-abcdefghij"
    if sunat_url is not None:
        overrides = {
            "sunat_sending": "production",
            "sunat_url": sunat_url,
            "sol_user": SOL_USER,
            "sunat_timeout": 5.0,
            "sunat_retries": 1,
            **overrides,
        }
    context = ServiceContext(settings)
    try:
        with context.session() as session, session.begin():
            create_tenant(
                session,
                settings,
                slug,
                ruc=ruc,
                name=f"{prefix.upper()} S.A.C.",
                address="Av. Los Próceres 100, Lima",
                ubigeo="150101",
                token=token,
                overrides={"authority_ticket_delay": 0.0, **overrides},
            )
        if sunat_url is not None:
            with context.session() as session, session.begin():
                set_secret(session, context.vault, slug, "sol_password", SOL_PASSWORD)
    finally:
        context.engine.dispose()
    return Tenant(slug, ruc, token)


def cli(settings: Settings, *arguments: str) -> str:
    """Run ``facturador ARGUMENTS`` on ``settings``; its output (AssertionError when it fails)."""
    done = subprocess.run(
        [sys.executable, "-m", "facturador.cli", *arguments],
        env=child_env(settings),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{arguments}: {done.stdout}\n{done.stderr}"
    return done.stdout
