"""The analyst pages in AppTest against the live service: Inicio (alerts), Periodos, Registro de ventas,
Cuentas por cobrar, Buscar, and the login gate. Every page in its states: data, empty, not available."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import APP_PATH
from dashboard.auth import hash_password, verify_password
from sunat.calendar import LIMA, peru_today
from tests.conftest import LiveService
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
    by_type = next(
        t for t in tables if "Tipo de documento" in t and set(t["Tipo de documento"]) >= {"Factura", "Boleta"}
    )
    # every table is headed by what it groups; the customers' has their RUC or DNI, largest first
    customers = next(t for t in tables if "Cliente" in t.columns)
    assert list(customers.columns[:2]) == ["RUC/DNI", "Cliente"] and "Grupo" not in customers
    assert list(customers["Valor de venta"]) == sorted(customers["Valor de venta"], reverse=True)
    assert all(str(n).isdigit() or n == "-" for n in customers["RUC/DNI"])
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
    assert list(shown["Cliente"]) == [whole.iloc[0]["Cliente"]]  # the largest (the table is sorted so)
    assert f"los 1 clientes de mayor valor de venta de {len(whole):,}" in texts(at.caption)
    assert "CSV de todos los clientes" in {b.label for b in at.get("download_button")}


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
    lines = next(t.value for t in at.dataframe if "Estado" in t.value.columns)
    # the history's documents were issued up to ten days ago and registered today: each is its own
    # month's (no month was closed), so this month has no state 8 line and no adjustments are offered
    assert "8 · periodo anterior" not in set(lines["Estado"])
    assert all(b.proto.disabled for b in adjustments)
    assert "Sin líneas de periodos anteriores" in adjustments[0].proto.help
    # before any download: what the month holds and what not, and its figures against Documentos'
    contents = texts(at.markdown)
    assert (
        "**En el registro:**" in contents
        and "**Fuera de este registro:** ningún documento del mes." in contents
    )
    assert "**Aún sin CDR:**" in contents and history.unsent.number in contents
    assert "**Boletas sin resumen diario:**" in contents
    reconciled = next(t.value for t in at.dataframe if "Documentos (ventas del mes)" in t.value.columns)
    assert list(reconciled["Cifra"]) == ["Valor de venta", "IGV", "Importe total"]
    agrees = texts(at.success)
    assert "El registro cuadra con Documentos al céntimo" in agrees, texts(at.warning)
    if set(reconciled["Diferencia"]) != {0.0}:  # another test of the session changed a document by hand
        assert "una vez explicadas las diferencias de arriba" in agrees, agrees
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
    # the table names the types (the files keep SUNAT's codes); no file path reaches the accountant
    assert (
        {"Factura", "Boleta de venta"}
        <= set(lines["Tipo de comprobante"])
        <= {
            "Factura",
            "Boleta de venta",
            "Nota de crédito",
            "Nota de débito",
        }
    )
    assert "docs/" not in texts(at.caption) and "Reglas y decisiones" not in texts(at.caption)
    period = next(c for c in at.caption if "Importes en soles" in c.value)
    assert "estado 8" in str(period.proto.help) and "docs/" not in str(period.proto.help)
    assert any("aviso" in e.label for e in at.expander)  # the unsent factura, boletas not declared
    # an empty month far back
    at.selectbox(key="register_month").set_value(at.selectbox(key="register_month").options[-1]).run()
    assert not at.exception
    assert "el archivo PLE va vacío" in texts(at.info)


def lima_date(epoch: float) -> dt.date:
    """The Lima date of ``epoch`` seconds."""
    return dt.datetime.fromtimestamp(epoch, LIMA).date()


def test_register_page_names_the_documents_whose_state_was_set_by_hand(
    tenants: Path, live: LiveService
) -> None:
    """A factura of this month whose state was changed by hand is named on the page, before any
    download: who, when, from which state to which, and why (and so among the warnings)."""
    from connector import Client
    from tests.samples.bodies import invoice_body
    from tests.samples.tenants import ACME, ACME_TOKEN

    with Client(live.base_url(ACME), ACME_TOKEN, cache=False) as client:
        factura = client.documents.issue(invoice_body())
        client.documents.update_status(factura.external_id, "07", reason="observación leída en el CDR")
    at = page("views/register.py")
    contents = texts(at.markdown)
    assert "**Estado cambiado a mano:**" in contents, contents
    said = re.search(
        rf"{re.escape(factura.number)}: estado cambiado a mano el (\d\d/\d\d/\d{{4}} \d\d:\d\d) por "
        r"Administrador, de Aceptado a Observado: «observación leída en el CDR»; no se informó a SUNAT\.",
        contents,
    )
    assert said, contents
    # the audit time is the service's (its clock: real time, in the fixed-clock runs too), in Lima
    assert dt.datetime.strptime(said.group(1), "%d/%m/%Y %H:%M").date() == lima_date(live.clock())
    assert f"- {said.group(0)}" in [m.value for m in at.markdown]  # among the warnings before filing


def test_register_page_closes_a_past_month(tenants: Path, issued: Issued) -> None:
    """«Cerrar el mes» of a month that has ended records its close (beside the tenant's store, shared with
    ``facturador register``); the month then says when it was closed; the current month cannot be."""
    import os
    import tomllib

    from connector.closes import MonthCloses
    from connector.store import closes_path

    at = page("views/register.py")
    assert "Mes en curso" in texts(at.caption)
    counted = re.search(r"\*\*En el registro:\*\* ([\d,]+) documentos? del mes", texts(at.markdown))
    assert counted, texts(at.markdown)
    at.toggle(key="register_consolidate").set_value(True).run()  # boletas summed a line a range: the same
    assert f"**En el registro:** {counted.group(1)} documento" in texts(at.markdown)
    assert not [b for b in at.button if b.key == "register_close"]  # this month has not ended
    last = at.selectbox(key="register_month").options[1]
    at.selectbox(key="register_month").set_value(last).run()
    assert not at.exception, at.exception
    assert at.button(key="register_close").proto.disabled  # until the box says the register was filed
    at.checkbox(key="register_close_sure").check().run()
    at.text_input(key="register_close_note").input("PLE presentado").run()
    at.button(key="register_close").click().run()
    assert not at.exception, at.exception
    assert "Mes cerrado el" in texts(at.caption) and "PLE presentado" in texts(at.caption)
    assert not [b for b in at.button if b.key == "register_close"]
    base_url = tomllib.loads(tenants.read_text(encoding="utf-8"))["tenants"]["acme"]["base_url"]
    (closed,) = MonthCloses(closes_path(base_url, os.environ["FACTURADOR_STORE_DIR"])).records()
    month, year = last.split("/")  # the option as shown: 11/2026
    assert (closed.period, closed.source, closed.note) == (f"{year}-{month}", "manual", "PLE presentado")


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
