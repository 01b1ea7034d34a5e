"""Which data a ``facturador`` command works on: ``--data-dir`` and ``--database`` before or after the
subcommand, then the environment, then the demo's ``.facturador/`` found from the working folder up,
then the user's data folder; a command that only reads creates nothing and says where it looked; the
tenants' base URLs are those of the service running on the data, or said to be the default."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from facturador.cli import main
from facturador.config import DATA_DIR_ENV, DATABASE_URL_ENV, SERVICE_ADDRESS_FILE, ServiceAddress
from facturador.store.secrets import Vault

RUC = "20100066603"


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with no data around it, the user's folders inside the test's own."""
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def create(data_dir: Path, slug: str = "acme") -> None:
    done = run("tenant", "create", slug, "--ruc", RUC, "--name", "ACME S.A.C.", "--data-dir", str(data_dir))
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize(
    "command",
    [["tenant", "list"], ["jobs"], ["send-pending", "--dry-run"], ["sunat-fault", "list"]],
    ids=" ".join,
)
def test_a_read_only_command_creates_nothing_and_says_where_it_looked(
    place: Path, command: list[str]
) -> None:
    done = run(*command)

    assert done.exit_code == 1, done.output
    assert "no facturador data found (this command only reads, so it creates none)" in done.stderr
    assert f"a .facturador/ in {place / 'work'} and the folders above it" in done.stderr
    assert str(place / "xdg-data" / "facturador") in done.stderr
    assert not (place / "xdg-data").exists()  # no database, no secret.key in the user's data folder
    assert list((place / "work").iterdir()) == []


def test_a_read_only_command_on_a_named_empty_folder_creates_nothing(place: Path) -> None:
    done = run("tenant", "list", "--data-dir", str(place / "nothing"))

    assert done.exit_code == 1
    assert f"looked in {place / 'nothing'} (--data-dir)" in done.stderr
    assert not (place / "nothing").exists()


def test_a_command_in_the_clone_finds_the_demos_data(place: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = place / "clone"
    create(clone / ".facturador")
    (clone / "docs").mkdir()
    monkeypatch.chdir(clone / "docs")

    done = run("tenant", "list")

    assert done.exit_code == 0, done.output
    assert f"acme                 {RUC}" in done.stdout
    assert f"Data directory: {clone / '.facturador'} (the demo's, found from {clone / 'docs'})" in done.stderr
    assert not (place / "xdg-data").exists()


def test_data_dir_and_database_go_before_the_subcommand_too(
    place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one secret key for both: a database is opened only with the key its tenants' keys were saved with
    monkeypatch.setenv("FACTURADOR_SECRET_KEY", Vault.new_key())
    first, second = place / "first", place / "second"
    create(first, "one")
    create(second, "two")

    before = run("--data-dir", str(first), "tenant", "list")
    both = run("--data-dir", str(first), "tenant", "list", "--data-dir", str(second))
    database = run("--database", f"sqlite:///{second / 'facturador.db'}", "--data-dir", str(first), "jobs")

    assert before.exit_code == 0, before.output
    assert "one " in before.stdout and "two " not in before.stdout
    assert both.exit_code == 0 and "two " in both.stdout and "one " not in both.stdout  # after it wins
    assert database.exit_code == 0, database.output


def test_the_base_url_is_the_running_services_or_said_to_be_the_default(place: Path) -> None:
    data_dir = place / "data"
    create(data_dir)

    idle = run("tenant", "list", "--data-dir", str(data_dir))
    ServiceAddress("127.0.0.1", 8200, os.getpid()).keep(data_dir)  # a service running on the data
    served = run("tenant", "list", "--data-dir", str(data_dir))
    ServiceAddress("127.0.0.1", 8200, 2**22 + 1).keep(data_dir)  # one that died without cleaning up
    dead = run("tenant", "list", "--data-dir", str(data_dir))

    default = "base_url=http://127.0.0.1:8000/t/acme (the default address: no service runs on this data"
    assert default in idle.stdout
    assert "base_url=http://127.0.0.1:8200/t/acme\n" in served.stdout
    assert default in dead.stdout
    assert (data_dir / SERVICE_ADDRESS_FILE).exists()


def test_the_base_urls_are_every_running_nodes_even_after_the_last_one_was_killed(place: Path) -> None:
    """Nodes on one data directory each keep their address: the last started being killed (its file left
    behind) does not hide the others, and tenant list names each one's port, never 8000."""
    data_dir = place / "data"
    create(data_dir)
    ServiceAddress("127.0.0.1", 8201, os.getpid()).keep(data_dir)
    ServiceAddress("127.0.0.1", 8202, os.getpid()).keep(data_dir)
    ServiceAddress("127.0.0.1", 8203, 2**22 + 1).keep(data_dir)  # killed: its files stay
    listed = run("tenant", "list", "--data-dir", str(data_dir))
    assert "base_url=http://127.0.0.1:8201/t/acme (also http://127.0.0.1:8202/t/acme)\n" in listed.stdout
    ServiceAddress("127.0.0.1", 8202, os.getpid()).forget(data_dir)
    assert (
        "base_url=http://127.0.0.1:8201/t/acme\n" in run("tenant", "list", "--data-dir", str(data_dir)).stdout
    )
