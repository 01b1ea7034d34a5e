"""Fixtures of every test: a real service on a loopback port, with tenants, reached over HTTP.

The database is SQLite in a temporary data directory, or PostgreSQL when FACTURADOR_TEST_DATABASE_URL
points at a server (a fresh database is created per test session and dropped afterwards). The tenants
and the request bodies are in ``tests/samples``; tests that read SUNAT's published files are marked
``requires_shared`` and handled by ``tests/reference.py``.
"""

from __future__ import annotations

import atexit
import datetime as dt
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests import reference
from tests.clocks import FIXED_CLOCKS
from tests.samples.tenants import ACME, ACME_TOKEN, OTHER, OTHER_TOKEN, SERIES, TENANTS

if TYPE_CHECKING:  # the service (FastAPI, SQLAlchemy, uvicorn: seconds of imports) loads in ``live`` alone,
    # so a test file that never asks for it (tests/sunat, the UBL and render tests) starts in about a second
    import httpx

    from facturador.config import Settings
    from facturador.context import ServiceContext


#: The folder HOME and the XDG folders point at for the whole test session (set by the first process:
#: pytest-xdist's workers and every child process inherit it).
TEST_HOME_VARIABLE = "FACTURADOR_TEST_HOME"
_XDG = {"XDG_CONFIG_HOME": ".config", "XDG_CACHE_HOME": ".cache", "XDG_DATA_HOME": ".local/share"}
#: Entries of ``git status --porcelain --ignored`` a test run may add to the clone: Python's bytecode and
#: the caches of the tools a developer runs beside it, never a test's own files.
_TOOL_ENTRIES = ("__pycache__/", ".pytest_cache/", ".ruff_cache/", ".mypy_cache/")
_CLONE = Path(__file__).resolve().parents[1]
_STATUS_BEFORE = pytest.StashKey[set[str] | None]()


def _hermetic_home() -> None:
    """Point HOME and the XDG config, cache and data folders at a temporary folder before anything reads
    them: a test that forgets its own folders writes there, never in the user's ``~/.cache`` (the
    connector's HTTP cache, the local stores) nor reads their ``~/.config/facturador/tenants.toml``."""
    home = os.environ.get(TEST_HOME_VARIABLE)
    if not home:
        home = tempfile.mkdtemp(prefix="facturador-tests-home-")
        os.environ[TEST_HOME_VARIABLE] = home
        atexit.register(shutil.rmtree, home, ignore_errors=True)
    os.environ["HOME"] = home
    for name, folder in _XDG.items():
        os.environ[name] = os.path.join(home, folder)
        os.makedirs(os.environ[name], exist_ok=True)


_hermetic_home()
# the service never asks SUNAT's website for the day's exchange rate in tests: those that need it serve
# it on a loopback port and point FACTURADOR_EXCHANGE_RATE_URL there
os.environ["FACTURADOR_EXCHANGE_RATE_URL"] = "off"
os.environ.pop("FACTURADOR_DNI_PROVIDER_URL", None)


def _clone_status() -> set[str] | None:
    """What ``git status`` says of the clone, ignored files included (``None`` outside a git checkout)."""
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "--ignored"],
            cwd=_CLONE,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    # new files and folders only: a developer may edit tracked files while the tests run
    return {
        line
        for line in done.stdout.splitlines()
        if line.startswith(("??", "!!")) and not line.endswith(_TOOL_ENTRIES)
    }


def pytest_sessionstart(session: pytest.Session) -> None:
    """Remember the clone's ``git status`` (in the controlling process, not in xdist's workers)."""
    if not hasattr(session.config, "workerinput"):
        session.config.stash[_STATUS_BEFORE] = _clone_status()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when the tests left something in the clone (files a test wrote outside its temporary
    folders); what was there before (the demo's ``.facturador/``) is no concern."""
    if hasattr(session.config, "workerinput"):
        return
    before = session.config.stash.get(_STATUS_BEFORE, None)
    after = _clone_status() if before is not None else None
    if before is None or after is None or after <= before:
        return
    added = "\n".join(f"  {line}" for line in sorted(after - before))
    session.config.get_terminal_writer().line(
        f"\nThe tests wrote into the clone ({_CLONE}); write into tmp_path instead:\n{added}", red=True
    )
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(params=list(FIXED_CLOCKS.values()), ids=list(FIXED_CLOCKS))
def fixed_clock(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dt.datetime:
    """The test runs at each of tests/clocks.py's ``FIXED_CLOCKS`` (``FACTURADOR_CLOCK``: read by
    sunat.calendar in this process, the live service included, and in every process the test starts);
    the Lima instant. Such a test is marked ``date_sensitive``."""
    from sunat.calendar import CLOCK_VARIABLE, peru_now

    monkeypatch.setenv(CLOCK_VARIABLE, request.param)
    return peru_now()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests marked ``requires_shared`` skip (or fail, in CI) without the reference folder."""
    reference.apply_marker(item)


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Files holding tests marked ``slow`` run first, the longest first (a file weighs the sum of its slow
    tests' ``slow(seconds=...)``: about what each takes on a loaded 2-core machine; 1 when not said),
    then the files with the most tests (as pytest-xdist would order them); each file's tests keep their
    order. scripts/test.sh hands whole files to pytest-xdist workers in this order
    (``--no-loadscope-reorder``): a long file handed out last would run alone at the end while the
    other workers wait."""
    for item in items:
        if "fixed_clock" in getattr(item, "fixturenames", ()):
            item.add_marker("date_sensitive")
    weight: dict[Any, float] = {}
    for item in items:
        mark = item.get_closest_marker("slow")
        if mark is not None:
            weight[item.path] = weight.get(item.path, 0.0) + float(mark.kwargs.get("seconds", 1.0))
    count: dict[Any, int] = {}
    for item in items:
        count[item.path] = count.get(item.path, 0) + 1
    items.sort(key=lambda item: (-weight.get(item.path, 0.0), -count[item.path]))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _fresh_postgres(url: str) -> tuple[str, Any]:
    """Create a throw-away database on the server of ``url``; return its URL and a drop callback."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    name = f"facturador_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(parsed, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return parsed.set(database=name).render_as_string(hide_password=False), drop


@pytest.fixture
def fresh_settings(tmp_path: Path) -> Iterator[Settings]:
    """A data directory of the test's own on SQLite, or a fresh PostgreSQL database when the suite runs
    there (for tests that start ``facturador`` processes on a store of their own)."""
    from facturador.config import Settings

    drop = None
    database_url = None
    if os.environ.get("FACTURADOR_TEST_DATABASE_URL"):
        database_url, drop = _fresh_postgres(os.environ["FACTURADOR_TEST_DATABASE_URL"])
    yield Settings.resolve(tmp_path / "data", database_url)
    if drop is not None:
        drop()


class Clock:
    r"""The epoch seconds the live service's simulated SUNAT times its tickets with: real time plus what
    tests have advanced it by. A test that needs a ticket in process sets ``authority_ticket_delay``,
    watches it answer 98 (HTTP 202), then :meth:`advance`\ s past the delay instead of sleeping. Time only
    goes forward (other tests' tickets become ready sooner, never later)."""

    def __init__(self) -> None:
        self.offset = 0.0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the clock only goes forward")
        with self._lock:
            self.offset += seconds


#: The clock of this process's live service (one per test session, so one per xdist worker).
CLOCK = Clock()


@dataclass
class LiveService:
    """A running service: its context (for set-up only), its clock and how to reach each tenant over
    HTTP."""

    context: ServiceContext
    settings: Settings
    root: str
    clock: Clock

    def base_url(self, slug: str) -> str:
        return f"{self.root}/t/{slug}"

    def client(self, slug: str = ACME, token: str | None = ACME_TOKEN) -> httpx.Client:
        import httpx

        headers = {"Accept": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return httpx.Client(base_url=self.base_url(slug), headers=headers, timeout=60)

    def set_tenant(self, slug: str, **changes: Any) -> None:
        from facturador.domain.tenants import update_settings

        with self.context.session() as session, session.begin():
            update_settings(session, slug, changes)
        self.context._tenants.clear()


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    import uvicorn

    from facturador.app import create_app
    from facturador.config import Settings
    from facturador.context import ServiceContext
    from facturador.domain.tenants import add_series, create_tenant

    data_dir = tmp_path_factory.mktemp("data")
    drop = None
    database_url = None
    if os.environ.get("FACTURADOR_TEST_DATABASE_URL"):
        database_url, drop = _fresh_postgres(os.environ["FACTURADOR_TEST_DATABASE_URL"])
    settings = Settings.resolve(data_dir, database_url)
    clock = CLOCK
    context = ServiceContext(settings, clock=clock)
    with context.session() as session, session.begin():
        for tenant in TENANTS:
            create_tenant(
                session,
                settings,
                tenant.slug,
                ruc=tenant.ruc,
                name=tenant.name,
                token=tenant.token,
                **tenant.details,
            )
        for slug, doc_type, series, contingency in SERIES:
            add_series(session, slug, doc_type, series, contingency=contingency)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(context), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # seconds alone; a loaded machine may take much longer
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the service did not start")
        time.sleep(0.05)
    yield LiveService(context=context, settings=settings, root=f"http://127.0.0.1:{port}", clock=clock)
    server.should_exit = True
    thread.join(timeout=10)
    context.engine.dispose()
    if drop is not None:
        drop()


@pytest.fixture
def acme(live: LiveService) -> Iterator[httpx.Client]:
    with live.client(ACME, ACME_TOKEN) as client:
        yield client


@pytest.fixture
def other(live: LiveService) -> Iterator[httpx.Client]:
    with live.client(OTHER, OTHER_TOKEN) as client:
        yield client
