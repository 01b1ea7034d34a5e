"""«Cartera de empresas» in AppTest against the live service: one row per company of the tenants file,
sorted by SUNAT's due date, the company that cannot be reached flagged while the others show."""

from __future__ import annotations

from pathlib import Path

import pytest

from connector.builders import Customer, Invoice, Line
from sunat.calendar import peru_today
from tests.conftest import LiveService, free_port
from tests.dashboard.test_app import texts
from tests.dashboard.test_pages import page
from tests.shops import new_shop


def test_one_row_per_company_and_the_unreachable_one_flagged(
    live: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shops = [new_shop(live, f"cart{n}", send_auto=False) for n in range(3)]
    with shops[0].client() as client:
        client.documents.issue(
            Invoice(customer=Customer.ruc("20601030013", "XYZ S.A.C."), lines=[Line("Asesoría", 1, 10)])
        )
    text = ""
    for shop in shops:
        text += f'[tenants.{shop.slug}]\nname = "{shop.slug.upper()}"\nbase_url = "{shop.base_url}"\n'
        text += f'token = "{shop.token}"\nruc = "{shop.ruc}"\ncache = false\n'
    down = f"http://127.0.0.1:{free_port()}/t/gone"  # nothing listens there
    text += f'[tenants.gone]\nname = "EMPRESA CAIDA"\nbase_url = "{down}"\ntoken = "{"x" * 40}"\n'
    text += 'ruc = "20100066600"\ncache = false\n'
    path = tmp_path / "tenants.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))

    at = page("views/portfolio.py")
    assert at.title[0].value == "Cartera de empresas"
    assert "EMPRESA CAIDA" in texts(at.warning) and "no respondió" in texts(at.warning)
    (table,) = [t.value for t in at.dataframe]
    assert len(table) == 4 and set(table["Empresa"]) == {*(s.slug.upper() for s in shops), "EMPRESA CAIDA"}
    known = table["Vence"].dropna()
    assert list(known) == sorted(known)  # what is due first, first
    gone = table[table["Empresa"] == "EMPRESA CAIDA"].iloc[0]
    assert gone["Conexión"].startswith("⚠ El servicio no responde en http://127.0.0.1:")
    first = table[table["Empresa"] == shops[0].slug.upper()].iloc[0]
    assert (first["Conexión"], first["Facturas sin CDR"], first["RUC"]) == ("ok", 1, shops[0].ruc)
    assert first["Diferencias de validez"] == "no disponible"
    assert f"Periodo {peru_today():%m/%Y} · 4 empresas" in texts(at.caption)
