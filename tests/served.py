"""``facturador serve`` in a child process, for tests that need worker processes, the parent's background
sender, real crashes or the server's own log."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from facturador.config import Settings
from tests.conftest import free_port

#: Seconds a child ``facturador serve`` may take to answer ``/health`` (imports, migrations, workers):
#: a few alone, but two workers at a load of 20 on two cores took more than 120 (the wait ends at once
#: when the process exits, so the bound costs nothing when it fails for a reason).
START_SECONDS = 300
#: Options of a ``facturador serve`` without its background sender and ticket poller, for tests that
#: watch what one request does (the poller would settle a ticket on its own).
NO_POLLER = ("--send-pending-every", "0")


@dataclass
class Served:
    """A running ``facturador serve``: its process, root URL and where its output goes."""

    process: subprocess.Popen[bytes]
    root: str
    log: Path

    def base_url(self, slug: str) -> str:
        return f"{self.root}/t/{slug}"

    def client(self, slug: str, token: str) -> httpx.Client:
        return httpx.Client(
            base_url=self.base_url(slug), headers={"Authorization": f"Bearer {token}"}, timeout=60
        )

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextlib.contextmanager
def serve(
    settings: Settings, log: Path, *options: str, env: dict[str, str] | None = None
) -> Iterator[Served]:
    """Run ``facturador serve --port <free> OPTIONS`` on ``settings`` until the block ends (SIGTERM, then
    SIGKILL after 20 s); stdout and stderr go to ``log`` (a file: a pipe nobody reads would block the
    server once full). Start-up may take :data:`START_SECONDS` on a loaded machine (CI runs beside other
    work)."""
    port = free_port()
    command = [sys.executable, "-m", "facturador.cli", "serve", "--port", str(port), *options]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command,
            env={**os.environ, **settings.export(), **(env or {})},
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        served = Served(process, f"http://127.0.0.1:{port}", log)
        try:
            deadline = time.monotonic() + START_SECONDS
            while True:
                try:
                    httpx.get(f"{served.root}/health", timeout=1)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise RuntimeError(f"the service did not start:\n{served.output()}") from None
                    time.sleep(0.2)
            yield served
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
