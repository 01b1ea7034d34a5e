"""The Python examples of docs/ run as written against the demo: ``facturador demo`` is started as a user
starts it (its own data folder, no documents seeded, no dashboard) and each example is read from its page
and run in a fresh interpreter, in a temporary folder, with only the demo's address swapped for the
port the test gave it. The README's own examples are run by tests/test_readme.py."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import free_port

REPOSITORY = Path(__file__).resolve().parents[1]
DEMO_ROOT = "http://127.0.0.1:8000"  # where `bash scripts/demo.sh` serves
_SCRIPT = Path(sys.executable).with_name("facturador")
FACTURADOR = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "facturador.cli"]


def python_blocks(page: str) -> list[str]:
    """The ```python blocks of docs/PAGE, in order, their indentation (in a list item) removed."""
    text = (REPOSITORY / "docs" / page).read_text(encoding="utf-8")
    return [
        textwrap.dedent(match.group(2))
        for match in re.finditer(r"^( *)```python\n(.*?)^\1```", text, re.S | re.M)
    ]


def example(page: str, index: int = 0) -> str:
    code = python_blocks(page)[index]
    assert DEMO_ROOT in code, f"docs/{page}'s example no longer talks to the demo at {DEMO_ROOT}"
    return code


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``facturador demo`` on a free port; its root URL."""
    folder = tmp_path_factory.mktemp("demo")
    port = free_port()
    args = ["demo", "--data-dir", str(folder / "data"), "--port", str(port), "--workers", "1"]
    args += ["--documents", "0", "--no-dashboard", "--headless"]
    log = (folder / "demo.log").open("w")
    process = subprocess.Popen(
        [*FACTURADOR, *args],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300
        while "Running; Ctrl+C" not in (folder / "demo.log").read_text():
            assert process.poll() is None, (folder / "demo.log").read_text()
            assert time.monotonic() < deadline, (folder / "demo.log").read_text()
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


def run_example(code: str, root: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """Run ``code`` pointed at the demo at ``root``, in ``folder``; the caches and stores it keeps go to the
    test's folder."""
    folder.mkdir()
    private = {
        "HOME": str(folder / "home"),
        "XDG_CACHE_HOME": str(folder / "cache"),
        "XDG_DATA_HOME": str(folder / "data"),
        "XDG_CONFIG_HOME": str(folder / "config"),
        "FACTURADOR_STORE_DIR": str(folder / "store"),
    }
    return subprocess.run(
        [sys.executable, "-c", code.replace(DEMO_ROOT, root)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **private},
    )


@pytest.mark.slow(seconds=40)
def test_the_zeep_example_of_going_live_sends_a_factura_to_the_demos_sunat(demo: str, tmp_path: Path) -> None:
    pytest.importorskip("zeep")
    result = run_example(example("going_live.md"), demo, tmp_path / "zeep")

    assert result.returncode == 0, result.stderr
    assert "['R-20100066603-01-F001-" in result.stdout and "', 'dummy']" in result.stdout


@pytest.mark.slow(seconds=40)
def test_the_local_store_example_syncs_and_reads_the_demo(demo: str, tmp_path: Path) -> None:
    result = run_example(example("local_store.md"), demo, tmp_path / "store")

    assert result.returncode == 0, result.stderr
    assert any((tmp_path / "store" / "store").iterdir())  # the store, in the folder it was pointed at


@pytest.mark.slow(seconds=40)
def test_the_sales_register_example_writes_the_demos_register(demo: str, tmp_path: Path) -> None:
    result = run_example(example("sales_register.md"), demo, tmp_path / "register")

    assert result.returncode == 0, result.stderr
    written = sorted(path.name for path in (tmp_path / "register" / "registros").iterdir())
    assert any(name.startswith("LE") and "202603" in name and name.endswith(".TXT") for name in written), (
        written
    )
    assert any(name.endswith(".xlsx") for name in written), written
