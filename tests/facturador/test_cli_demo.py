"""The ``facturador`` commands that start processes, run as a user runs them: ``kill`` (SIGTERM) of the
demo stops the service, its uvicorn workers and Streamlit, leaving no process and freeing the ports; a
taken port fails at once, naming the port, before anything starts; the demo starts unattended (no
terminal, a home where Streamlit never ran) and asks nothing."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from dashboard.seeding import PROGRESS_ENV, Progress, banner, read_progress, write_progress
from facturador.cli import DEMO_SLUG, ChildOutput, wait_until_ready
from facturador.config import Settings
from facturador.context import ServiceContext
from facturador.domain.tenants import get_tenant, tenant_settings
from tests.conftest import free_port

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc (Linux)"
)

_SCRIPT = Path(sys.executable).with_name("facturador")
#: The installed ``facturador`` command (the module when the console script is not next to the interpreter).
FACTURADOR = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "facturador.cli"]
READY = "Running; Ctrl+C"


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[1])  # the name in parentheses may hold spaces


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, grandchildren, ...)."""
    parents = {int(p.name): _parent_of(int(p.name)) for p in Path("/proc").iterdir() if p.name.isdigit()}
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def running(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return "?"


def port_is_free(port: int) -> bool:
    """A server could listen on 127.0.0.1:PORT now (bound as servers bind, with SO_REUSEADDR)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen()
        except OSError:
            return False
    return True


def answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=2).close()
    except OSError:
        return False
    return True


class Command:
    """A ``facturador`` command in a child process, its output (stdout and stderr) collected as it comes."""

    def __init__(self, *args: str, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [*FACTURADOR, *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,  # as `bash scripts/demo.sh </dev/null &`: no terminal to answer
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
            start_new_session=True,  # its own process group, so a failed test can clean up everything
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_for(self, text: str, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            if self.process.poll() is not None:
                self._reader.join(timeout=5)
                if text in self.output:
                    return
                pytest.fail(f"the command exited ({self.process.returncode}) before {text!r}:\n{self.output}")
            if time.monotonic() > deadline:
                pytest.fail(f"no {text!r} after {timeout} s:\n{self.output}")
            time.sleep(0.1)

    def stop(self, timeout: float = 60) -> int:
        """SIGTERM, as ``kill PID`` sends; the exit code."""
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return code


@pytest.fixture
def commands() -> Iterator[list[Command]]:
    """Commands started by a test; whatever a failed test leaves running (in their process groups, which
    their children share) is killed."""
    started: list[Command] = []
    yield started
    for command in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(command.process.pid, signal.SIGKILL)
        command.process.wait()


def assert_all_stopped(pids: set[int], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = {pid: command_line(pid) for pid in pids if running(pid)}
    assert not left, f"processes left behind: {left}"


def demo_args(data_dir: Path, port: int, *extra: str) -> list[str]:
    return ["demo", "--data-dir", str(data_dir), "--port", str(port), "--headless", *extra]


@pytest.mark.slow
def test_sigterm_stops_the_service_and_its_workers(tmp_path: Path, commands: list[Command]) -> None:
    port = free_port()
    demo = Command(
        *demo_args(tmp_path / "data", port, "--workers", "2", "--documents", "0", "--no-dashboard"),
        cwd=tmp_path,
    )
    commands.append(demo)
    demo.wait_for(READY)
    assert f"kill {demo.process.pid}" in demo.output
    assert answers(f"http://127.0.0.1:{port}/health")
    tree = descendants(demo.process.pid)
    assert len(tree) >= 3, f"expected the server process and its 2 workers, found {tree}"
    listed = run("tenant", "list", "--data-dir", str(tmp_path / "data"), cwd=tmp_path)
    assert f"base_url=http://127.0.0.1:{port}/t/demo\n" in listed.stdout  # where it runs, not 8000

    assert demo.stop() == 0

    assert_all_stopped(tree)
    assert port_is_free(port)
    assert not (tmp_path / "data" / "service.json").exists()  # the address of a service that stopped


@pytest.mark.slow
def test_sigterm_stops_the_dashboard_too(tmp_path: Path, commands: list[Command]) -> None:
    port, dashboard_port = free_port(), free_port()
    demo = Command(
        *demo_args(tmp_path / "data", port, "--workers", "1", "--documents", "0"),
        "--dashboard-port",
        str(dashboard_port),
        cwd=tmp_path,
    )
    commands.append(demo)
    demo.wait_for(READY)
    deadline = time.monotonic() + 60
    while not answers(f"http://127.0.0.1:{dashboard_port}/_stcore/health"):
        assert time.monotonic() < deadline, f"the dashboard did not answer:\n{demo.output}"
        time.sleep(0.2)
    tree = descendants(demo.process.pid)
    assert any("streamlit" in command_line(pid) for pid in tree)

    assert demo.stop() == 0

    assert_all_stopped(tree)
    assert port_is_free(port) and port_is_free(dashboard_port)


@pytest.mark.slow
def test_the_demo_starts_unattended_where_streamlit_never_ran(
    tmp_path: Path, commands: list[Command]
) -> None:
    """Without --headless (as `bash scripts/demo.sh` runs it), stdin at end of input, no display, a home
    without ~/.streamlit: Streamlit must not ask for an e-mail (it read EOF and exited 255) nor show its
    first-run notices, runs headless (there is nobody to open a browser for; trying left an
    ``[xdg-open] <defunct>`` child) and leaves no zombie; the dashboard keeps running."""
    home = tmp_path / "home"
    home.mkdir()
    port, dashboard_port = free_port(), free_port()
    args = ["demo", "--data-dir", str(tmp_path / "data"), "--port", str(port), "--workers", "1"]
    args += ["--documents", "0", "--dashboard-port", str(dashboard_port)]
    # BROWSER: the browser Streamlit opens is a command that does nothing (xdg-open and Python's
    # webbrowser both read it)
    demo = Command(*args, cwd=tmp_path, env={"HOME": str(home), "BROWSER": "true", "DISPLAY": ""})
    commands.append(demo)
    demo.wait_for(READY)
    deadline = time.monotonic() + 60
    while not answers(f"http://127.0.0.1:{dashboard_port}/_stcore/health"):
        assert demo.process.poll() is None, f"the demo stopped:\n{demo.output}"
        assert time.monotonic() < deadline, f"the dashboard did not answer:\n{demo.output}"
        time.sleep(0.2)
    time.sleep(2)  # a prompt that reads EOF fails at once: give it the time to
    assert demo.process.poll() is None, f"the demo stopped:\n{demo.output}"
    output = demo.output
    for asked in ("Email", "usage statistics", "Help agents"):
        assert asked not in output, output
    assert not (home / ".streamlit" / "credentials.toml").exists()
    tree = descendants(demo.process.pid)
    [streamlit] = [pid for pid in tree if "streamlit" in command_line(pid)]
    assert "--server.headless true" in command_line(streamlit)
    zombies = {pid: command_line(pid) for pid in tree if not running(pid) and Path(f"/proc/{pid}").exists()}
    assert not zombies, f"zombies left: {zombies}"

    assert demo.stop() == 0


@pytest.mark.slow(seconds=29)
def test_sigterm_while_seeding_stops_everything_and_restores_the_tenant(
    tmp_path: Path, commands: list[Command]
) -> None:
    data_dir = tmp_path / "data"
    port = free_port()
    demo = Command(
        *demo_args(data_dir, port, "--workers", "1", "--documents", "2000", "--no-dashboard"), cwd=tmp_path
    )
    commands.append(demo)
    demo.wait_for("Seeding 2000 documents")
    time.sleep(1)  # a few documents into the seed
    tree = descendants(demo.process.pid)

    assert demo.stop() == 0

    assert_all_stopped(tree)
    assert port_is_free(port)
    assert READY not in demo.output
    context = ServiceContext(Settings.resolve(data_dir))
    try:
        with context.session() as session:
            options = tenant_settings(get_tenant(session, DEMO_SLUG))
    finally:
        context.engine.dispose()
    # the seed lifts these for backdated history; a stopped demo must not leave them lifted
    assert options["restrict_receipt_date"] is True
    assert options["authority_check_deadlines"] is True


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port another process listens on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*FACTURADOR, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_demo_on_a_taken_port_fails_at_once(tmp_path: Path, taken_port: int) -> None:
    data_dir = tmp_path / "data"
    result = run(*demo_args(data_dir, taken_port, "--documents", "0", "--no-dashboard"), cwd=tmp_path)

    assert result.returncode != 0
    assert f"port {taken_port} on 127.0.0.1 is already in use" in result.stderr
    assert "--port" in result.stderr
    assert "Demo tenant base URL" not in result.stdout
    assert not (data_dir / "facturador.db").exists()  # it failed before touching anything


def test_demo_on_a_taken_dashboard_port_fails_at_once(tmp_path: Path, taken_port: int) -> None:
    data_dir = tmp_path / "data"
    service_port = free_port()
    args = demo_args(data_dir, service_port, "--documents", "0", "--dashboard-port", str(taken_port))
    result = run(*args, cwd=tmp_path)

    assert result.returncode != 0
    assert f"port {taken_port} on 127.0.0.1 is already in use, so the dashboard cannot start" in result.stderr
    assert "--dashboard-port" in result.stderr
    assert not (data_dir / "facturador.db").exists()
    assert port_is_free(service_port)


def test_serve_and_dashboard_on_a_taken_port_name_it(tmp_path: Path, taken_port: int) -> None:
    serve = run("serve", "--data-dir", str(tmp_path / "data"), "--port", str(taken_port), cwd=tmp_path)
    dashboard = run("dashboard", "--headless", "--port", str(taken_port), cwd=tmp_path)

    assert serve.returncode != 0
    assert f"port {taken_port} on 127.0.0.1 is already in use, so the service cannot start" in serve.stderr
    assert dashboard.returncode != 0
    taken = f"port {taken_port} on 127.0.0.1 is already in use, so the dashboard cannot start"
    assert taken in dashboard.stderr


def dying_site(folder: Path, code: str) -> dict[str, str]:
    """An environment whose Python runs ``code`` at start-up in ``facturador serve`` processes only (a
    ``sitecustomize`` module, which every interpreter imports), the other commands untouched."""
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(
        f"import sys\nif 'serve' in getattr(sys, 'orig_argv', ()):\n    {code}\n", encoding="utf-8"
    )
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))}


def test_a_service_that_dies_at_start_is_reported_with_its_reason_and_log(tmp_path: Path) -> None:
    """The demo's service exits before it answers: the demo says so at once, with the service's exit
    code, its last lines (the reason) and where its whole log is (it waited 60 s, then said only
    «the service did not start»)."""
    data_dir = tmp_path / "data"
    env = dying_site(
        tmp_path / "site",
        "sys.stderr.write('cannot open the database: disk full\\n'); sys.stderr.flush(); "
        "import os; os._exit(3)",
    )
    args = demo_args(data_dir, free_port(), "--documents", "0", "--no-dashboard")
    started = time.monotonic()
    result = subprocess.run(
        [*FACTURADOR, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
    took = time.monotonic() - started

    assert result.returncode != 0
    log = data_dir / "logs" / "service.log"
    assert "the service exited with code 3 before it answered" in result.stderr
    assert "cannot open the database: disk full" in result.stderr
    assert str(log) in result.stderr
    assert "cannot open the database: disk full" in log.read_text()
    assert (log.stat().st_mode & 0o777, log.parent.stat().st_mode & 0o777) == (0o600, 0o700)  # private
    assert took < 60, f"{took:.0f} s to notice"
    assert READY not in result.stdout


def child(tmp_path: Path, script: str) -> tuple[subprocess.Popen[bytes], ChildOutput]:
    process = subprocess.Popen(
        [sys.executable, "-u", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path
    )
    return process, ChildOutput(process, tmp_path / "logs" / "child.log", echo=False)


SERVE_HEALTH = (
    "import http.server, functools, os; os.makedirs('www', exist_ok=True); open('www/health', 'w').close()\n"
    "handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory='www')\n"
    "http.server.HTTPServer(('127.0.0.1', {port}), handler).serve_forever()\n"
)


def test_a_slow_start_is_waited_for_while_the_service_works(tmp_path: Path) -> None:
    """A service that takes longer than the stall bound to answer, but keeps working (here it writes a
    line now and then, as migrations and imports use CPU), is waited for; the demo says it still waits."""
    port = free_port()
    script = "import time\nfor i in range(12):\n    print('migrating', i); time.sleep(0.25)\n"
    process, output = child(tmp_path, script + SERVE_HEALTH.format(port=port))
    said: list[str] = []
    try:
        wait_until_ready(
            process,
            f"http://127.0.0.1:{port}/health",
            output,
            "the service",
            stall_seconds=1.5,
            report_seconds=1,
            say=said.append,
        )
        assert process.poll() is None
        assert any("Still waiting for the service" in line for line in said)
        assert "migrating 11" in (tmp_path / "logs" / "child.log").read_text()
    finally:
        process.kill()
        process.wait()


def test_a_service_without_progress_is_given_up_naming_why(tmp_path: Path) -> None:
    process, output = child(tmp_path, "import time; print('waiting for a lock'); time.sleep(120)")
    try:
        with pytest.raises(click.ClickException) as failed:
            wait_until_ready(
                process, f"http://127.0.0.1:{free_port()}/health", output, "the service", stall_seconds=2
            )
        message = failed.value.message
        assert "showed no progress (no output, no CPU time) for 2 s" in message
        assert str(tmp_path / "logs" / "child.log") in message
        assert process.wait(timeout=30) is not None  # stopped, not left behind
    finally:
        process.kill()
        process.wait()


@pytest.mark.slow(seconds=40)
def test_the_dashboard_answers_while_the_demo_seeds_and_shows_how_far(
    tmp_path: Path, commands: list[Command]
) -> None:
    """The dashboard starts before the seeding (it answered only after it, 564 s at load 16); the
    seeding keeps its progress where the dashboard reads it, and says it as it goes without a terminal."""
    data_dir = tmp_path / "data"
    port, dashboard_port = free_port(), free_port()
    args = ["demo", "--data-dir", str(data_dir), "--port", str(port), "--workers", "1", "--headless"]
    args += ["--documents", "2000", "--dashboard-port", str(dashboard_port)]
    demo = Command(*args, cwd=tmp_path)
    commands.append(demo)
    demo.wait_for("Seeding 2000 documents", timeout=180)
    assert "Dashboard: http://127.0.0.1:" in demo.output
    deadline = time.monotonic() + 120
    while not answers(f"http://127.0.0.1:{dashboard_port}/_stcore/health"):
        assert time.monotonic() < deadline, f"the dashboard did not answer:\n{demo.output}"
        time.sleep(0.2)
    progress_file = data_dir / "seeding.json"
    deadline = time.monotonic() + 120
    while (progress := read_progress(progress_file)) is None or progress.done == 0:
        assert time.monotonic() < deadline, f"no progress kept:\n{demo.output}"
        time.sleep(0.2)
    assert READY not in demo.output  # still seeding
    assert progress.total == 2000 and progress.stage == "Issuing"
    assert progress_file.stat().st_mode & 0o777 == 0o600  # in the data directory: its owner's only
    tree = descendants(demo.process.pid)
    [streamlit] = [pid for pid in tree if "streamlit" in command_line(pid)]
    environment = Path(f"/proc/{streamlit}/environ").read_bytes().split(b"\0")
    assert f"{PROGRESS_ENV}={progress_file}".encode() in environment
    demo.wait_for("Seeding: 200/2000 documents issued.", timeout=300)

    assert demo.stop() == 0
    assert not progress_file.exists()  # a stopped seeding leaves no progress to show
    assert_all_stopped(tree)


def test_the_pages_show_the_seedings_progress_while_it_lasts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []

    class Page:
        def info(self, text: str, **_: object) -> None:
            shown.append(text)

    path = tmp_path / "seeding.json"
    monkeypatch.setenv(PROGRESS_ENV, str(path))
    banner(Page())
    assert shown == []  # no seeding

    write_progress(path, Progress("Issuing", 1234, 3000))
    banner(Page())
    assert shown == [
        "La demo aún está cargando sus datos (emitiendo documentos: 1,234 de 3,000 documentos). "
        "Las páginas muestran lo emitido hasta ahora; vuelva a cargarlas para ver más."
    ]
    path.write_text("{half a fi", encoding="utf-8")
    banner(Page())
    assert len(shown) == 1  # an unreadable file shows nothing rather than failing the page
