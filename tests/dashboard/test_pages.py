"""The analyst pages in AppTest against the live service: Inicio (alerts), Periodos, Registro de ventas,
Cuentas por cobrar, Buscar, and the login gate. Every page in its states: data, empty, not available."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import APP_PATH
from dashboard.auth import hash_password, verify_password
from sunat.calendar import peru_today
from tests.dashboard.conftest import History, Issued
from tests.dashboard.test_app import chart_figures, texts

TIMEOUT = 60


def page(path: str | None) -> AppTest:
    at = AppTest.from_file(str(APP_PATH), default_timeout=TIMEOUT)
    at.run()
    if path:
        at.switch_page(path).run()
    assert not at.exception, at.exception
    return at


def test_home_is_the_first_page_and_shows_the_alerts(tenants: Path, issued: Issued, history: History) -> None:
    at = page(None)
    assert at.title[0].value == "Inicio"
    warnings = texts(at.error) + texts(at.warning)
    # the boleta issued ten days ago and never declared: past SUNAT's 7 days
    assert "boleta o nota sin declarar" in warnings or "boletas o notas sin declarar" in warnings
    assert "fuera del plazo de 7 días" in warnings
    tables = [t.value for t in at.dataframe]
    boletas = next(t for t in tables if "Plazo SUNAT" in t.columns)
    late = boletas[boletas["Fecha de emisión"] == peru_today() - dt.timedelta(days=history.days_ago)]
    assert late.iloc[0]["Situación"] == "Vencido hace 3 días"
    # the factura issued without sending has no CDR
    cdr = next(t for t in tables if "Número" in t.columns and history.unsent.number in set(t["Número"]))
    assert len(cdr)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Importe total"].startswith("S/ ")


def test_periods_page_totals_comparison_and_charts(tenants: Path, issued: Issued, history: History) -> None:
    at = page("views/periods.py")
    assert at.title[0].value == "Periodos"
    # the month of the history's factura (issued ten days ago: on the 1st to the 10th, last month)
    issued_on = peru_today() - dt.timedelta(days=history.days_ago)
    month = next(m for m in at.selectbox(key="periods_month").options if m == f"{issued_on:%m/%Y}")
    at.selectbox(key="periods_month").set_value(month).run()
    assert not at.exception, at.exception
    titles = [figure["layout"]["title"]["text"] for figure in chart_figures(at)]
    assert len(titles) == 7
    assert any("Mezcla por afectación" in t for t in titles) and any("Tasa de rechazo" in t for t in titles)
    tables = [t.value for t in at.dataframe]
    by_type = next(t for t in tables if set(t["Grupo"]) >= {"Factura", "Boleta"})
    assert {"Valor de venta", "IGV", "ICBPER", "Importe total", "Periodo anterior", "Variación %"} <= set(
        by_type.columns
    )
    products = next(t for t in tables if "Producto" in t.columns)
    assert "Consultoría contable mensual" in set(products["Producto"])
    # a range with nothing in it
    at.segmented_control(key="periods_mode").set_value("Rango").run()
    long_ago = peru_today() - dt.timedelta(days=800)
    at.date_input(key="periods_range").set_value((long_ago, long_ago + dt.timedelta(days=3))).run()
    assert not at.exception
    assert "No hay documentos" in texts(at.info)


def _periods_month(at: AppTest, history: History) -> list:  # type: ignore[type-arg]
    issued_on = peru_today() - dt.timedelta(days=history.days_ago)
    month = next(m for m in at.selectbox(key="periods_month").options if m == f"{issued_on:%m/%Y}")
    at.selectbox(key="periods_month").set_value(month).run()
    assert not at.exception, at.exception
    return [t.value for t in at.dataframe]


def test_periods_customers_table_keeps_the_largest_and_offers_all_in_a_csv(
    tenants: Path, issued: Issued, history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dashboard import data

    whole = _periods_month(page("views/periods.py"), history)[
        3
    ]  # the tabs' tables: month, series, type, customer
    assert len(whole) >= 2, whole
    monkeypatch.setattr(data, "TABLE_ROWS", 1)
    at = page("views/periods.py")
    shown = _periods_month(at, history)[3]
    assert list(shown["Grupo"]) == [whole.sort_values("Valor de venta", ascending=False).iloc[0]["Grupo"]]
    assert f"los 1 clientes de mayor valor de venta de {len(whole):,}" in texts(at.caption)
    assert "CSV de todos los clientes" in {b.label for b in at.get("download_button")}


def _registered_late_this_month(tenants: Path) -> bool:
    """Whether acme has a document of an earlier month registered in this one within ``LATE_DAYS`` of
    its issue (the register's current rule). Registration is the service's ``created_at``, stamped by
    the database's clock, not the injected one: read from the service, so the test holds on any day."""
    import tomllib

    from analysis.register import LATE_DAYS
    from connector import Client
    from tests.samples.tenants import ACME_TOKEN

    base_url = tomllib.loads(tenants.read_text(encoding="utf-8"))["tenants"]["acme"]["base_url"]
    first = peru_today().replace(day=1)
    with Client(base_url, ACME_TOKEN, cache=False) as client:
        records = client.documents.list(first - dt.timedelta(days=LATE_DAYS), first - dt.timedelta(days=1))
    return any(
        r.created_at is not None
        and r.date_of_issue is not None
        and r.created_at.date() >= first
        and (r.created_at.date() - r.date_of_issue).days <= LATE_DAYS
        and r.created_at.date() < _next_month(first)
        for r in records
    )


def _next_month(first: dt.date) -> dt.date:
    return (first + dt.timedelta(days=32)).replace(day=1)


def test_register_page_builds_the_month(tenants: Path, issued: Issued, history: History) -> None:
    at = page("views/register.py")
    assert at.title[0].value == "Registro de ventas"
    labels = {b.label for b in at.get("download_button")}
    assert labels == {
        "PLE 14.1 (TXT)",
        "SIRE RVIE (ZIP)",
        "Excel",
        "PLE 14.2 simplificado (TXT)",
        "Ajustes SIRE 5.1 (ZIP)",
        "Ajustes SIRE 5.2 (ZIP)",
    }
    adjustments = [b for b in at.get("download_button") if b.label.startswith("Ajustes SIRE")]
    lines = at.dataframe[0].value
    # documents of an earlier month registered in this one within LATE_DAYS of their issue are this
    # month's state 8 lines, and only then are the adjustments offered
    late = _registered_late_this_month(tenants)
    assert ("8 · periodo anterior" in set(lines["Estado"])) == late
    assert all(b.proto.disabled != late for b in adjustments)
    if not late:
        assert "Sin líneas de periodos anteriores" in adjustments[0].proto.help
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Líneas PLE"].replace(",", "")) >= 3 and metrics["Importe total"].startswith("S/ ")
    assert metrics["Avisos antes de presentar"].isdigit()  # no empty card beside the line counts
    assert set(lines["Estado"]) <= {
        "1 · del periodo",
        "2 · anulado",
        "8 · periodo anterior",
        "9 · corrección",
    }
    assert issued.invoices[0].number.split("-")[1] in set(lines["Número"])
    assert any("aviso" in e.label for e in at.expander)  # the unsent factura, boletas not declared
    # an empty month far back
    at.selectbox(key="register_month").set_value(at.selectbox(key="register_month").options[-1]).run()
    assert not at.exception
    assert "el archivo PLE va vacío" in texts(at.info)


def test_receivables_page_ages_the_instalments(tenants: Path, history: History) -> None:
    at = page("views/receivables.py")
    assert at.title[0].value == "Cuentas por cobrar"
    aging = at.dataframe[0].value  # PEN first
    row = aging[aging["Cliente"] == "CLIENTE A CREDITO S.A.C."].iloc[0]
    # 1,180.00 in two instalments of 590.00, less the credit note of 118.00 (from the last one)
    assert row["0–30 días"] == 590.00  # due five days after an issue ten days ago
    assert row["Por vencer"] == 472.00
    assert row["Total"] == 1062.00 and row["Vencido"] == 590.00


def test_search_page_finds_and_checks_a_document(tenants: Path, issued: Issued) -> None:
    at = page("views/search.py")
    number = issued.invoices[0].number
    series, correlative = number.split("-")
    at.text_input(key="search_text").set_value(f"{series}-{int(correlative):08d}").run()  # zeros ignored
    assert list(at.dataframe[0].value["number"]) == [number]
    at.button(key="search_check").click().run()
    assert not at.exception, at.exception
    assert "Aceptado" in texts(at.success) and "SUNAT: 0" in texts(at.success)
    # by the customer's RUC, and by an amount
    at.text_input(key="search_text").set_value("20601030013").run()
    assert len(at.dataframe[0].value) >= 1
    at.text_input(key="search_text").set_value("999999.99").run()
    assert "No se encontró" in texts(at.info)


def test_search_page_checks_a_factura_without_cdr(tenants: Path, history: History) -> None:
    at = page("views/search.py")
    at.text_input(key="search_text").set_value(history.unsent.number).run()
    at.button(key="search_check").click().run()
    assert "Sin CDR" in texts(at.success) or "Sin CDR" in texts(at.error)


def test_the_dashboard_on_another_address_needs_a_login(tenants: Path) -> None:
    from streamlit import config

    config.set_option("server.address", "0.0.0.0")
    at = AppTest.from_file(str(APP_PATH), default_timeout=TIMEOUT).run()
    assert "no tiene inicio de sesión" in texts(at.error)
    assert not at.sidebar.selectbox  # no tenant, no token in sight

    stored = hash_password("clave-del-panel")
    assert verify_password("clave-del-panel", stored) and not verify_password("otra", stored)
    with tenants.open("a", encoding="utf-8") as file:
        file.write(f'\n[dashboard]\npassword_hash = "{stored}"\n')
    at = AppTest.from_file(str(APP_PATH), default_timeout=TIMEOUT).run()
    at.text_input(key="login_password").set_value("otra").run()
    at.button[0].click().run()
    assert "Contraseña incorrecta" in texts(at.error)
    at.text_input(key="login_password").set_value("clave-del-panel")
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Inicio"


@pytest.mark.parametrize("value", ["pbkdf2_sha256$x$y$z", "md5$1$2$3", ""])
def test_a_malformed_hash_never_matches(value: str) -> None:
    assert not verify_password("anything", value)
