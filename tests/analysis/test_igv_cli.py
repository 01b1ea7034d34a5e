"""``facturador igv TENANT YYYY-MM``: the month's Formulario Virtual 621 sales boxes of a tenant on the live
service, with the documents behind a box, and its refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from connector.builders import Customer, Invoice, Line
from facturador.cli import main
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.shops import new_shop


def test_the_boxes_of_a_month_and_the_documents_of_one(
    live: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))  # the closes the CLI reads
    shop = new_shop(live, "pdt")
    with shop.client() as client:
        factura = client.documents.issue(
            Invoice(
                customer=Customer.ruc("20601030013", "EMPRESA XYZ S.A.C."),
                lines=[Line("Asesoría", 2, unit_value=500)],
            )
        )
    tenants = tmp_path / "tenants.toml"
    tenants.write_text(
        f'[tenants.pdt]\nbase_url = "{shop.base_url}"\ntoken = "{shop.token}"\ncache = false\n'
    )
    month = f"{peru_today():%Y-%m}"
    done = CliRunner().invoke(main, ["igv", "pdt", month, "--tenants", str(tenants), "--box", "101"])
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    base = next(line for line in lines if line.strip().startswith("100 "))
    assert "S/         1,000.00" in base and "(1 documento)" in base
    assert any(line.strip().startswith("131 ") and line.endswith("S/           180.00") for line in lines)
    assert next(line for line in lines if line.strip().startswith("102 ")).endswith("(0 documentos)")
    listed = lines[lines.index("Casilla 101: Ventas netas gravadas (IGV)") + 1 :]
    assert len(listed) == 1 and factura.number in listed[0] and listed[0].endswith("S/         180.00")

    bad_box = CliRunner().invoke(main, ["igv", "pdt", month, "--tenants", str(tenants), "--box", "127"])
    assert bad_box.exit_code != 0 and "no sales box 127" in bad_box.output
    nobody = CliRunner().invoke(main, ["igv", "nobody", month, "--tenants", str(tenants)])
    assert nobody.exit_code != 0 and "no tenant 'nobody'" in nobody.output
    wrong = CliRunner().invoke(main, ["igv", "pdt", "noviembre", "--tenants", str(tenants)])
    assert wrong.exit_code != 0 and "YYYY-MM" in wrong.output
