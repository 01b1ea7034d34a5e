"""The systemd units of docs/deploy/systemd, run the way systemd would run them (systemd itself is not
here): each unit's ExecStart as a process with the variables of the environment file (their values set
for this test: its own key, database and data directory), the node's port as the instance name; the
node answers /ready, and the SIGTERM of KillSignal stops node and worker cleanly, well within
TimeoutStopSec, which outlasts the longest sending."""

from __future__ import annotations

import configparser
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from facturador.config import Settings
from facturador.domain.send_policy import sending_seconds
from facturador.store.secrets import Vault
from tests.conftest import free_port
from tests.nodes import child_env

UNITS = Path(__file__).resolve().parents[2] / "docs" / "deploy" / "systemd"
INSTALLED = "/opt/facturador/venv/bin/facturador"


def _unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # systemd's keys keep their case
    parser.read_string((UNITS / name).read_text(encoding="utf-8"))
    return parser


def _environment_file() -> dict[str, str]:
    values = {}
    for line in (UNITS / "facturador.env.example").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def _command(unit: configparser.ConfigParser, instance: str = "") -> list[str]:
    """The unit's ExecStart with ``%i`` expanded and the installed program replaced by this checkout's."""
    words = shlex.split(unit["Service"]["ExecStart"].replace("%i", instance))
    assert words[0] == INSTALLED
    return [sys.executable, "-m", "facturador.cli", *words[1:]]


@pytest.mark.parametrize("name", ["facturador-node@.service", "facturador-worker.service"])
def test_the_units_restart_on_failure_and_stop_within_a_sendings_bound(name: str) -> None:
    service = _unit(name)["Service"]
    assert service["EnvironmentFile"] == "/etc/facturador/facturador.env"
    assert service["Restart"] == "on-failure"
    assert service["KillSignal"] == "SIGTERM"
    defaults = {"sunat_sending": "production"}  # the tenant settings' defaults: 30 s, 2 retries
    assert int(service["TimeoutStopSec"]) >= sending_seconds(defaults) + 30
    assert {"FACTURADOR_SECRET_KEY", "FACTURADOR_DATABASE_URL", "FACTURADOR_DATA_DIR"} <= set(
        _environment_file()
    )


@pytest.mark.slow(seconds=30)
def test_node_and_worker_started_as_the_units_say_are_ready_and_stop_on_sigterm(
    fresh_settings: Settings, tmp_path: Path
) -> None:
    values = _environment_file()
    values.update(
        FACTURADOR_SECRET_KEY=Vault.new_key(),
        FACTURADOR_DATABASE_URL=fresh_settings.database_url,
        FACTURADOR_DATA_DIR=str(fresh_settings.data_dir),
    )
    port = free_port()
    node_unit, worker_unit = _unit("facturador-node@.service"), _unit("facturador-worker.service")
    environment = child_env(fresh_settings, values)
    logs = {name: tmp_path / f"{name}.log" for name in ("node", "worker")}
    with logs["node"].open("wb") as node_log, logs["worker"].open("wb") as worker_log:
        node = subprocess.Popen(
            _command(node_unit, str(port)), env=environment, stdout=node_log, stderr=subprocess.STDOUT
        )
        worker = subprocess.Popen(
            _command(worker_unit), env=environment, stdout=worker_log, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                ready = httpx.get(f"http://127.0.0.1:{port}/ready", timeout=5)
                if ready.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert node.poll() is None and time.monotonic() < deadline, logs["node"].read_text()
            time.sleep(0.2)
        assert ready.json()["status"] == "ready"
        while "taking jobs" not in logs["worker"].read_text():
            assert worker.poll() is None and time.monotonic() < deadline, logs["worker"].read_text()
            time.sleep(0.2)
        stop_seconds = float(node_unit["Service"]["TimeoutStopSec"])
        for process in (node, worker):
            began = time.monotonic()
            process.send_signal(getattr(signal, node_unit["Service"]["KillSignal"]))
            assert process.wait(timeout=stop_seconds) == 0
            assert time.monotonic() - began < 30  # nothing in hand: it stops at once
    finally:
        for process in (node, worker):
            if process.poll() is None:
                process.kill()
                process.wait()
    for log in logs.values():
        assert "Traceback" not in log.read_text(), log.read_text()
