"""Inicio and Resúmenes count the boletas not declared by one rule over the same documents: a boleta forty
days old (beyond the thirty days Resúmenes used to look at) is in both, each day with SUNAT's deadline."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from connector.builders import Customer, Line, Receipt
from sunat.calendar import peru_today
from tests.conftest import LiveService
from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_app import texts
from tests.dashboard.test_pages import page
from tests.shops import new_shop


@pytest.fixture
def boletas_tenants(tmp_path: Path, live: LiveService, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tenant of its own with boletas never declared, issued 40 and 3 days ago and today."""
    shop = new_shop(live, "resumenes", restrict_receipt_date=False, authority_check_deadlines=False)
    today = peru_today()
    with shop.client() as client:
        for days in (40, 3, 0):
            client.documents.issue(
                Receipt(
                    customer=Customer.dni("46027862", "Juan Pérez Quispe"),
                    lines=[Line("Cuaderno A4", 2, unit_price="5.90")],
                    issue_date=today - dt.timedelta(days=days),
                )
            )
    path = write_tenants(tmp_path / "tenants.toml", shop.base_url, shop.token)
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))
    return path


def test_inicio_and_resumenes_count_the_same_boletas_not_declared(boletas_tenants: Path) -> None:
    expected = "2 boletas o notas sin declarar de 2 días pasados (1 día fuera del plazo de 7 días)"
    today = peru_today()
    home = page(None)
    assert expected in texts(home.error)
    inicio = next(t.value for t in home.dataframe if "Plazo SUNAT" in t.value.columns)
    summaries = page("views/summaries.py")
    assert expected in texts(summaries.warning)
    days = next(t.value for t in summaries.dataframe if "Plazo SUNAT" in t.value.columns)
    # the same days, each with its deadline and where it stands
    assert (
        sorted(days["Fecha de emisión"])
        == sorted(inicio["Fecha de emisión"])
        == [
            today - dt.timedelta(days=40),
            today - dt.timedelta(days=3),
        ]
    )
    assert list(days["Situación"]) == ["Quedan 4 días", "Vencido hace 33 días"]  # newest first
    assert list(days["Plazo SUNAT"]) == [today + dt.timedelta(days=4), today - dt.timedelta(days=33)]
    assert list(days["Total"]) == ["S/ 11.80", "S/ 11.80"]
    # today's boleta is declared at the day's close: on the page's «Declarar un día», not late
    assert summaries.metric[0].label == "Boletas por declarar" and summaries.metric[0].value == "1"
