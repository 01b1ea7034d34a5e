"""The exploration notebook runs top to bottom against a seeded service, finds the demo's tenants file the
README's way (no variable), and is committed without outputs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from connector import Client
from demo.seeding import seed
from facturador.domain.tenants import create_tenant
from tests.conftest import LiveService

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "explore_documents.ipynb"
NOTEBOOKS = sorted(NOTEBOOK.parent.glob("*.ipynb"))
TOKEN = "notebook-token-0123456789-abcdefghijklm"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_every_notebook_is_valid_for_the_nbformat_it_declares(path: Path) -> None:
    """Jupyter validates a notebook against the schema of its declared version (cell ids came in 4.5):
    ``jupyter nbconvert --execute`` logged «Notebook JSON is invalid» for a 4.4 file whose cells had ids."""
    notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    nbformat.validate(notebook)
    assert (notebook.nbformat, notebook.nbformat_minor) >= (4, 5)
    assert all(cell.get("id") for cell in notebook.cells)


def test_notebook_is_committed_without_outputs() -> None:
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


@pytest.fixture(scope="module")
def seeded(live: LiveService, tmp_path_factory: pytest.TempPathFactory) -> Path:
    with live.context.session() as session, session.begin():
        create_tenant(
            session,
            live.settings,
            "notebook",
            ruc="20512345671",
            name="CUADERNO S.A.C.",
            token=TOKEN,
            overrides={"restrict_receipt_date": False, "authority_check_deadlines": False},
        )
    report = seed(Client(live.base_url("notebook"), TOKEN, cache=False), 120, 30, seed=3)
    assert report.issued >= 110, report.summary()
    path = tmp_path_factory.mktemp("nb") / "tenants.toml"
    path.write_text(f'[tenants.notebook]\nbase_url = "{live.base_url("notebook")}"\ntoken_env = "NB_TOKEN"\n')
    return path


@pytest.mark.slow(seconds=85)
def test_notebook_runs_against_a_seeded_service(seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTURADOR_TENANTS", str(seeded))
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(seeded.parent / "stores"))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(seeded.parent / "cache"))  # the connector's HTTP cache
    monkeypatch.setenv("FACTURADOR_TENANT", "notebook")
    monkeypatch.setenv("FACTURADOR_DAYS", "40")
    monkeypatch.setenv("NB_TOKEN", TOKEN)
    monkeypatch.setenv("PLOTLY_RENDERER", "json")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": os.getcwd()}}
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    count = int(text.split(" documents from ")[0].split()[-1])
    assert count >= 100
    figures = [
        o
        for o in outputs
        if "application/vnd.plotly.v1+json" in o.get("data", {}) or "application/json" in o.get("data", {})
    ]
    assert len(figures) >= 3
    # the local store's cells: the year synced once, then nothing but what can still change
    assert "store: " in text and "again: " in text
    assert "casilla 131 (IGV de las ventas): S/ " in text  # the month's Formulario 621 boxes
    assert "[1/1] notebook" in text and "portfolio: 1 companies in " in text  # every company at once
    assert ", 0 unreachable" in text
    assert (seeded.parent / "stores").is_dir()


@pytest.mark.slow
def test_notebook_finds_the_demos_tenants_the_readmes_way(
    live: LiveService, seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After `bash scripts/demo.sh` (which writes .facturador/tenants.toml in the repository), Jupyter runs
    the notebook in notebooks/ with no variable set: it must find that file and connect."""
    repository = tmp_path / "repository"
    (repository / "notebooks").mkdir(parents=True)
    (repository / ".facturador").mkdir()
    (repository / ".facturador" / "tenants.toml").write_text(
        f'[tenants.demo]\nbase_url = "{live.base_url("notebook")}"\ntoken = "{TOKEN}"\n'
    )
    for name in ("FACTURADOR_TENANTS", "FACTURADOR_TENANT", "FACTURADOR_DATA_DIR", "FACTURADOR_DAYS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no user file
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PLOTLY_RENDERER", "json")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    notebook.cells = [cell for cell in notebook.cells if cell.cell_type == "code"][:2]  # connect, load
    NotebookClient(
        notebook,
        timeout=180,
        kernel_name="python3",
        resources={"metadata": {"path": str(repository / "notebooks")}},
    ).execute()
    outputs = [o for cell in notebook.cells for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert f"Tenants file: {repository / '.facturador' / 'tenants.toml'} · tenant: demo" in text
