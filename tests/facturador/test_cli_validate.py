"""``facturador validate TENANT YYYY-MM``: the sweep of a month at the service's own validity simulator,
through an embedded server (as ``facturador seed`` runs), its progress kept in the data directory so a
rerun asks nothing twice; a wrong period or tenant is the user's error."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner, Result

from facturador.cli import main
from facturador.config import Settings
from sunat.calendar import peru_today

RUC = "20100066603"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def test_validate_sweeps_a_seeded_month_and_a_rerun_continues(fresh_settings: Settings) -> None:
    data = str(fresh_settings.data_dir)
    database = ["--database", fresh_settings.database_url] if fresh_settings.database_url else []
    storage = ["--data-dir", data, *database]
    assert run("tenant", "create", "acme", "--ruc", RUC, "--name", "ACME S.A.C.", *storage).exit_code == 0
    seeded = run("seed", "acme", "--documents", "12", "--days", "1", *storage)
    assert seeded.exit_code == 0, seeded.output
    period = peru_today().strftime("%Y-%m")

    first = run("validate", "acme", period, "--rate", "100", *storage)
    assert first.exit_code == 0, first.output
    checked = re.search(r"(\d+)/(\d+) documentos consultados \((\d+) de una corrida anterior", first.output)
    assert checked is not None and checked[1] == checked[2] and int(checked[1]) >= 12 and checked[3] == "0"
    assert "SUNAT y los libros coinciden" in first.output  # what the service sent is what SUNAT holds
    progress = Path(data) / "validity" / f"acme-{period}.jsonl"
    assert len(progress.read_text().splitlines()) == int(checked[1])

    again = run("validate", "acme", period, *storage)
    assert again.exit_code == 0, again.output
    assert f"({checked[1]} de una corrida anterior, 0 ahora" in again.output


def test_validate_refuses_a_wrong_period_or_tenant(fresh_settings: Settings) -> None:
    storage = ["--data-dir", str(fresh_settings.data_dir)]
    if fresh_settings.database_url:
        storage += ["--database", fresh_settings.database_url]
    assert run("tenant", "create", "acme", "--ruc", RUC, "--name", "ACME S.A.C.", *storage).exit_code == 0
    bad = run("validate", "acme", "2026-13", *storage)
    assert bad.exit_code == 2 and "YYYY-MM" in bad.output
    unknown = run("validate", "nobody", "2026-11", *storage)
    assert unknown.exit_code == 1 and "nobody" in unknown.output
