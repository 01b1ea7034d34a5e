"""Every ``facturador`` command run beside a live ``facturador serve`` leaves its answered documents alone.

A document answered 200 must still be there, with its number, after the server is stopped (SIGTERM or
kill -9) and started again, whatever ran beside it on the same data directory: each CLI subcommand in
turn, two CLIs at once, a second server on the same store (``facturador demo``), and the background
sender of pending documents sending while a CLI sends too. The next number must follow the last one
answered. On the default SQLite store this once failed: a CLI command deleted the WAL under the server,
and every later document vanished at the next stop (``tests/facturador/test_sqlite_locks.py`` holds the
cause). The same run holds on PostgreSQL (``FACTURADOR_TEST_DATABASE_URL``).
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click
import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, pkcs12
from cryptography.x509.oid import NameOID

from facturador.cli import main as cli_main
from facturador.config import Settings
from sunat.calendar import peru_today
from tests.conftest import free_port
from tests.padron_file import generated_lines, write_padron
from tests.samples.bodies import invoice_body
from tests.served import Served, serve

pytestmark = pytest.mark.slow(seconds=130)

SLUG = "tienda"
RUC = "20100066603"
TOKEN = "tienda-live-store-token-0123456789-abcdefghijklm"
#: Subcommands that never open the store: the dashboard, portfolio and sire read only the analyst's
#: tenants file (and talk HTTP); secrets keeps the analyst's encrypted secrets; secret-key prints a key.
NOT_ON_THE_STORE = {
    "dashboard",
    "portfolio",
    "secret-key",
    "secrets delete",
    "secrets list",
    "secrets set",
    "sire",
}


def _all_commands(group: click.Group, prefix: str = "") -> set[str]:
    names = set()
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            names |= _all_commands(command, f"{prefix}{name} ")
        else:
            names.add(f"{prefix}{name}")
    return names


class Run:
    """One data directory under test: the CLI, the documents answered so far and the checks."""

    def __init__(self, settings: Settings, tmp_path: Path):
        self.settings = settings
        self.tmp_path = tmp_path
        self.answered: dict[str, str] = {}  # number -> external_id, for every 200 of POST /api/documents
        self.ran: set[str] = set()
        self.logs = 0

    def env(self) -> dict[str, str]:
        return {**os.environ, **self.settings.export()}

    def cli(self, *arguments: str, expect: int = 0, env: dict[str, str] | None = None) -> str:
        """``facturador ARGUMENTS`` on the store; its output (the exit code must be ``expect``)."""
        self.ran.add(_command_name(arguments))
        done = subprocess.run(
            [sys.executable, "-m", "facturador.cli", *arguments],
            env={**self.env(), **(env or {})},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == expect, f"{arguments}: {done.stdout}\n{done.stderr}"
        return done.stdout

    def start_cli(self, *arguments: str) -> subprocess.Popen[str]:
        self.ran.add(_command_name(arguments))
        return subprocess.Popen(
            [sys.executable, "-m", "facturador.cli", *arguments],
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def serve(self) -> Any:
        self.logs += 1
        self.ran.add("serve")
        return serve(self.settings, self.tmp_path / f"serve-{self.logs}.log", "--send-pending-every", "1")

    def issue(self, root: str, count: int = 1) -> list[str]:
        """Issue ``count`` facturas at ``root`` and remember every one answered 200; their numbers."""
        numbers = []
        with httpx.Client(base_url=f"{root}/t/{SLUG}", headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            for _ in range(count):
                answer = http.post("/api/documents", json=invoice_body(), timeout=60)
                assert answer.status_code == 200, answer.text
                data = answer.json()["data"]
                self.answered[data["number"]] = data["external_id"]
                numbers.append(data["number"])
        return numbers

    def check(self, served: Served) -> None:
        """Every answered document is listed with its number and its XML downloads; F001 has no gap; the
        next factura takes the number after the last one."""
        with served.client(SLUG, TOKEN) as http:
            present = {row["number"]: row["external_id"] for row in _rows(http)}
            missing = sorted(set(self.answered) - set(present), key=_sequence)
            assert not missing, f"answered 200 and then gone: {missing}"
            for number, external_id in self.answered.items():
                assert present[number] == external_id, number
            for external_id in list(self.answered.values())[-3:]:
                xml = http.get(f"/downloads/document/xml/{external_id}")
                assert xml.status_code == 200 and b"<Invoice" in xml.content[:2000]
            facturas = sorted(_sequence(number) for number in present if number.startswith("F001-"))
            assert facturas == list(range(1, len(facturas) + 1)), "a number was skipped or reused"
        (following,) = self.issue(served.root)
        assert _sequence(following) == facturas[-1] + 1


def _rows(http: httpx.Client) -> list[dict[str, Any]]:
    """The tenant's documents of the last week (the seed dates some in the past)."""
    today = peru_today()
    start = (today - dt.timedelta(days=7)).isoformat()
    answer = http.get(f"/api/documents/lists/{start}/{today.isoformat()}")
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]


def _command_name(arguments: tuple[str, ...]) -> str:
    groups = ("tenant", "series", "sunat-fault", "padron", "secrets")
    return " ".join(arguments[:2]) if arguments[0] in groups else arguments[0]


def _sequence(number: str) -> int:
    return int(number.split("-")[1])


def _pfx(tmp_path: Path) -> Path:
    """The company's own certificate, as a .pfx with the password "x"."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{RUC} TIENDA")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=365))
        .sign(key, hashes.SHA256())
    )
    path = tmp_path / "tienda.pfx"
    path.write_bytes(
        pkcs12.serialize_key_and_certificates(b"tienda", key, cert, None, BestAvailableEncryption(b"x"))
    )
    return path


def _tenants_file(run: Run, root: str) -> Path:
    path = run.tmp_path / "tenants.toml"
    path.write_text(
        f'[tenants.{SLUG}]\nname = "TIENDA S.A.C."\nbase_url = "{root}/t/{SLUG}"\ntoken = "{TOKEN}"\n',
        encoding="utf-8",
    )
    return path


def _wait_for_health(root: str, process: subprocess.Popen[str], path: str = "/health") -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(f"{root}{path}", timeout=1)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline or process.poll() is not None:
                output = process.stdout.read() if process.stdout and process.poll() is not None else ""
                raise AssertionError(f"the second server did not start: {output}") from None
            time.sleep(0.2)


def test_answered_documents_survive_every_command_run_beside_a_live_server(
    fresh_settings: Settings, tmp_path: Path
) -> None:
    run = Run(fresh_settings, tmp_path)
    run.cli("tenant", "create", SLUG, "--ruc", RUC, "--name", "TIENDA S.A.C.", "--token", TOKEN)
    month = peru_today().strftime("%Y-%m")

    with run.serve() as served:
        run.issue(served.root, 3)
        assert SLUG in run.cli("tenant", "list")
        run.issue(served.root, 2)
        run.cli("tenant", "set", SLUG, "send_retry_seconds=0")
        run.issue(served.root, 2)
        run.cli("tenant", "create", "vecina", "--ruc", "20601030013", "--name", "VECINA S.A.C.")
        run.issue(served.root)
        run.cli("series", "add", SLUG, "01", "F002")
        run.issue(served.root)
        run.cli("tenant", "secret", SLUG, "sol_password", "--from-env", "SOL", env={"SOL": "clave-sol-1"})
        run.issue(served.root)
        run.cli("tenant", "certificate", SLUG, str(_pfx(tmp_path)), "--password-env", "PFX", env={"PFX": "x"})
        run.issue(served.root)
        run.cli("sunat-fault", "add", "fault", "--ruc", "20601030013", "--code", "0109", "--times", "1")
        assert "0109" in run.cli("sunat-fault", "list")
        run.cli("sunat-fault", "clear")
        run.issue(served.root)
        # facturas left pending by an outage; the server's sender and a CLI send them at the same time
        run.cli("tenant", "set", SLUG, "authority_outage=true")
        time.sleep(5.5)  # the server re-reads a tenant's settings every 5 s
        pending = run.issue(served.root, 3)
        assert "3 pending" in run.cli("send-pending", "--tenant", SLUG, "--dry-run")
        run.cli("tenant", "set", SLUG, "authority_outage=false")
        run.issue(served.root)
        two = [run.start_cli("send-pending", "--force"), run.start_cli("tenant", "list")]
        run.issue(served.root)
        for process in two:
            output, _ = process.communicate(timeout=300)
            assert process.returncode == 0, output
        run.cli("send-pending")
        run.issue(served.root)
        assert "job(s) done" in run.cli("worker", "--once")  # the queue's worker beside the server's
        run.issue(served.root)
        seeded = run.cli("seed", SLUG, "--documents", "4", "--days", "1")
        assert "4" in seeded
        run.issue(served.root)
        tenants = _tenants_file(run, served.root)
        run.cli(
            "register", SLUG, month, "--tenants", str(tenants), "--folder", str(tmp_path), "--format", "ple"
        )
        run.cli("igv", SLUG, month, "--tenants", str(tenants))
        assert "at the newest revision already" in run.cli("migrate")  # nothing to do beside a server
        run.cli("dashboard-password", "--tenants", str(tenants), "--password", "una-clave-larga")
        run.issue(served.root)
        run.cli("tenant", "smtp", SLUG, "--host", "127.0.0.1", "--port", "2525", "--from", "caja@tienda.pe")
        padron = write_padron(tmp_path / "padron.txt", generated_lines(50))
        run.cli("padron", "import", str(padron))
        run.issue(served.root)
        run.cli("exchange-rate", "--url", f"http://127.0.0.1:{free_port()}/tipoCambio.txt")  # refused: 0 new
        run.cli("validate", SLUG, month, "--base-url", f"{served.root}/t/{SLUG}", "--token", TOKEN)
        run.issue(served.root)
        run.cli("backup", str(tmp_path / "backup"))  # SQLite's online backup beside the server
        run.issue(served.root)
        # the SUNAT endpoint served alone on the same store, asked while the server issues
        sunat_port = free_port()
        state = tmp_path / "sunat-state"
        sunat = run.start_cli("sunat", "--port", str(sunat_port), "--state-dir", str(state))
        try:
            _wait_for_health(
                f"http://127.0.0.1:{sunat_port}", sunat, path="/ol-ti-itcpfegem-beta/billService?wsdl"
            )
            run.issue(served.root)
        finally:
            sunat.send_signal(signal.SIGTERM)
            sunat.communicate(timeout=60)
        # a second server on the same store, issuing too, then stopped
        port = free_port()
        demo = run.start_cli(
            "demo", "--port", str(port), "--workers", "1", "--documents", "0", "--no-dashboard", "--headless"
        )
        try:
            _wait_for_health(f"http://127.0.0.1:{port}", demo)
            run.issue(f"http://127.0.0.1:{port}", 2)
            run.issue(served.root)
        except AssertionError:
            demo.send_signal(signal.SIGTERM)
            output, _ = demo.communicate(timeout=60)
            raise AssertionError(f"the second server's output:\n{output[-6000:]}") from None
        finally:
            if demo.poll() is None:
                demo.send_signal(signal.SIGTERM)
                demo.communicate(timeout=60)
        run.issue(served.root, 2)
        before_sigterm = dict(run.answered)
    print(f"before SIGTERM: {len(before_sigterm)} answered")
    # stopped with SIGTERM; a CLI runs on the stopped store, then the server starts again
    run.cli("tenant", "list")
    with run.serve() as served:
        run.check(served)
        assert set(before_sigterm) <= set(run.answered)
        with served.client(SLUG, TOKEN) as http:
            states = {row["number"]: row["state_type_id"] for row in _rows(http)}
        assert [states[number] for number in pending] == ["05", "05", "05"]
        run.issue(served.root, 2)
        run.cli("tenant", "list")
        run.cli("send-pending", "--dry-run")
        run.cli("jobs")  # reads the queue beside the server's own worker
        run.issue(served.root, 2)
        print(f"before kill -9: {len(run.answered)} answered, all present after the SIGTERM restart")
        served.process.kill()  # kill -9: no shutdown at all
        served.process.wait()
    run.cli("tenant", "list")  # the first to open the store after the crash
    with run.serve() as served:
        run.check(served)
    print(
        f"after kill -9 and restart: {len(run.answered)} answered, all present; commands: {sorted(run.ran)}"
    )
    assert run.ran >= _all_commands(cli_main) - NOT_ON_THE_STORE, "a subcommand was not run beside a server"
