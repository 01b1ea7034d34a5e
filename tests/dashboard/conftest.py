"""Fixtures of the dashboard tests: documents issued on the live service, tenants files, clean caches.

The dashboard reads its tenants from the TOML file of ``FACTURADOR_TENANTS``; each test gets a file that
points at the live service (``tests/conftest.py``'s ``live``) with the right token, a wrong token, or a
port where nothing listens.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from connector import Client
from connector.builders import Customer, Invoice, Line, Receipt
from connector.models import IssueResult
from tests.conftest import LiveService, free_port
from tests.connector.standin import standin  # noqa: F401  (fixture: a scripted real tenant)
from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, require_browser
from tests.samples.bodies import invoice_body
from tests.samples.tenants import ACME, ACME_TOKEN


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker of the browser tests (``-m "not browser"`` leaves them out)."""
    config.addinivalue_line("markers", "browser: end-to-end tests in headless Chromium (Playwright)")


@dataclass(frozen=True)
class Issued:
    """Documents issued for the dashboard tests (on tenant acme, today)."""

    invoices: list[IssueResult]
    receipt: IssueResult
    unsent: IssueResult
    customer: str

    @property
    def numbers(self) -> list[str]:
        return [r.number for r in (*self.invoices, self.receipt, self.unsent)]


@pytest.fixture(scope="session")
def issued(live: LiveService) -> Issued:
    """Two facturas of the sample body, a boleta and a factura not sent to SUNAT."""
    customer = f"CLIENTE DASHBOARD {uuid.uuid4().hex[:6].upper()}"
    with Client(live.base_url(ACME), ACME_TOKEN, cache=False) as client:
        invoices = [client.documents.issue(invoice_body()) for _ in range(2)]
        receipt = client.documents.issue(
            Receipt(
                customer=Customer.dni("46027862", "Juan Pérez Quispe"),
                lines=[
                    Line("Cuaderno A4", 3, unit_price=5.9),
                    Line("Bolsa", 1, unit_price=0.2, bag_tax=True),
                ],
            )
        )
        unsent = client.documents.issue(
            Invoice(
                customer=Customer.ruc("20601030013", customer),
                lines=[Line("Servicio de soporte", 1, unit_value=1000)],
                send=False,
            )
        )
    return Issued(invoices=invoices, receipt=receipt, unsent=unsent, customer=customer)


def write_tenants(path: Path, base_url: str, token: str, *, name: str = "ACME PERU S.A.C.") -> Path:
    """A tenants file with one tenant ``acme`` (cache off: every read reaches the service)."""
    path.write_text(
        f'[tenants.acme]\nname = "{name}"\nbase_url = "{base_url}"\ntoken = "{token}"\ncache = false\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture
def tenants(tmp_path: Path, live: LiveService, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``FACTURADOR_TENANTS`` pointing at the live service with acme's token."""
    path = write_tenants(tmp_path / "tenants.toml", live.base_url(ACME), ACME_TOKEN)
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    monkeypatch.setenv("FACTURADOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FACTURADOR_STORE_DIR", str(tmp_path / "stores"))
    return path


@pytest.fixture
def stored_tenants(tenants: Path) -> Path:
    """:func:`tenants` whose pages read from a local store (``store = true``; in a temporary folder)."""
    with tenants.open("a", encoding="utf-8") as file:
        file.write("store = true\n")
    return tenants


@pytest.fixture
def wrong_token(tmp_path: Path, live: LiveService, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``FACTURADOR_TENANTS`` with a token the service does not know."""
    path = write_tenants(tmp_path / "tenants.toml", live.base_url(ACME), "not-the-token-0000000000000000")
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    return path


@pytest.fixture
def service_down(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``FACTURADOR_TENANTS`` pointing at a loopback port where nothing listens."""
    path = write_tenants(tmp_path / "tenants.toml", f"http://127.0.0.1:{free_port()}/t/acme", ACME_TOKEN)
    monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
    return path


@pytest.fixture(autouse=True)
def _loopback_address() -> Iterator[None]:
    """AppTest runs the app in this process, as a dashboard listening on 127.0.0.1 would (its login gate
    reads ``server.address``)."""
    from streamlit import config

    previous = config.get_option("server.address")
    config.set_option("server.address", "127.0.0.1")
    yield
    config.set_option("server.address", previous)


@pytest.fixture(autouse=True)
def _clean_streamlit_caches() -> Iterator[None]:
    """AppTest runs the app in this process: Streamlit's caches must not leak between tests."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


# -- browser tests (tests/dashboard/browser.py) ----------------------------------------------------


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A Chromium context with a fresh user data directory."""
    profile = tmp_path_factory.mktemp("chromium-profile")
    sync_api = require_browser()
    # expect() waits 5 s unless told: as long as the pages' own waits, for a machine running the suite's
    # workers side by side (an issue through Streamlit and the service took longer than 5 s there)
    sync_api.expect.set_options(timeout=WAIT_MS)
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=False,  # --headless=new is in the arguments
            args=CHROMIUM_ARGS,
            viewport={"width": 1440, "height": 2000},
            locale="es-PE",
            timezone_id="America/Lima",
            accept_downloads=True,
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser_context: Any) -> Iterator[Any]:
    """A new tab."""
    tab = browser_context.new_page()
    tab.set_default_timeout(WAIT_MS)
    yield tab
    tab.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the screenshots go."""
    folder = tmp_path_factory.mktemp("screenshots")
    print(f"\nscreenshots: {folder}")
    return folder


@dataclass(frozen=True)
class History:
    """Back-dated documents for the analyst pages: a boleta ten days old never declared, a factura on
    credit whose first instalment is overdue, a factura in dollars, and a credit note on the credit one."""

    old_boleta: IssueResult
    credit: IssueResult
    dollars: IssueResult
    note: IssueResult
    unsent: IssueResult
    days_ago: int = 10


@pytest.fixture(scope="session")
def history(live: LiveService) -> Iterator[History]:
    """Issued on acme with back-dating allowed for a moment (then the tenant's settings are restored)."""
    import datetime as dt

    from connector.builders import CreditNote
    from sunat.calendar import peru_today

    today = peru_today()
    before = today - dt.timedelta(days=10)
    live.set_tenant(ACME, restrict_receipt_date=False, authority_check_deadlines=False)
    try:
        with Client(live.base_url(ACME), ACME_TOKEN, cache=False) as client:
            old_boleta = client.documents.issue(
                Receipt(
                    customer=Customer.dni("45781236", "MARIA FERNANDA LOPEZ RAMOS"),
                    lines=[Line("Arroz Costeño 5 kg", 2, unit_price="24.90")],
                    issue_date=before,
                )
            )
            credit = client.documents.issue(
                Invoice(
                    customer=Customer.ruc(CREDIT_RUC, "CLIENTE A CREDITO S.A.C."),
                    lines=[Line("Consultoría contable mensual", 1, unit_value=1000)],
                    issue_date=before,
                ),
                form_values={
                    "instalments.rows": [
                        {"date": (before + dt.timedelta(days=5)).isoformat(), "amount": 590},
                        {"date": (today + dt.timedelta(days=20)).isoformat(), "amount": 590},
                    ]
                },
            )
            dollars = client.documents.issue(
                Invoice(
                    customer=Customer.ruc("20601030013", "CLIENTE EN DOLARES S.A.C."),
                    lines=[Line("Monitor LG 24 pulgadas", 1, unit_value=500)],
                    currency="USD",
                    exchange_rate="3.725",
                    issue_date=today - dt.timedelta(days=2),
                )
            )
            note = client.documents.issue(
                CreditNote(
                    customer=Customer.ruc(CREDIT_RUC, "CLIENTE A CREDITO S.A.C."),
                    lines=[Line("Descuento por pronto pago", 1, unit_value=100)],
                    affected_external_id=credit.external_id,
                    note_type="04",
                    reason="Descuento global",
                    issue_date=today - dt.timedelta(days=1),
                )
            )
            unsent = client.documents.issue(
                Invoice(
                    customer=Customer.ruc(CREDIT_RUC, "CLIENTE SIN ENVIAR S.A.C."),
                    lines=[Line("Soporte", 1, unit_value=10)],
                    send=False,
                )
            )
    finally:
        live.set_tenant(ACME, restrict_receipt_date=True, authority_check_deadlines=True)
    yield History(old_boleta, credit, dollars, note, unsent)


#: The customer of :func:`history`'s credit sale: nobody else buys with this RUC.
CREDIT_RUC = "20456789120"
